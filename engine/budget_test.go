package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// budgetSim is a sim with the seed's budgets (and b's limits over them).
func budgetSim(t *testing.T, b BudgetConfig) *sim {
	s := newSim(t)
	s.cfg.Budget = b
	s.cfg = s.cfg.Sanitize()
	return s
}

func usage(in, out int64) Event {
	return Event{Kind: KindHostUsage, Usage: &HostUsage{InputTokens: &in, OutputTokens: &out}}
}

func i64(n int64) *int64 { return &n }

// firstWith returns the 1-based call whose nudge first holds marker, and
// how many nudges held it in all (0, 0: none did); each step may apply
// events before its call.
func firstWith(s *sim, steps int, before func(s *sim, i int), ev func(i int) Event, marker string) (first, times int) {
	for i := 1; i <= steps; i++ {
		if before != nil {
			before(s, i)
		}
		if n := s.call(ev(i)); strings.Contains(n, marker) {
			if first == 0 {
				first = i
			}
			times++
		}
	}
	return first, times
}

func readN(i int) Event { return read(fmt.Sprintf("f%d.go", i)) }

func checkCmd(cmd string) Event {
	return Event{Tool: "Bash", Class: ClassCheck, Cmd: cmd, CmdFP: "fp-" + cmd, Outcome: OutcomeOK}
}

// Each warning fires at its boundary, not one call before, once per limit
// per run, and never on a figure the host did not give.
// TestBudgetWarnings: each warning at its boundary, for budgets the user
// set (the seed's numbers; the defaults' alerts are never told, see
// TestDefaultBudgetsAreNotTold).
func TestBudgetWarnings(t *testing.T) {
	cases := []struct {
		name   string
		b      BudgetConfig
		steps  int
		before func(s *sim, i int)
		ev     func(i int) Event
		marker string
		want   int // the first call whose nudge holds it; 0: none
	}{
		{"tool calls: 27 of 30 finished warns before the 28th", BudgetConfig{ToolCalls: 30}, 29, nil, readN,
			"budget warning: this run has used 27 of its 30 tool calls (90%", 28},
		{"tool calls: the user's limit of 10", BudgetConfig{ToolCalls: 10}, 12, nil, readN,
			"used 9 of its 10 tool calls", 10},
		{"tool calls: exceeded at 30", BudgetConfig{ToolCalls: 30}, 32, nil, readN,
			"used 30 of its 30 tool calls: the budget is reached", 31},
		{"wall clock: 270 s of 300", BudgetConfig{WallSeconds: 300}, 4, func(s *sim, i int) {
			// The prompt was at second 1; each call takes two seconds:
			// call i's pre-tool is at 1 + 2(i-1) + 1 + skip.
			if i == 2 {
				s.now = s.now.Add(265 * time.Second) // call 2 starts 268 s in, call 3 270 s in
			}
		}, readN, "budget warning: this run has used 4m30s of its 5m0s of wall clock", 3},
		{"tokens: 45,000 of 50,000", BudgetConfig{Tokens: 50000}, 3, func(s *sim, i int) {
			s.apply(usage(1000, 0)) // the run's base is the host's figure at its start
			if i == 2 {
				s.apply(usage(1000+44_999, 0))
			}
			if i == 3 {
				s.apply(usage(1000+40_000, 5000))
			}
		}, readN, "budget warning: this run has used 45,000 of its 50,000 tokens", 3},
		{"tokens: summary-only past 80%, not at it", BudgetConfig{Tokens: 50000}, 3, func(s *sim, i int) {
			switch i {
			case 1:
				s.apply(usage(0, 0))
			case 2:
				s.apply(usage(40_000, 0))
			case 3:
				s.apply(usage(40_000, 1))
			}
		}, readN, "used 40,001 of its 50,000 tokens (80%, past 80%): summary-only", 3},
		{"tokens unknown: no output figure, no warning", BudgetConfig{}, 3, func(s *sim, i int) {
			s.apply(Event{Kind: KindHostUsage, Usage: &HostUsage{InputTokens: i64(int64(i) * 30_000)}})
		}, readN, "tokens", 0},
		{"cost: no budget unless the user sets one", BudgetConfig{}, 3, func(s *sim, i int) {
			c := float64(i) * 100
			s.apply(Event{Kind: KindHostUsage, Usage: &HostUsage{CostUSD: &c}})
		}, readN, "cost", 0},
		{"cost: the user's $2", BudgetConfig{CostUSD: 2}, 3, func(s *sim, i int) {
			c := []float64{0, 0.5, 1.79, 2.3}[i]
			s.apply(Event{Kind: KindHostUsage, Usage: &HostUsage{CostUSD: &c}})
		}, readN, "budget warning: this run has used $1.80 of its $2.00 of cost", 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := budgetSim(t, c.b)
			s.prompt()
			got, times := firstWith(s, c.steps, c.before, c.ev, c.marker)
			if got != c.want {
				t.Errorf("first told before call %d, want %d", got, c.want)
			}
			if c.want > 0 && times != 1 {
				t.Errorf("told %d times, want once", times)
			}
		})
	}
}

