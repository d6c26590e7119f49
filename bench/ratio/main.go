// Command ratio times hook commands interleaved — one run of each per
// round, in an order shuffled every round — so machine drift hits all of
// them alike, and prints median, mean and 99th-percentile wall time per
// call and each one's ratio to the first (the baseline), and (on Unix)
// each one's mean minor page faults and CPU time (user and system, all
// threads) per call, from the process's rusage: the two costs a
// short-lived hook is made of.
//
//	go run ./bench/ratio -runs 500 -stdin payload.json NAME=CMD [NAME=CMD...]
//
// Each CMD is split on spaces; VAR=value words before the program set its
// environment, and a last word <FILE feeds it FILE in place of -stdin's
// (so that commands with payloads of their own run interleaved in one run).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"
)

func main() {
	runs := flag.Int("runs", 300, "rounds")
	warm := flag.Int("warmup", 20, "warm-up rounds, not counted")
	stdin := flag.String("stdin", "", "file fed to each command's stdin")
	flag.Parse()
	var payload []byte
	if *stdin != "" {
		b, err := os.ReadFile(*stdin)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		payload = b
	}
	type bench struct {
		name  string
		env   []string
		argv  []string
		stdin []byte
		times []time.Duration
		flt   float64 // summed over the counted runs
		cpu   time.Duration
	}
	var bs []*bench
	for _, a := range flag.Args() {
		name, cmd, ok := strings.Cut(a, "=")
		if !ok {
			fmt.Fprintln(os.Stderr, "want NAME=CMD, got", a)
			os.Exit(2)
		}
		b := &bench{name: name, env: os.Environ(), stdin: payload}
		for _, w := range strings.Fields(cmd) {
			if len(b.argv) == 0 && strings.Contains(w, "=") {
				b.env = append(b.env, w)
				continue
			}
			if f, ok := strings.CutPrefix(w, "<"); ok && len(b.argv) > 0 {
				in, err := os.ReadFile(f)
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				b.stdin = in
				continue
			}
			b.argv = append(b.argv, w)
		}
		bs = append(bs, b)
	}
	// Each round runs the commands in a new order (a fixed seed: the same
	// orders every run). A fixed rotation gave every command the same
	// predecessor round after round, and what ran just before a command
	// (the same binary, warm in the caches, or another, or a snapshot
	// server's work) moved its time by more than what is measured here.
	order := make([]int, len(bs))
	for i := range order {
		order[i] = i
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for r := 0; r < *warm+*runs; r++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, k := range order {
			b := bs[k]
			c := exec.Command(b.argv[0], b.argv[1:]...)
			c.Env = b.env
			c.Stdin = bytes.NewReader(b.stdin)
			start := time.Now()
			if err := c.Run(); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", b.name, err)
				os.Exit(1)
			}
			if r >= *warm {
				b.times = append(b.times, time.Since(start))
				if f, cpu, ok := usage(c.ProcessState); ok {
					b.flt += f
					b.cpu += cpu
				}
			}
		}
	}
	stat := func(ts []time.Duration) (time.Duration, time.Duration, time.Duration) {
		s := append([]time.Duration(nil), ts...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		var sum time.Duration
		for _, t := range s {
			sum += t
		}
		return s[len(s)/2], sum / time.Duration(len(s)), s[(len(s)*99)/100]
	}
	baseMed, baseMean, _ := stat(bs[0].times)
	fmt.Printf("%-44s %10s %10s %10s %8s %8s %7s %8s\n", "command", "median", "mean", "p99", "×median", "×mean", "faults", "cpu")
	for _, b := range bs {
		med, mean, p99 := stat(b.times)
		n := float64(len(b.times))
		fmt.Printf("%-44s %10s %10s %10s %8.2f %8.2f %7.1f %8s\n", b.name, med.Round(time.Microsecond), mean.Round(time.Microsecond), p99.Round(time.Microsecond),
			float64(med)/float64(baseMed), float64(mean)/float64(baseMean), b.flt/n, (b.cpu / time.Duration(len(b.times))).Round(time.Microsecond))
	}
}
