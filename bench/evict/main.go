// Command evict writes each FILE's dirty pages to disk and drops the file
// from the page cache, so that the next process to run it reads it back
// from disk as it would after a reboot, or once the kernel has let an idle
// binary's pages go: the state an installed hook is in most of the time.
// bench/hook.sh measures the hook in that state beside the state of a
// binary just copied (its pages still those the copy wrote).
//
//	go run ./bench/evict FILE...
//
// It prints how many of each file's pages were resident before and after,
// and exits 1 if any stayed.
// Only Linux drops a file's pages on request; elsewhere it says so and
// exits 1.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: evict FILE...")
		os.Exit(2)
	}
	failed := false
	for _, p := range os.Args[1:] {
		before, after, err := evict(p)
		if err != nil {
			fmt.Fprintf(os.Stderr, "evict %s: %v\n", p, err)
			failed = true
			continue
		}
		fmt.Printf("%s: %d pages resident, %d after\n", p, before, after)
		if after > 0 {
			fmt.Fprintf(os.Stderr, "evict %s: %d pages still in the page cache (mapped by a running process?)\n", p, after)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}
