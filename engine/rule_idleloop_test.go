package engine

import (
	"strings"
	"testing"
)

// idleStep is one event of an idle-loop scenario, written as a short
// string: "P text" a user prompt, "S text" a turn end with that closing
// message, "F text" one a Stop hook forced, "S" a turn end whose host
// gave no message, "T" a tool call, "X" a call the host refused (a batch),
// "A" a subagent's turn end, "R" the user's `cully resume`.
func (s *sim) idleStep(step string) []Signal {
	op, text, _ := strings.Cut(step, " ")
	switch op {
	case "P":
		return s.apply(Event{Kind: KindPrompt, PromptFP: PromptFingerprint(text)})
	case "S", "F", "A":
		ev := Event{Kind: KindStop, Forced: op == "F"}
		ev.EndFP, ev.EndSketch, ev.EndSays = ClosingOf(text)
		if op == "A" {
			ev.Subagent = "a1"
		}
		return s.apply(ev)
	case "T":
		s.call(read("f.go"))
	case "X":
		return s.apply(Event{Kind: KindBatch, Rejected: []Rejected{{Tool: "Edit", Class: ClassEdit, FP: "e", Sig: "s"}}})
	case "R":
		return s.apply(Event{Kind: KindResume, Run: s.st.Run.ID, Note: "go on"})
	}
	return nil
}

