package engine

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// sim drives the reducer the way the hook does: a pre-tool event, then a
// post-tool event, with a clock that advances one second per event.
type sim struct {
	t   *testing.T
	st  *State
	cfg Config
	now time.Time
	n   int
}

// newSim tells the agent every checkpoint at its threshold, so the rule
// tests see their nudges; TestStrengthBeforeNudging covers the defaults,
// which hold unverified-edits and exploring back.
func newSim(t *testing.T) *sim {
	cfg := DefaultConfig()
	cfg.UnverifiedTell, cfg.ExploreTell = cfg.UnverifiedEdits, cfg.ExploreReads
	// The other rules' tests run long sessions: budgets out of their way
	// (budget_test.go sets its own).
	cfg.Budget = BudgetConfig{WallSeconds: 1 << 40, ToolCalls: 1 << 40, Tokens: 1 << 40}
	return &sim{t: t, st: NewState("s"), cfg: cfg, now: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
}

func (s *sim) apply(ev Event) []Signal {
	s.now = s.now.Add(time.Second)
	ev.V, ev.Session, ev.Time = 1, "s", s.now
	return Apply(s.st, &ev, &s.cfg)
}

func (s *sim) prompt() []Signal { return s.apply(Event{Kind: KindPrompt}) }

// call runs one tool call and returns the nudge given before it ran.
func (s *sim) call(ev Event) string {
	s.n++
	pre := ev
	pre.Kind, pre.Outcome, pre.Exit, pre.FailSig = KindPreTool, "", nil, ""
	nudge := Nudge(s.apply(pre))
	post := ev
	post.Kind = KindPostTool
	if post.Outcome == "" {
		post.Outcome = OutcomeOK
	}
	s.apply(post)
	return nudge
}

func read(path string) Event { return Event{Tool: "Read", Class: ClassRead, Target: path} }
func edit(path string) Event { return Event{Tool: "Edit", Class: ClassEdit, Target: path} }
func check(o Outcome) Event {
	ev := Event{Tool: "Bash", Class: ClassCheck, Cmd: "go test ./...", CmdFP: "fp-test", Outcome: o}
	if o == OutcomeFailed {
		one := 1
		ev.Exit, ev.FailSig = &one, "sig-a"
	}
	return ev
}
func fail(cmd, sig string) Event {
	one := 1
	return Event{Tool: "Bash", Class: ClassRun, Cmd: cmd, CmdFP: "fp-" + cmd, Outcome: OutcomeFailed, Exit: &one, FailSig: sig}
}

func (s *sim) open(r Reason) int {
	n := 0
	for _, c := range s.st.OpenCheckpoints() {
		if c.Reason == r {
			n++
		}
	}
	return n
}

func sized(ev Event, size int64, mtime time.Time) Event {
	ev.Size, ev.Mtime = &size, &mtime
	return ev
}

func TestAckAndAnswer(t *testing.T) {
	s := newSim(t)
	s.prompt()
	for i := 0; i < 20; i++ {
		s.call(read("f.go"))
	}
	id := s.st.OpenCheckpoints()[0].ID
	sigs := s.apply(Event{Kind: KindAck, Ack: []string{id}})
	if len(sigs) != 1 || sigs[0].Kind != SignalAck || len(s.st.OpenCheckpoints()) != 0 {
		t.Fatalf("ack: %+v", sigs)
	}
	if n := s.call(read("f.go")); n != "" {
		t.Fatalf("an acknowledged checkpoint never nudges: %q", n)
	}
	// A nudged checkpoint is answered by the user's next prompt.
	s2 := newSim(t)
	s2.prompt()
	for i := 0; i < 21; i++ {
		s2.call(read("f.go"))
	}
	s2.prompt()
	if c := s2.st.Checkpoints[0]; c.Status != StatusAnswered {
		t.Fatalf("status %s", c.Status)
	}
}

func TestQuietRecordsWithoutNudging(t *testing.T) {
	s := newSim(t)
	s.prompt()
	for i := 0; i < 25; i++ {
		ev := read("f.go")
		ev.Quiet = true
		if n := s.call(ev); n != "" {
			t.Fatalf("quiet: %q", n)
		}
	}
	if s.open(ReasonExploring) != 1 || s.st.Counts.ToolCalls != 25 {
		t.Fatal("quiet still records and raises checkpoints")
	}
}

func TestUnattendedNudge(t *testing.T) {
	for _, mode := range []string{"continue", "stop"} {
		s := newSim(t)
		s.cfg.Unattended = mode
		f := false
		s.apply(Event{Kind: KindSessionStart, Attended: &f})
		s.prompt()
		for i := 0; i < 20; i++ {
			s.call(read("f.go"))
		}
		n := s.call(read("f.go"))
		if strings.Contains(n, "check in with the user") || !strings.Contains(n, "Nobody is watching") || !strings.Contains(n, mode) {
			t.Errorf("%s: %q", mode, n)
		}
	}
}

func TestClockBackwardsIsCounted(t *testing.T) {
	s := newSim(t)
	s.apply(Event{Kind: KindPrompt})
	ev := Event{V: 1, Session: "s", Kind: KindOther, Time: s.now.Add(-time.Hour)}
	Apply(s.st, &ev, &s.cfg)
	if s.st.ClockSkews != 1 || !s.st.LastSeen.Equal(s.now) {
		t.Fatalf("skews %d last %v", s.st.ClockSkews, s.st.LastSeen)
	}
}

// Replaying the journal gives the same state: every event is folded once
// live, and once again after a trip through its journal record (encoded,
// then encoding/json, as every reader decodes it). A field the reducer uses
// but the record drops would make the two differ.
func TestReplayDeterministic(t *testing.T) {
	var evs []Event
	s := newSim(t)
	rec := func(ev Event) {
		s.now = s.now.Add(time.Second)
		ev.V, ev.Session, ev.Time = 1, "s", s.now
		evs = append(evs, ev)
	}
	f := false
	one, size := 1, int64(300<<10)
	mt := s.now.Add(-time.Hour)
	rec(Event{Kind: KindSessionStart, Attended: &f, Cwd: "/p"})
	rec(Event{Kind: KindPrompt})
	for i := 0; i < 25; i++ {
		rec(Event{Kind: KindPreTool, Tool: "Read", Class: ClassRead, Target: "a.go", Size: &size, Mtime: &mt})
		rec(Event{Kind: KindPostTool, Tool: "Read", Class: ClassRead, Target: "a.go", Outcome: OutcomeOK, Size: &size, Mtime: &mt})
	}
	for i := 0; i < 3; i++ {
		rec(Event{Kind: KindPreTool, Tool: "Bash", Class: ClassCheck, Cmd: "go test", CmdFP: "fp"})
		rec(Event{Kind: KindPostTool, Tool: "Bash", Class: ClassCheck, Cmd: "go test", CmdFP: "fp", Outcome: OutcomeFailed, Exit: &one, FailSig: "s", Changes: true})
	}
	rec(Event{Kind: KindBatch, Rejected: []Rejected{{Tool: "Edit", Class: ClassEdit, Target: "b.go", FP: "e", Sig: "x"}}})
	rec(Event{Kind: KindPreTool, Tool: "Read", Class: ClassRead, Target: "c.go", Ranged: true, Quiet: true})
	rec(Event{Kind: KindAck, Ack: []string{"*"}})
	cost := 0.5
	rec(Event{Kind: KindHostUsage, Usage: &HostUsage{CostUSD: &cost}})
	rec(Event{Kind: KindCompact})

	a, b := NewState("s"), NewState("s")
	cfg := DefaultConfig()
	for _, ev := range evs {
		e1 := ev
		Apply(a, &e1, &cfg)
		var e2 Event
		rec, err := json.Marshal(&ev) // what the journal holds: store.AppendEvent writes the same bytes (store's tests hold them equal)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(rec, &e2); err != nil {
			t.Fatal(err)
		}
		Apply(b, &e2, &cfg)
	}
	if a.Counts.ToolCalls != b.Counts.ToolCalls || len(a.Checkpoints) != len(b.Checkpoints) || a.Checkpoints[0].Nudged != b.Checkpoints[0].Nudged {
		t.Fatal("replay differs")
	}
	if !reflect.DeepEqual(a, b) {
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		t.Fatalf("replay through the journal differs:\nlive   %s\nreplay %s", ja, jb)
	}
}

