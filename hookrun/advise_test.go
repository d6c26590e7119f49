package hookrun

import (
	"testing"
	"time"

	"cully/engine"
)

// The hook starts the advisor on the call that makes a tool gap due, and
// not on the calls before or after it.
func TestAdviseDueOnAToolGap(t *testing.T) {
	cfg := engine.DefaultConfig()
	st := engine.NewState("s")
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	one, missing := 1, 127
	engine.Apply(st, &engine.Event{Kind: engine.KindPrompt, Time: t0}, &cfg)
	for i, c := range []struct {
		ev   engine.Event
		want bool
	}{
		{engine.Event{Cmd: "jq . a.json", Exit: &missing, Missing: "jq"}, false},
		{engine.Event{Cmd: "which jq", Exit: &one}, true},
		{engine.Event{Cmd: "find / -name jq"}, false},
	} {
		ev := c.ev
		ev.Kind, ev.Time, ev.Tool, ev.Class = engine.KindPostTool, t0.Add(time.Duration(i+1)*time.Second), "Bash", engine.ClassRun
		ev.Outcome = engine.OutcomeOK
		if ev.Exit != nil {
			ev.Outcome = engine.OutcomeFailed
		}
		sigs := engine.Apply(st, &ev, &cfg)
		if got := adviseDue(&ev, sigs, st, false); got != c.want {
			t.Errorf("call %d (%s): due %v, want %v (gaps %+v)", i+1, ev.Cmd, got, c.want, st.Gaps)
		}
	}
}
