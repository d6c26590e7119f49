package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"cully/engine"
	"cully/store"
	"cully/usage"
)

// Layout goldens (escapes stripped) at the widths people run the panel at
// and at a short height; every line within the width, the whole within the
// height.
func TestViewGolden(t *testing.T) {
	for _, w := range []int{32, 56, 100, 200} {
		for _, h := range []int{40, 14} {
			t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
				m := model(t, scenario(), w, h)
				out := m.Render()
				checkSize(t, out, w, h)
				golden(t, fmt.Sprintf("panel-%dx%d", w, h), ansi.Strip(out))
			})
		}
	}
}

func checkSize(t *testing.T, out string, w, h int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) != h {
		t.Errorf("%d lines for a height of %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := width(l); lw > w {
			t.Errorf("line %d is %d cells wide, pane is %d: %q", i, lw, w, ansi.Strip(l))
		}
	}
}

// One golden keeps the colours: the accent on open checkpoints, dim
// metadata, the section headers.
func TestViewColorGolden(t *testing.T) {
	m := model(t, scenario(), 56, 30)
	golden(t, "panel-56x30-color", m.Render())
}

// Details, the help overlay and the selection at 56 columns.
func TestViewDetailGoldens(t *testing.T) {
	var tm tea.Model = model(t, scenario(), 56, 40)
	golden(t, "detail-checkpoint-56", screen(press(t, tm, "enter")))
	tm = press(t, tm, "j", "j", "j", "j", "j", "enter")
	golden(t, "detail-guard-56", screen(tm))
	golden(t, "help-56x60", screen(press(t, resize(tm, 56, 60), "?")))
}

func resize(tm tea.Model, w, h int) tea.Model {
	tm, _ = tm.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return tm
}

func TestViewNoColorAndEmpty(t *testing.T) {
	m := New(Options{Backend: &fakeBackend{states: map[string]*engine.State{}}, Now: func() time.Time { return t0 }, NoColor: true, Tick: -1})
	m.instant = true
	tm, _ := m.Update(tea.WindowSizeMsg{Width: 48, Height: 10})
	tm = run(t, tm, m.loadSessions())
	tm = run(t, tm, m.backfill())
	out := tm.(Model).Render()
	if strings.Contains(out, "\x1b[3") || strings.Contains(out, "\x1b[9") {
		t.Errorf("NO_COLOR output has colours: %q", out)
	}
	golden(t, "panel-empty-nocolor", out)
}

// j/k move across checkpoints and guards; enter shows the selected item
// whole; esc closes.
func TestSelectionAcrossCheckpointsAndGuards(t *testing.T) {
	var tm tea.Model = model(t, scenario(), 56, 40)
	m := tm.(Model)
	its := m.items()
	var kinds string
	for _, it := range its {
		switch {
		case it.cp != nil && it.cp.Status == engine.StatusOpen:
			kinds += "o"
		case it.cp != nil:
			kinds += "c"
		case it.run != nil:
			kinds += "r"
		default:
			kinds += "g"
		}
	}
	if kinds != "ooc"+strings.Repeat("g", len(m.followed().Warnings))+"r" {
		t.Fatalf("items: %s", kinds)
	}
	if m.sel != "c:c2" {
		t.Fatalf("first selection %q, want the first open checkpoint", m.sel)
	}
	tm = press(t, tm, "j", "j", "j")
	it, _ := tm.(Model).selected()
	if it.g == nil {
		t.Fatalf("three down is the first guard, got %+v", it)
	}
	// Newest guard first: the unchanged re-read, whose evidence is long.
	if it.g.Reason != "unchanged-reread" {
		t.Fatalf("first guard %s", it.g.Reason)
	}
	tm = press(t, tm, "enter")
	out := screen(tm)
	if !tm.(Model).details || !strings.Contains(out, "Guard warning") {
		t.Fatalf("enter opens the guard's details:\n%s", out)
	}
	want := freshen(it.g.Evidence, it.g.Time, t0)
	if !strings.Contains(squash(out), squash(want)) {
		t.Errorf("details miss the whole evidence %q:\n%s", want, out)
	}
	if !strings.Contains(squash(strings.ReplaceAll(out, "│", "")), squash("cully: "+it.g.Evidence)) {
		t.Errorf("details miss the nudge the agent was told:\n%s", out)
	}
	tm = press(t, tm, "k")
	if it, _ := tm.(Model).selected(); it.cp == nil || it.cp.ID != "c1" || !strings.Contains(screen(tm), "Checkpoint c1") {
		t.Errorf("k in the details moves to the item above (c1, resolved):\n%s", screen(tm))
	}
	if !strings.Contains(screen(tm), "resolved") {
		t.Error("a resolved checkpoint says so")
	}
	tm = press(t, tm, "esc")
	if tm.(Model).details {
		t.Error("esc closes the details")
	}
	for i := 0; i < 30; i++ {
		tm = press(t, tm, "j")
	}
	if got := tm.(Model).selIdx; got != len(its)-1 {
		t.Errorf("j stops at the last item: %d", got)
	}
	if !strings.Contains(screen(tm), "▸ Run ") {
		t.Errorf("the last item is the run:\n%s", screen(tm))
	}
	// The last guard is past the list's window: the list follows it.
	tm = press(t, tm, "k")
	if !strings.Contains(screen(tm), "▸ ! third-attempt") {
		t.Errorf("the selected guard is in view:\n%s", screen(tm))
	}
	for i := 0; i < 30; i++ {
		tm = press(t, tm, "k")
	}
	if tm.(Model).selIdx != 0 {
		t.Error("k stops at the first item")
	}
}

