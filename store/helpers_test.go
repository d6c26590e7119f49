package store

import (
	"encoding/json"
	"testing"
	"time"

	"cully/engine"
)

func testEvent(session string, i int) *engine.Event {
	return &engine.Event{V: 1, Time: time.Unix(int64(1000+i), 0).UTC(), Agent: "claude", Session: session,
		Kind: engine.KindPostTool, Tool: "Read", Class: engine.ClassRead, Target: "a.go", Outcome: engine.OutcomeOK}
}

// replayed folds the whole journal, as a rebuild would, into one state per
// session.
func replayed(t *testing.T, h Home, cfg *engine.Config) map[string]*engine.State {
	t.Helper()
	states := map[string]*engine.State{}
	if _, err := h.ReadAll(func(ev *engine.Event) error {
		if states[ev.Session] == nil {
			states[ev.Session] = engine.NewState(ev.Session)
		}
		engine.Apply(states[ev.Session], ev, cfg)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return states
}

// assertNoDrift checks that every session's saved state is the replay of
// the journal, as encoding/json sees both.
func assertNoDrift(t *testing.T, h Home, cfg *engine.Config) {
	t.Helper()
	want := replayed(t, h, cfg)
	if len(want) == 0 {
		t.Fatal("nothing recorded")
	}
	for id, w := range want {
		got, err := h.ReadState(id, nil)
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(w)
		if string(gj) != string(wj) {
			t.Errorf("%s: state differs from the journal's replay (%d vs %d events):\n got %s\nwant %s", id, got.Events, w.Events, gj, wj)
		}
	}
}

// A durable journal (CULLY_DURABLE=1) syncs each append and reads back the
// same as any other.
func TestDurableAppend(t *testing.T) {
	h := Home{Dir: t.TempDir(), Durable: true}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := h.Append(AppendEvent(nil, testEvent("d", i))); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	if _, err := h.ReadAll(func(*engine.Event) error { n++; return nil }); err != nil || n != 3 {
		t.Fatalf("%d events read back, %v", n, err)
	}
}
