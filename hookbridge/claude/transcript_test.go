package claude

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"cully/engine"
)

// replayInputs are the transcripts the replay tests read: the hand-written
// edge cases in testdata/transcripts, every .jsonl file of the CLI's script
// tests, and, when CULLY_REPLAY_CORPUS names a folder, every file in it
// (real transcripts stay outside the repository).
func replayInputs(t *testing.T) map[string][]byte {
	t.Helper()
	in := map[string][]byte{}
	files, _ := filepath.Glob("testdata/transcripts/*.jsonl")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in[f] = b
	}
	scripts, _ := filepath.Glob("../../cmd/cully/testdata/script/*.txtar")
	for _, s := range scripts {
		ar, err := txtar.ParseFile(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if strings.Contains(f.Name, ".jsonl") {
				in[s+":"+f.Name] = f.Data
			}
		}
	}
	if len(in) < 2 {
		t.Fatalf("want the test transcripts, found %d", len(in))
	}
	if dir := os.Getenv("CULLY_REPLAY_CORPUS"); dir != "" {
		n := len(in)
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			b, err := os.ReadFile(p)
			in[p] = b
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("corpus %s: %d files", dir, len(in)-n)
	}
	return in
}

func collect(t *testing.T, replay func(io.Reader, *engine.Config, func(*engine.Event) error) error, b []byte) ([]*engine.Event, error) {
	t.Helper()
	cfg := engine.DefaultConfig()
	var evs []*engine.Event
	err := replay(bytes.NewReader(b), &cfg, func(ev *engine.Event) error {
		evs = append(evs, ev)
		return nil
	})
	return evs, err
}

func sameEvents(t *testing.T, name string, got, want []*engine.Event) {
	t.Helper()
	n := max(len(got), len(want))
	for i := 0; i < n; i++ {
		if i >= len(got) || i >= len(want) || !reflect.DeepEqual(got[i], want[i]) {
			var g, w []byte
			if i < len(got) {
				g = got[i].AppendJSON(nil)
			}
			if i < len(want) {
				w = want[i].AppendJSON(nil)
			}
			t.Errorf("%s: event %d of %d/%d differs:\nfast      %s\nreference %s", name, i, len(got), len(want), g, w)
			return
		}
	}
}

// Replay hands the rules exactly the events the reference (every line
// through encoding/json, payloads built as maps and decoded by the hook's
// decoder) produces, event for event.
func TestReplayMatchesReference(t *testing.T) {
	events := 0
	for name, b := range replayInputs(t) {
		want, werr := collect(t, func(r io.Reader, cfg *engine.Config, fn func(*engine.Event) error) error {
			_, err := referenceReplay(agent, r, cfg, fn)
			return err
		}, b)
		if werr != nil {
			t.Logf("%s: the reference fails (%v): not compared", name, werr)
			continue
		}
		got, err := collect(t, func(r io.Reader, cfg *engine.Config, fn func(*engine.Event) error) error {
			_, err := agent.Replay(r, cfg, fn)
			return err
		}, b)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		sameEvents(t, name, got, want)
		events += len(want)
	}
	if events < 50 {
		t.Fatalf("compared only %d events", events)
	}
	t.Logf("%d events compared", events)
}
