// Command tokens holds cully's token figures for Claude Code sessions to
// ccusage's on the same transcripts: for every transcript under -projects
// (bench/replaycorpus's layout), the usage the hook reads from it
// (claude.SumUsage: each assistant message once by message and request
// id) against `ccusage session --json --offline` run on that file alone
// (its own CLAUDE_CONFIG_DIR, so that neither side dedups across files).
// It prints one line per file that differs and the totals.
//
//	go run ./bench/tokens -projects DIR/projects -ccusage PATH
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"cully/hookbridge/claude"
)

type figures struct{ Input, Output, CacheWrite, CacheRead int64 }

func main() {
	projects := flag.String("projects", "", "the projects/ folder bench/replaycorpus laid out")
	ccusage := flag.String("ccusage", "", "the ccusage binary")
	flag.Parse()
	if *projects == "" || *ccusage == "" {
		flag.Usage()
		os.Exit(2)
	}
	var files, same int
	var cullyAll, ccAll figures
	err := filepath.WalkDir(*projects, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		t, err := claude.SumUsage(f)
		f.Close()
		if err != nil {
			return err
		}
		ours := figures{t.Input, t.Output, t.CacheWrite, t.CacheRead}
		theirs, err := ccusageOf(*ccusage, p)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		files++
		add(&cullyAll, ours)
		add(&ccAll, theirs)
		rel, _ := filepath.Rel(*projects, p)
		if ours == theirs {
			same++
		} else {
			fmt.Printf("differs: %s: cully %+v, ccusage %+v\n", rel, ours, theirs)
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("transcripts: %d; identical figures (input, output, cache writes, cache reads): %d\n", files, same)
	fmt.Printf("totals, cully:   input %d, output %d, cache writes %d, cache reads %d\n", cullyAll.Input, cullyAll.Output, cullyAll.CacheWrite, cullyAll.CacheRead)
	fmt.Printf("totals, ccusage: input %d, output %d, cache writes %d, cache reads %d\n", ccAll.Input, ccAll.Output, ccAll.CacheWrite, ccAll.CacheRead)
	if same != files {
		os.Exit(1)
	}
}

func add(a *figures, b figures) {
	a.Input += b.Input
	a.Output += b.Output
	a.CacheWrite += b.CacheWrite
	a.CacheRead += b.CacheRead
}

// ccusageOf runs ccusage on one transcript, alone in a projects folder.
func ccusageOf(ccusage, path string) (figures, error) {
	dir, err := os.MkdirTemp("", "cully-tokens-")
	if err != nil {
		return figures{}, err
	}
	defer os.RemoveAll(dir)
	dst := filepath.Join(dir, "projects", "p", "s.jsonl")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return figures{}, err
	}
	if err := os.Link(path, dst); err != nil {
		b, rerr := os.ReadFile(path)
		if rerr != nil {
			return figures{}, rerr
		}
		if err := os.WriteFile(dst, b, 0o600); err != nil {
			return figures{}, err
		}
	}
	cmd := exec.Command(ccusage, "session", "--json", "--offline")
	cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+dir, "NO_COLOR=1")
	out, err := cmd.Output()
	if err != nil {
		return figures{}, fmt.Errorf("ccusage: %w", err)
	}
	var rep struct {
		Session []struct {
			Input      int64 `json:"inputTokens"`
			Output     int64 `json:"outputTokens"`
			CacheWrite int64 `json:"cacheCreationTokens"`
			CacheRead  int64 `json:"cacheReadTokens"`
		} `json:"session"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		return figures{}, fmt.Errorf("ccusage output: %w", err)
	}
	var f figures
	for _, s := range rep.Session {
		add(&f, figures{s.Input, s.Output, s.CacheWrite, s.CacheRead})
	}
	return f, nil
}