// A checkpoint's details: evidence, status, when it was raised, whether
// and when the agent was told, and the exact nudge.
func TestCheckpointDetails(t *testing.T) {
	f := scenario()
	var tm tea.Model = model(t, f, 56, 60)
	out := screen(press(t, tm, "enter"))
	c2 := f.states[mainID].Checkpoints[1]
	for _, want := range []string{"Checkpoint c2", "failure-loop", "open: waiting for you", c2.Raised.Format("15:04:05"),
		"yes, ", "what the agent was told:", "cully checkpoint c2 (failure-loop)", "cully ack c2"} {
		if !strings.Contains(out, want) {
			t.Errorf("details miss %q:\n%s", want, out)
		}
	}
	if !strings.Contains(squash(out), squash(c2.Evidence)) {
		t.Errorf("details miss the evidence %q", c2.Evidence)
	}
	// c3 (exploring) is shown, not told.
	out = screen(press(t, tm, "j", "enter"))
	if !strings.Contains(out, "Checkpoint c3") || !strings.Contains(out, "not yet") || !strings.Contains(squash(out), squash(shownNotTold)) {
		t.Errorf("an untold checkpoint says why:\n%s", out)
	}
	if strings.Contains(out, "what the agent was told") {
		t.Error("no nudge for an untold checkpoint")
	}
}

// At 56 columns, the default --split width, no checkpoint sentence is cut:
// open checkpoints wrap.
func TestOpenCheckpointsWrapAtSplitWidth(t *testing.T) {
	f := scenario()
	out := screen(model(t, f, 56, 40))
	for _, c := range f.states[mainID].OpenCheckpoints() {
		if !strings.Contains(squash(out), squash(c.Evidence)) {
			t.Errorf("%s's evidence is cut:\n%s", c.ID, out)
		}
	}
}

// The session list names projects, what needs the user first (parser's
// open failure loop; its exploring checkpoint is activity and asks
// nothing), then in start order; tab and 1–9 switch; the header
// names the followed project and branch.
func TestSessionsAndSwitching(t *testing.T) {
	f := scenario()
	var tm tea.Model = model(t, f, 56, 40)
	out := screen(tm)
	for _, want := range []string{"cully  parser · fix-empty-input", "Sessions 3", "1▸ parser", "2  infra", "3  webapp", "ended", "idle", "1 open"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%s", want, out)
		}
	}
	tm = press(t, tm, "tab", "tab", "tab")
	if m := tm.(Model); m.follow != mainID || !m.pinned {
		t.Fatalf("tab from the last wraps to the first: %q", m.follow)
	}
	tm = press(t, tm, "3")
	if tm.(Model).follow != webID || !strings.Contains(screen(tm), "cully  webapp · main") {
		t.Fatalf("3 follows webapp:\n%s", screen(tm))
	}
	tm = press(t, tm, "9")
	if tm.(Model).follow != webID || !strings.Contains(tm.(Model).flash, "no session 9") {
		t.Error("9 with three listed says so")
	}
	// A pinned panel stays put when another session is active.
	ev := &engine.Event{V: 1, Time: f.states[mainID].LastSeen, Session: mainID, Kind: engine.KindPostTool, Tool: "Read", Class: engine.ClassRead, Outcome: engine.OutcomeOK}
	tm, cmd := tm.Update(journalMsg{batch: batchOf(ev)})
	tm = run(t, tm, cmd)
	if tm.(Model).follow != webID {
		t.Error("a pinned panel moved")
	}
}

