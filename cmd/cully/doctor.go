package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cully/engine"
	"cully/hookbridge"
	"cully/hookbridge/agents"
	"cully/install"
	"cully/installrun"
	"cully/runs"
	"cully/skill"
	"cully/store"
)

// check is one line of the report (see hookbridge.Check).
type check hookbridge.Check

// watched names the agents cully watches, for messages.
func watched() string {
	var n []string
	for _, ag := range agents.All() {
		n = append(n, ag.Title())
	}
	return strings.Join(n, ", ")
}

// cmdDoctor checks the installation: agents wired, entries current, state
// dir private and writable, journal healthy, last hook call, skill present.
// It exits 1 when something needs fixing, and says how.
func (a *app) doctor(fire bool) error {
	var cs []check
	add := func(c check) { cs = append(cs, c) }

	// Binaries.
	if _, note, err := hookCommand(); err != nil {
		add(check{Warn: true, What: "binary: " + err.Error()})
	} else if note != "" {
		add(check{Warn: true, What: "binary: " + note, Fix: "CGO_ENABLED=0 go install ./cmd/cully-hook (beside cully)"})
	} else {
		add(check{OK: true, What: "binary: cully-hook found"})
	}

	// Every agent cully watches, in every scope. An agent found here that
	// cully is not installed for is a problem when cully is installed for
	// none; beside another agent's install it is a note.
	at := a.place()
	var ins []hookbridge.Installer
	anyWired := false
	for _, ag := range agents.All() {
		if in, ok := ag.(hookbridge.Installer); ok {
			ins = append(ins, in)
			found, _ := wiring(in, at)
			_, plugged := installrun.PluginInstall(in, at) // install_plugin.go
			anyWired = anyWired || len(found) > 0 || plugged
		}
	}
	for _, in := range ins {
		cs = append(cs, wiringChecks(in, at, anyWired)...)
	}

	if fire { // doctor_fire.go
		cs = append(cs, a.fireChecks(at)...)
	}

	// Configuration, as the hook would load it here.
	cs = append(cs, configChecks(a.loadConfig())...)

	// State dir.
	h, err := a.home()
	if err != nil {
		add(check{What: "state dir: " + err.Error(), Fix: "set CULLY_HOME to a writable directory"})
	} else {
		fi, err := os.Stat(h.Dir)
		cerr := h.Check()
		switch {
		case errors.Is(err, os.ErrNotExist):
			add(check{OK: true, Warn: true, What: "state dir " + h.Dir + " does not exist yet (the first hook call creates it)"})
		case err != nil:
			add(check{What: "state dir: " + err.Error(), Fix: "check CULLY_HOME"})
		case errors.Is(cerr, store.ErrUnsafe):
			what, fix := store.Refusal(cerr)
			if fix == "" {
				fix = "use a directory only you own and can write: chmod 700 it, or point CULLY_HOME elsewhere"
			}
			add(check{What: "state dir refused: " + what + ": the hook records nothing there", Fix: fix})
		case cerr != nil:
			add(check{What: "state dir: " + cerr.Error(), Fix: "check CULLY_HOME"})
		default:
			if fi.Mode().Perm()&0o077 != 0 {
				add(check{What: fmt.Sprintf("state dir %s is readable by others (%v)", h.Dir, fi.Mode().Perm()), Fix: "chmod 700 " + shellQuote(h.Dir)})
			} else {
				add(check{OK: true, What: "state dir " + h.Dir + " is private"})
			}
			if f, err := os.CreateTemp(h.Dir, ".doctor-*"); err != nil {
				add(check{What: "state dir is not writable: " + err.Error(), Fix: "fix the permissions of " + h.Dir + " or point CULLY_HOME elsewhere"})
			} else {
				f.Close()
				os.Remove(f.Name())
				add(check{OK: true, What: "state dir is writable"})
			}
			cs = append(cs, recordingChecks(h)...)
			stats, whole, err := h.ScanTail(healthWindow, func(*engine.Event) error { return nil })
			scope := "its last 8 MiB"
			if whole {
				scope = "all of it"
			}
			switch {
			case err != nil:
				add(check{What: "journal: " + err.Error(), Fix: "cully status --rebuild"})
			case stats.Corrupt > 0:
				add(check{What: fmt.Sprintf("journal: %d corrupt line(s) in %s (skipped by every reader)", stats.Corrupt, scope), Fix: "nothing is lost from the good lines; if this grows, look for another writer of " + h.Journal()})
			default:
				add(check{OK: true, What: fmt.Sprintf("journal: %d records in %s, none corrupt", stats.Lines, scope)})
			}
			if files, err := h.JournalFiles(); err == nil && len(files) > 0 {
				var total int64
				for _, f := range files {
					if fi, err := os.Stat(f); err == nil {
						total += fi.Size()
					}
				}
				add(check{OK: true, What: fmt.Sprintf("journal: %d file(s), %.1f MiB in all (rotated files are kept; delete old journal-NNNNNN.jsonl files to reclaim space)", len(files), float64(total)/(1<<20))})
			}
			if ss, _ := h.Sessions(); len(ss) > 0 {
				now, _ := a.now()
				add(check{OK: true, What: fmt.Sprintf("last hook call: %s (%s, session %s)", ss[0].LastSeen.UTC().Format(time.RFC3339), since(now, ss[0].LastSeen), shortID(ss[0].ID))})
			} else {
				add(check{OK: true, Warn: true, What: "no hook call recorded yet", Fix: "start an agent session after `cully install`"})
			}
			cs = append(cs, snapshotServerCheck(h, a)...)
			cs = append(cs, storeChecks(h, a)...)
			if n, last := lastError(h); n > 0 {
				add(check{Warn: true, What: fmt.Sprintf("errors.log has %d record(s); last: %s", n, last), Fix: "read " + h.ErrorsLog()})
			}
		}
	}

	failed := 0
	for _, c := range cs {
		mark := "ok  "
		switch {
		case c.Warn:
			mark = "note"
		case !c.OK:
			mark = "FAIL"
			failed++
		}
		if mark == "FAIL" && a.stdoutColor() { // a problem in red, its line whole
			fmt.Fprint(a.stdout, red)
			fmt.Fprintf(termSafe{a.stdout}, "%s  %s", mark, c.What)
			fmt.Fprintln(a.stdout, reset)
		} else {
			fmt.Fprintf(termSafe{a.stdout}, "%s  %s\n", mark, c.What)
		}
		if c.Fix != "" && (!c.OK || c.Warn) {
			fmt.Fprintf(termSafe{a.stdout}, "      fix: %s\n", c.Fix)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d problem(s) found", failed)
	}
	return nil
}

// recordingChecks says whether calls were lost: records that did not
// reach the journal (counted even on a full disk), or a disk too full to
// take more. Doctor first makes the failure counter whole if it is
// missing, so a later failure on a full disk can be counted; and a
// report of failures that recording has since got over is cleared once
// doctor has shown it.
func recordingChecks(h store.Home) []check {
	prepErr := h.PrepareRecording()
	rep, seen := buildRecordingReport(h)
	seenRecording(h, &rep, seen)
	var cs []check
	switch rep.State {
	case "failing":
		cs = append(cs, check{What: rep.Message, Fix: rep.Fix})
	case "recovered":
		what := rep.Message
		if rep.cleared {
			what += " (cleared now that you have seen it)"
		}
		cs = append(cs, check{Warn: true, What: what, Fix: rep.Fix})
	case "at_risk":
		cs = append(cs, check{Warn: true, What: rep.Message, Fix: rep.Fix})
	case "unknown":
		if prepErr == nil { // a counter that is there but cannot be read
			cs = append(cs, check{Warn: true, What: "recording: cannot tell whether calls were lost: " + rep.Error,
				Fix: "remove " + filepath.Join(h.Dir, store.RecordingName) + " (the next `cully doctor` makes it again)"})
		}
	default:
		cs = append(cs, check{OK: true, What: "recording: no call lost (a failed record would be counted in " + store.RecordingName + ")"})
	}
	if prepErr != nil {
		cs = append(cs, check{Warn: true, What: "recording: cannot make " + store.RecordingName + " in advance (" + plain(prepErr) + "): a record lost on a full disk could go uncounted",
			Fix: "free space on the disk holding " + h.Dir + ", or make " + store.RecordingName + " there a regular file of yours (or remove it)"})
	}
	return cs
}

func lastError(h store.Home) (int, string) {
	t, err := h.ErrorsAfter(0)
	if err != nil || t.N == 0 {
		return 0, ""
	}
	if t.LastAt.IsZero() {
		return t.N, t.Last
	}
	return t.N, t.LastAt.UTC().Format(time.RFC3339Nano) + " " + t.Last
}

// wired is one scope that holds cully's entries.
type wired struct {
	t   hookbridge.Target
	cmd string
}

// wiring finds the scopes of the agent that wire cully here, with each
// scope's checks.
func wiring(in hookbridge.Installer, at hookbridge.Place) ([]wired, []check) {
	var found []wired
	var cs []check
	seen, said := map[string]bool{}, map[string]bool{}
	for _, scope := range hookbridge.Scopes {
		t, err := in.Target(scope, at)
		if err != nil || seen[t.Settings] { // one file for two scopes (Cursor's) is checked once
			continue
		}
		seen[t.Settings] = true
		w := in.Doctor(t, hookbridge.SkillFor(in, skill.SKILL))
		for _, c := range w.Checks {
			if !said[c.What] { // a note that holds for two scopes is said once
				said[c.What] = true
				cs = append(cs, check(c))
			}
		}
		if w.Command != "" {
			found = append(found, wired{t, w.Command})
			for _, c := range runControlChecks(in, t) {
				if !said[c.What] {
					said[c.What] = true
					cs = append(cs, c)
				}
			}
		}
	}
	return found, cs
}

// runControlChecks are the run-control skill's files beside cully's own
// skill, as install writes them: one line when all are current, else one
// per file missing or different.
func runControlChecks(in hookbridge.Installer, t hookbridge.Target) []check {
	fix := "cully install --agent " + in.Name()
	var bad []check
	files := skill.RunControl()
	for _, f := range files {
		c := hookbridge.SkillCheck(install.SkillSibling(t.Skill, skill.RunControlFolder, f.Path), f.Text, fix)
		if !c.OK {
			bad = append(bad, check(c))
		}
	}
	if len(bad) > 0 {
		return bad
	}
	dir := filepath.Dir(install.SkillSibling(t.Skill, skill.RunControlFolder, "SKILL.md"))
	return []check{{OK: true, What: fmt.Sprintf("run-control skill present and current: %s (%d files)", dir, len(files))}}
}

// wiringChecks are doctor's lines for one agent: each scope's checks, and
// whether cully is installed at all (in any one scope: a project-only
// install is an install), or twice over. An agent found here without cully
// fails the check unless cully is installed for another agent (elsewhere:
// a note).
func wiringChecks(in hookbridge.Installer, at hookbridge.Place, otherWired bool) []check {
	found, cs := wiring(in, at)
	if tr, ok := in.(hookbridge.Truster); ok {
		for _, f := range found {
			for _, c := range trustChecks(tr, f.t) { // doctor_fire.go: asked once
				cs = append(cs, check(c))
			}
		}
	}
	if p, ok := installrun.PluginInstall(in, at); ok { // install_plugin.go
		return append(cs, pluginChecks(in, p, found)...)
	}
	switch {
	case len(found) == 0:
		var where []string
		seen := map[string]bool{}
		for _, scope := range hookbridge.Scopes {
			if t, err := in.Target(scope, at); err == nil && !seen[t.Settings] {
				seen[t.Settings] = true
				where = append(where, t.Settings)
			}
		}
		if !in.Present(at) {
			return append(cs, check{OK: true, Warn: true, What: in.Title() + ": not found on this machine, and cully is not installed for it"})
		}
		project := " --scope project"
		if _, err := in.Target(hookbridge.ScopeProject, at); err != nil {
			project += " --shared" // the agent has no settings of this machine's own in a project
		}
		return append(cs, check{Warn: otherWired, What: in.Title() + ": cully is not installed (no entries in " + strings.Join(where, ", ") + ")",
			Fix: "cully install" + installrun.AgentFlags(in) + " (for every project), or cully install" + installrun.AgentFlags(in) + project + " (for this one)"})
	case len(found) > 1:
		for _, f := range found[1:] {
			if f.cmd != found[0].cmd {
				cs = append(cs, check{Warn: true, What: fmt.Sprintf("%s: cully is wired in both %s (%q) and %s (%q): %s runs each, so every call is recorded twice",
					in.Title(), found[0].t.Settings, found[0].cmd, f.t.Settings, f.cmd, in.Title()), Fix: "cully uninstall" + installrun.AgentFlags(in) + f.t.Scope.Flags() + ", or cully uninstall" + installrun.AgentFlags(in) + found[0].t.Scope.Flags()})
			}
		}
	}
	return cs
}

// storeChecks show each repository's snapshot store: its size against its
// cap, and a problem when its snapshots are paused (over the cap, or the
// disk under its floor).
func storeChecks(h store.Home, a *app) []check {
	ss, err := runs.Stores(h)
	if err != nil {
		return []check{{Warn: true, What: "snapshot stores: " + err.Error()}}
	}
	pol := *a.policy(h)
	var cs []check
	for _, si := range ss {
		rep := newStoreReport(h, pol, si)
		if rep.Paused != "" {
			cs = append(cs, check{What: "snapshot store " + storeLine(rep), Fix: "cully snapshots prune, or raise [snapshots] max_store_bytes (docs/run-control.md)"})
			continue
		}
		cs = append(cs, check{OK: true, What: "snapshot store " + storeLine(rep)})
	}
	return cs
}

// snapshotServerCheck says whether the snapshot server is running (a
// process the user may meet in ps and wonder about) and whether asks wait
// in its queue with none to take them.
func snapshotServerCheck(h store.Home, a *app) []check {
	var cs []check
	live, err := h.Served()
	waiting, _ := h.Asks()
	now, _ := a.now()
	switch {
	case err != nil:
		return nil // no queue yet: no snapshot asked for
	case live:
		what := "snapshot server running"
		if i, err := runs.Server(h); err == nil {
			what = fmt.Sprintf("snapshot server running: pid %d, since %s (%s), %d snapshot(s) taken; it stops after %v with none asked", i.PID, i.Started.Format(time.RFC3339), since(now, i.Started), i.Taken, i.Linger)
		}
		cs = append(cs, check{OK: true, What: what})
	case len(waiting) > 0:
		cs = append(cs, check{Warn: true, What: fmt.Sprintf("%d snapshot ask(s) waiting and no snapshot server running (the next one the hook asks for starts it)", len(waiting)),
			Fix: "cully snapshot --serve &, or see " + h.ErrorsLog()})
	}
	return cs
}
