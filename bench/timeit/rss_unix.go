//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSS is the process's peak resident memory in KiB (Linux counts
// ru_maxrss in KiB, macOS in bytes).
func maxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) / 1024
	}
	return int64(ru.Maxrss)
}
