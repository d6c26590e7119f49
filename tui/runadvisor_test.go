package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"cully/advisor"
	"cully/engine"
	"cully/ledger"
	"cully/runs"
)

// runEvent applies one of cully's own run-control records to the followed
// session, at (t0 - ago), as the commands record them.
func runEvent(f *fakeBackend, ago time.Duration, ev engine.Event) {
	st := f.states[mainID]
	ev.V, ev.Session, ev.Agent, ev.Time = 1, mainID, "cully", t0.Add(-ago)
	if ev.Kind == engine.KindAdvice { // cully advise records it under the session's agent
		ev.Agent = st.Agent
	}
	if ev.Run == "" {
		ev.Run = st.Run.ID
	}
	cfg := engine.DefaultConfig()
	engine.Apply(st, &ev, &cfg)
}

func step(n int) *int { return &n }

// paused: the user ran `cully stop`; the snapshot after it failed.
func pausedScenario() *fakeBackend {
	f := scenario()
	runEvent(f, 40*time.Second, engine.Event{Kind: engine.KindPause, Source: engine.PauseHalt, Note: "cully stop"})
	return f
}

// rollbackScenario: a rollback to step 1 failed on a path it could not
// restore; the panel reads its record from the run's folder.
func rollbackScenario() *fakeBackend {
	f := scenario()
	runEvent(f, 30*time.Second, engine.Event{Kind: engine.KindRollback, Step: step(1), Outcome: engine.OutcomeFailed,
		Note: "1 path cannot be restored: parser/gen (a folder stands where the file goes)"})
	id := f.states[mainID].Run.ID
	f.runFiles = map[string]RunFiles{id: {
		Modified: []string{"parser/parser.go", "parser/lex.go", "parser/parser_test.go"},
		Rollback: &runs.Failure{At: t0.Add(-30 * time.Second), To: 1, Undo: 3, Error: "1 path cannot be restored",
			Problems: []runs.Problem{{Path: "parser/gen", Why: "a folder stands where the file goes and holds files no snapshot has"}},
			Modified: []string{"parser/parser.go", "parser/lex.go", "parser/gen", "parser/parser_test.go"}},
	}}
	return f
}

// snapshotFailedScenario: the run's last snapshot could not be written.
func snapshotFailedScenario() *fakeBackend {
	f := scenario()
	runEvent(f, 20*time.Second, engine.Event{Kind: engine.KindSnapshot, Source: string(engine.SnapManual), Step: step(3), Outcome: engine.OutcomeFailed,
		Note: "git write-tree: no space left on device"})
	return f
}

// advisorScenario: an advisor command is configured, its budget has
// a wait until the next slot, and unseen advice waits for the agent.
func advisorScenario() *fakeBackend {
	f := scenario()
	st := f.states[mainID]
	runEvent(f, 50*time.Second, engine.Event{Kind: engine.KindAdvice, Advice: "The build fails on the same undefined symbol each time: `parseEmpty` was renamed in lexer.go; fix the call in cmd/parse/main.go instead of re-running the build. Then run go test ./parser/ once."})
	if st.Advice == nil || st.Advice.Told {
		panic("the scenario's advice is not pending")
	}
	next := t0.Add(70 * time.Second)
	f.advisors = map[string]AdvisorInfo{mainID: {
		Status: advisor.Status{State: "waiting", Why: "4 request(s) left this hour; next slot " + next.Format(time.RFC3339), Until: &next, Discovery: "off",
			Budget: &ledger.Status{Left: 4, NextSlot: next, LastAccept: t0.Add(-50 * time.Second)}},
		Totals:  ledger.Totals{Skipped: 5, AvoidedTokens: 14200, Spent: 2, SpentTokens: 5600, NetTokens: 8600},
		Entries: 7,
	}}
	return f
}

