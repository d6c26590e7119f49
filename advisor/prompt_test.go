package advisor

import (
	"os"
	"strings"
	"testing"

	"cully/engine"
)

// The hash covers the signals, not the counts; secrets never reach the prompt.
func TestGatherHashesSignalsAndRedacts(t *testing.T) {
	st := engine.NewState("s")
	st.Checkpoints = []engine.Checkpoint{{ID: "c1", Reason: engine.ReasonFailureLoop, Status: engine.StatusOpen, Evidence: "`curl -H 'Authorization: Bearer sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789' x` failed 3 times"}}
	st.Recent = []engine.RecentCall{{Preview: "export TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789", Failed: true}}
	a := Gather(st)
	st.Counts.ToolCalls += 5
	b := Gather(st)
	if a.Hash != b.Hash {
		t.Error("counts changed the evidence hash")
	}
	st.Checkpoints[0].Status = engine.StatusAcked
	if Gather(st).Hash == a.Hash {
		t.Error("a closed checkpoint left the hash unchanged")
	}
	p := Prompt(Preamble, st, a)
	for _, secret := range []string{"sk-ant-api03-abcdef", "ghp_abcdef"} {
		if strings.Contains(p, secret) {
			t.Errorf("prompt holds %s:\n%s", secret, p)
		}
	}
	if !strings.HasPrefix(p, Preamble) || !strings.Contains(p, "checkpoint failure-loop:") {
		t.Errorf("prompt:\n%s", p)
	}
}

func TestTidyBoundsAndCleans(t *testing.T) {
	got := Tidy("line one\n\x1b[31mred\x1b[0m\tand " + strings.Repeat("é", 2000))
	if strings.ContainsAny(got, "\n\t\x1b") || len(got) > maxAdvice+len("…") {
		t.Fatalf("tidy: %q", got[:80])
	}
}

// A due tool gap is evidence: in the hashed signals (a new gap is new
// evidence), and the subject of its own research prompt, redacted.
func TestGapsInEvidence(t *testing.T) {
	st := engine.NewState("s")
	before := Gather(st).Hash
	st.Gaps = []engine.ToolGap{
		{Name: "jq", Missing: 1, Lookups: 1, Forms: []string{"jq . a.json", "TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 which jq"}, Due: 3},
		{Name: "yq", Missing: 1}, // not due: no evidence yet
	}
	ev := Gather(st)
	if ev.Hash == before || len(ev.Signals) != 1 || !strings.HasPrefix(ev.Signals[0], "tool-gap jq: the shell found no `jq` once") {
		t.Fatalf("signals %q", ev.Signals)
	}
	gs := Gaps(st)
	if len(gs) != 1 || gs[0].Name != "jq" || gs[0].Hash == "" {
		t.Fatalf("gaps %+v", gs)
	}
	st.Gaps[0].Lookups++ // more evidence of the same gap: the same gap
	if Gaps(st)[0].Hash != gs[0].Hash {
		t.Error("the gap's hash changed with its counts")
	}
	p := Prompt(ResearchPreamble(gs[0]), st, ev)
	if strings.Contains(p, "ghp_abcdef") || !strings.Contains(p, "The agent seems to lack a tool: the shell found no `jq` once") ||
		!strings.Contains(p, "search: <the query>") {
		t.Fatalf("research prompt:\n%s", p)
	}
}

func TestParseFindingsAndSearchOutcome(t *testing.T) {
	for _, c := range []struct {
		out      string
		notes    string
		searches int
		outcome  string
	}{
		{"jq is in Debian's jq package (packages.debian.org)\nsearch: install jq debian", "jq is in Debian's jq package (packages.debian.org)", 1, OutcomeOK},
		{"a\n- search: one\n* Search: two\n3. `search: three`\nb", "a\nb", 3, OutcomeOK},
		{"a finding with no search behind it", "a finding with no search behind it", 0, "no-searches"},
		{"x\nsearch: 1\nsearch: 2\nsearch: 3\nsearch: 4", "x", 4, "too-many-searches"},
		{"researched: the word alone is no search\nsearch:q", "researched: the word alone is no search", 1, OutcomeOK},
	} {
		f := ParseFindings(c.out)
		if f.Notes != c.notes || f.Searches != c.searches || SearchOutcome(f.Searches) != c.outcome {
			t.Errorf("%q: %+v %s, want %q %d %s", c.out, f, SearchOutcome(f.Searches), c.notes, c.searches, c.outcome)
		}
	}
}

// docs/advisor.md quotes the prompts word for word.
func TestDocsQuoteThePrompts(t *testing.T) {
	b, err := os.ReadFile("../docs/advisor.md")
	if err != nil {
		t.Fatal(err)
	}
	g := Gap{Name: "jq", Evidence: "the shell found no `jq` once; looked for or install tried without finding it once (`jq .name data.json`, `which jq`)"}
	for _, p := range []string{Preamble, DiscoveryPreamble, ResearchPreamble(g)} {
		if !strings.Contains(string(b), p) {
			t.Errorf("docs/advisor.md does not quote:\n%s", p)
		}
	}
}