// A journal batch for another session moves an unpinned panel to it.
func TestFollowsMostRecentlyActive(t *testing.T) {
	f := scenario()
	var tm tea.Model = model(t, f, 56, 20)
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

// laggingBackend serves a session's state as it was before its newest
// record for the first reads (stale of them), then as it is.
type laggingBackend struct {
	*fakeBackend
	stale, reads int
	before       *engine.State
}

func (l *laggingBackend) State(s string) (*engine.State, error) {
	l.reads++
	if l.reads <= l.stale {
		st := *l.before
		return &st, nil
	}
	return l.fakeBackend.State(s)
}

// A state read that lags the journal (its last_seen older than the
// session's newest record) is read again until it catches up, and at most
// maxBehindReloads times when it never does: the panel never shows a
// session stuck a record behind because it read the state too soon.
func TestStateLaggingTheJournalIsReadAgain(t *testing.T) {
	for _, c := range []struct {
		stale, reads, calls int
	}{
		{stale: 2, reads: 3, calls: 3},
		{stale: 100, reads: 1 + maxBehindReloads, calls: 2},
	} {
		f := &fakeBackend{states: map[string]*engine.State{}}
		cfg := engine.DefaultConfig()
		st := engine.NewState("s")
		var before *engine.State
		var last *engine.Event
		for i := range 3 {
			if i == 2 {
				b := *st
				before = &b
			}
			last = &engine.Event{V: 1, Time: t0.Add(time.Duration(i) * time.Second), Session: "s", Kind: engine.KindPostTool,
				Tool: "Bash", Class: engine.ClassCheck, Cmd: "go build ./...", Outcome: engine.OutcomeFailed}
			engine.Apply(st, last, &cfg)
		}
		f.states["s"] = st
		lb := &laggingBackend{fakeBackend: f, stale: c.stale, before: before}
		m := newModel(f, 56, 20, Options{})
		m.backend = lb
		var tm tea.Model = m
		tm, cmd := tm.Update(journalMsg{batch: batchOf(last)})
		tm = run(t, tm, cmd)
		got := tm.(Model).sess["s"].state
		if lb.reads != c.reads || got == nil || got.Counts.ToolCalls != c.calls {
			t.Errorf("stale for %d reads: %d reads, the panel shows %v", c.stale, lb.reads, got)
		}
	}
}

// a waits out the undo window before writing; u within it writes nothing;
// quitting inside the window writes the ack rather than losing it.
func TestAckUndo(t *testing.T) {
	f := scenario()
	var tm tea.Model = model(t, f, 56, 40)
	tm, due := tm.Update(keyMsg("a"))
	m := tm.(Model)
	if m.pending == nil || len(f.acks) != 0 {
		t.Fatalf("a waits: pending %v acks %v", m.pending, f.acks)
	}
	if !strings.Contains(screen(tm), "c2 acknowledged · u undoes") || !strings.Contains(screen(tm), "acknowledging, u undoes") {
		t.Errorf("the ack shows what it did and how to undo it:\n%s", screen(tm))
	}
	if !strings.Contains(screen(tm), "on track") || !strings.Contains(screen(tm), "Checkpoints 1 activity") {
		t.Errorf("the header counts the ack at once (what is left open is activity):\n%s", screen(tm))
	}
	tm = press(t, tm, "u")
	tm = run(t, tm, due) // the window ends after the undo: nothing to write
	if len(f.acks) != 0 || tm.(Model).pending != nil {
		t.Fatalf("undone ack written: %v", f.acks)
	}
	if !strings.Contains(screen(tm), "undone: c2 stays open") || !strings.Contains(screen(tm), "⚑ 1 open checkpoint") {
		t.Errorf("undo says so:\n%s", screen(tm))
	}

	tm = press(t, tm, "a") // instant timers: the window ends at once
	if len(f.acks) != 1 || f.acks[0][0] != "c2" {
		t.Fatalf("the ack is written when the window ends: %v", f.acks)
	}
	if !strings.Contains(screen(tm), "c2 acknowledged: the agent is no longer told") {
		t.Errorf("the written ack says so:\n%s", screen(tm))
	}
	tm = press(t, tm, "u")
	if !strings.Contains(tm.(Model).flash, "nothing to undo") {
		t.Error("u after the window says it is too late")
	}
	// c3 is now first, then c2 and c1 closed; a guard cannot be acknowledged.
	tm = press(t, tm, "j", "j", "j")
	tm = press(t, tm, "a")
	if !strings.Contains(tm.(Model).flash, "guard warning needs no acknowledgment") {
		t.Errorf("a on a guard: %q", tm.(Model).flash)
	}
	// A, then q inside the window: written before quitting.
	tm, _ = tm.Update(keyMsg("A"))
	tm, cmd := tm.Update(keyMsg("q"))
	run(t, tm, cmd)
	if len(f.acks) != 2 || strings.Join(f.acks[1], ",") != "c3" {
		t.Fatalf("quit inside the window writes the ack: %v", f.acks)
	}
}

// Acks are not the agent's activity: the header's last activity stays.
func TestAckDoesNotMoveLastActivity(t *testing.T) {
	f := scenario()
	later := func() time.Time { return t0.Add(10 * time.Minute) }
	var tm tea.Model = start(t, newModel(f, 56, 40, Options{Now: later}))
	before := strings.Split(screen(tm), "\n")[1]
	tm = press(t, tm, "A")
	ack := &engine.Event{V: 1, Time: t0.Add(10 * time.Minute), Session: mainID, Kind: engine.KindAck, Agent: "cully", Ack: []string{"*"}}
	f.states[mainID].LastSeen = ack.Time // as the store folds the ack's record (the fake's Ack applies it at t0)
	tm, cmd := tm.Update(journalMsg{batch: batchOf(ack)})
	tm = run(t, tm, cmd)
	after := strings.Split(screen(tm), "\n")[1]
	if !strings.Contains(before, "last 10m ago") || !strings.Contains(after, "last 10m ago") {
		t.Errorf("last activity moved with the ack: %q → %q", before, after)
	}
	if f.states[mainID].LastSeen != t0.Add(10*time.Minute) && len(f.acks) != 1 {
		t.Errorf("acks: %v", f.acks)
	}
}

// Ages follow the panel's clock: a tick recomputes them, guard evidence
// included.
func TestAgesFollowTheClock(t *testing.T) {
	var tm tea.Model = model(t, scenario(), 100, 40)
	tm = press(t, tm, "j", "j", "j", "enter")
	if !strings.Contains(screen(tm), "was read whole 1m ago") {
		t.Fatalf("evidence at raise time:\n%s", screen(tm))
	}
	tm, _ = tm.Update(tickMsg(t0.Add(5 * time.Minute)))
	out := screen(tm)
	if !strings.Contains(out, "was read whole 6m ago") || !strings.Contains(out, "5m ago (11:59:52)") {
		t.Errorf("evidence and ages recomputed:\n%s", out)
	}
	if strings.Contains(out, "just now") {
		t.Errorf("a stale \"just now\":\n%s", out)
	}
}

// Counts match what is listed: more guards than rows say how many more.
func TestCountsMatchLists(t *testing.T) {
	f := scenario()
	out := screen(model(t, f, 56, 40))
	n := len(f.states[mainID].Warnings)
	if !strings.Contains(out, fmt.Sprintf("Guards %d", n)) || !strings.Contains(out, fmt.Sprintf("+%d more", n-guardRows)) {
		t.Errorf("guards %d, rows %d:\n%s", n, guardRows, out)
	}
	if strings.Contains(out, "not configured") || strings.Contains(out, "unknown") || strings.Contains(out, "Ledger") {
		t.Errorf("placeholders:\n%s", out)
	}
	// With no advisor command, the advisor is one dim line saying how to
	// turn it on, not a section.
	if strings.Count(out, "Advisor") != 1 || !strings.Contains(out, "Advisor off · cully advisor setup") {
		t.Errorf("the advisor when off:\n%s", out)
	}
	if !strings.Contains(squash(out), squash("cully install --statusline")) {
		t.Errorf("no hint for the cost figures:\n%s", out)
	}
}

// With no status line, the budget section shows what the host's own
// record holds where the hint was: the cost as an estimate, the context,
// the tokens and the rate limits; a status line's cost wins.
func TestRecordFigures(t *testing.T) {
	f := scenario()
	c := &usage.Cache{Files: []usage.File{{Path: "t.jsonl", Off: 1}}}
	c.Tally.AddMessage("m1", "claude-sonnet-4-5", usage.Tokens{Input: 12, CacheWrite: 30_000, CacheRead: 90_000, Output: 2_000})
	c.Tally.Model, c.Tally.Context = "claude-sonnet-4-5", 26_000
	c.Tally.Limits = []usage.RateLimit{{Name: "primary", UsedPercent: 12, WindowMinutes: 300}}
	f.records = map[string]*usage.Cache{mainID: c}
	out := squash(screen(model(t, f, 56, 40)))
	for _, want := range []string{"~$0.17 est.", "context 13% of 200k", "32k tokens", "5h limit 12%"} {
		if !strings.Contains(out, squash(want)) {
			t.Errorf("no %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, squash("cully install --statusline")) {
		t.Errorf("the hint beside the figures:\n%s", out)
	}
	cost := 0.42
	f.states[mainID].Usage = &engine.HostUsage{CostUSD: &cost}
	out = squash(screen(model(t, f, 56, 40)))
	if !strings.Contains(out, "$0.42") || strings.Contains(out, "est.") {
		t.Errorf("the status line's cost did not win:\n%s", out)
	}
}

// Recent activity: times, commands for shell calls, targets for file
// tools, outcomes.
func TestRecentActivity(t *testing.T) {
	out := screen(model(t, scenario(), 100, 70))
	for _, want := range []string{
		"11:59:58 now $ Bash      git status --short",
		"R Bash      cat go.sum",
		"R Read      parser/parser.go",
		"✓ Bash      go test ./parser/  12 passed",
		"✗ Bash      go build ./cmd/parse  exit 1",
		"» prompt · task 1 begins",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%s", want, out)
		}
	}
	help := screen(press(t, model(t, scenario(), 56, 80), "?"))
	for _, l := range legend {
		if !strings.Contains(squash(help), squash(l[0]+l[1])) {
			t.Errorf("legend misses %q:\n%s", l[1], help)
		}
	}
}

// b cycles the alerts, shown in the key bar; a checkpoint opening rings
// (desktop: OSC 9 through tmux's passthrough); one open at start does not.
func TestAlerts(t *testing.T) {
	f := scenario()
	var tm tea.Model = start(t, newModel(f, 80, 30, Options{Tmux: true}))
	if !strings.Contains(screen(tm), "b alerts off") {
		t.Fatalf("alert state in the key bar:\n%s", screen(tm))
	}
	tm = press(t, tm, "b")
	if !strings.Contains(screen(tm), "b bell on") {
		t.Error("b turns the bell on")
	}
	tm = press(t, tm, "b")
	if !strings.Contains(screen(tm), "b desktop alerts") {
		t.Error("b again: desktop")
	}
	// A new checkpoint in the followed session.
	cfg := engine.DefaultConfig()
	st := f.states[mainID]
	engine.Apply(st, &engine.Event{V: 1, Time: t0, Session: mainID, Kind: engine.KindPrompt}, &cfg)
	one := 1
	for i := 0; i < 3; i++ {
		for _, k := range []engine.Kind{engine.KindPreTool, engine.KindPostTool} {
			ev := &engine.Event{V: 1, Time: t0, Session: mainID, Kind: k, Tool: "Bash", Class: engine.ClassCheck, Cmd: "make", CmdFP: "m", FailSig: "x", Exit: &one, Outcome: engine.OutcomeFailed}
			if k == engine.KindPreTool {
				ev.Outcome, ev.Exit = "", nil
			}
			engine.Apply(st, ev, &cfg)
		}
	}
	tm, cmd := tm.Update(tm.(Model).loadState(mainID)())
	raw := findRaw(cmd)
	if !strings.HasPrefix(raw, "\a\x1bPtmux;\x1b\x1b]9;cully: checkpoint c4 (failure-loop) opened in parser") {
		t.Errorf("alert %q", raw)
	}
	if !strings.Contains(screen(tm), "⚑ checkpoint c4") {
		t.Errorf("the transient line names it:\n%s", screen(tm))
	}
	// The same state again: nothing new, no alert.
	_, cmd = tm.Update(tm.(Model).loadState(mainID)())
	if findRaw(cmd) != "" {
		t.Error("alerted twice for one checkpoint")
	}
}

func findRaw(cmd tea.Cmd) string {
	if cmd == nil {
		return ""
	}
	switch msg := cmd().(type) {
	case tea.RawMsg:
		return fmt.Sprint(msg.Msg)
	case tea.BatchMsg:
		for _, c := range msg {
			if r := findRaw(c); r != "" {
				return r
			}
		}
	}
	return ""
}

// Recorded text never reaches the terminal as escapes.
func TestRecordedTextIsClean(t *testing.T) {
	f := scenario()
	f.events = append(f.events, &engine.Event{V: 1, Time: t0, Session: mainID, Kind: engine.KindPostTool, Tool: "Bash", Class: engine.ClassRun,
		Cmd: "printf '\x1b]52;c;ZXZpbA==\x07\x1b[2J' \u202e", Outcome: engine.OutcomeOK})
	out := model(t, f, 100, 40).Render()
	if strings.Contains(out, "\x1b]52") || strings.Contains(out, "\x1b[2J") || strings.Contains(out, "\u202e") {
		t.Errorf("raw escapes in the panel: %q", out)
	}
	if !strings.Contains(out, `printf '\x1b]52;c;ZXZpbA==\x07\x1b[2J' \u202e`) {
		t.Errorf("the command is shown escaped:\n%s", ansi.Strip(out))
	}
}

func TestFreshen(t *testing.T) {
	raised := t0
	for in, want := range map[string]string{
		"a.go (9 KiB) was read whole 1m31s ago and is unchanged": "a.go (9 KiB) was read whole 2m ago and is unchanged",
		"read just now, unchanged":                               "read 30s ago, unchanged",
		"no times here":                                          "no times here",
		"ago ago":                                                "ago ago",
	} {
		if got := freshen(in, raised, t0.Add(30*time.Second)); got != want {
			t.Errorf("freshen(%q) = %q, want %q", in, got, want)
		}
	}
}

// FindProject: the git root's name and branch, through worktree .git
// files and detached heads; a plain directory's own name.
func TestFindProject(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "myrepo")
	sub := filepath.Join(repo, "pkg", "deep")
	must(t, os.MkdirAll(sub, 0o755))
	must(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	must(t, os.WriteFile(filepath.Join(repo, ".git", "HEAD"), []byte("ref: refs/heads/feature/x\n"), 0o644))
	if p := FindProject(sub); p.Name != "myrepo" || p.Branch != "feature/x" || p.Dir != repo {
		t.Errorf("repo: %+v", p)
	}
	wt := filepath.Join(dir, "wt-panel")
	must(t, os.MkdirAll(wt, 0o755))
	gd := filepath.Join(repo, ".git", "worktrees", "wt-panel")
	must(t, os.MkdirAll(gd, 0o755))
	must(t, os.WriteFile(filepath.Join(gd, "HEAD"), []byte("5f72c07aaaabbbbccccddddeeeeffff00001111\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+gd+"\n"), 0o644))
	if p := FindProject(wt); p.Name != "wt-panel" || p.Branch != "detached 5f72c07" {
		t.Errorf("worktree: %+v", p)
	}
	plain := filepath.Join(dir, "notes")
	must(t, os.MkdirAll(plain, 0o755))
	if p := FindProject(plain); p.Name != "notes" || p.Branch != "" {
		t.Errorf("plain: %+v", p)
	}
	if p := FindProject(""); p.Name != "" {
		t.Errorf("empty: %+v", p)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestQuit(t *testing.T) {
	tm := model(t, scenario(), 56, 20)
	_, cmd := tm.Update(keyMsg("q"))
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("q quits")
	}
}

// demoCaption is a caption as the demo sends it: a step that nudged the
// agent, with what it was told.
var demoCaption = CaptionMsg{Label: "Demo", Step: 6, Steps: 14,
	Text: "And a third time, with nothing changed: cully warns before it runs.",
	Told: "cully: `go test ./parser/` failed on its last 2 runs and nothing changed since. A third identical run will likely fail the same way: change something first, or try a different approach."}

// A walkthrough's caption sits above the key bar, what the agent was told
// under it; on a short pane it gives up lines (marked) before the panel
// loses its body.
func TestViewCaptionGolden(t *testing.T) {
	for _, h := range []int{40, 14} {
		var tm tea.Model = model(t, scenario(), 56, h)
		tm, _ = tm.Update(demoCaption)
		out := tm.(Model).Render()
		checkSize(t, out, 56, h)
		golden(t, fmt.Sprintf("caption-56x%d", h), ansi.Strip(out))
		lines := strings.Split(ansi.Strip(out), "\n")
		if !strings.HasPrefix(lines[len(lines)-1], "a ack") {
			t.Errorf("the key bar is not the last line: %q", lines[len(lines)-1])
		}
		if !strings.Contains(ansi.Strip(out), "Checkpoints") {
			t.Errorf("the panel's body gave way to the caption:\n%s", ansi.Strip(out))
		}
	}
	var tm tea.Model = model(t, scenario(), 56, 40)
	tm, _ = tm.Update(demoCaption)
	out := squash(strings.ReplaceAll(screen(tm), "│", ""))
	for _, want := range []string{"Demo6of14", squash(demoCaption.Text), "whattheagentwastold:", squash(demoCaption.Told)} {
		if !strings.Contains(out, want) {
			t.Errorf("caption misses %q:\n%s", want, screen(tm))
		}
	}
	// The next caption replaces it; recorded text is cleaned.
	tm, _ = tm.Update(CaptionMsg{Label: "Demo", Step: 7, Steps: 14, Text: "next\x1b]0;pwned\a step"})
	out = screen(tm)
	if strings.Contains(out, "third time") || strings.Contains(out, "\x1b]") || !strings.Contains(out, `next\x1b]0;pwned\x07 step`) {
		t.Errorf("the next caption replaces the last, cleaned:\n%q", out)
	}
}

// The closing screen replaces the body until the user quits; esc shows the
// panel again with the title kept in the footer; q quits.
func TestViewClosingGolden(t *testing.T) {
	var tm tea.Model = model(t, scenario(), 56, 40)
	tm, _ = tm.Update(demoCaption)
	tm, _ = tm.Update(ClosingMsg{Title: "That was cully — next: `cully install`", Text: "The scripted agent looped on a failing test; cully told it 4 times.\n\nNext, watch your own agent:\n  cully install          hooks and the skill for Claude Code\n  cully panel --split    this pane beside your agent, inside tmux"})
	out := tm.(Model).Render()
	checkSize(t, out, 56, 40)
	golden(t, "closing-56x40", ansi.Strip(out))
	plain := ansi.Strip(out)
	for _, want := range []string{"That was cully — next: `cully install`", "cully install", "q quits · esc shows the panel again", "esc panel"} {
		if !strings.Contains(plain, want) {
			t.Errorf("closing screen misses %q", want)
		}
	}
	if strings.Contains(plain, "third time") || strings.Contains(plain, "Checkpoints") {
		t.Errorf("the closing screen replaces the caption and the body:\n%s", plain)
	}
	// It stays: ticks, journal batches and loads do not end it.
	tm, _ = tm.Update(tickMsg(t0.Add(time.Minute)))
	if !tm.(Model).closingOpen {
		t.Fatal("a tick closed the closing screen")
	}
	tm = press(t, tm, "esc")
	plain = screen(tm)
	if !strings.Contains(plain, "Checkpoints") || !strings.Contains(plain, "That was cully — next") {
		t.Errorf("esc shows the panel with the title in the footer:\n%s", plain)
	}
	_, cmd := tm.Update(keyMsg("q"))
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("q quits from the closing screen's panel")
	}
	// At the narrowest width nothing is cut that the user needs.
	tm = resize(tm, 32, 40)
	tm, _ = tm.Update(ClosingMsg{Title: "That was cully — next: `cully install`", Text: "  cully panel --split    this pane beside your agent"})
	out = tm.(Model).Render()
	checkSize(t, out, 32, 40)
	if !strings.Contains(squash(ansi.Strip(out)), squash("That was cully — next: `cully install`")) || !strings.Contains(squash(ansi.Strip(out)), squash("this pane beside your agent")) {
		t.Errorf("the closing screen at 32 columns cuts text:\n%s", ansi.Strip(out))
	}
}

// Errors cully logged before the panel opened are not its news; those
// logged since are, on one line above the key bar until the panel closes,
// with the last one and where to look; damaged journal lines the tailer
// skipped join it. A batch or a tick reads the log again.
func TestHealthLineShowsCullyErrorsSinceTheStart(t *testing.T) {
	f := scenario()
	f.errLog = []string{"hook: an old failure"}
	m := newModel(f, 130, 30, Options{})
	var tm tea.Model = start(t, m)
	tm = run(t, tm, m.readErrors(-1)) // Init's first read
	if strings.Contains(screen(tm), "cully error") {
		t.Fatalf("an error from before the panel opened is shown:\n%s", screen(tm))
	}
	f.errLog = append(f.errLog, "record: lock sessions/s.state: lock not acquired before the deadline", "hook: decode Claude Code payload: invalid JSON")
	tm, cmd := tm.Update(tickMsg(t0))
	tm = run(t, tm, cmd)
	out := screen(tm)
	want := "⚠ 2 cully errors since the panel opened · last 12:03:00: hook: decode Claude Code payload: invalid JSON · cully doctor" // it fits
	if !strings.Contains(out, want) {
		t.Fatalf("missing %q:\n%s", want, out)
	}
	// Counted once: a second read of the same log adds nothing.
	b := batchOf()
	b.Corrupt, b.Errors = 1, true // the log read again: nothing new in it
	tm, cmd = tm.Update(journalMsg{batch: b})
	tm = run(t, tm, cmd)
	if out := screen(tm); !strings.Contains(out, "⚠ 2 cully errors · 1 damaged journal line skipped · last 12:03:00: hook: decode Claude Code payload: invalid JSON · cully doctor") { // too long whole: "since the panel opened" goes
		t.Errorf("after a batch with a damaged line:\n%s", out)
	}
	// A side pane: the short form, still pointing at doctor.
	tm, _ = tm.Update(tea.WindowSizeMsg{Width: 40, Height: 30})
	if out := screen(tm); !strings.Contains(out, "⚠ 2 errors · 1 bad line · cully doctor") {
		t.Errorf("at 40 columns:\n%s", out)
	}
}

// Calls cully could not record (a full disk: see store/recording.go) take
// the red line above the key bar from the first frame, with the fix when
// it fits and where to read more always; recording working again is said
// on the same line, which stays until cully doctor or status has shown it.
func TestRecordingLineSaysCallsWereLost(t *testing.T) {
	f := scenario()
	f.rec = store.Recording{Dir: "/home/dev/.local/state/cully", NotRecorded: 3, First: t0.Add(-5 * time.Minute), Last: t0.Add(-time.Minute),
		Kind: store.RecNoSpace, Reason: "no space left on device (write journal.jsonl)", Free: 0, FreeKnown: true}
	m := newModel(f, 200, 30, Options{})
	var tm tea.Model = start(t, m)
	tm = run(t, tm, m.readRecording())
	want := "⚠ recording failed: 3 calls not recorded since 11:55:00: no space left on device (write journal.jsonl) · free space on the disk holding /home/dev/.local/state/cully · cully doctor"
	if out := screen(tm); !strings.Contains(out, want) {
		t.Fatalf("missing %q:\n%s", want, out)
	}
	if got := tm.(Model).Render(); !strings.Contains(got, m.styles.Bad.Render(want)) {
		t.Errorf("the line is not in the problem style")
	}
	tm, _ = tm.Update(tea.WindowSizeMsg{Width: 80, Height: 30})
	if out := screen(tm); !strings.Contains(out, "⚠ recording failed: 3 calls not recorded since 11:55:00: no spac… · cully doctor") {
		t.Errorf("at 80 columns:\n%s", out)
	}
	tm, _ = tm.Update(tea.WindowSizeMsg{Width: 40, Height: 30})
	if out := screen(tm); !strings.Contains(out, "⚠ 3 calls not recorded · cully doctor") {
		t.Errorf("at 40 columns:\n%s", out)
	}
	// Recording works again: said, and kept until shown by doctor or status.
	f.rec.Recovered, f.rec.Free = true, 50<<30
	tm, _ = tm.Update(tea.WindowSizeMsg{Width: 200, Height: 30})
	tm, cmd := tm.Update(tickMsg(t0))
	tm = run(t, tm, cmd)
	if out := screen(tm); !strings.Contains(out, "recording works again (last failure 11:59:00)") {
		t.Errorf("after recovery:\n%s", out)
	}
	// Cleared (or never failed): no line. A disk with no space left is
	// said even when no failure could be counted.
	f.rec = store.Recording{Dir: "/d", Free: 50 << 30, FreeKnown: true}
	tm, cmd = tm.Update(tickMsg(t0))
	tm = run(t, tm, cmd)
	if out := screen(tm); strings.Contains(out, "recording") {
		t.Errorf("nothing to say, said:\n%s", out)
	}
	f.rec.Free = 0
	tm, cmd = tm.Update(tickMsg(t0))
	tm = run(t, tm, cmd)
	if out := screen(tm); !strings.Contains(out, "⚠ recording failing: the disk holding /d is full, so calls are not being recorded · free space on the disk holding /d · cully doctor") {
		t.Errorf("a full disk:\n%s", out)
	}
}

// Calls waiting in pending/ on a journal lock another process holds, and a
// state dir refused as unsafe, take the same red line, with the fix.
func TestRecordingLineSaysBlockedAndRefused(t *testing.T) {
	f := scenario()
	f.rec = store.Recording{Dir: "/d", Free: 50 << 30, FreeKnown: true, LockHeld: true, Holder: "pid 42 (sleep 600)", HolderPIDs: []int{42},
		Pending: store.Pending{Segments: 3, Oldest: t0.Add(-time.Minute)}}
	m := newModel(f, 260, 30, Options{})
	var tm tea.Model = start(t, m)
	tm = run(t, tm, m.readRecording())
	want := "⚠ recording blocked: 3 calls wait in pending/ since 11:59:00 (none lost): journal.lock is held by pid 42 (sleep 600) · end it (kill 42): the next call folds the waiting calls into the journal · cully doctor"
	if got := tm.(Model).Render(); !strings.Contains(got, m.styles.Bad.Render(want)) {
		t.Errorf("missing, in the problem style, %q:\n%s", want, screen(tm))
	}
	tm, _ = tm.Update(tea.WindowSizeMsg{Width: 40, Height: 30})
	if out := screen(tm); !strings.Contains(out, "⚠ blocked: 3 waiting · cully doctor") {
		t.Errorf("at 40 columns:\n%s", out)
	}
	f.rec = store.Recording{Dir: "/d", Refused: "/d is writable by group or others (drwxrwx---): refusing it (fix: chmod 700 /d)", RefusedFix: "chmod 700 /d"}
	tm, _ = tm.Update(tea.WindowSizeMsg{Width: 260, Height: 30})
	tm, cmd := tm.Update(tickMsg(t0))
	tm = run(t, tm, cmd)
	want = "⚠ recording off: /d is writable by group or others (drwxrwx---): refusing it (fix: chmod 700 /d) · chmod 700 /d · cully doctor"
	if got := tm.(Model).Render(); !strings.Contains(got, m.styles.Bad.Render(want)) {
		t.Errorf("missing, in the problem style, %q:\n%s", want, screen(tm))
	}
	// The lock free again: nothing to say.
	f.rec = store.Recording{Dir: "/d", Free: 50 << 30, FreeKnown: true, Pending: store.Pending{Segments: 3}}
	tm, cmd = tm.Update(tickMsg(t0))
	tm = run(t, tm, cmd)
	if out := screen(tm); strings.Contains(out, "recording") {
		t.Errorf("nothing to say, said:\n%s", out)
	}
}
