package tui

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"cully/advisor"
	"cully/engine"
	"cully/runs"
	"cully/store"
	"cully/tailer"
	"cully/usage"
)

var update = flag.Bool("update", false, "rewrite golden files")

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func TestMain(m *testing.M) {
	time.Local = time.UTC // golden files hold clock times
	os.Exit(m.Run())
}

func batchOf(evs ...*engine.Event) tailer.Batch { return tailer.Batch{Events: evs} }

// fakeBackend is an in-memory state dir: states come from the real reducer.
type fakeBackend struct {
	states   map[string]*engine.State
	projects map[string]Project
	acks     [][]string
	tells    [][]string
	diffs    []runs.FileDiff // what Diff serves
	plan     *runs.Plan      // what Rollback plans (nil: it fails)
	controls []string        // the run control actions asked for, in order
	events   []*engine.Event
	runFiles map[string]RunFiles     // by run id
	advisors map[string]AdvisorInfo  // by session; none: no advisor command
	errLog   []string                // errors.log's records, one "op: error" each (times: t0 + a minute each)
	rec      store.Recording         // the failure counter and free space (zero: nothing to say)
	records  map[string]*usage.Cache // what each session's host record holds (none: not read)
}

// Recording serves rec.
func (f *fakeBackend) Recording() (store.Recording, error) { return f.rec, nil }

// Errors serves errLog as store.Home.ErrorsAfter reads a log: offsets are
// record counts here.
func (f *fakeBackend) Errors(off int64) (store.ErrorsTail, error) {
	end := int64(len(f.errLog))
	if off < 0 {
		return store.ErrorsTail{Next: end}, nil
	}
	if off > end {
		off = 0
	}
	t := store.ErrorsTail{Next: end, N: int(end - off)}
	if t.N > 0 {
		t.Last, t.LastAt = f.errLog[end-1], t0.Add(time.Duration(end)*time.Minute)
	}
	return t, nil
}

func (f *fakeBackend) Sessions() ([]store.SessionInfo, error) {
	var out []store.SessionInfo
	for id, st := range f.states {
		si := store.SessionInfo{ID: id, LastSeen: st.LastSeen, Cwd: st.Cwd}
		if st.Run != nil {
			si.Run = st.Run.ID
		}
		out = append(out, si)
	}
	return out, nil
}
func (f *fakeBackend) State(s string) (*engine.State, error) {
	st := *f.states[s]
	st.Checkpoints = append([]engine.Checkpoint(nil), st.Checkpoints...)
	return &st, nil
}
func (f *fakeBackend) Project(dir string) Project { return f.projects[dir] }

// Root: a session works in its folder (the fake's folders are no
// repositories, and its runs have no folder of their own).
func (f *fakeBackend) Root(_, cwd string) string { return cwd }
func (f *fakeBackend) UsageHint(agent string) string {
	if agent == "claude" {
		return "cully install --statusline"
	}
	return ""
}
func (f *fakeBackend) Records(st *engine.State) *usage.Cache { return f.records[st.Session] }
func (f *fakeBackend) Ack(s string, ids []string) error {
	f.acks = append(f.acks, ids)
	cfg := engine.DefaultConfig()
	engine.Apply(f.states[s], &engine.Event{V: 1, Time: t0, Session: s, Kind: engine.KindAck, Ack: ids}, &cfg)
	return nil
}