// A run that edits three distinct files is a multi-file task (the
// class the user set overrides the evidence); the class only sets the
// seed's recommended limits, never a limit: an attended run has the
// budgets the user set and no other; an unattended one the armed caps.
func TestBudgetClassAndLimits(t *testing.T) {
	s := budgetSim(t, BudgetConfig{})
	s.prompt()
	for _, f := range []string{"a.go", "b.go", "a.go"} {
		s.call(edit(f))
	}
	if c := s.st.Run.Class(&s.cfg); c != ClassStandard {
		t.Fatalf("two distinct files: %s, want standard", c)
	}
	s.call(edit("c.go"))
	if c := s.st.Run.Class(&s.cfg); c != ClassMultiFile {
		t.Fatalf("three distinct files: %s, want multi-file", c)
	}
	for _, res := range Resources() {
		if l := s.st.Run.Limit(res, &s.cfg, true); l != 0 {
			t.Errorf("attended, no budget set: %s limit %v, want none", res, l)
		}
	}
	if l := s.st.Run.Limit(ResToolCalls, &s.cfg, false); l != armedCalls {
		t.Errorf("unattended: tool calls %v, want the armed %d", l, armedCalls)
	}
	if l := s.st.Run.Limit(ResWallClock, &s.cfg, false); l != armedSeconds {
		t.Errorf("unattended: wall clock %v, want the armed %d", l, armedSeconds)
	}
	if l := s.st.Run.Limit(ResCost, &s.cfg, false); l != 0 {
		t.Errorf("unattended: cost %v, want none", l)
	}
	s.cfg.Budget.ToolCalls = 40
	if l := s.st.Run.Limit(ResToolCalls, &s.cfg, false); l != 40 {
		t.Errorf("the user's 40 calls, unattended: %v", l)
	}
	s.cfg.Budget.Class = "full-repo"
	if c := s.st.Run.Class(&s.cfg); c != ClassFullRepo {
		t.Errorf("the user's class: %s, want full-repo", c)
	}
	for i := range 20 {
		s.call(edit(fmt.Sprint("x", i, ".go")))
	}
	s.cfg.Budget.Class = ""
	if c := s.st.Run.Class(&s.cfg); c != ClassFullRepo {
		t.Errorf("twenty-three files: %s, want full-repo", c)
	}
}

// `cully resume --raise` doubles the budgets the run reached, and only
// those; the doubled limit warns again at its own 90%. A plain resume
// raises nothing.
func TestResumeRaiseDoublesReachedBudgets(t *testing.T) {
	s := budgetSim(t, BudgetConfig{ToolCalls: 30, WallSeconds: 3600}) // the user's own limits: told
	s.prompt()
	for i := 1; i <= 30; i++ {
		s.call(readN(i))
	}
	s.apply(Event{Kind: KindPause, Agent: "cully", Source: PauseHalt})
	s.apply(Event{Kind: KindResume, Agent: "cully", Source: ResumeKeep})
	r := s.st.Run
	if r.Halted != nil || r.Paused != nil || len(r.Resumed.Doubled) != 0 {
		t.Fatalf("a plain resume: halted %v paused %v doubled %v", r.Halted, r.Paused, r.Resumed.Doubled)
	}
	s.apply(Event{Kind: KindResume, Agent: "cully", Source: ResumeRaise, Note: "bulk renames, each different"})
	if got := r.Resumed.Doubled; len(got) != 1 || got[0] != ResToolCalls {
		t.Fatalf("doubled %v, want [tool_calls]", got)
	}
	if l := r.Limit(ResToolCalls, &s.cfg, true); l != 60 {
		t.Fatalf("tool calls limit %v after resume, want 60", l)
	}
	if l := r.Limit(ResWallClock, &s.cfg, true); l != 3600 {
		t.Errorf("wall clock %v: not reached, not doubled", l)
	}
	first, _ := firstWith(s, 25, nil, readN, "used 54 of its 60 tool calls")
	if first != 25 { // 30 done; the 54th finishes at step 24, the warning comes before step 25
		t.Errorf("the doubled limit warned before step %d, want 25", first)
	}
	// A new task starts with the user's limits again.
	s.prompt()
	if l := s.st.Run.Limit(ResToolCalls, &s.cfg, true); l != 30 {
		t.Errorf("a new run's limit %v, want 30", l)
	}
}

