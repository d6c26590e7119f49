package ledger

import (
	"testing"

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
