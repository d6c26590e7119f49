//go:build !unix

package main

func (a *app) runBinary(bin string, args []string) error { return a.runBinaryChild(bin, args) }
