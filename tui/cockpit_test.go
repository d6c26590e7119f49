package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"cully/engine"
)

// cockpit builds six sessions of four agents in five projects, each
// needing something else of the user: a question (parser, Claude Code),
// a command open for ten minutes (api, Codex: its permission prompt, most
// likely), a paused run (web), a turn under way (docs, Gemini CLI), a
// turn ended (infra, Copilot CLI) and a session ended (notes).
func cockpit() *fakeBackend {
	f := &fakeBackend{states: map[string]*engine.State{}, projects: map[string]Project{
		"/home/dev/parser": {Name: "parser", Dir: "/home/dev/parser", Branch: "fix-empty-input"},
		"/home/dev/api":    {Name: "api", Dir: "/home/dev/api", Branch: "main"},
		"/home/dev/web":    {Name: "web", Dir: "/home/dev/web", Branch: "feat/login"},
		"/home/dev/docs":   {Name: "docs", Dir: "/home/dev/docs", Branch: "main"},
		"/srv/infra":       {Name: "infra", Dir: "/srv/infra"},
		"/home/dev/notes":  {Name: "notes", Dir: "/home/dev/notes"},
	}}
	ok := engine.OutcomeOK
	read := func(r *recorder, n int) {
		for i := range n {
			r.call(engine.Event{Tool: "Read", Class: engine.ClassRead, Target: "src/f" + string(rune('a'+i)) + ".go", Outcome: ok})
		}
	}
	notes := f.session("5e5e5e5e-0000-4000-8000-000000000006", "/home/dev/notes", t0.Add(-5*time.Hour))
	notes.apply(engine.Event{Kind: engine.KindPrompt})
	read(notes, 2)
	notes.apply(engine.Event{Kind: engine.KindSessionEnd})

	api := f.session("a1a1a1a1-0000-4000-8000-000000000002", "/home/dev/api", t0.Add(-10*time.Minute))
	api.agent = "codex"
	api.apply(engine.Event{Kind: engine.KindPrompt})
	read(api, 3)
	api.apply(engine.Event{Kind: engine.KindPreTool, Tool: "Bash", Class: engine.ClassCheck, Cmd: "go test ./...", ToolUseID: "call_7"})

	infra := f.session("1f1f1f1f-0000-4000-8000-000000000005", "/srv/infra", t0.Add(-40*time.Minute))
	infra.agent = "copilot"
	infra.apply(engine.Event{Kind: engine.KindPrompt})
	infra.call(engine.Event{Tool: "bash", Class: engine.ClassRun, Cmd: "terraform plan", Outcome: ok})
	infra.apply(engine.Event{Kind: engine.KindStop})

	web := f.session("3b3b3b3b-0000-4000-8000-000000000003", "/home/dev/web", t0.Add(-8*time.Minute))
	web.apply(engine.Event{Kind: engine.KindPrompt})
	read(web, 4)
	web.apply(engine.Event{Kind: engine.KindPause, Agent: "cully", Source: engine.PauseSoft, Note: "review the schema first"})

	docs := f.session("d0d0d0d0-0000-4000-8000-000000000004", "/home/dev/docs", t0.Add(-time.Minute))
	docs.agent = "gemini"
	docs.apply(engine.Event{Kind: engine.KindPrompt})
	read(docs, 5)

	parser := f.session(mainID, "/home/dev/parser", t0.Add(-3*time.Minute))
	parser.apply(engine.Event{Kind: engine.KindPrompt})
	read(parser, 2)
	parser.apply(engine.Event{Kind: engine.KindPreTool, Tool: "AskUserQuestion", Class: engine.ClassAsk, ToolUseID: "toolu_9"})
	return f
}

// The session list puts what needs the user first, across agents (the
// question, the command waiting for ten minutes, the paused run, in start
// order), then the turn under way, then the idle (in start order too);
// each row says the
// project, its branch where there is room, the agent and the age. The
// followed session's header says what it needs, not "on track".
func TestCockpitSessionsByNeed(t *testing.T) {
	for _, size := range []struct{ w, h int }{{32, 24}, {56, 24}, {100, 24}} {
		m := start(t, newModel(cockpit(), size.w, size.h, Options{Session: "3b3b3b3b-0000-4000-8000-000000000003"}))
		got := screen(m)
		golden(t, "cockpit-"+fmt.Sprint(size.w)+"x"+fmt.Sprint(size.h), got)
		lines := strings.Split(got, "\n")
		var order []string
		for _, l := range lines {
			for _, p := range []string{"parser", "api", "web", "docs", "infra", "notes"} {
				if f := strings.Fields(strings.TrimLeft(l, "0123456789▸ ")); len(f) > 0 && f[0] == p && len(order) < 6 {
					order = append(order, p)
				}
			}
		}
		if want := "api web parser docs notes infra"; strings.Join(order, " ") != want {
			t.Errorf("%d columns: sessions in order %v, want %s", size.w, order, want)
		}
		if v := m.View(); v.WindowTitle != "cully ■ paused" {
			t.Errorf("window title %q", v.WindowTitle)
		}
	}
}