// The run's accent states at 56 columns (and one at 32), each with its
// next step; the advisor with unseen advice and the ledger's totals.
func TestRunAndAdvisorGoldens(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func() *fakeBackend
		w, h int
	}{
		{"run-paused", pausedScenario, 56, 40},
		{"run-rollback-failed", rollbackScenario, 56, 40},
		{"run-snapshot-failed", snapshotFailedScenario, 56, 40},
		{"run-paused", pausedScenario, 32, 40},
		{"advisor", advisorScenario, 56, 40},
		{"advisor", advisorScenario, 32, 40},
		{"advisor", advisorScenario, 56, 14},
		{"run-paused", pausedScenario, 56, 14},
	} {
		t.Run(fmt.Sprintf("%s-%dx%d", c.name, c.w, c.h), func(t *testing.T) {
			out := model(t, c.f(), c.w, c.h).Render()
			checkSize(t, out, c.w, c.h)
			golden(t, fmt.Sprintf("%s-%dx%d", c.name, c.w, c.h), ansi.Strip(out))
		})
	}
}

// The accent colour marks the paused run and the unseen advice, and
// nothing else of the two sections.
func TestRunAndAdvisorColorGolden(t *testing.T) {
	f := advisorScenario()
	runEvent(f, 40*time.Second, engine.Event{Kind: engine.KindPause, Source: engine.PauseHalt, Note: "cully stop"})
	golden(t, "run-advisor-56x40-color", model(t, f, 56, 40).Render())
}

// selectItem moves the selection to the item whose key starts with prefix.
func selectItem(t *testing.T, tm tea.Model, prefix string) tea.Model {
	t.Helper()
	for i := 0; i < 40; i++ {
		if strings.HasPrefix(tm.(Model).sel, prefix) {
			return tm
		}
		tm = press(t, tm, "j")
	}
	t.Fatalf("no item %s… among %d", prefix, len(tm.(Model).items()))
	return tm
}

// The run and the advisor are selectable like checkpoints; their details
// hold the whole picture: the failure's paths, the files modified, what is
// left, the advice whole, the ledger.
func TestRunAndAdvisorDetails(t *testing.T) {
	var tm tea.Model = model(t, rollbackScenario(), 56, 80)
	out := screen(press(t, selectItem(t, tm, "r:"), "enter"))
	golden(t, "detail-run-56", out)
	for _, want := range []string{"ROLLBACK FAILED", "parser/gen: a folder stands", "parser/lex.go", "remaining, as cully knows it",
		"`go build ./cmd/parse` failed on its last run", "cully rollback --to 1 retries"} {
		if !strings.Contains(squash(out), squash(want)) {
			t.Errorf("run details miss %q:\n%s", want, out)
		}
	}

	f := advisorScenario()
	tm = model(t, f, 56, 60)
	out = screen(press(t, selectItem(t, tm, "a:"), "enter"))
	golden(t, "detail-advisor-56", out)
	if !strings.Contains(squash(strings.ReplaceAll(out, "│", "")), squash(f.states[mainID].Advice.Text)) {
		t.Errorf("the advice is not whole in the details:\n%s", out)
	}
	for _, want := range []string{"4 of 6 automatic requests left", "next slot 12:01:10", "5 analyses · ~14200 prompt tokens avoided", "~8600 tokens avoided"} {
		if !strings.Contains(out, want) {
			t.Errorf("advisor details miss %q:\n%s", want, out)
		}
	}
}

// With snapshots off the run is one dim line, not selectable; with no run,
// nothing.
func TestRunQuietStates(t *testing.T) {
	f := scenario()
	st := f.states[mainID]
	st.Run.Asked, st.Run.Done, st.Run.Snapshots, st.Run.LastStep, st.Run.LastAt, st.Run.LastFiles = 0, 0, 0, 0, 0, 0
	told := []engine.BudgetAlert{{Kind: engine.AlertWarning, Key: "budget-warning:tool_calls:40", At: st.Run.Started.Unix(),
		Text: "cully budget warning: this run has used 36 of its 40 tool calls (90%).", Told: true}}
	st.Run.Budget.Alerts = nil
	m := model(t, f, 56, 40)
	out := screen(m)
	if !strings.Contains(out, "Run b309… · snapshots off (CULLY_SNAPSHOTS=off)") {
		t.Errorf("snapshots off:\n%s", out)
	}
	for _, it := range m.items() {
		if it.run != nil {
			t.Error("a run with snapshots off and nothing wrong is not an item")
		}
	}
	// A budget alert told to the agent is something to read: an item.
	st.Run.Budget.Alerts = told
	if !slices.ContainsFunc(model(t, f, 56, 40).items(), func(it item) bool { return it.run != nil }) {
		t.Error("a run whose agent was told a budget alert is not an item")
	}
	st.Run = nil
	if out := screen(model(t, f, 56, 40)); strings.Contains(out, "Run ") {
		t.Errorf("no run, no line:\n%s", out)
	}
}

