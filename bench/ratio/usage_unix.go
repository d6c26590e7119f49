//go:build unix

package main

import (
	"os"
	"syscall"
	"time"
)

// usage is a finished process's minor page faults and CPU time.
func usage(ps *os.ProcessState) (float64, time.Duration, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, 0, false
	}
	return float64(ru.Minflt), time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