// The state stays within its caps however long the session, even when
// many entries share a timestamp.
func TestStateCaps(t *testing.T) {
	s := newSim(t)
	s.prompt()
	mt := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 3*maxFiles; i++ {
		s.call(sized(read(fmt.Sprintf("f%d.go", i)), 5000, mt))
	}
	for i := 0; i < 3*maxCommands; i++ {
		ev := fail(fmt.Sprintf("cmd%d", i), "x")
		ev.Time = s.now
		s.apply(Event{Kind: KindPostTool, Tool: "Bash", Class: ClassRun, CmdFP: ev.CmdFP, Cmd: ev.Cmd, Outcome: OutcomeFailed, Exit: ev.Exit, FailSig: "x"})
	}
	if len(s.st.Files) > maxFiles || len(s.st.Commands) > maxCommands {
		t.Fatalf("files %d (cap %d), commands %d (cap %d)", len(s.st.Files), maxFiles, len(s.st.Commands), maxCommands)
	}
	if s.st.Files[fmt.Sprintf("f%d.go", 3*maxFiles-1)] == nil {
		t.Fatal("the most recent file must be kept")
	}
}

// Checkpoints, guard warnings and their dedup keys stay within their caps
// too; a prune keeps the open checkpoints and the newest closed ones.
func TestHistoryCaps(t *testing.T) {
	s := newSim(t)
	s.cfg.ExploreReads = 1
	for i := 0; i < 3*maxCheckpoints; i++ {
		s.prompt() // closes the previous task's checkpoint
		s.call(read("f.go"))
	}
	if n := len(s.st.Checkpoints); n > maxCheckpoints || n < keptCheckpoints {
		t.Fatalf("%d checkpoints, want between %d and %d", n, keptCheckpoints, maxCheckpoints)
	}
	last := s.st.Checkpoints[len(s.st.Checkpoints)-1]
	if last.ID != fmt.Sprintf("c%d", 3*maxCheckpoints) || last.Status != StatusOpen {
		t.Fatalf("newest checkpoint %+v", last)
	}

	mt := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 2*maxWarned; i++ {
		s.call(sized(read(fmt.Sprintf("big%d.json", i)), 300<<10, mt))
	}
	if len(s.st.Warnings) != maxWarnings || len(s.st.Warned) != maxWarned {
		t.Fatalf("warnings %d (cap %d), dedup keys %d (cap %d)", len(s.st.Warnings), maxWarnings, len(s.st.Warned), maxWarned)
	}
	if w := s.st.Warnings[maxWarnings-1]; !strings.Contains(w.Evidence, fmt.Sprintf("big%d.json", 2*maxWarned-1)) {
		t.Fatalf("newest warning %+v", w)
	}
}

