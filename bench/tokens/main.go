// Command tokens holds cully's token figures for Claude Code sessions to
// ccusage's on the same transcripts: for every transcript under -projects
// (bench/replaycorpus's layout), the usage the hook reads from it
// (claude.SumUsage: each assistant message once by message and request
// id) against `ccusage session --json --offline` run on that file alone
// (its own CLAUDE_CONFIG_DIR, so that neither side dedups across files),
// and cully's estimated cost (the record reader and the price table of
// package usage) against ccusage's. It prints one line per file whose
// tokens differ or whose cost is more than 1% apart (or that only one side
// could price), and the totals.
//
//	go run ./bench/tokens -projects DIR/projects -ccusage PATH
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"cully/hookbridge"
	"cully/hookbridge/claude"
	"cully/usage"
)

type figures struct{ Input, Output, CacheWrite, CacheRead int64 }

// costs are the two sides' cost of one file; priced says both could.
type costs struct {
	cully, ccusage float64
	priced         bool
}

func main() {
	projects := flag.String("projects", "", "the projects/ folder bench/replaycorpus laid out")
	ccusage := flag.String("ccusage", "", "the ccusage binary")
	flag.Parse()
	if *projects == "" || *ccusage == "" {
		flag.Usage()
		os.Exit(2)
	}
	var files, same, costSame, unpriced int
	var cullyAll, ccAll figures
	var costAll costs
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
		theirs, theirCost, err := ccusageOf(*ccusage, p)
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
		var c usage.Cache
		hookbridge.ReadUsage(claude.Agent{}, &c, []string{p})
		ourCost, missing, ok := c.Tally.Cost()
		switch {
		case !ok && theirCost.priced:
			fmt.Printf("unpriced: %s: cully has no price for %v, ccusage $%.4f\n", rel, missing, theirCost.ccusage)
		case !ok || !theirCost.priced:
			unpriced++
		case math.Abs(ourCost-theirCost.ccusage) <= 0.01*theirCost.ccusage:
			costSame++
			costAll.cully += ourCost
			costAll.ccusage += theirCost.ccusage
		default:
			fmt.Printf("cost: %s: cully $%.4f, ccusage $%.4f\n", rel, ourCost, theirCost.ccusage)
			costAll.cully += ourCost
			costAll.ccusage += theirCost.ccusage
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
	fmt.Printf("cost within 1%% of ccusage's: %d of %d priced by both (%d priced by neither); totals of those: cully $%.2f, ccusage $%.2f\n",
		costSame, files-unpriced, unpriced, costAll.cully, costAll.ccusage)
	if same != files || costSame != files-unpriced {
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
func ccusageOf(ccusage, path string) (figures, costs, error) {
	dir, err := os.MkdirTemp("", "cully-tokens-")
	if err != nil {
		return figures{}, costs{}, err
	}
	defer os.RemoveAll(dir)
	dst := filepath.Join(dir, "projects", "p", "s.jsonl")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return figures{}, costs{}, err
	}
	if err := os.Link(path, dst); err != nil {
		b, rerr := os.ReadFile(path)
		if rerr != nil {
			return figures{}, costs{}, rerr
		}
		if err := os.WriteFile(dst, b, 0o600); err != nil {
			return figures{}, costs{}, err
		}
	}
	cmd := exec.Command(ccusage, "session", "--json", "--offline")
	cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+dir, "NO_COLOR=1")
	out, err := cmd.Output()
	if err != nil {
		return figures{}, costs{}, fmt.Errorf("ccusage: %w", err)
	}
	var rep struct {
		Session []struct {
			Input      int64   `json:"inputTokens"`
			Output     int64   `json:"outputTokens"`
			CacheWrite int64   `json:"cacheCreationTokens"`
			CacheRead  int64   `json:"cacheReadTokens"`
			Cost       float64 `json:"totalCost"`
			Models     []struct {
				Missing bool `json:"missingPricing"`
			} `json:"modelBreakdowns"`
		} `json:"session"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		return figures{}, costs{}, fmt.Errorf("ccusage output: %w", err)
	}
	var f figures
	c := costs{priced: true}
	for _, s := range rep.Session {
		add(&f, figures{s.Input, s.Output, s.CacheWrite, s.CacheRead})
		c.ccusage += s.Cost
		for _, m := range s.Models {
			c.priced = c.priced && !m.Missing
		}
	}
	return f, c, nil
}