// Pause and Resume record what `cully stop` and `cully resume` record,
// through the real reducer; Resume refuses as resume does when a halt by
// cully has no reason.
func (f *fakeBackend) Pause(s string) (string, error) {
	f.controls = append(f.controls, "pause")
	cfg := engine.DefaultConfig()
	st := f.states[s]
	engine.Apply(st, &engine.Event{V: 1, Time: t0, Session: s, Agent: "cully", Kind: engine.KindPause, Source: engine.PauseHalt, Run: st.Run.ID, Note: "cully panel"}, &cfg)
	return "stopped run " + shortID(st.Run.ID), nil
}
func (f *fakeBackend) Resume(s string, raise bool, reason string) (string, error) {
	f.controls = append(f.controls, fmt.Sprintf("resume raise=%v reason=%q", raise, reason))
	st := f.states[s]
	if h := st.Run.Halted; h != nil && h.By != engine.HaltStop && reason == "" {
		return "", fmt.Errorf("cully halted this run (%s): resuming needs a reason", engine.HaltCause(h))
	}
	how := engine.ResumeKeep
	if raise {
		how = engine.ResumeRaise
	}
	cfg := engine.DefaultConfig()
	engine.Apply(st, &engine.Event{V: 1, Time: t0, Session: s, Agent: "cully", Kind: engine.KindResume, Source: how, Run: st.Run.ID, Note: reason}, &cfg)
	return "resumed run " + shortID(st.Run.ID), nil
}
func (f *fakeBackend) Tell(s string, ids []string) error {
	f.tells = append(f.tells, ids)
	cfg := engine.DefaultConfig()
	engine.Apply(f.states[s], &engine.Event{V: 1, Time: t0, Session: s, Agent: "cully", Kind: engine.KindTell, Tell: ids}, &cfg)
	return nil
}

// Diff serves diffs; Rollback serves plan, as a dry run or done (Undo
// set).
func (f *fakeBackend) Diff(_, _ string) ([]runs.FileDiff, error) { return f.diffs, nil }
func (f *fakeBackend) Rollback(_ string, dry bool) (*runs.Plan, error) {
	if f.plan == nil {
		return nil, fmt.Errorf("no baseline")
	}
	p := *f.plan
	p.Undo = -1
	if !dry {
		f.controls = append(f.controls, "rollback")
		p.Undo = 4
	}
	return &p, nil
}
func (f *fakeBackend) GoTo(pane string) error {
	f.controls = append(f.controls, "goto "+pane)
	return nil
}
func (f *fakeBackend) Recent(int64) ([]*engine.Event, error) { return f.events, nil }
func (f *fakeBackend) Run(st *engine.State) RunFiles {
	if st.Run == nil {
		return RunFiles{}
	}
	return f.runFiles[st.Run.ID]
}
func (f *fakeBackend) Advisor(st *engine.State, _ time.Time) AdvisorInfo {
	if a, ok := f.advisors[st.Session]; ok {
		a.Status.Pending = st.Advice
		return a
	}
	return AdvisorInfo{Status: advisor.Status{State: "off"}}
}

const (
	mainID  = "0e9b095a-15ce-4954-9bab-4ee72ac1d24e"
	webID   = "7f1c2d3e-aaaa-4bbb-8ccc-000000000002"
	infraID = "3a4b5c6d-bbbb-4ccc-8ddd-000000000003"
)

// recorder drives one session through the reducer, keeping every record
// (with its signals) for the fake journal.
type recorder struct {
	f   *fakeBackend
	st  *engine.State
	cfg engine.Config
	now time.Time
	cwd string
	// agent is the host the records come from ("": claude).
	agent string
}

func (r *recorder) apply(ev engine.Event) {
	r.now = r.now.Add(2 * time.Second)
	ev.V, ev.Session, ev.Time, ev.Agent, ev.Cwd = 1, r.st.Session, r.now, "claude", r.cwd
	if r.agent != "" {
		ev.Agent = r.agent
	}
	ev.Signals = engine.Apply(r.st, &ev, &r.cfg)
	e := ev
	r.f.events = append(r.f.events, &e)
}

func (r *recorder) call(ev engine.Event) {
	pre := ev
	pre.Kind, pre.Outcome, pre.Exit = engine.KindPreTool, "", nil
	r.apply(pre)
	ev.Kind = engine.KindPostTool
	r.apply(ev)
}