// The host's figures and the transcript position are kept from any event
// that carries them, not only from a status line's; the state holds its
// own copy of the position.
func TestUsageAndTranscriptFromAnyEvent(t *testing.T) {
	s := newSim(t)
	in := int64(4600)
	zero := 0
	pos := &TranscriptPos{File: "f1", Off: 812, Exits: []CallExit{{ID: "call_2", Exit: &zero, Status: "completed"}}}
	s.apply(Event{Kind: KindPostTool, Tool: "Bash", Class: ClassRun, Outcome: OutcomeOK, Usage: &HostUsage{InputTokens: &in}, Transcript: pos})
	if s.st.Usage == nil || *s.st.Usage.InputTokens != 4600 {
		t.Errorf("usage from a tool event not kept: %+v", s.st.Usage)
	}
	if s.st.Transcript == nil || s.st.Transcript.Off != 812 || len(s.st.Transcript.Exits) != 1 {
		t.Fatalf("transcript position not kept: %+v", s.st.Transcript)
	}
	pos.Exits[0].ID = "changed"
	if s.st.Transcript.Exits[0].ID != "call_2" {
		t.Error("the state shares the event's list of exits")
	}
	s.apply(Event{Kind: KindPreTool, Tool: "Bash", Class: ClassRun})
	if s.st.Transcript == nil || s.st.Usage == nil {
		t.Error("an event without them must not clear them")
	}
}

// A patch that edits a file beside its first one makes a later whole read
// of that file a fresh read, and a patch of prose and code counts as an
// edit to verify.
func TestEditOfSeveralFiles(t *testing.T) {
	s := newSim(t)
	size := int64(20 << 10)
	mt := s.now
	for _, f := range []string{"a.go", "b.go"} {
		ev := read(f)
		ev.Size, ev.Mtime = &size, &mt
		s.call(ev)
	}
	patch := Event{Tool: "apply_patch", Class: ClassEdit, Target: "notes.md", Files: []string{"a.go"}}
	s.call(patch)
	if f := s.st.Files["a.go"]; f == nil || f.WholeAt != 0 {
		t.Errorf("a.go, patched as the second file, still counts as read whole: %+v", f)
	}
	if f := s.st.Files["b.go"]; f == nil || f.WholeAt == 0 {
		t.Errorf("b.go was not patched, yet its read was forgotten: %+v", f)
	}
	if s.st.EditsSinceCheck != 1 {
		t.Errorf("a patch of notes.md and a.go is an edit to verify: edits since check %d", s.st.EditsSinceCheck)
	}
	s.call(Event{Tool: "apply_patch", Class: ClassEdit, Target: "notes.md", Files: []string{"plan.md"}})
	if s.st.EditsSinceCheck != 1 {
		t.Errorf("a patch of prose alone has nothing to test: edits since check %d", s.st.EditsSinceCheck)
	}
}
