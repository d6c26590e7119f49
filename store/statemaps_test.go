package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"cully/engine"
)

// sameState fails unless two states are the same as encoding/json sees
// them (an empty map and no map alike).
func sameState(t *testing.T, what string, got, want *engine.State) {
	t.Helper()
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if string(gj) != string(wj) {
		t.Fatalf("%s differs:\n got %s\nwant %s", what, gj, wj)
	}
}

// A state body keeps files and commands in binary after its JSON, and
// reads back the state it was written from: every kind of state, at its
// caps, and strings that are not UTF-8 (read back as encoding/json would
// have left them).
func TestStateBodyMapsRoundTrip(t *testing.T) {
	odd := richState()
	odd.Files["bad\xffname.go"] = &engine.FileSeen{Reads: -1, WholeAt: -1 << 62, WholeMod: 1<<63 - 1, Seen: 1}
	odd.Commands["k\x00ey"] = &engine.CmdSeen{Preview: "go test \xc3", LastSig: "\u2028", ChangeAt: []int{0, -5, 1 << 40}, Edit: "e.go"}
	odd.Commands["empty"] = &engine.CmdSeen{}
	for name, st := range map[string]*engine.State{"rich": richState(), "new": engine.NewState("s"), "capped": cappedState(), "odd": odd} {
		b := appendStateFile(nil, st, &journalPos{At: 7, N: 8, Sum: 9})
		js, _, _, err := splitStateBody(b)
		var top map[string]json.RawMessage
		if err != nil || json.Unmarshal(js, &top) != nil {
			t.Fatalf("%s: the body's JSON: %v", name, err)
		}
		if _, ok := top["files"]; ok {
			t.Errorf("%s: the files are still in the JSON", name)
		}
		if _, ok := top["commands"]; ok {
			t.Errorf("%s: the commands are still in the JSON", name)
		}
		got, pos, err := decodeStateFile(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if pos == nil || *pos != (journalPos{At: 7, N: 8, Sum: 9}) {
			t.Errorf("%s: position %+v", name, pos)
		}
		// encoding/json's round trip is the judge of what a state reads back as.
		var want engine.State
		if err := json.Unmarshal(AppendState(nil, st), &want); err != nil {
			t.Fatal(err)
		}
		sameState(t, name, got, &want)
	}
}

// Random sessions through the reducer, as TestStateCodecRoundTripRandomSessions
// does for the JSON codec.
func TestStateBodyRandomSessions(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cfg := engine.DefaultConfig()
	for n := range 100 {
		st := engine.NewState(fmt.Sprint("s", n))
		now := testTime
		for i := range rng.IntN(300) {
			now = now.Add(1e9)
			ev := engine.Event{V: 1, Session: st.Session, Time: now, Agent: "claude", Kind: engine.KindPostTool, Outcome: engine.OutcomeOK}
			if i%3 == 0 {
				code := 1
				c := fmt.Sprintf("go test ./p%d", rng.IntN(90))
				ev.Tool, ev.Class, ev.Cmd, ev.CmdFP, ev.Outcome, ev.Exit, ev.FailSig = "Bash", engine.ClassCheck, c, c, engine.OutcomeFailed, &code, "sig"
			} else {
				size, mt := int64(rng.IntN(1<<20)), now.Add(-1e12)
				ev.Tool, ev.Class, ev.Target, ev.Size, ev.Mtime = "Read", engine.ClassRead, fmt.Sprintf("f%d.go", rng.IntN(400)), &size, &mt
			}
			engine.Apply(st, &ev, &cfg)
		}
		got, _, err := decodeStateFile(appendStateFile(nil, st, nil))
		if err != nil {
			t.Fatalf("session %d: %v", n, err)
		}
		sameState(t, fmt.Sprint("session ", n), got, st)
	}
}

// A body whose maps are torn, stale or altered is refused, whatever byte
// changed: the readers then take the other body, or rebuild.
func TestStateBodyMapsDamaged(t *testing.T) {
	good := appendStateFile(nil, cappedState(), nil)
	js, _, at, err := splitStateBody(good)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 500 {
		b := append([]byte(nil), good...)
		p := len(js) + rng.IntN(len(b)-len(js))
		b[p] ^= byte(1 + rng.IntN(255))
		if _, _, err := decodeStateFile(b); err == nil {
			t.Fatalf("try %d: byte %d of the maps changed, and the body still decoded", i, p)
		}
	}
	for _, n := range []int{len(js) + 1, at, at + 100, len(good) - 1} {
		if _, _, err := decodeStateFile(good[:n]); err == nil {
			t.Errorf("a body torn at byte %d of %d decoded", n, len(good))
		}
	}
	// A NUL with no maps after it is damage too.
	if _, _, err := decodeStateFile(append(append([]byte(nil), js...), 0, 'x')); err == nil {
		t.Error("a NUL that starts no maps section decoded")
	}
	// The sum covers the JSON as well: a digit changed in it, which
	// leaves it valid JSON, is refused.
	for i, c := range js {
		if c >= '0' && c <= '8' {
			b := append([]byte(nil), good...)
			b[i]++
			if _, _, err := decodeStateFile(b); err == nil {
				t.Fatalf("a digit of the JSON changed at byte %d, and the body still decoded", i)
			}
			break
		}
	}
}

// A write cut short over an older body of the same size leaves the new
// body's head on the old one's tail: two halves of the same shape, each of
// which parses. Such a body is refused wherever the cut falls (the state
// that killed hooks once left: its JSON from one state, its journal
// position from the other). A body of the first binary layout, whose sum
// covers its maps alone, still reads.
func TestStateBodyHybridRefused(t *testing.T) {
	older, newer := cappedState(), cappedState()
	newer.Events++
	oldB := appendStateFile(nil, older, &journalPos{At: 1000, N: 155, Sum: 7})
	newB := appendStateFile(nil, newer, &journalPos{At: 1155, N: 155, Sum: 8})
	if len(oldB) != len(newB) {
		t.Fatalf("bodies of %d and %d bytes: the test wants two of one size", len(oldB), len(newB))
	}
	for cut := 1; cut < len(newB); cut += 7 {
		b := append(append([]byte(nil), newB[:cut]...), oldB[cut:]...)
		if string(b) == string(newB) || string(b) == string(oldB) {
			continue
		}
		if _, _, err := decodeStateFile(b); err == nil {
			t.Fatalf("the new body cut at byte %d over the old one decoded", cut)
		}
	}
	js, maps, _, err := splitStateBody(newB)
	if err != nil {
		t.Fatal(err)
	}
	v1 := append(append(append([]byte(nil), js...), mapsMagicV1...), maps...)
	v1 = binary.LittleEndian.AppendUint64(v1, mapsSum(v1[len(js):]))
	got, _, err := decodeStateFile(v1)
	if err != nil {
		t.Fatalf("a body of the first binary layout: %v", err)
	}
	sameState(t, "first layout", got, newer)
}

// Whatever decodeStateFile accepts writes and reads back as the same state,
// and nothing makes it panic (the maps' counts cannot make it allocate
// more than the body could hold).
func FuzzDecodeStateFile(f *testing.F) {
	f.Add(appendStateFile(nil, richState(), &journalPos{At: 1, N: 2, Sum: 3}))
	f.Add(appendStateFile(nil, engine.NewState("s"), nil))
	small := engine.NewState("s")
	small.Files = map[string]*engine.FileSeen{"a": {Reads: 1}}
	small.Commands = map[string]*engine.CmdSeen{"k": {Preview: "p", ChangeAt: []int{1}}}
	f.Add(appendStateFile(nil, small, nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, _, err := decodeStateFile(b)
		if err != nil {
			return
		}
		again, _, err := decodeStateFile(appendStateFile(nil, st, nil))
		if err != nil {
			t.Fatalf("re-decoding our own encoding failed: %v", err)
		}
		sameState(t, "round trip", again, st)
	})
}