// snapshot records a snapshot of the run as `cully snapshot` does.
// It takes no time on the recorder's clock: the scenario's times stay put.
func (r *recorder) snapshot(why engine.Reason, step int, paths ...string) {
	ev := engine.Event{V: 1, Time: r.now, Session: r.st.Session, Agent: "cully", Kind: engine.KindSnapshot, Source: string(why),
		Run: r.st.Run.ID, Step: &step, Outcome: engine.OutcomeOK, Paths: paths, PathCount: len(paths)}
	ev.Signals = engine.Apply(r.st, &ev, &r.cfg)
	r.f.events = append(r.f.events, &ev)
}

func (f *fakeBackend) session(id, cwd string, start time.Time) *recorder {
	st := engine.NewState(id)
	f.states[id] = st
	return &recorder{f: f, st: st, cfg: engine.DefaultConfig(), now: start, cwd: cwd}
}

// scenario builds three sessions through the reducer. The followed one
// (project parser, branch fix-empty-input): a failure loop the agent was
// told about and that then resolved, a second failure loop told and open,
// an exploring stretch shown but not told, large reads and an unchanged
// re-read as guard warnings. Beside it, webapp on track and infra ended.
func scenario() *fakeBackend {
	f := &fakeBackend{states: map[string]*engine.State{}, projects: map[string]Project{
		"/home/dev/parser": {Name: "parser", Dir: "/home/dev/parser", Branch: "fix-empty-input"},
		"/home/dev/webapp": {Name: "webapp", Dir: "/home/dev/webapp", Branch: "main"},
		"/srv/infra":       {Name: "infra", Dir: "/srv/infra"},
	}}
	web := f.session(webID, "/home/dev/webapp", t0.Add(-40*time.Minute))
	web.apply(engine.Event{Kind: engine.KindPrompt})
	for i := 0; i < 6; i++ {
		web.call(engine.Event{Tool: "Edit", Class: engine.ClassEdit, Target: fmt.Sprintf("src/app%d.ts", i), Outcome: engine.OutcomeOK})
	}
	infra := f.session(infraID, "/srv/infra", t0.Add(-3*time.Hour))
	infra.apply(engine.Event{Kind: engine.KindPrompt})
	infra.call(engine.Event{Tool: "Bash", Class: engine.ClassRun, Cmd: "terraform plan", Outcome: engine.OutcomeOK})
	infra.apply(engine.Event{Kind: engine.KindSessionEnd})

	r := f.session(mainID, "/home/dev/parser", t0.Add(-120*time.Second))
	r.apply(engine.Event{Kind: engine.KindPrompt})
	r.snapshot(engine.SnapBaseline, 0)
	one, zero := 1, 0
	for i := 0; i < 3; i++ {
		r.call(engine.Event{Tool: "Bash", Class: engine.ClassCheck, Cmd: "go test ./parser/", CmdFP: "fp-test", Outcome: engine.OutcomeFailed, Exit: &one, FailSig: "s", ErrSig: "e1"})
	}
	small, big := int64(9<<10), int64(300<<10)
	mt := t0.Add(-time.Hour)
	r.call(engine.Event{Tool: "Read", Class: engine.ClassRead, Target: "parser/parser.go", Outcome: engine.OutcomeOK, Size: &small, Mtime: &mt})
	r.call(engine.Event{Tool: "Bash", Class: engine.ClassCheck, Cmd: "go test ./parser/", CmdFP: "fp-test", Outcome: engine.OutcomeOK, Exit: &zero,
		Tests: &engine.TestCounts{Runner: "go", Passed: 12, Counted: true}})
	for i := 0; i < 3; i++ {
		r.call(engine.Event{Tool: "Bash", Class: engine.ClassCheck, Cmd: "go build ./cmd/parse", CmdFP: "fp-build", Outcome: engine.OutcomeFailed, Exit: &one, FailSig: "b", ErrSig: "e2"})
	}
	for i := 0; i < 18; i++ {
		if i == 2 { // asked for after the run's tenth call
			r.snapshot(engine.SnapCalls, 1, "parser/parser.go", "parser/lex.go")
		}
		size := small
		if i%3 == 0 {
			size = big
		}
		r.call(engine.Event{Tool: "Read", Class: engine.ClassRead, Target: fmt.Sprintf("parser/testdata/case%02d.json", i), Outcome: engine.OutcomeOK, Size: &size, Mtime: &mt})
	}
	r.call(engine.Event{Tool: "Bash", Class: engine.ClassRead, Cmd: "cat go.sum", Target: "go.sum", Outcome: engine.OutcomeOK, Size: &small, Mtime: &mt})
	r.snapshot(engine.SnapCalls, 2, "parser/parser.go", "parser/lex.go", "parser/parser_test.go")
	r.call(engine.Event{Tool: "Read", Class: engine.ClassRead, Target: "parser/parser.go", Outcome: engine.OutcomeOK, Size: &small, Mtime: &mt})
	r.call(engine.Event{Tool: "Bash", Class: engine.ClassRun, Cmd: "git status --short", Outcome: engine.OutcomeOK})
	return f
}

