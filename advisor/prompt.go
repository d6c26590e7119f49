package advisor

import (
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"strings"

	"cully/engine"
	"cully/ledger"
	"cully/redact"
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
	for _, g := range st.DueGaps() {
		ev.Signals = append(ev.Signals, fmt.Sprintf("tool-gap %s: %s", clean(g.Name), clean(g.Evidence())))
	}
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
	s = redact.Text(s)
	return engine.ShowControls(strings.Join(strings.Fields(s), " "))
}

// Preamble opens every advisor prompt (docs/advisor.md quotes it).
const Preamble = `You are advising on a coding agent's session, watched by cully. Below is the evidence cully recorded: signals from its local rules, counts and recent tool-call metadata with redacted previews. It holds no transcript, no file contents and no secrets.
Answer in at most three short sentences: the most useful next step for the agent, or "no advice" if the evidence needs none.`

// searchesAsked closes discovery's and research's prompts: the worker
// reports the searches it ran, which cully counts (Searches).
const searchesAsked = "Answer with at most five short lines of findings, each with its source. Then list every web search you ran, one line each, as `search: <the query>`: a result that lists none, or more than three, is discarded."

// DiscoveryPreamble opens a discovery prompt.
const DiscoveryPreamble = `You are doing public research for a coding agent's session, watched by cully. Run one to three web searches about the problem in the evidence below (public documentation, known issues). It holds no transcript, no file contents and no secrets.
` + searchesAsked

// ResearchPreamble opens a tool-gap research prompt about one gap.
func ResearchPreamble(g Gap) string {
	return fmt.Sprintf(`You are doing public research for a coding agent's session, watched by cully. The agent seems to lack a tool: %s. Run one to three web searches to find what fills the gap: the package that provides it and how to install it on common systems, or a common alternative. The evidence below holds no transcript, no file contents and no secrets.
`, g.Evidence) + searchesAsked
}

// Gap is a tool gap the session's evidence shows (engine.ToolGap, due),
// as research sees it: its evidence in words, and the hash that makes
// one research attempt per gap (the program's name alone: more evidence
// of the same gap is the same gap).
type Gap struct {
	Name     string `json:"name"`
	Evidence string `json:"evidence"`
	Hash     string `json:"-"`
}

// Gaps are a session's due tool gaps, oldest first.
func Gaps(st *engine.State) []Gap {
	var out []Gap
	for _, g := range st.DueGaps() {
		h := fnv.New128a()
		h.Write([]byte("tool-gap\x00" + g.Name))
		out = append(out, Gap{Name: clean(g.Name), Evidence: clean(g.Evidence()), Hash: hex.EncodeToString(h.Sum(nil))})
	}
	return out
}

// Findings is what a discovery or research worker answered: its findings
// and the searches it reported running.
type Findings struct {
	Notes    string // the findings, redacted, a line each, bounded
	Searches int    // the lines `search: …`
}

// ParseFindings reads a discovery or research worker's answer: the lines
// `search: <query>` (a list's bullet or backticks around it allowed) are
// the searches it ran, the rest its findings.
func ParseFindings(out string) Findings {
	var f Findings
	var notes []string
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimLeft(strings.TrimSpace(l), "-*•0123456789.) `")
		if len(t) >= 7 && strings.EqualFold(t[:7], "search:") {
			f.Searches++
			continue
		}
		notes = append(notes, l)
	}
	f.Notes = tidyLines(strings.Join(notes, "\n"))
	return f
}

// SearchOutcome judges a worker's reported searches against "one to three
// searches": none, or more than ledger.MaxSearches, refuses the result.
// None: findings with no search behind them are the model's recollection,
// not public research. More: the limit is on what may be spent, and the
// searches have been spent; keeping the findings (or the first three's,
// which the answer does not tell apart) would make the limit a wish. The
// attempt is counted either way.
func SearchOutcome(n int) string {
	switch {
	case n < ledger.MinSearches:
		return ledger.OutcomeNoSearches
	case n > ledger.MaxSearches:
		return ledger.OutcomeTooManySearches
	}
	return OutcomeOK
}

// Prompt writes the prompt for a session's evidence; notes, when set, are
// discovery's and research's findings, under their headings.
func Prompt(preamble string, st *engine.State, ev Evidence, notes ...Note) string {
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
	for _, n := range notes {
		if n.Text == "" {
			continue
		}
		b.WriteString(n.Heading + ":\n")
		for _, l := range strings.Split(n.Text, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				b.WriteString("- " + l + "\n")
			}
		}
	}
	return b.String()
}

// Note is research findings the advisor's prompt carries.
type Note struct{ Heading, Text string }
