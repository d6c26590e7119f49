package engine

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// snaps runs one tool call and returns the snapshot signals it raised, and
// the nudge given before it.
func (s *sim) snaps(ev Event) ([]Signal, string) {
	pre := ev
	pre.Kind, pre.Outcome = KindPreTool, ""
	var out []Signal
	sigs := s.apply(pre)
	nudge := Nudge(sigs)
	post := ev
	post.Kind = KindPostTool
	if post.Outcome == "" {
		post.Outcome = OutcomeOK
	}
	sigs = append(sigs, s.apply(post)...)
	for _, g := range sigs {
		if g.Kind == SignalSnapshot {
			out = append(out, g)
		}
	}
	return out, nudge
}

func snapshotsIn(sigs []Signal) []Signal {
	var out []Signal
	for _, g := range sigs {
		if g.Kind == SignalSnapshot {
			out = append(out, g)
		}
	}
	return out
}

var uuidShape = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestRunIDIsADerivedUUID(t *testing.T) {
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	a, b := RunID("s", 1, at), RunID("s", 1, at)
	if a != b || !uuidShape.MatchString(a) {
		t.Fatalf("RunID = %q, %q: want one version-8 UUID", a, b)
	}
	for _, other := range []string{RunID("s", 2, at), RunID("t", 1, at), RunID("s", 1, at.Add(time.Nanosecond))} {
		if other == a {
			t.Errorf("two runs share the id %s", a)
		}
	}
}

// The cadence: the baseline at the prompt, then every 10 calls or 120
// seconds, whichever comes first, and at the end of the agent's turn when
// it made calls since the last snapshot.
func TestSnapshotCadence(t *testing.T) {
	type want struct {
		reason Reason
		calls  int
	}
	cases := []struct {
		name string
		run  func(s *sim) []Signal
		want []want
	}{
		{"baseline at the prompt", func(s *sim) []Signal { return s.prompt() }, []want{{SnapBaseline, 0}}},
		{"every 10 calls", func(s *sim) []Signal {
			var got []Signal
			for i := 0; i < 25; i++ {
				g, _ := s.snaps(read("a.go"))
				got = append(got, g...)
			}
			return got
		}, []want{{SnapCalls, 10}, {SnapCalls, 20}}},
		{"120 seconds first", func(s *sim) []Signal {
			var got []Signal
			for i := 0; i < 3; i++ {
				g, _ := s.snaps(read("a.go"))
				got = append(got, g...)
			}
			s.now = s.now.Add(113 * time.Second) // the 4th call ends 121 s after the prompt
			g, _ := s.snaps(read("a.go"))
			got = append(got, g...)
			for i := 0; i < 9; i++ { // counted from the time snapshot: 10 more calls
				g, _ := s.snaps(read("a.go"))
				got = append(got, g...)
			}
			g, _ = s.snaps(read("a.go"))
			return append(got, g...)
		}, []want{{SnapTime, 4}, {SnapCalls, 14}}},
		{"118 seconds is not yet", func(s *sim) []Signal {
			s.now = s.now.Add(116 * time.Second)
			g, _ := s.snaps(read("a.go"))
			return g
		}, nil},
		{"the end of the turn", func(s *sim) []Signal {
			s.snaps(edit("a.go"))
			got := s.apply(Event{Kind: KindStop})
			return append(got, s.apply(Event{Kind: KindStop})...) // nothing new since: no second one
		}, []want{{SnapEnd, 1}}},
		{"a subagent's stop is not the end", func(s *sim) []Signal {
			s.snaps(edit("a.go"))
			return s.apply(Event{Kind: KindStop, Subagent: "a1"})
		}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSim(t)
			if c.name != "baseline at the prompt" {
				s.prompt()
			}
			got := snapshotsIn(c.run(s))
			if len(got) != len(c.want) {
				t.Fatalf("got %d snapshot signals %+v, want %+v", len(got), got, c.want)
			}
			for i, w := range c.want {
				if got[i].Reason != w.reason || got[i].N != w.calls || got[i].ID != s.st.Run.ID {
					t.Errorf("signal %d = %+v, want %s at %d calls of run %s", i, got[i], w.reason, w.calls, s.st.Run.ID)
				}
			}
			asked := len(c.want)
			if c.name != "baseline at the prompt" {
				asked++ // the prompt's baseline
			}
			if r := s.st.Run; r.Asked != asked {
				t.Errorf("asked %d, want %d", r.Asked, asked)
			}
		})
	}
}

