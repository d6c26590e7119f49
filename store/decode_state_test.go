package store

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"cully/engine"
)

// The hand decoder reads back exactly what was written.
func TestDecodeStateRoundTrip(t *testing.T) {
	for name, st := range map[string]*engine.State{"rich": richState(), "new": engine.NewState("s"), "idle": idleState(), "open": callState()} {
		b, _ := json.Marshal(st)
		got, err := decodeState(b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, st) {
			gb, _ := json.Marshal(got)
			t.Errorf("%s: round trip differs:\n got %s\nwant %s", name, gb, b)
		}
	}
	if _, err := decodeState([]byte(`{"v":2,"started":"yesterday"}`)); err == nil {
		t.Error("a bad time must be an error (the state is then rebuilt)")
	}
	if _, err := decodeState([]byte(`{"v":2,`)); err == nil {
		t.Error("a torn state must be an error")
	}
}

var testTime = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// Whatever the decoder accepts encodes and decodes again to the same bytes,
// and nothing it is given makes it panic: a state file is written by cully,
// but a crash, a full disk or another program can leave anything there.
func FuzzDecodeState(f *testing.F) {
	f.Add(AppendState(nil, richState()))
	f.Add(AppendState(nil, engine.NewState("s")))
	f.Add([]byte(`{"v":2,"session":"s","files":{"a.go":{"n":1}},"commands":{}}`))
	f.Add([]byte(`{"v":2,`))
	f.Add([]byte(`{"v":2,"session":"s","files":{"a.go":{"n":1,}},"commands":{}}`))
	f.Add([]byte(`{"v":2,"session":"s","commands":{"k":{"runs":1 "fails":2}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := decodeState(b)
		if err != nil {
			return
		}
		if js, _, _, _ := splitStateBody(b); !json.Valid(js) { // the one-pass walk of the large maps validates them too
			t.Fatalf("decoded a state from invalid JSON: %q", b)
		}
		once := AppendState(nil, st)
		again, err := decodeState(once)
		if err != nil {
			t.Fatalf("re-decoding our own encoding failed: %v\n%s", err, once)
		}
		if twice := AppendState(nil, again); string(twice) != string(once) {
			t.Fatalf("round trip differs:\n once %s\ntwice %s", once, twice)
		}
	})
}

// States the reducer builds from random sessions survive the codec whole:
// decode(encode(state)) is the same state, as encoding/json sees it.
func TestStateCodecRoundTripRandomSessions(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cfg := engine.DefaultConfig()
	tools := []struct {
		tool  string
		class engine.Class
	}{{"Read", engine.ClassRead}, {"Edit", engine.ClassEdit}, {"Bash", engine.ClassCheck}, {"Bash", engine.ClassRun}, {"Grep", engine.ClassRead}}
	for n := 0; n < 200; n++ {
		st := engine.NewState(fmt.Sprint("s", n))
		now := testTime
		for i := 0; i < rng.IntN(120); i++ {
			now = now.Add(time.Duration(rng.IntN(5000)) * time.Millisecond)
			tl := tools[rng.IntN(len(tools))]
			target := fmt.Sprintf("f%d.go", rng.IntN(9))
			size, mt := int64(rng.IntN(1<<20)), now.Add(-time.Hour)
			ev := engine.Event{V: 1, Session: st.Session, Time: now, Agent: "claude", Tool: tl.tool, Class: tl.class, Target: target, Size: &size, Mtime: &mt, CmdFP: target, Cmd: "go test ./" + target}
			switch rng.IntN(10) {
			case 0:
				ev.Kind = engine.KindPrompt
			case 1:
				ev.Kind = engine.KindCompact
			case 2, 3, 4:
				ev.Kind = engine.KindPreTool
			default:
				ev.Kind, ev.Outcome = engine.KindPostTool, engine.OutcomeOK
				if rng.IntN(3) == 0 {
					code := 1
					ev.Outcome, ev.Exit, ev.FailSig = engine.OutcomeFailed, &code, "sig"
				}
			}
			engine.Apply(st, &ev, &cfg)
		}
		b := AppendState(nil, st)
		got, err := decodeState(b)
		if err != nil {
			t.Fatalf("session %d: %v", n, err)
		}
		// encoding/json is the judge: an empty map and no map are the same state.
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(st)
		if string(gj) != string(wj) {
			t.Fatalf("session %d: decode(encode(state)) differs:\n got %s\nwant %s", n, gj, wj)
		}
	}
}