func TestRunawayRules(t *testing.T) {
	plan := func(done, total int) Event {
		return Event{Tool: "TodoWrite", Class: ClassOther, Plan: &PlanProgress{Done: done, Total: total}}
	}
	tokens := func(at int, n int64) func(s *sim, i int) {
		return func(s *sim, i int) {
			switch i {
			case 1:
				s.apply(usage(0, 0))
			case at:
				s.apply(usage(n, 0))
			}
		}
	}
	cases := []struct {
		name   string
		steps  int
		before func(s *sim, i int)
		ev     func(i int) Event
		marker string
		want   int
	}{
		{"tokens past 80% with 1 of 8 done", 4, tokens(3, 40_001), func(i int) Event {
			if i == 1 {
				return plan(1, 8)
			}
			return readN(i)
		}, "runaway: this run has used 40,001 of its 50,000 tokens (80%) with 1 of its 8 plan items done", 3},
		{"tokens at 80% exactly: not past it", 4, tokens(3, 40_000), func(i int) Event {
			if i == 1 {
				return plan(1, 8)
			}
			return readN(i)
		}, "runaway", 0},
		{"20% done is not under 20%", 4, tokens(3, 45_000), func(i int) Event {
			if i == 1 {
				return plan(2, 10)
			}
			return readN(i)
		}, "runaway", 0},
		{"no plan, nothing modified: none of it done", 4, tokens(3, 40_001), readN,
			"runaway: this run has used 40,001 of its 50,000 tokens (80%) with no file modified yet", 3},
		{"no plan, a file modified: progress unknown", 4, tokens(3, 49_000), func(i int) Event {
			if i == 1 {
				return edit("a.go")
			}
			return readN(i)
		}, "runaway", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := budgetSim(t, BudgetConfig{Tokens: 50000}) // a budget the user set: runaways are told
			s.prompt()
			steps := c.steps
			if c.want > steps {
				steps = c.want + 1
			}
			got, times := firstWith(s, steps, c.before, c.ev, c.marker)
			if got != c.want {
				t.Errorf("first told before call %d, want %d", got, c.want)
			}
			if c.want > 0 && times != 1 {
				t.Errorf("told %d times, want once", times)
			}
		})
	}
}

// Three identical calls with one result: the repeated-call guard's
// warning is the runaway, booked in the run and said once, by the guard.
func TestRepeatIsARunaway(t *testing.T) {
	s := budgetSim(t, BudgetConfig{})
	s.prompt()
	g := callOf(Event{Tool: "Grep", Class: ClassRead, Cmd: "Grep TODO"}, "grep-todo", "o")
	for i := 1; i <= 3; i++ {
		s.call(g)
	}
	if n := s.call(g); strings.Count(n, "ran 3 times in a row") != 1 {
		t.Fatalf("the fourth call's nudge: %q", n)
	}
	var runaways []BudgetAlert
	for _, a := range s.st.Run.Budget.Alerts {
		if a.Kind == AlertRunaway {
			runaways = append(runaways, a)
		}
	}
	if len(runaways) != 1 || !strings.Contains(runaways[0].Key, RunawayRepeat) || !runaways[0].Told {
		t.Fatalf("runaways %+v, want the one repeat, told", runaways)
	}
	s.call(g)
	if len(s.st.Run.Budget.Alerts) != 1 {
		t.Errorf("alerts %+v: the repeat booked twice", s.st.Run.Budget.Alerts)
	}
}

