//go:build !unix

package main

import (
	"os"
	"time"
)

func usage(*os.ProcessState) (float64, time.Duration, bool) { return 0, 0, false }