func TestIdleLoopRule(t *testing.T) {
	const wait = "Awaiting your choice (Option A or B). Nothing actionable on my end."
	cases := []struct {
		name       string
		unattended bool
		mode       string
		steps      []string
		// at is the step (1-based) that raised the checkpoint (0: none);
		// halt the step whose turn end halted the run (0: none); told the
		// step whose answer told the agent (0: never told).
		at, halt, told int
		evidence       string // in the checkpoint or the halt note
	}{
		// anthropics/claude-code#64447: under /goal, "Awaiting your choice
		// (Option A or B). Nothing actionable on my end." after each "Goal
		// not yet met… continuing", no call, until interrupted.
		{name: "three alike turn ends with no call between", steps: []string{"P do it", "S " + wait, "S " + wait, "S " + wait},
			at: 4, evidence: "the last 3 turns ended with no tool call and the same closing message"},
		{name: "two are not a loop", steps: []string{"P do it", "S " + wait, "S " + wait}},
		{name: "a tool call between breaks it", steps: []string{"P do it", "S " + wait, "S " + wait, "T", "S " + wait, "S " + wait}},
		{name: "a refused call between breaks it", steps: []string{"P do it", "S " + wait, "S " + wait, "X", "S " + wait}},
		{name: "the user's different prompts reset it", steps: []string{"P do it", "S Done.", "P and the docs?", "S Done.", "P thanks", "S Done."}},
		// github.com/google-gemini/gemini-cli#12737, #2708: the closing
		// "The task is complete. I'm ready for the next task." again and
		// again; a /loop re-sends its prompt the same way each time.
		{name: "the same prompt re-sent does not, and is the channel", steps: []string{"P go", "S Done.", "P go", "S Done.", "P go", "S Done.", "P go"},
			at: 6, told: 7, evidence: "the last 3 turns ended with no tool call and the same closing message"},
		// MoonshotAI/kimi-cli#2525: goal continuations every few seconds
		// while a remote job runs, each a no-op reply ("waiting, no action
		// this turn"), 160+ turns in 3 hours.
		{name: "numbers do not make messages differ", steps: []string{"P go", "S Checking again in 3 minutes.", "S Checking again in 5 minutes.", "S Checking again in 10 minutes."},
			at: 4},
		{name: "near-identical: one word more", steps: []string{"P go",
			"S The migration is applied and the tests pass; the remaining step is the deploy, which needs credentials I do not have.",
			"S The migration is applied and all the tests pass; the remaining step is the deploy, which needs credentials I do not have.",
			"S The migration is applied and the tests pass; the remaining step is the deploy, which needs credentials I do not have."},
			at: 4, evidence: "the same closing message"},
		// openai/codex#22158: /goal stuck "blocked", live verification
		// required but unavailable, every turn worded a little differently.
		{name: "different messages that each say it is stuck", steps: []string{"P go", "S I'm blocked on the missing API key.",
			"S Still waiting for the build server.", "S The task is complete."},
			at: 4, evidence: "a closing message that says the agent is done"},
		{name: "different messages saying nothing of the sort", steps: []string{"P go", "S Refactored the parser.", "S Added tests for the lexer.", "S Updated the changelog."}},
		{name: "a host with no closing message never fires", steps: []string{"P go", "S", "S", "S", "S"}},
		{name: "a subagent's turn ends do not count", steps: []string{"P go", "A Done.", "A Done.", "A Done."}},
		// anthropics/claude-code#43906 and openai/codex#37937: a Stop hook
		// that blocks (or whose empty output is fed back) forces turn after
		// turn; stop_hook_active says so.
		{name: "forced turns are said", steps: []string{"P go", "S Done.", "F Done.", "F Done."},
			at: 4, evidence: "(2 of them continued by a Stop hook, not by the user)"},

		// PrimeIntellect-ai/prime-agent#986: goal mode re-injects its
		// continuation while the agent waits for a confirmation that never
		// comes, nobody watching.
		{name: "unattended: told with the re-sent prompt, halted at the next", unattended: true,
			steps: []string{"P go", "S " + wait, "P go", "S " + wait, "P go", "S " + wait, "P go", "S " + wait},
			told:  7, halt: 8, evidence: "cully told the agent so after the 3rd and it went on the same way"},
		// anthropics/claude-code#3573: in GitHub Actions (headless) a
		// failing Stop hook's feedback continues the turn forever; no
		// prompt comes between the turns.
		{name: "unattended with no prompt between: halted all the same", unattended: true,
			steps: []string{"P go", "S " + wait, "F " + wait, "F " + wait, "F " + wait},
			halt:  5, evidence: "no prompt came between the turns to tell the agent on"},
		{name: "unattended in advise mode: told, never halted", unattended: true, mode: ModeAdvise,
			steps: []string{"P go", "S Done.", "P go", "S Done.", "P go", "S Done.", "P go", "S Done.", "P go", "S Done."}, told: 7},
		{name: "unattended: a call after the note ends it", unattended: true,
			steps: []string{"P go", "S Done.", "P go", "S Done.", "P go", "S Done.", "P go", "T", "S Done."}, told: 7},
		{name: "a resume lets the run go on", unattended: true,
			steps: []string{"P go", "S Done.", "S Done.", "S Done.", "S Done.", "R", "S Done.", "S Done."}, halt: 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSim(t)
			s.cfg.Budget.Mode = c.mode
			if c.unattended {
				f := false
				s.apply(Event{Kind: KindSessionStart, Attended: &f})
			}
			at, halt, told := 0, 0, 0
			for i, step := range c.steps {
				for _, sg := range s.idleStep(step) {
					switch {
					case sg.Kind == SignalCheckpoint && sg.Reason == ReasonIdleLoop:
						if at != 0 {
							t.Errorf("step %d: raised again (first at %d)", i+1, at)
						}
						at = i + 1
						if !strings.Contains(sg.Evidence, c.evidence) {
							t.Errorf("evidence %q lacks %q", sg.Evidence, c.evidence)
						}
					case sg.Kind == SignalHalt && halt == 0:
						halt = i + 1
						if !strings.Contains(sg.Text, c.evidence) || !strings.Contains(sg.Text, "cully resume") {
							t.Errorf("halt %q lacks %q or how to resume", sg.Text, c.evidence)
						}
					case sg.Kind == SignalNudge && strings.Contains(sg.Text, "no tool call"):
						if told != 0 {
							t.Errorf("step %d: told again (first at %d)", i+1, told)
						}
						told = i + 1
					}
				}
			}
			if at != c.at || halt != c.halt || told != c.told {
				t.Errorf("checkpoint at %d, halt at %d, told at %d; want %d, %d, %d", at, halt, told, c.at, c.halt, c.told)
			}
		})
	}
}

// A halted run's calls are refused until the resume, and the checkpoint
// of an attended loop closes once the agent acts.
func TestIdleLoopAfterwards(t *testing.T) {
	s := newSim(t)
	f := false
	s.apply(Event{Kind: KindSessionStart, Attended: &f})
	for _, st := range []string{"P go", "S Done.", "S Done.", "S Done.", "S Done."} {
		s.idleStep(st)
	}
	if Halt(s.apply(Event{Kind: KindPreTool, Tool: "Read", Class: ClassRead})) == "" {
		t.Error("a halted run's next call is refused")
	}

	s = newSim(t)
	for _, st := range []string{"P go", "S Done.", "S Done.", "S Done."} {
		s.idleStep(st)
	}
	if s.open(ReasonIdleLoop) != 1 {
		t.Fatal("the checkpoint is open")
	}
	if n := s.call(read("f.go")); strings.Contains(n, string(ReasonIdleLoop)) {
		t.Errorf("not told before the very call that ends the loop: %q", n)
	}
	if s.open(ReasonIdleLoop) != 0 {
		t.Error("a tool call resolves it")
	}
}