// A session that showed cully no prompt gets its run at the first call,
// before the call runs; a new prompt is a new run, which keeps the user's
// pause and the session's snapshot accounting.
func TestRunStartsAndCarries(t *testing.T) {
	s := newSim(t)
	sigs := s.apply(Event{Kind: KindPreTool, Tool: "Read", Class: ClassRead, Target: "a.go"})
	if g := snapshotsIn(sigs); len(g) != 1 || g[0].Reason != SnapBaseline || s.st.Run == nil || s.st.Run.Task != 0 {
		t.Fatalf("no baseline before the first call of a session with no prompt: %+v", sigs)
	}
	first := s.st.Run.ID
	s.apply(Event{Kind: KindPause, Run: first, Note: "stopped"})
	s.prompt()
	r := s.st.Run
	if r.ID == first || r.Task != 1 || r.Paused == nil || r.Asked != 2 || r.Calls != 0 {
		t.Fatalf("the new run: %+v", r)
	}
}

func TestNoSnapshotsAsksNothing(t *testing.T) {
	s := newSim(t)
	var got []Signal
	got = append(got, s.apply(Event{Kind: KindPrompt, NoSnapshots: true})...)
	for i := 0; i < 12; i++ {
		ev := read("a.go")
		ev.NoSnapshots = true
		g, _ := s.snaps(ev)
		got = append(got, g...)
	}
	if g := snapshotsIn(got); len(g) > 0 || s.st.Run.Asked != 0 || s.st.Run.Calls != 12 {
		t.Fatalf("snapshots off: %+v, run %+v", g, s.st.Run)
	}
}

func stepPtr(n int) *int { return &n }

// A failed snapshot is recorded, said once before the agent's next call
// (not again while snapshots keep failing), and cleared by a success.
func TestSnapshotFailureWarnsOnce(t *testing.T) {
	s := newSim(t)
	s.prompt()
	id := s.st.Run.ID
	s.apply(Event{Kind: KindSnapshot, Run: id, Source: string(SnapBaseline), Outcome: OutcomeOK, Step: stepPtr(0)})
	if r := s.st.Run; r.Done != 1 || r.Snapshots != 1 || r.Pending() != 0 {
		t.Fatalf("after the baseline: %+v", r)
	}
	for i := 0; i < 10; i++ {
		s.snaps(read("a.go"))
	}
	s.apply(Event{Kind: KindSnapshot, Run: id, Source: string(SnapCalls), Outcome: OutcomeFailed, Step: stepPtr(1), Note: "disk full"})
	_, nudge := s.snaps(read("a.go"))
	if !strings.Contains(nudge, "recovery snapshot 1 of this run failed (disk full)") || !strings.Contains(nudge, "since snapshot 0 cannot be rolled back") {
		t.Fatalf("the failure was not told: %q", nudge)
	}
	s.apply(Event{Kind: KindSnapshot, Run: id, Source: string(SnapCalls), Outcome: OutcomeFailed, Step: stepPtr(1), Note: "disk full"})
	if _, nudge = s.snaps(read("a.go")); nudge != "" {
		t.Fatalf("a second failure in a row was told again: %q", nudge)
	}
	if f := s.st.Run.Failed; f == nil || !f.Told {
		t.Fatalf("failure: %+v", f)
	}
	// cully snapshot's own (manual) snapshot was not asked for: Done stays.
	s.apply(Event{Kind: KindSnapshot, Run: id, Source: string(SnapManual), Outcome: OutcomeOK, Step: stepPtr(1), PathCount: 2})
	if r := s.st.Run; r.Failed != nil || r.LastStep != 1 || r.LastFiles != 2 || r.Done != 2 || r.Asked != 2 {
		t.Fatalf("a success does not clear the failure: %+v", r)
	}
}

// While paused, every call of the session hears it (subagents too), until
// the user resumes; a rollback is told once, a failed one stays until a
// resume; CULLY_GUARD=off says nothing.
func TestPauseResumeRollback(t *testing.T) {
	s := newSim(t)
	s.prompt()
	id := s.st.Run.ID
	s.apply(Event{Kind: KindPause, Run: id, Note: "cully stop"})
	for i := 0; i < 2; i++ {
		if _, nudge := s.snaps(read("a.go")); !strings.Contains(nudge, "this run is paused") {
			t.Fatalf("call %d while paused: %q", i, nudge)
		}
	}
	if _, nudge := s.snaps(Event{Tool: "Read", Class: ClassRead, Target: "b.go", Subagent: "a1"}); !strings.Contains(nudge, "paused") {
		t.Fatalf("a subagent was not told: %q", nudge)
	}
	if _, nudge := s.snaps(Event{Tool: "Read", Class: ClassRead, Target: "a.go", Quiet: true}); nudge != "" {
		t.Fatalf("CULLY_GUARD=off still nudged: %q", nudge)
	}
	s.apply(Event{Kind: KindRollback, Run: id, Outcome: OutcomeFailed, Step: stepPtr(2), Note: "notes.txt is a directory"})
	if s.st.Run.RollbackFailed == nil {
		t.Fatal("a failed rollback is not kept")
	}
	s.apply(Event{Kind: KindResume, Run: id, Note: "bulk rename is legitimate"})
	if r := s.st.Run; r.Paused != nil || r.RollbackFailed != nil || r.Resumed == nil || r.Resumed.Note != "bulk rename is legitimate" {
		t.Fatalf("after resume: %+v", r)
	}
	if _, nudge := s.snaps(read("a.go")); nudge != "" {
		t.Fatalf("told after the resume: %q", nudge)
	}
	s.apply(Event{Kind: KindRollback, Run: id, Outcome: OutcomeOK, Step: stepPtr(1), Paths: []string{"a.go", "b.go"}, PathCount: 2})
	if _, nudge := s.snaps(read("a.go")); !strings.Contains(nudge, "rolled 2 files of this run back to snapshot 1") || !strings.Contains(nudge, "a.go, b.go") {
		t.Fatalf("the rollback was not told: %q", nudge)
	}
	if _, nudge := s.snaps(read("a.go")); nudge != "" {
		t.Fatalf("the rollback was told twice: %q", nudge)
	}
}

