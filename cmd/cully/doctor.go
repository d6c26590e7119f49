package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"cully/engine"
	"cully/install"
	"cully/skill"
)

type check struct {
	ok   bool
	warn bool // a note, not a failure
	what string
	fix  string
}

// cmdDoctor checks the installation: agents wired, entries current, state
// dir private and writable, journal healthy, last hook call, skill present.
// It exits 1 when something needs fixing, and says how.
func cmdDoctor(a *app, args []string) error {
	fs := a.flags("doctor")
	if err := parse(fs, args); err != nil {
		return err
	}
	var cs []check
	add := func(c check) { cs = append(cs, c) }

	// Binaries.
	if _, note, err := hookCommand(); err != nil {
		add(check{warn: true, what: "binary: " + err.Error()})
	} else if note != "" {
		add(check{warn: true, what: "binary: " + note, fix: "go install ./cmd/cully-hook (beside cully)"})
	} else {
		add(check{ok: true, what: "binary: cully-hook found"})
	}

	// Claude Code, both scopes.
	_, claudeOnPath := exec.LookPath("claude")
	for _, scope := range []string{"user", "project"} {
		t, err := a.claudeTarget(scope)
		if err != nil {
			continue
		}
		cs = append(cs, a.doctorClaude(scope, t, claudeOnPath == nil)...)
	}

	// Other agents: say when one is here that cully cannot watch yet.
	for _, ag := range []struct{ name, dir, bin string }{
		{"Codex", ".codex", "codex"}, {"Gemini CLI", ".gemini", "gemini"}, {"Cursor", ".cursor", "cursor-agent"},
	} {
		_, onPath := exec.LookPath(ag.bin)
		_, dirErr := os.Stat(filepath.Join(a.getenv("HOME"), ag.dir))
		if onPath == nil || dirErr == nil {
			add(check{warn: true, what: ag.name + " found: cully does not watch it yet (Claude Code only for now)"})
		}
	}

	// State dir.
	h, err := a.home()
	if err != nil {
		add(check{what: "state dir: " + err.Error(), fix: "set CULLY_HOME to a writable directory"})
	} else {
		fi, err := os.Stat(h.Dir)
		switch {
		case errors.Is(err, os.ErrNotExist):
			add(check{ok: true, warn: true, what: "state dir " + h.Dir + " does not exist yet (the first hook call creates it)"})
		case err != nil:
			add(check{what: "state dir: " + err.Error(), fix: "check CULLY_HOME"})
		default:
			if fi.Mode().Perm()&0o077 != 0 {
				add(check{what: fmt.Sprintf("state dir %s is readable by others (%v)", h.Dir, fi.Mode().Perm()), fix: "chmod 700 " + shellQuote(h.Dir)})
			} else {
				add(check{ok: true, what: "state dir " + h.Dir + " is private"})
			}
			if f, err := os.CreateTemp(h.Dir, ".doctor-*"); err != nil {
				add(check{what: "state dir is not writable: " + err.Error(), fix: "fix the permissions of " + h.Dir + " or point CULLY_HOME elsewhere"})
			} else {
				f.Close()
				os.Remove(f.Name())
				add(check{ok: true, what: "state dir is writable"})
			}
			stats, whole, err := h.ScanTail(healthWindow, func(*engine.Event) error { return nil })
			scope := "its last 8 MiB"
			if whole {
				scope = "all of it"
			}
			switch {
			case err != nil:
				add(check{what: "journal: " + err.Error(), fix: "cully status --rebuild"})
			case stats.Corrupt > 0:
				add(check{what: fmt.Sprintf("journal: %d corrupt line(s) in %s (skipped by every reader)", stats.Corrupt, scope), fix: "nothing is lost from the good lines; if this grows, look for another writer of " + h.Journal()})
			default:
				add(check{ok: true, what: fmt.Sprintf("journal: %d records in %s, none corrupt", stats.Lines, scope)})
			}
			if files, err := h.JournalFiles(); err == nil && len(files) > 0 {
				var total int64
				for _, f := range files {
					if fi, err := os.Stat(f); err == nil {
						total += fi.Size()
					}
				}
				add(check{ok: true, what: fmt.Sprintf("journal: %d file(s), %.1f MiB in all (rotated files are kept; delete old journal-NNNNNN.jsonl files to reclaim space)", len(files), float64(total)/(1<<20))})
			}
			if ss, _ := h.Sessions(); len(ss) > 0 {
				now, _ := a.now()
				add(check{ok: true, what: fmt.Sprintf("last hook call: %s (%s, session %s)", ss[0].LastSeen.UTC().Format(time.RFC3339), since(now, ss[0].LastSeen), shortID(ss[0].ID))})
			} else {
				add(check{ok: true, warn: true, what: "no hook call recorded yet", fix: "start an agent session after `cully install`"})
			}
			if n, last := lastError(h.ErrorsLog()); n > 0 {
				add(check{warn: true, what: fmt.Sprintf("errors.log has %d record(s); last: %s", n, last), fix: "read " + h.ErrorsLog()})
			}
		}
	}

	failed := 0
	for _, c := range cs {
		mark := "ok  "
		switch {
		case c.warn:
			mark = "note"
		case !c.ok:
			mark = "FAIL"
			failed++
		}
		fmt.Fprintf(a.stdout, "%s  %s\n", mark, c.what)
		if c.fix != "" && (!c.ok || c.warn) {
			fmt.Fprintf(a.stdout, "      fix: %s\n", c.fix)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d problem(s) found", failed)
	}
	return nil
}

func (a *app) doctorClaude(scope string, t claudeTarget, claudeOnPath bool) []check {
	b, err := os.ReadFile(t.settings)
	if errors.Is(err, os.ErrNotExist) {
		if scope == "user" {
			fix := "cully install"
			if !claudeOnPath {
				return []check{{ok: true, warn: true, what: "Claude Code: not found (no " + t.settings + ", no claude on PATH)"}}
			}
			return []check{{what: "Claude Code (user): cully is not installed in " + t.settings, fix: fix}}
		}
		return nil
	}
	if err != nil {
		return []check{{what: "Claude Code: " + err.Error()}}
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return []check{{what: fmt.Sprintf("Claude Code (%s): %s is not valid settings JSON: %v", scope, t.settings, err), fix: "fix the file by hand; cully will not rewrite it"}}
	}
	var missing, stale []string
	var cmd string
	for _, ev := range install.ClaudeEvents {
		found := false
		for _, g := range s.Hooks[ev] {
			for _, hk := range g.Hooks {
				if install.IsCullyCommand(hk.Command) {
					found = true
					cmd = hk.Command
					if !commandRuns(hk.Command) {
						stale = append(stale, ev)
					}
				}
			}
		}
		if !found {
			missing = append(missing, ev)
		}
	}
	var out []check
	where := fmt.Sprintf("Claude Code (%s, %s)", scope, t.settings)
	installCmd := "cully install"
	if scope == "project" {
		installCmd = "cully install --scope project"
	}
	switch {
	case len(missing) == len(install.ClaudeEvents):
		if scope == "user" {
			out = append(out, check{what: where + ": cully is not installed", fix: installCmd})
		}
		return out
	case len(missing) > 0:
		out = append(out, check{what: where + ": no cully entry for " + strings.Join(missing, ", "), fix: installCmd + " (idempotent: it adds what is missing)"})
	default:
		out = append(out, check{ok: true, what: where + ": hook entries present for all " + fmt.Sprint(len(install.ClaudeEvents)) + " events"})
	}
	if len(stale) > 0 {
		out = append(out, check{what: fmt.Sprintf("%s: hook command %q does not run (missing or not executable)", where, cmd), fix: installCmd + " (rewrites the command to this cully)"})
	}
	if sb, err := os.ReadFile(t.skill); err != nil {
		out = append(out, check{what: "skill missing: " + t.skill, fix: installCmd})
	} else if string(sb) != skill.SKILL {
		out = append(out, check{warn: true, what: "skill " + t.skill + " differs from this cully's (edited, or from another version)", fix: installCmd + " to update it, unless the edit is yours"})
	} else {
		out = append(out, check{ok: true, what: "skill present and current: " + t.skill})
	}
	return out
}

// commandRuns checks that a hook command's program exists and is executable.
func commandRuns(cmd string) bool {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return false
	}
	p := strings.Trim(f[0], `'"`)
	if !filepath.IsAbs(p) {
		var err error
		if p, err = exec.LookPath(p); err != nil {
			return false
		}
	}
	return isExecutable(p)
}

func lastError(path string) (int, string) {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return 0, ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	var rec struct {
		TS    string `json:"ts"`
		Op    string `json:"op"`
		Error string `json:"error"`
	}
	_ = json.Unmarshal([]byte(lines[len(lines)-1]), &rec)
	msg := rec.Error
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return len(lines), fmt.Sprintf("%s %s: %s", rec.TS, rec.Op, msg)
}
