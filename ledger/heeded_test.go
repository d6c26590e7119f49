package ledger

import (
	"testing"
	"time"

	"cully/engine"
)

func post(tool string, class engine.Class, target, cmd string) *engine.Event {
	return &engine.Event{Session: "s", Kind: engine.KindPostTool, Tool: tool, Class: class, Target: target, CmdFP: cmd}
}

func told(ev *engine.Event, text string, guards ...engine.Reason) *engine.Event {
	ev.Kind = engine.KindPreTool
	for _, g := range guards {
		ev.Signals = append(ev.Signals, engine.Signal{Kind: engine.SignalGuard, Reason: g})
	}
	ev.Signals = append(ev.Signals, engine.Signal{Kind: engine.SignalNudge, Text: text})
	return ev
}

// Each kind of nudge is judged by what the agent's next calls did: a guard
// is heeded when what it warned about is not done again, a check-in when
// the agent asks or ends its turn, a held-back checkpoint by its step.
func TestHeeded(t *testing.T) {
	h := NewHeeded()
	play := func(evs ...*engine.Event) {
		for _, ev := range evs {
			h.Add(ev)
		}
	}
	// A re-read warned about, then read again two calls later: not heeded.
	play(told(post("Read", engine.ClassRead, "a.go", ""), "cully: a.go is unchanged", engine.ReasonReread),
		post("Read", engine.ClassRead, "a.go", ""), // the call it was told on runs
		post("Bash", engine.ClassRun, "", "ls"),
		post("Read", engine.ClassRead, "a.go", ""))
	// Another, then five other calls: heeded.
	play(told(post("Read", engine.ClassRead, "b.go", ""), "cully: b.go is unchanged", engine.ReasonReread),
		post("Read", engine.ClassRead, "b.go", ""))
	for range HeededWindow {
		play(post("Bash", engine.ClassRun, "", "ls"))
	}
	// A failure loop told, then the agent asks the user: heeded.
	play(told(post("Bash", engine.ClassCheck, "", "go-test"), "cully checkpoint c1 (failure-loop): `go test` failed 3 times"),
		post("Bash", engine.ClassCheck, "", "go-test"),
		post("AskUserQuestion", engine.ClassAsk, "", ""))
	// Another failure loop, and the agent keeps going for five calls: not heeded.
	play(told(post("Bash", engine.ClassCheck, "", "go-test"), "cully checkpoint c2 (failure-loop): again"),
		post("Bash", engine.ClassCheck, "", "go-test"))
	for range HeededWindow {
		play(post("Edit", engine.ClassEdit, "x.go", ""))
	}
	// A third one, just told: open, not counted.
	play(told(post("Bash", engine.ClassCheck, "", "go-test"), "cully checkpoint c3 (failure-loop): once more"))
	got := map[string]HeededRate{}
	for _, r := range h.Rates() {
		got[r.Reason] = r
	}
	if r := got["unchanged-reread"]; r.Told != 2 || r.Heeded != 1 || r.Open != 0 {
		t.Errorf("reread: %+v, want 1 of 2", r)
	}
	if r := got["failure-loop"]; r.Told != 2 || r.Heeded != 1 || r.Open != 1 {
		t.Errorf("failure-loop: %+v, want 1 of 2 and 1 open", r)
	}
	if checkpointsIn("cully checkpoint c12 (same-error): x\ncully checkpoint c13 (cycle): y") == nil {
		t.Error("checkpoints not read from the text")
	}
}