// The stop summary's remaining work: unverified edits, checks whose last
// run failed, open checkpoints.
func TestRemaining(t *testing.T) {
	s := newSim(t)
	s.prompt()
	s.call(edit("a.go"))
	s.call(check(OutcomeOK))
	s.call(edit("a.go"))
	s.call(edit("b.go"))
	s.call(check(OutcomeFailed))
	r := s.st.Run
	if len(r.Checks) != 1 || r.Checks[0].Runs != 2 || r.Checks[0].Outcome != OutcomeFailed || r.Edits != 3 || r.Calls != 5 {
		t.Fatalf("run: %+v", r)
	}
	got := strings.Join(s.st.Remaining(), "; ")
	if got != "2 edits since the last successful check; `go test ./...` failed on its last run" {
		t.Fatalf("remaining: %q", got)
	}
}

// The rollback trigger: a check that reports more failures than at the
// run's start is shown always; told as a suggestion with auto_rollback on
// (advise); with auto_rollback in enforce mode the run halts and a rollback
// to the last snapshot taken while no check was worse is asked for.
func TestRollbackTrigger(t *testing.T) {
	check := func(failed int) Event {
		return Event{Tool: "Bash", Class: ClassCheck, Cmd: "go test ./...", CmdFP: "gt", Outcome: OutcomeFailed,
			Tests: &TestCounts{Runner: "go", Passed: 10 - failed, Failed: failed, Counted: true}}
	}
	play := func(b BudgetConfig, attended bool) (*sim, string, []Signal) {
		s := newSim(t)
		s.cfg.Budget = b
		s.st.Attended = &attended
		s.prompt()
		s.call(check(1)) // the baseline: 1 failing
		step := 1
		s.apply(Event{Kind: KindSnapshot, Run: s.st.Run.ID, Step: &step, Source: string(SnapCalls), Outcome: OutcomeOK})
		s.call(check(0)) // better
		step = 2
		s.apply(Event{Kind: KindSnapshot, Run: s.st.Run.ID, Step: &step, Source: string(SnapCalls), Outcome: OutcomeOK})
		s.call(check(4)) // worse than at the start
		step = 3
		s.apply(Event{Kind: KindSnapshot, Run: s.st.Run.ID, Step: &step, Source: string(SnapCalls), Outcome: OutcomeOK}) // taken while worse
		pre := s.apply(Event{Kind: KindPreTool, Tool: "Read", Target: "a.go", Class: ClassRead})
		return s, Nudge(pre), pre
	}
	// Shown, not told, without auto_rollback.
	s, nudge, _ := play(BudgetConfig{}, true)
	if !s.st.Run.alerted(AlertRollback+":go test ./...:4") || strings.Contains(nudge, "made it worse") {
		t.Fatalf("without auto_rollback: alerts %+v, nudge %q", s.st.Run.Budget.Alerts, nudge)
	}
	if s.st.Run.GoodStep != 2 {
		t.Errorf("last good snapshot %d, want 2 (3 was taken while worse)", s.st.Run.GoodStep)
	}
	// Advise: a suggestion, once.
	_, nudge, sigs := play(BudgetConfig{AutoRollback: true, Mode: ModeAdvise}, false)
	if !strings.Contains(nudge, "now reports 4 failing tests, against 1 at this run's start") || !strings.Contains(nudge, "`cully rollback --to 2`") || Halt(sigs) != "" {
		t.Errorf("advise: nudge %q, halt %q", nudge, Halt(sigs))
	}
	// Enforce: halt, and a rollback to step 2 asked for.
	s, _, sigs = play(BudgetConfig{AutoRollback: true, Mode: ModeEnforce}, true)
	var rb *Signal
	for i := range sigs {
		if sigs[i].Kind == SignalRollback {
			rb = &sigs[i]
		}
	}
	if Halt(sigs) == "" || rb == nil || rb.N != 2 || s.st.Run.Halted == nil {
		t.Fatalf("enforce: halt %q, rollback %+v", Halt(sigs), rb)
	}
	// Later calls are refused; no second rollback.
	later := s.apply(Event{Kind: KindPreTool, Tool: "Read", Target: "b.go", Class: ClassRead})
	for _, g := range later {
		if g.Kind == SignalRollback {
			t.Error("a second rollback asked for")
		}
	}
	if Halt(later) == "" {
		t.Error("a later call of the halted run was not refused")
	}
}

