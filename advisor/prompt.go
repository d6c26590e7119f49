package advisor

import (
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"strings"

	"cully/engine"
	"cully/hookbridge"
)

// maxRecentInPrompt is how many recent calls the prompt lists: the state
// keeps eight, all of them short previews.
const maxRecentInPrompt = 8

// maxWarningsInPrompt bounds the guard warnings listed (newest of the task).
const maxWarningsInPrompt = 5

// Evidence is what one request would send.
type Evidence struct {
	Signals []string // the hashed part: open checkpoints and the task's guard warnings
	Context []string // counts and recent calls: sent, not hashed
	Hash    string
}

// Gather reads a session's evidence from its state.
func Gather(st *engine.State) Evidence {
	var ev Evidence
	for _, c := range st.Checkpoints {
		if c.Status == engine.StatusOpen {
			ev.Signals = append(ev.Signals, fmt.Sprintf("checkpoint %s: %s", c.Reason, clean(c.Evidence)))
		}
	}
	var ws []string
	for _, w := range st.Warnings {
		if w.Task == st.Task {
			ws = append(ws, fmt.Sprintf("guard %s: %s", w.Reason, clean(w.Evidence)))
		}
	}
	if len(ws) > maxWarningsInPrompt {
		ws = ws[len(ws)-maxWarningsInPrompt:]
	}
	ev.Signals = append(ev.Signals, ws...)
	c := st.Counts
	ev.Context = append(ev.Context, fmt.Sprintf("counts: %d tool calls, %d failures, %d edits, %d checks (%d passed, %d failed, %d unknown), %d reads since the last edit or check, %d edits since a passing check, %d nudges",
		c.ToolCalls, c.Failures, c.Edits, c.Checks, c.ChecksOK, c.ChecksFailed, c.ChecksUnknown, st.ReadsSinceAct, st.EditsSinceCheck, c.Nudges))
	rec := st.Recent
	if len(rec) > maxRecentInPrompt {
		rec = rec[len(rec)-maxRecentInPrompt:]
	}
	for _, r := range rec {
		status := "ok"
		if r.Failed {
			status = "failed"
		}
		ev.Context = append(ev.Context, fmt.Sprintf("recent call (%s): %s", status, clean(r.Preview)))
	}
	h := fnv.New128a()
	for _, s := range ev.Signals {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	ev.Hash = hex.EncodeToString(h.Sum(nil))
	return ev
}

// clean redacts a text for the prompt, keeps it on one line and spells
// out its control characters (a worker may show the prompt).
func clean(s string) string {
	s = hookbridge.Redact(s)
	return engine.ShowControls(strings.Join(strings.Fields(s), " "))
}

// Preamble opens every advisor prompt (docs/advisor.md quotes it).
const Preamble = `You are advising on a coding agent's session, watched by cully. Below is the evidence cully recorded: signals from its local rules, counts and recent tool-call metadata with redacted previews. It holds no transcript, no file contents and no secrets.
Answer in at most three short sentences: the most useful next step for the agent, or "no advice" if the evidence needs none.`

// DiscoveryPreamble opens a discovery prompt.
const DiscoveryPreamble = `You are doing public research for a coding agent's session, watched by cully. Use at most three web searches about the problem in the evidence below (public documentation, known issues). It holds no transcript, no file contents and no secrets.
Answer with at most five short lines of findings, each with its source.`

// Prompt writes the prompt for a session's evidence; notes, when set, are
// discovery's findings.
func Prompt(preamble string, st *engine.State, ev Evidence, notes string) string {
	var b strings.Builder
	b.WriteString(preamble)
	fmt.Fprintf(&b, "\n\nsession: %s (agent %s, task %d)\nevidence:\n", clean(st.Session), clean(st.Agent), st.Task)
	if len(ev.Signals) == 0 {
		b.WriteString("- no open signal\n")
	}
	for _, s := range ev.Signals {
		b.WriteString("- " + s + "\n")
	}
	b.WriteString("context:\n")
	for _, s := range ev.Context {
		b.WriteString("- " + s + "\n")
	}
	if notes != "" {
		b.WriteString("public research notes (discovery):\n")
		for _, l := range strings.Split(notes, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				b.WriteString("- " + l + "\n")
			}
		}
	}
	return b.String()
}
