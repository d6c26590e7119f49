package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"cully/config"
	"cully/engine"
	"cully/hookbridge/agents"
)

// configDir is the project whose .cully.toml applies here: the agent's
// project dir when one of its variables names it (as in the hook), else the
// current repository's root (as `cully allow` finds it).
func (a *app) configDir() string {
	for _, k := range agents.ProjectVars() {
		if v := a.getenv(k); v != "" {
			return v
		}
	}
	wd, _ := os.Getwd()
	return repoRoot(wd)
}

// loadConfig loads the configuration as the hook would see it now, parsed
// afresh (the CLI never reads or writes the hook's cache).
func (a *app) loadConfig() config.Loaded { return config.Load(a.env().ConfigSources(a.configDir())) }

// configReport is the "config" member of `cully status --json`.
type configReport struct {
	Files    []configFile     `json:"files"`
	Rules    engine.Config    `json:"rules"`
	Problems []config.Problem `json:"problems"`
	More     int              `json:"more_problems"`
}

type configFile struct {
	Scope string `json:"scope"` // "user" or "project"
	config.File
}

func buildConfigReport(ld config.Loaded) configReport {
	r := configReport{Rules: ld.Config, Problems: ld.Problems, More: ld.More}
	if ld.User.Path != "" {
		r.Files = append(r.Files, configFile{"user", ld.User})
	}
	if ld.Project.Path != "" {
		f := ld.Project
		if f.State != config.Absent && f.State != config.Refused {
			// The content's hash, for people to compare with `cully allow`'s
			// (the hook compares the content itself and links no hash).
			if in, err := config.Inspect(f.Path, filepath.Dir(f.Path)); err == nil {
				f.Sum = sha256Hex(in.Content)
			}
		}
		r.Files = append(r.Files, configFile{"project", f})
	}
	if r.Files == nil {
		r.Files = []configFile{}
	}
	if r.Problems == nil {
		r.Problems = []config.Problem{}
	}
	return r
}

// fileNote says what a file's state means for the user.
func fileNote(scope string, f config.File) string {
	switch f.State {
	case config.NotAllowed:
		return "not allowed: its thresholds are ignored; to use them: " + config.AllowCommand(f.Path)
	case config.Changed:
		return "changed since you allowed it: ignored until you run " + config.AllowCommand(f.Path)
	case config.Denied:
		return "denied: ignored (" + config.AllowCommand(f.Path) + " undoes it)"
	case config.Absent:
		if scope == "user" {
			return "absent: the defaults apply"
		}
		return "absent"
	}
	return string(f.State)
}

// printConfig is status's account of the configuration: each file and what
// became of it, the thresholds in effect, and the first problems.
func printConfig(w io.Writer, r configReport) {
	for _, f := range r.Files {
		fmt.Fprintf(w, "config   %s (%s): %s\n", f.Path, f.Scope, fileNote(f.Scope, f.File))
	}
	c := r.Rules
	fmt.Fprintf(w, "rules    explore_reads %d · unverified_edits %d · loop_failures %d · blind_retry_failures %d · large_read_bytes %d · reread_min_bytes %d\n",
		c.ExploreReads, c.UnverifiedEdits, c.LoopFailures, c.BlindRetryFailures, c.LargeReadBytes, c.RereadMinBytes)
	const shown = 5
	var ps []config.Problem
	for _, p := range r.Problems {
		if !p.Consent { // a file's own line says that
			ps = append(ps, p)
		}
	}
	for _, p := range ps[:min(len(ps), shown)] {
		fmt.Fprintf(w, "  %v\n", p)
	}
	if more := len(ps) - min(len(ps), shown) + r.More; more > 0 {
		fmt.Fprintf(w, "  and %d more config problem(s): cully doctor lists them\n", more)
	}
}

// configChecks are doctor's lines about the configuration. A mistake in the
// user's own file needs fixing (a setting of theirs is lost); a project
// file's state and problems are notes, with the command that changes them.
func configChecks(ld config.Loaded) []check {
	var cs []check
	if f := ld.User; f.Path != "" {
		switch f.State {
		case config.InEffect, config.Absent:
			cs = append(cs, check{OK: true, What: "config " + f.Path + ": " + fileNote("user", f)})
		default:
			cs = append(cs, check{What: "config " + f.Path + ": " + string(f.State), Fix: "fix " + f.Path})
		}
	}
	if f := ld.Project; f.Path != "" && f.State != config.Absent {
		c := check{OK: true, What: "project config " + f.Path + ": " + fileNote("project", f)}
		switch f.State {
		case config.NotAllowed, config.Changed:
			c.Warn, c.Fix = true, config.AllowCommand(f.Path)+" (after reading it), or cully deny "+shellQuote(f.Path)+" to ignore it quietly"
		case config.Refused, config.Broken:
			c.Warn = true
		}
		cs = append(cs, c)
	}
	for _, p := range ld.Problems {
		if p.Consent {
			continue // said above, with its fix
		}
		c := check{Warn: true, What: p.Error()}
		if p.Line > 0 {
			c.Fix = "edit " + p.File + " at line " + strconv.Itoa(p.Line)
		}
		if p.Err && p.File == ld.User.Path {
			c.Warn = false // a setting of the user's own is lost
		}
		cs = append(cs, c)
	}
	if ld.More > 0 {
		cs = append(cs, check{Warn: true, What: fmt.Sprintf("and %d more config problem(s) like these", ld.More)})
	}
	return cs
}