// In enforce mode (chosen: not by default) a failed snapshot halts the run
// as seed 001 asks; in advise mode, and unset, it warns.
func TestSnapshotFailureHaltsInEnforce(t *testing.T) {
	for _, mode := range []string{"", ModeAdvise, ModeEnforce} {
		s := newSim(t)
		s.cfg.Budget.Mode = mode
		unattended := false
		s.st.Attended = &unattended
		s.prompt()
		s.apply(Event{Kind: KindSnapshot, Run: s.st.Run.ID, Source: string(SnapCalls), Outcome: OutcomeFailed, Step: stepPtr(1), Note: "disk full"})
		s.call(read("a.go")) // told here
		sigs := s.apply(Event{Kind: KindPreTool, Tool: "Read", Target: "b.go", Class: ClassRead})
		if halted := Halt(sigs) != ""; halted != (mode == ModeEnforce) {
			t.Errorf("mode %q: halted %v", mode, halted)
		}
	}
}

// A turn that ends on the host's unrecoverable error after the run edited
// files is a rollback trigger: shown; with auto_rollback in enforce mode
// the run halts and goes back to its last good snapshot.
func TestHostErrorIsARollbackTrigger(t *testing.T) {
	for _, enforce := range []bool{false, true} {
		s := newSim(t)
		s.cfg.Budget.AutoRollback = true
		if enforce {
			s.cfg.Budget.Mode = ModeEnforce
		}
		s.prompt()
		s.call(edit("a.go"))
		sigs := s.apply(Event{Kind: KindStop, Source: StopError, Note: "rate_limit"})
		var alert *BudgetAlert
		for i, a := range s.st.Run.Budget.Alerts {
			if a.Kind == AlertRollback {
				alert = &s.st.Run.Budget.Alerts[i]
			}
		}
		if alert == nil || !strings.Contains(alert.Text, "ended on an error of its host (rate_limit) after 1 edit") {
			t.Fatalf("enforce %v: alerts %+v", enforce, s.st.Run.Budget.Alerts)
		}
		rolled := slices.ContainsFunc(sigs, func(g Signal) bool { return g.Kind == SignalRollback })
		if rolled != enforce || (s.st.Run.Halted != nil) != enforce {
			t.Errorf("enforce %v: rollback signal %v, halted %+v", enforce, rolled, s.st.Run.Halted)
		}
	}
	// No edit: nothing to roll back, nothing raised.
	s := newSim(t)
	s.prompt()
	s.call(read("a.go"))
	s.apply(Event{Kind: KindStop, Source: StopError})
	if len(s.st.Run.Budget.Alerts) != 0 {
		t.Errorf("a read-only run: %+v", s.st.Run.Budget.Alerts)
	}
}

// The status's "recoverable" hint names the snapshot before the run's last
// destructive command; a rollback to it, or to an earlier step, brought
// back what it threw away and retires the hint. One to a later step did
// not.
func TestRollbackRetiresTheRecoverableHint(t *testing.T) {
	for _, c := range []struct {
		to   int
		kept bool
	}{{3, false}, {0, false}, {4, true}} {
		s := newSim(t)
		s.prompt()
		id := s.st.Run.ID
		s.apply(Event{Kind: KindSnapshot, Run: id, Outcome: OutcomeOK, Step: stepPtr(3), Source: string(SnapDestructive)})
		if s.st.Run.Recoverable == nil || s.st.Run.Recoverable.Step != 3 {
			t.Fatalf("no hint after the destructive command's snapshot: %+v", s.st.Run.Recoverable)
		}
		s.apply(Event{Kind: KindRollback, Run: id, Outcome: OutcomeFailed, Step: stepPtr(c.to), Note: "x is a directory"})
		if s.st.Run.Recoverable == nil {
			t.Fatalf("--to %d: a failed rollback retired the hint", c.to)
		}
		s.apply(Event{Kind: KindRollback, Run: id, Outcome: OutcomeOK, Step: stepPtr(c.to), Paths: []string{"x"}, PathCount: 1})
		if kept := s.st.Run.Recoverable != nil; kept != c.kept {
			t.Errorf("rollback --to %d: hint kept %v, want %v", c.to, kept, c.kept)
		}
	}
}
