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
//
// -copies N runs each program from N copies of itself, one after another
// round by round (commands that run one program share its copies, as they
// would share an installed file). Two copies of one binary made a second
// apart can differ here by 5% for as long as they stay in the page cache
// (where their pages landed), more than the differences measured; N
// copies measure a binary over N installs rather than one install's luck.
// The copies are made interleaved (every program's first copy, then every
// second one, …) so that no program's copies are all made first. Each copy
// keeps its name, in a folder of its own, with a link to every file
// -beside names from the program's folder (cully-hook starts the `cully`
// beside it for snapshots, as install places them).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

func main() {
	runs := flag.Int("runs", 300, "rounds")
	warm := flag.Int("warmup", 20, "warm-up rounds, not counted")
	stdin := flag.String("stdin", "", "file fed to each command's stdin")
	copies := flag.Int("copies", 1, "copies of each program, run in turn")
	beside := flag.String("beside", "", "comma-separated names of files linked beside each copy, from its program's folder")
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
		progs []string // the program's copies: argv[0] alone without -copies
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
	var progs []string // each program once, in the order the commands name them
	for _, b := range bs {
		b.progs = []string{b.argv[0]}
		if !slices.Contains(progs, b.argv[0]) {
			progs = append(progs, b.argv[0])
		}
	}
	dir := ""
	if *copies > 1 {
		var err error
		if dir, err = os.MkdirTemp("", "ratio-copies-"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		made := map[string][]string{}
		for k := range *copies {
			for i, p := range progs {
				c, err := copyProgram(p, filepath.Join(dir, fmt.Sprintf("%d.%d", i, k)), *beside)
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.RemoveAll(dir)
					os.Exit(1)
				}
				made[p] = append(made[p], c)
			}
		}
		for _, b := range bs {
			b.progs = made[b.argv[0]]
		}
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
			c := exec.Command(b.progs[r%len(b.progs)], b.argv[1:]...)
			c.Env = b.env
			c.Stdin = bytes.NewReader(b.stdin)
			start := time.Now()
			if err := c.Run(); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", b.name, err)
				if dir != "" {
					os.RemoveAll(dir)
				}
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
	if dir != "" {
		os.RemoveAll(dir)
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

// copyProgram copies the program p (a path, or a name looked up in PATH)
// into the new folder dir, as an install copies a binary (a new file,
// written whole, under its own name), links the files named in beside
// from p's folder next to it, and returns the copy's path.
func copyProgram(p, dir, beside string) (string, error) {
	path, err := exec.LookPath(p)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", err
	}
	c := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(c, b, 0o755); err != nil {
		return "", err
	}
	for name := range strings.SplitSeq(beside, ",") {
		abs, err := filepath.Abs(filepath.Join(filepath.Dir(path), name))
		if name == "" || name == filepath.Base(path) || err != nil {
			continue // (the program itself is there already)
		}
		if _, err := os.Stat(abs); err == nil {
			if err := os.Symlink(abs, filepath.Join(dir, name)); err != nil {
				return "", err
			}
		}
	}
	return c, nil
}