// An attended run with no budget of the user's has none: no alert is
// raised, shown or told, however long it runs (the seed's defaults were
// passed by ordinary, approved tasks: 167 alerts on 40 real sessions, 1
// worth a look). The runaway rules are shown, not told.
func TestNoBudgetAttendedIsQuiet(t *testing.T) {
	s := budgetSim(t, BudgetConfig{})
	s.prompt()
	for i := 1; i <= 600; i++ {
		if n := s.call(readN(i)); strings.Contains(n, "cully budget") || strings.Contains(n, "runaway") {
			t.Fatalf("call %d told %q", i, n)
		}
	}
	for _, a := range s.st.Run.Budget.Alerts {
		if a.Kind != AlertRunaway || a.Told {
			t.Errorf("alert %+v in an attended run with no budget", a)
		}
	}
}

// A run nobody watches is armed: at its cap of calls the call in flight
// finishes, the next is refused, the run is halted (enforce: auto mode,
// unattended), told once, by the refusal.
func TestUnattendedRunIsArmed(t *testing.T) {
	s := budgetSim(t, BudgetConfig{})
	f := false
	s.apply(Event{Kind: KindSessionStart, Attended: &f})
	s.prompt()
	for i := 1; i <= armedCalls; i++ {
		s.call(readN(i))
	}
	if s.st.Run.Halted != nil {
		t.Fatalf("halted before its cap: %+v", s.st.Run.Halted)
	}
	sigs := s.apply(Event{Kind: KindPreTool, Tool: "Read", Class: ClassRead, Target: "over.go"})
	h := Halt(sigs)
	if h == "" || !strings.Contains(h, "used 500 of its 500 tool calls (cully's cap on a run nobody watches)") {
		t.Fatalf("the call past the cap: halt %q", h)
	}
	if s.st.Run.Halted.By != HaltBudget {
		t.Errorf("halted by %q", s.st.Run.Halted.By)
	}
}

// In enforce mode three identical calls with one result halt the run: the
// fourth is refused.
func TestRepeatHaltsInEnforceMode(t *testing.T) {
	s := budgetSim(t, BudgetConfig{Mode: ModeEnforce, ToolCalls: 1000})
	s.prompt()
	g := callOf(Event{Tool: "Grep", Class: ClassRead, Cmd: "Grep TODO"}, "grep-todo", "o")
	for i := 1; i <= 3; i++ {
		s.call(g)
	}
	pre := g
	pre.Kind, pre.Outcome = KindPreTool, ""
	if h := Halt(s.apply(pre)); !strings.Contains(h, "ran 3 times in a row") || s.st.Run.Halted == nil || s.st.Run.Halted.By != HaltRunaway {
		t.Fatalf("the fourth identical call: halt %q, run %+v", h, s.st.Run.Halted)
	}
}

// Past 80% of a token budget in enforce mode an edit and a command that
// may change files are refused, the call alone (the run goes on); reads
// and checks run; a resume that raises the budget ends it.
func TestSummaryOnlyEnforced(t *testing.T) {
	s := budgetSim(t, BudgetConfig{Tokens: 50_000, Mode: ModeEnforce})
	s.prompt()
	s.apply(usage(0, 0))
	s.call(edit("a.go")) // progress: no token runaway
	s.apply(usage(40_001, 0))
	pre := func(ev Event) []Signal {
		ev.Kind = KindPreTool
		return s.apply(ev)
	}
	for _, ev := range []Event{edit("a.go"), {Tool: "Bash", Class: ClassRun, Cmd: "sed -i s/a/b/ a.go"}} {
		sigs := pre(ev)
		if h := Halt(sigs); !strings.Contains(h, "summary-only. This call would change files and is refused") || HaltEnds(sigs) {
			t.Fatalf("%s past 80%%: halt %q, ends %v", ev.Tool, h, HaltEnds(sigs))
		}
	}
	for _, ev := range []Event{read("b.go"), checkCmd("go test ./...")} {
		if h := Halt(pre(ev)); h != "" {
			t.Fatalf("%s refused: %q", ev.Tool, h)
		}
	}
	if s.st.Run.Halted != nil {
		t.Fatalf("summary-only halted the run: %+v", s.st.Run.Halted)
	}
	s.apply(Event{Kind: KindResume, Agent: "cully", Source: ResumeRaise, Note: "finish it"})
	if h := Halt(pre(edit("a.go"))); h != "" {
		t.Fatalf("after the budget was raised: %q", h)
	}
	// Advise mode: told, never refused.
	a := budgetSim(t, BudgetConfig{Tokens: 50_000, Mode: ModeAdvise})
	a.prompt()
	a.apply(usage(0, 0))
	a.call(read("a.go"))
	a.apply(usage(40_001, 0))
	ev := edit("a.go")
	ev.Kind = KindPreTool
	if h := Halt(a.apply(ev)); h != "" {
		t.Fatalf("advise mode refused: %q", h)
	}
}

