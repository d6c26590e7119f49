package tui

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"cully/engine"
	"cully/store"
)

var update = flag.Bool("update", false, "rewrite golden files")

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func TestMain(m *testing.M) {
	time.Local = time.UTC // golden files hold clock times
	os.Exit(m.Run())
}

// fakeBackend is an in-memory state dir: states come from the real reducer.
type fakeBackend struct {
	states map[string]*engine.State
	acks   [][]string
	events []*engine.Event
}

func (f *fakeBackend) Sessions() ([]store.SessionInfo, error) {
	var out []store.SessionInfo
	for id, st := range f.states {
		out = append(out, store.SessionInfo{ID: id, LastSeen: st.LastSeen})
	}
	return out, nil
}
func (f *fakeBackend) State(s string) (*engine.State, error) {
	st := *f.states[s]
	return &st, nil
}
func (f *fakeBackend) Ack(s string, ids []string) error {
	f.acks = append(f.acks, ids)
	cfg := engine.DefaultConfig()
	engine.Apply(f.states[s], &engine.Event{V: 1, Time: t0, Session: s, Kind: engine.KindAck, Ack: ids}, &cfg)
	return nil
}
func (f *fakeBackend) Recent(int64) ([]*engine.Event, error) { return f.events, nil }

// scenario builds a session through the reducer: exploring, a failure loop,
// a guard warning, a successful check, and the events the journal holds.
func scenario() *fakeBackend {
	cfg := engine.DefaultConfig()
	st := engine.NewState("0e9b095a-15ce-4954-9bab-4ee72ac1d24e")
	f := &fakeBackend{states: map[string]*engine.State{st.Session: st}}
	now := t0.Add(-5 * time.Minute)
	apply := func(ev engine.Event) {
		now = now.Add(5 * time.Second)
		ev.V, ev.Session, ev.Time, ev.Agent = 1, st.Session, now, "claude"
		engine.Apply(st, &ev, &cfg)
		if ev.Kind == engine.KindPostTool || ev.Kind == engine.KindPrompt {
			e := ev
			f.events = append(f.events, &e)
		}
	}
	call := func(ev engine.Event) {
		pre := ev
		pre.Kind, pre.Outcome, pre.Exit = engine.KindPreTool, "", nil
		apply(pre)
		ev.Kind = engine.KindPostTool
		apply(ev)
	}
	apply(engine.Event{Kind: engine.KindPrompt})
	one := 1
	for i := 0; i < 3; i++ {
		call(engine.Event{Tool: "Bash", Class: engine.ClassCheck, Cmd: "go test ./parser/", CmdFP: "fp", Outcome: engine.OutcomeFailed, Exit: &one, FailSig: "s"})
	}
	size := int64(300 << 10)
	mt := t0.Add(-time.Hour)
	for i := 0; i < 20; i++ {
		call(engine.Event{Tool: "Read", Class: engine.ClassRead, Target: fmt.Sprintf("parser/file%02d.go", i), Outcome: engine.OutcomeOK, Size: &size, Mtime: &mt})
	}
	call(engine.Event{Tool: "Bash", Class: engine.ClassRun, Cmd: "git status --short", Outcome: engine.OutcomeOK})
	return f
}

func model(t *testing.T, f *fakeBackend, w, h int) Model {
	m := New(Options{Backend: f, Now: func() time.Time { return t0 }, Dark: true, Tick: -1})
	var tm tea.Model = m
	tm, _ = tm.Update(tea.WindowSizeMsg{Width: w, Height: h})
	tm = run(t, tm, m.loadSessions())
	tm = run(t, tm, m.backfill())
	return tm.(Model)
}

// run executes a command and feeds its message (and the follow-ups of
// batches) back into the model, as the program would.
func run(t *testing.T, tm tea.Model, cmd tea.Cmd) tea.Model {
	t.Helper()
	if cmd == nil {
		return tm
	}
	msg := cmd()
	if _, quit := msg.(tea.QuitMsg); quit {
		return tm
	}
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			tm = run(t, tm, c)
		}
		return tm
	}
	tm, next := tm.Update(msg)
	return run(t, tm, next)
}

func press(t *testing.T, tm tea.Model, k string) tea.Model {
	t.Helper()
	var msg tea.KeyPressMsg
	switch k {
	case "tab":
		msg = tea.KeyPressMsg{Code: tea.KeyTab}
	case "enter":
		msg = tea.KeyPressMsg{Code: tea.KeyEnter}
	default:
		msg = tea.KeyPressMsg{Code: rune(k[0]), Text: k}
	}
	tm, cmd := tm.Update(msg)
	return run(t, tm, cmd)
}

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