// A wait's end reloads the advisor's standing on the next tick: nothing in
// the journal says when it is over.
func TestAdvisorWaitEndsOnTick(t *testing.T) {
	f := advisorScenario()
	var tm tea.Model = model(t, f, 56, 40)
	if !strings.Contains(screen(tm), "Advisor waiting until 12:01:10") {
		t.Fatalf("waiting:\n%s", screen(tm))
	}
	a := f.advisors[mainID]
	a.Status.State, a.Status.Until, a.Status.Why = "ready", nil, ""
	f.advisors[mainID] = a
	tm, cmd := tm.Update(tickMsg(t0.Add(30 * time.Second)))
	tm = run(t, tm, cmd)
	if !strings.Contains(screen(tm), "Advisor waiting") {
		t.Errorf("no reload before the wait ends:\n%s", screen(tm))
	}
	tm, cmd = tm.Update(tickMsg(t0.Add(80 * time.Second)))
	tm = run(t, tm, cmd)
	if !strings.Contains(screen(tm), "Advisor ready") {
		t.Errorf("the standing is read again once the wait ended:\n%s", screen(tm))
	}
}

// The run's details show the budget the user set as a gauge with its burn
// rate, the others as plain usage; the Budget section's gauge is the
// budget nearest its limit.
func TestRunBudgetGauges(t *testing.T) {
	f := scenario()
	rules := engine.DefaultConfig()
	rules.Budget.ToolCalls = 40
	m := start(t, newModel(f, 56, 60, Options{Rules: &rules}))
	out := screen(press(t, selectItem(t, m, "r:"), "enter"))
	for _, want := range []string{"tool calls ███████░░░ 29 of 40 (72%) · 15/min", "wall clock 1m56s · no budget", "tokens     unknown: the host gives no figure"} {
		if !strings.Contains(out, want) {
			t.Errorf("run details miss %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "no budget: usage only") {
		t.Errorf("the no-budget note with a budget of the user's:\n%s", out)
	}
	if list := screen(start(t, newModel(f, 56, 60, Options{Rules: &rules}))); !strings.Contains(list, "███████░░░ tool calls 29 of 40 (72%)") {
		t.Errorf("no gauge in the Budget section:\n%s", list)
	}
}

// Tool-gap research shows beside discovery: its standing and cooldown, and
// each gap the evidence shows with whether it was researched.
func TestAdvisorDetailToolGaps(t *testing.T) {
	f := advisorScenario()
	cool := t0.Add(time.Hour)
	info := f.advisors[mainID]
	info.Status.Discovery, info.Status.Research = "on", "on"
	info.Status.Budget.ResearchCooldown = cool
	info.Status.Gaps = []advisor.GapStatus{
		{Gap: advisor.Gap{Name: "jq", Evidence: "the shell found no `jq` once; looked for or install tried without finding it once (`which jq`)"}, Researched: true},
		{Gap: advisor.Gap{Name: "yq", Evidence: "looked for or install tried without finding it 3 times"}},
	}
	f.advisors[mainID] = info
	out := screen(press(t, selectItem(t, model(t, f, 80, 60), "a:"), "enter"))
	for _, want := range []string{"research", "on · cooldown until", "jq · researched · the shell found no `jq` once", "yq · not researched yet"} {
		if !strings.Contains(squash(out), squash(want)) {
			t.Errorf("advisor details miss %q:\n%s", want, out)
		}
	}
}