func newModel(f *fakeBackend, w, h int, o Options) Model {
	o.Backend = f
	if o.Now == nil {
		o.Now = func() time.Time { return t0 }
	}
	o.Dark, o.Tick = true, -1
	m := New(o)
	m.instant = true
	m.width, m.height = w, h
	return m
}

func model(t *testing.T, f *fakeBackend, w, h int) Model {
	t.Helper()
	return start(t, newModel(f, w, h, Options{}))
}

// start feeds a model its start-up loads, as the program would.
func start(t *testing.T, m Model) Model {
	t.Helper()
	var tm tea.Model = m
	tm = run(t, tm, m.loadSessions())
	tm = run(t, tm, m.backfill())
	return tm.(Model)
}

// run executes a command and feeds its message (and the follow-ups of
// batches and sequences) back into the model, as the program would. The
// transient line's timer is not run, so tests can read the line.
func run(t *testing.T, tm tea.Model, cmd tea.Cmd) tea.Model {
	t.Helper()
	if cmd == nil {
		return tm
	}
	msg := cmd()
	switch msg := msg.(type) {
	case tea.QuitMsg, flashDoneMsg, tea.RawMsg, nil:
		return tm
	case tea.BatchMsg:
		for _, c := range msg {
			tm = run(t, tm, c)
		}
		return tm
	}
	if fmt.Sprintf("%T", msg) == "tea.sequenceMsg" {
		for _, c := range sequence(msg) {
			tm = run(t, tm, c)
		}
		return tm
	}
	tm, next := tm.Update(msg)
	return run(t, tm, next)
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	}
	return tea.KeyPressMsg{Code: rune(k[0]), Text: k}
}

func press(t *testing.T, tm tea.Model, keys ...string) tea.Model {
	t.Helper()
	for _, k := range keys {
		var cmd tea.Cmd
		tm, cmd = tm.Update(keyMsg(k))
		tm = run(t, tm, cmd)
	}
	return tm
}

// screen is the rendered panel without escapes.
func screen(m tea.Model) string { return ansi.Strip(m.(Model).Render()) }

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name+".golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(p, []byte(got), 0o644)
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n%s", name, p, got)
	}
}

// sequence unpacks tea.Sequence's message (an unexported slice of
// commands).
func sequence(msg tea.Msg) []tea.Cmd {
	v := reflect.ValueOf(msg)
	out := make([]tea.Cmd, v.Len())
	for i := range out {
		out[i] = v.Index(i).Interface().(tea.Cmd)
	}
	return out
}

// squash removes all white space: wrapped text compares with the original.
func squash(s string) string { return strings.Join(strings.Fields(s), "") }