// A session whose need changes moves: the command allowed (its post-tool
// record), api is working and goes below the paused run and the question.
func TestCockpitNeedMoves(t *testing.T) {
	f := cockpit()
	m := start(t, newModel(f, 56, 24, Options{Session: "3b3b3b3b-0000-4000-8000-000000000003"}))
	id := "a1a1a1a1-0000-4000-8000-000000000002"
	ev := &engine.Event{V: 1, Time: t0, Session: id, Agent: "codex", Kind: engine.KindPostTool, Tool: "Bash", Class: engine.ClassCheck,
		Cmd: "go test ./...", ToolUseID: "call_7", Outcome: engine.OutcomeOK}
	cfg := engine.DefaultConfig()
	engine.Apply(f.states[id], ev, &cfg)
	var tm tea.Model = m
	tm, cmd := tm.Update(journalMsg{batch: batchOf(ev)})
	tm = run(t, tm, cmd)
	got := screen(tm)
	web, api := strings.Index(got, "\n1▸ web"), strings.Index(got, "api ")
	if web < 0 || api < 0 || api < strings.Index(got, "parser ") {
		t.Errorf("api should follow web and parser once working:\n%s", got)
	}
	if !strings.Contains(got, "working") {
		t.Errorf("no working session:\n%s", got)
	}
}

// No budget bar until a budget is set or armed: an attended run with the
// defaults shows its usage plainly, the same run nobody watches (cully's
// cap, armed for it) shows the gauge of the budget nearest its limit.
func TestBudgetBarOnlyWhenSetOrArmed(t *testing.T) {
	f := scenario()
	plain := screen(start(t, newModel(f, 56, 60, Options{})))
	if strings.ContainsAny(plain, "█░") || !strings.Contains(plain, "wall 1m56s · 29 calls") {
		t.Errorf("a bar with no budget set:\n%s", plain)
	}
	unattended := false
	f.states[mainID].Attended = &unattended
	armed := screen(start(t, newModel(f, 56, 60, Options{})))
	if !strings.Contains(armed, "█░░░░░░░░░ tool calls 29 of 500 (6%)") {
		t.Errorf("no gauge for the armed cap of a run nobody watches:\n%s", armed)
	}
}

// longFailure is the scenario with a failing command too long for a line
// at 56 columns, as the last call.
func longFailure() (*fakeBackend, string) {
	f := scenario()
	st := f.states[mainID]
	r := &recorder{f: f, st: st, cfg: engine.DefaultConfig(), now: st.LastSeen, cwd: "/home/dev/parser"}
	const cmd = "go test -run TestParseEmptyInputReturnsEmptyDocument ./internal/parser/..."
	one := 1
	r.call(engine.Event{Tool: "Bash", Class: engine.ClassRun, Cmd: cmd, CmdFP: "fp-long", Outcome: engine.OutcomeFailed, Exit: &one, FailSig: "l"})
	return f, cmd
}

// A failing command's whole text is readable at any width: wrapped under
// itself in the activity list, whole in the run's details (last failure).
func TestFailingCommandWhole(t *testing.T) {
	for _, w := range []int{32, 56, 100} {
		f, cmd := longFailure()
		m := start(t, newModel(f, w, 40, Options{}))
		got := screen(m)
		golden(t, fmt.Sprintf("failing-command-%dx40", w), got)
		recent := got[strings.Index(got, "Recent"):]
		// The outcome stands beside the command's first line.
		if !strings.Contains(strings.Replace(squash(recent), "exit1", "", 1), squash(cmd)) {
			t.Errorf("%d columns: the failing command is cut in the list:\n%s", w, got)
		}
		if w == 56 {
			d := screen(press(t, selectItem(t, m, "r:"), "enter"))
			golden(t, "failing-command-detail-56", d)
			if !strings.Contains(squash(d), squash("last failure `"+cmd+"` exit 1")) {
				t.Errorf("the run's details miss the last failure whole:\n%s", d)
			}
		}
	}
}