// A run far past its budget (stopped overnight) is raised above what it
// used: its next call is not halted again.
func TestRaiseClearsTheBudget(t *testing.T) {
	s := budgetSim(t, BudgetConfig{WallSeconds: 60, Mode: ModeEnforce})
	s.prompt()
	s.call(readN(1))
	s.now = s.now.Add(5 * time.Minute)
	s.call(readN(2))
	if s.st.Run.Halted == nil {
		t.Fatal("not halted past the wall clock")
	}
	s.apply(Event{Kind: KindResume, Agent: "cully", Source: ResumeRaise, Note: "long but fine"})
	if l := s.st.Run.Limit(ResWallClock, &s.cfg, true); l <= 300 {
		t.Fatalf("raised to %v s, not above the 300+ s used", l)
	}
	if s.call(readN(3)); s.st.Run.Halted != nil {
		t.Fatalf("halted again right after the raise: %+v", s.st.Run.Halted)
	}
}

// The no-progress runaway is raised (shown in status and the panel) at its
// boundary, once per stall, and never told: blind labels found 9 of its
// 83 corpus firings worth a look.
func TestStallRunawayShown(t *testing.T) {
	cases := []struct {
		name   string
		steps  int
		before func(s *sim, i int)
		ev     func(i int) Event
		marker string
		want   int
	}{
		{"10 calls since the last modification", 13, nil, func(i int) Event {
			if i == 1 {
				return edit("a.go")
			}
			return readN(i)
		}, "runaway: 10 tool calls since this run last modified a file or ran a new check (at its call 1)", 12},
		{"checks after an edit are progress", 16, nil, func(i int) Event {
			switch i {
			case 1:
				return edit("a.go")
			case 2, 3, 4, 5: // test, lint, vet, build: each verifies the edit
				return checkCmd([]string{"go test ./...", "golangci-lint run", "go vet ./...", "go build ./..."}[i-2])
			}
			return readN(i)
		}, "since this run last modified a file or ran a new check (at its call 5)", 16},
		{"waiting and task lists are not work left undone", 16, nil, func(i int) Event {
			switch {
			case i == 1:
				return edit("a.go")
			case i%2 == 0:
				return Event{Tool: "TaskOutput", Class: ClassPoll}
			}
			return Event{Tool: "TodoWrite", Class: ClassOther}
		}, "runaway", 0},
		{"a check re-run is not", 16, nil, func(i int) Event {
			switch i {
			case 1:
				return edit("a.go")
			case 2, 3, 4, 5:
				return checkCmd("go test ./...")
			}
			return readN(i)
		}, "(at its call 2)", 13},
		{"no modification yet: still exploring", 14, nil, readN, "runaway", 0},
		{"a modification restarts the count", 16, nil, func(i int) Event {
			if i == 1 || i == 8 {
				return edit("a.go")
			}
			return readN(i)
		}, "since this run last modified a file or ran a new check (at its call 8)", 19},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := budgetSim(t, BudgetConfig{Tokens: 50000}) // a budget the user set: other runaways are told
			s.prompt()
			steps := max(c.steps, c.want+1)
			first := 0
			for i := 1; i <= steps; i++ {
				if n := s.call(c.ev(i)); strings.Contains(n, "runaway") {
					t.Fatalf("call %d told %q", i, n)
				}
				for _, a := range s.st.Run.Budget.Alerts {
					if first == 0 && a.Kind == AlertRunaway && strings.Contains(a.Text, c.marker) {
						first = i // raised before call i
					}
				}
			}
			if c.want == 0 && first != 0 || c.want != 0 && first != c.want {
				t.Errorf("raised before call %d, want %d", first, c.want)
			}
		})
	}
}
