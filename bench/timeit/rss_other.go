//go:build !unix

package main

import "os"

// maxRSS is not known here.
func maxRSS(*os.ProcessState) int64 { return 0 }
