// Command timeit runs a command once, its output discarded, and prints its
// wall time and CPU time (user + system) in seconds and its peak resident
// memory in KiB, as the kernel counts it for the process (getrusage): what
// bench/replay.sh uses where /usr/bin/time is missing.
//
//	timeit CMD [ARG...]
package main

import (
	"fmt"
	"os"
	"os/exec"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: timeit CMD [ARG...]")
		os.Exit(2)
	}
	c := exec.Command(os.Args[1], os.Args[2:]...)
	start := time.Now()
	err := c.Run()
	wall := time.Since(start)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	cpu := c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	fmt.Printf("%.3f %.3f %d\n", wall.Seconds(), cpu.Seconds(), maxRSS(c.ProcessState))
}