// A script that reruns the failing check right after the third-attempt
// warning (the same check with other flags: one family) and then just ends
// its turn heeded neither the warning nor the failure loop it kept going:
// the warned call running anyway and a turn's end are no answer. Judged
// on the reducer's own signals, as the ledger reads them from the journal.
func TestHeededRerunThenEnd(t *testing.T) {
	type call struct{ fp, fam string }
	play := func(calls []call, end bool, extra ...engine.Event) map[string]HeededRate {
		cfg := engine.DefaultConfig()
		st := engine.NewState("s")
		h := NewHeeded()
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		apply := func(ev engine.Event) {
			now = now.Add(time.Second)
			ev.V, ev.Session, ev.Time = 1, "s", now
			ev.Signals = engine.Apply(st, &ev, &cfg)
			h.Add(&ev)
		}
		one := 1
		apply(engine.Event{Kind: engine.KindPrompt})
		for _, c := range calls {
			ev := engine.Event{Tool: "Bash", Class: engine.ClassCheck, Cmd: "go test", CmdFP: c.fp, FamilyFP: c.fam}
			pre, post := ev, ev
			pre.Kind = engine.KindPreTool
			post.Kind, post.Outcome, post.Exit, post.FailSig = engine.KindPostTool, engine.OutcomeFailed, &one, "x"
			apply(pre)
			apply(post)
		}
		for _, ev := range extra {
			pre, post := ev, ev
			pre.Kind, post.Kind, post.Outcome = engine.KindPreTool, engine.KindPostTool, engine.OutcomeOK
			apply(pre)
			apply(post)
		}
		if end {
			apply(engine.Event{Kind: engine.KindStop})
		}
		got := map[string]HeededRate{}
		for _, r := range h.Rates() {
			got[r.Reason] = r
		}
		return got
	}
	same := call{"fp", "fam"}
	got := play([]call{same, same, same, {"fp-count", "fam"}}, true)
	for _, r := range []string{"third-attempt", "failure-loop"} {
		if got[r].Told != 1 || got[r].Heeded != 0 {
			t.Errorf("%s: %+v, want told 1, heeded 0", r, got[r])
		}
	}
	// Warned, the call runs anyway, the turn ends: nothing was done differently.
	if r := play([]call{same, same, same}, true)["third-attempt"]; r.Told != 1 || r.Heeded != 0 {
		t.Errorf("warned call then the turn's end: %+v, want 0 of 1", r)
	}
	// Warned, then the agent reads and edits instead, and the loop's
	// checkpoint, told on the read, is answered by the turn's end: heeded.
	rd := engine.Event{Tool: "Read", Class: engine.ClassRead, Target: "a.go"}
	got = play([]call{same, same, same}, true, rd, engine.Event{Tool: "Edit", Class: engine.ClassEdit, Target: "a.go"})
	if r := got["third-attempt"]; r.Told != 1 || r.Heeded != 1 {
		t.Errorf("warned, then something else: %+v, want 1 of 1", r)
	}
	if r := got["failure-loop"]; r.Told != 1 || r.Heeded != 1 {
		t.Errorf("loop told, not run again, turn ended: %+v, want 1 of 1", r)
	}
}

// A guard against a whole-disk search (or a bulk edit of .git, a change to
// the machine) is heeded when the agent does not run the same command
// again: the warned call itself runs, cully never blocks.
func TestHeededBroadSearch(t *testing.T) {
	h := NewHeeded()
	find := func() *engine.Event { return post("Bash", engine.ClassRead, "", "find-home") }
	for _, ev := range []*engine.Event{told(find(), "cully: `find ~ -name x` searches the whole home folder", engine.ReasonBroadSearch),
		find(), post("Bash", engine.ClassRead, "", "find-cache"), find()} {
		h.Add(ev)
	}
	for _, ev := range []*engine.Event{told(find(), "cully: again", engine.ReasonBroadSearch), find()} {
		h.Add(ev)
	}
	for range HeededWindow {
		h.Add(post("Bash", engine.ClassRead, "", "find-cache"))
	}
	var got *HeededRate
	for _, r := range h.Rates() {
		if r.Reason == string(engine.ReasonBroadSearch) {
			got = &r
		}
	}
	if got == nil || got.Told != 2 || got.Heeded != 1 {
		t.Fatalf("broad-search: %+v, want 1 of 2 (the search run again was no heeding)", got)
	}
	if m := heededMeans(string(engine.ReasonBroadSearch)); m != "the same command or call not run again unchanged" {
		t.Fatalf("means %q", m)
	}
}
