//go:build !unix

package main

func (a *app) runExport(bin string, args []string) error { return a.runExportChild(bin, args) }
