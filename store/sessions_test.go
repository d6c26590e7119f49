package store

import (
	"testing"

	"cully/engine"
)

// Sessions says where each session works, the folder the agent last gave
// and its current run: what a command needs to find a session's project
// root without reading every state in full.
func TestSessionsSayWhereTheyWork(t *testing.T) {
	h := Home{Dir: t.TempDir()}
	cfg := engine.DefaultConfig()
	prompt := testEvent("a", 1)
	prompt.Kind, prompt.Tool, prompt.Class, prompt.Target, prompt.Cwd = engine.KindPrompt, "", "", "", "/src/app"
	if _, err := h.Record(prompt, &cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Record(testEvent("b", 2), &cfg); err != nil {
		t.Fatal(err)
	}
	ss, err := h.Sessions()
	if err != nil || len(ss) != 2 {
		t.Fatalf("%v %v", ss, err)
	}
	for i, id := range []string{"b", "a"} {
		st, err := h.ReadState(id, nil)
		if err != nil || st.Run == nil {
			t.Fatalf("session %s has a run: %v", id, err)
		}
		if s := ss[i]; s.ID != id || s.Cwd != st.Cwd || s.Run != st.Run.ID {
			t.Errorf("session %s works in %q, run %s: %+v", id, st.Cwd, st.Run.ID, s)
		}
	}
	if ss[1].Cwd != "/src/app" || ss[0].Cwd != "" {
		t.Errorf("a works in /src/app, b gave no folder: %+v", ss)
	}
}
