// Command budgets calibrates run control's default budgets on real work:
// it replays a corpus of recorded sessions (Claude Code transcripts and
// Codex rollouts, as `cully replay` reads them) through the rules and,
// for every run (a task, from an accepted prompt to the next), takes what
// it used — tool calls, wall clock, host tokens — and the class the run's
// evidence gives it, then prints, per class, how many runs stay within
// each default limit, with the medians and 90th percentiles.
//
//	go run ./bench/budgets CORPUS
//
// CORPUS is a folder of recorded sessions kept outside the repository
// (../shared/corpus/rebuild.sh writes one). Only figures are printed.
package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"cully/engine"
	"cully/hookbridge"
	"cully/hookbridge/agents"
)

type runFig struct {
	class  engine.TaskClass
	calls  float64
	wall   float64
	tokens float64
	known  bool // the host gave token figures
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: budgets CORPUS")
		os.Exit(2)
	}
	var rps []hookbridge.Replayer
	for _, a := range agents.All() {
		if rp, ok := a.(hookbridge.Replayer); ok {
			rps = append(rps, rp)
		}
	}
	cfg := engine.DefaultConfig()
	var runs []runFig
	files := 0
	_ = filepath.WalkDir(os.Args[1], func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(filepath.Base(path), ".jsonl") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		for _, rp := range rps {
			if session, _ := rp.Identify(bytes.NewReader(b)); session == "" {
				continue
			}
			files++
			runs = append(runs, replay(rp, b, &cfg)...)
			break
		}
		return nil
	})
	fmt.Printf("%d files, %d runs with at least one tool call\n\n", files, len(runs))
	fmt.Println("| class | runs | within 30/100 calls | within 300/900/1800 s | within 50k/150k tokens (of runs with figures) | calls p50 · p90 | wall clock p50 · p90 | tokens p50 · p90 |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, c := range []engine.TaskClass{engine.ClassStandard, engine.ClassMultiFile, engine.ClassFullRepo} {
		var calls, wall, toks []float64
		in := [3]int{}
		n, known := 0, 0
		for _, r := range runs {
			if r.class != c {
				continue
			}
			n++
			calls, wall = append(calls, r.calls), append(wall, r.wall)
			if r.calls <= engine.DefaultLimit(engine.ResToolCalls, c) {
				in[0]++
			}
			if r.wall <= engine.DefaultLimit(engine.ResWallClock, c) {
				in[1]++
			}
			if r.known {
				known++
				toks = append(toks, r.tokens)
				if r.tokens <= engine.DefaultLimit(engine.ResTokens, c) {
					in[2]++
				}
			}
		}
		if n == 0 {
			continue
		}
		fmt.Printf("| %s | %d | %s | %s | %s | %s | %s | %s |\n", c, n, share(in[0], n), share(in[1], n), share(in[2], known),
			pair(calls, "%.0f"), pair(wall, "%.0f s"), pair(toks, "%.0f"))
	}
	tails(runs)
}

// tails prints, over every run whatever its class, the upper quantiles
// the armed caps of an unattended run are set from (engine.ArmedLimit).
func tails(runs []runFig) {
	var calls, wall, toks []float64
	for _, r := range runs {
		calls, wall = append(calls, r.calls), append(wall, r.wall)
		if r.known {
			toks = append(toks, r.tokens)
		}
	}
	q := func(v []float64, p float64) float64 {
		if len(v) == 0 {
			return 0
		}
		sort.Float64s(v)
		return v[min(len(v)-1, int(p*float64(len(v))))]
	}
	fmt.Println("\n| every run | p50 | p90 | p99 | max | armed cap (unattended) | runs past it |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, row := range []struct {
		name string
		v    []float64
		res  engine.Resource
	}{{"tool calls", calls, engine.ResToolCalls}, {"wall clock (s)", wall, engine.ResWallClock}, {"tokens", toks, engine.ResTokens}} {
		armed, past := engine.ArmedLimit(row.res), 0
		for _, x := range row.v {
			if armed > 0 && x >= armed {
				past++
			}
		}
		fmt.Printf("| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %d of %d |\n", row.name, q(row.v, .5), q(row.v, .9), q(row.v, .99), q(row.v, 1), armed, past, len(row.v))
	}
}

// replay plays one file and returns the figures of each run it ended.
func replay(rp hookbridge.Replayer, b []byte, cfg *engine.Config) []runFig {
	states := map[string]*engine.State{}
	last := map[string]time.Time{}
	var out []runFig
	end := func(s *engine.State, at time.Time) {
		r := s.Run
		if r == nil || r.Calls == 0 {
			return
		}
		f := runFig{class: r.Class(cfg), calls: float64(r.Calls)}
		for _, fig := range s.Figures(at, cfg) {
			switch fig.Res {
			case engine.ResWallClock:
				f.wall = fig.Used
			case engine.ResTokens:
				f.tokens, f.known = fig.Used, fig.Known
			}
		}
		out = append(out, f)
	}
	_, _ = rp.Replay(io.Reader(bytes.NewReader(b)), cfg, func(ev *engine.Event) error {
		s := states[ev.Session]
		if s == nil {
			s = engine.NewState(ev.Session)
			states[ev.Session] = s
		}
		prev := ""
		if s.Run != nil {
			prev = s.Run.ID
		}
		if prev != "" && ev.Kind == engine.KindPrompt {
			end(s, last[ev.Session]) // the next task starts: this run ends at its last event
		}
		engine.Apply(s, ev, cfg)
		if !ev.Time.IsZero() {
			last[ev.Session] = ev.Time
		}
		return nil
	})
	for id, s := range states {
		end(s, last[id])
	}
	return out
}

func share(k, n int) string {
	if n == 0 {
		return "—"
	}
	return fmt.Sprintf("%d (%.0f%%)", k, 100*float64(k)/float64(n))
}

func pair(v []float64, f string) string {
	if len(v) == 0 {
		return "—"
	}
	sort.Float64s(v)
	q := func(p float64) float64 { return v[min(len(v)-1, int(p*float64(len(v))))] }
	return fmt.Sprintf(f+" · "+f, q(0.5), q(0.9))
}