func TestViewGolden(t *testing.T) {
	for _, w := range []int{32, 48, 100} {
		for _, h := range []int{30, 12} {
			t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
				m := model(t, scenario(), w, h)
				out := m.Render()
				golden(t, fmt.Sprintf("panel-%dx%d", w, h), out)
				lines := strings.Split(out, "\n")
				if len(lines) > h {
					t.Errorf("%d lines for a height of %d", len(lines), h)
				}
				for i, l := range lines {
					if lw := displayWidth(l); lw > w {
						t.Errorf("line %d is %d cells wide, pane is %d: %q", i, lw, w, l)
					}
				}
			})
		}
	}
}

func TestViewNoColorAndEmpty(t *testing.T) {
	m := New(Options{Backend: &fakeBackend{states: map[string]*engine.State{}}, Now: func() time.Time { return t0 }, NoColor: true, Tick: -1})
	tm, _ := m.Update(tea.WindowSizeMsg{Width: 48, Height: 10})
	tm = run(t, tm, m.loadSessions())
	out := tm.(Model).Render()
	if strings.Contains(out, "\x1b[3") || strings.Contains(out, "\x1b[9") {
		t.Errorf("NO_COLOR output has colours: %q", out)
	}
	golden(t, "panel-empty-nocolor", out)
}

func TestKeys(t *testing.T) {
	f := scenario()
	var tm tea.Model = model(t, f, 48, 30)
	m := tm.(Model)
	if got := len(m.openCheckpoints()); got != 2 {
		t.Fatalf("want 2 open checkpoints, got %d", got)
	}
	tm = press(t, tm, "j")
	if tm.(Model).cursor != 1 {
		t.Error("j moves down")
	}
	tm = press(t, tm, "j")
	if tm.(Model).cursor != 1 {
		t.Error("j stops at the last checkpoint")
	}
	tm = press(t, tm, "k")
	if tm.(Model).cursor != 0 {
		t.Error("k moves up")
	}
	tm = press(t, tm, "enter")
	if !tm.(Model).details || !strings.Contains(tm.(Model).Render(), "Checkpoint c1") {
		t.Error("enter shows details")
	}
	tm = press(t, tm, "enter")
	if tm.(Model).details {
		t.Error("enter again closes details")
	}
	tm = press(t, tm, "?")
	if !tm.(Model).help.ShowAll {
		t.Error("? shows the full help")
	}
	tm = press(t, tm, "a")
	if len(f.acks) != 1 || f.acks[0][0] != "c1" || len(tm.(Model).openCheckpoints()) != 1 {
		t.Fatalf("a acknowledges the selected checkpoint: acks %v open %d", f.acks, len(tm.(Model).openCheckpoints()))
	}
	tm = press(t, tm, "A")
	if len(f.acks) != 2 || f.acks[1][0] != "*" || len(tm.(Model).openCheckpoints()) != 0 {
		t.Fatalf("A acknowledges all: %v", f.acks)
	}
	tm = press(t, tm, "a")
	if !strings.Contains(tm.(Model).status, "no open checkpoint") {
		t.Error("a with nothing open says so")
	}
	// tab cycles sessions and pins the choice.
	other := engine.NewState("second-session")
	other.LastSeen = t0.Add(-time.Hour)
	f.states[other.Session] = other
	tm = run(t, tm, tm.(Model).loadSessions())
	tm = press(t, tm, "tab")
	if m := tm.(Model); m.follow != "second-session" || !m.pinned {
		t.Fatalf("tab: following %q pinned %v", m.follow, m.pinned)
	}
	tm = press(t, tm, "tab")
	if tm.(Model).follow == "second-session" {
		t.Error("tab wraps around")
	}
	_, cmd := tm.Update(tea.KeyPressMsg{Code: 'q', Text: "q"})
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("q quits")
	}
}

// A journal batch for another session moves an unpinned panel to it.
func TestFollowsMostRecentlyActive(t *testing.T) {
	f := scenario()
	var tm tea.Model = model(t, f, 48, 20)
	st := engine.NewState("new-session")
	st.LastSeen = t0
	f.states["new-session"] = st
	ev := &engine.Event{V: 1, Time: t0, Session: "new-session", Kind: engine.KindPostTool, Tool: "Read", Class: engine.ClassRead, Outcome: engine.OutcomeOK}
	tm, cmd := tm.Update(journalMsg{batch: batchOf(ev)})
	tm = run(t, tm, cmd)
	if tm.(Model).follow != "new-session" {
		t.Fatalf("following %q", tm.(Model).follow)
	}
}
