package claude

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"cully/engine"
	"cully/hookbridge"
)

// wantUsage sums a transcript's usage the independent way, with
// encoding/json: every assistant line's message.usage, each (message id,
// request id) once, its last line's figures, as ccusage counts them.
func wantUsage(t *testing.T, path string) Tokens {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type fig struct{ in, out, write, read int64 }
	last := map[string]fig{}
	var order []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var rec struct {
			Type      string `json:"type"`
			RequestID string `json:"requestId"`
			Message   struct {
				ID    string `json:"id"`
				Usage *struct {
					In    int64 `json:"input_tokens"`
					Out   int64 `json:"output_tokens"`
					Write int64 `json:"cache_creation_input_tokens"`
					Read  int64 `json:"cache_read_input_tokens"`
				} `json:"usage"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Type != "assistant" || rec.Message.Usage == nil {
			continue
		}
		k := rec.Message.ID + ":" + rec.RequestID
		if _, ok := last[k]; !ok {
			order = append(order, k)
		}
		u := rec.Message.Usage
		last[k] = fig{u.In, u.Out, u.Write, u.Read}
	}
	var w Tokens
	for _, k := range order {
		f := last[k]
		w.Input, w.Output, w.CacheWrite, w.CacheRead, w.Messages = w.Input+f.in, w.Output+f.out, w.CacheWrite+f.write, w.CacheRead+f.read, w.Messages+1
	}
	return w
}

// The token totals the hook reads from the captured transcripts equal
// their deduplicated usage sums: read whole, and read in the pieces the
// hook reads (the file growing line by line, a read at each line's end).
func TestTranscriptTokens(t *testing.T) {
	for _, name := range []string{"capture-session.jsonl", "capture-subagent.jsonl"} {
		path := filepath.Join("testdata", "usage", name)
		want := wantUsage(t, path)
		if want.Messages == 0 {
			t.Fatalf("%s: no usage in the fixture", name)
		}
		f, _ := os.Open(path)
		got, err := SumUsage(f)
		f.Close()
		if err != nil || got != want {
			t.Errorf("%s whole: %+v, want %+v", name, got, want)
		}
		// Growing: copy the file a line at a time and run the completer
		// after each, carrying the state as the hook does.
		b, _ := os.ReadFile(path)
		grow := filepath.Join(t.TempDir(), "t.jsonl")
		out, _ := os.Create(grow)
		st := engine.NewState("s")
		for i, line := range splitLines(b) {
			out.Write(line)
			if i%3 != 0 { // every third line: reads that split a message's lines
				continue
			}
			ev := &engine.Event{Kind: engine.KindBatch, TranscriptPath: grow}
			Agent{}.Complete(nil, hookbridge.Env{}, ev, st)
			if ev.Usage != nil {
				st.Usage = ev.Usage
			}
			if ev.Transcript != nil {
				st.Transcript = ev.Transcript
			}
		}
		out.Close()
		ev := &engine.Event{Kind: engine.KindStop, TranscriptPath: grow}
		Agent{}.Complete(nil, hookbridge.Env{}, ev, st)
		if ev.Usage != nil {
			st.Usage = ev.Usage
		}
		u := st.Usage
		if u == nil || *u.InputTokens != want.Input || *u.OutputTokens != want.Output || *u.CacheReadTokens != want.CacheRead || *u.CacheWriteTokens != want.CacheWrite {
			t.Errorf("%s read as it grew: %+v, want %+v", name, u, want)
		}
	}
	// No transcript: unknown, not zero.
	ev := &engine.Event{Kind: engine.KindStop, TranscriptPath: filepath.Join(t.TempDir(), "none.jsonl")}
	Agent{}.Complete(nil, hookbridge.Env{}, ev, engine.NewState("s"))
	if ev.Usage != nil {
		t.Errorf("no transcript gave figures %+v", ev.Usage)
	}
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		if i < len(b) {
			i++
		}
		out = append(out, b[:i])
		b = b[i:]
	}
	return out
}

// BenchmarkTranscriptRead is what a batch's hook call pays to read the
// transcript on: the lines of one model turn (here the captured session's
// last 16 KiB, a turn with a Read's output in it).
func BenchmarkTranscriptRead(b *testing.B) {
	path := filepath.Join("testdata", "usage", "capture-session.jsonl")
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	from := fi.Size() - 16<<10
	b.ReportAllocs()
	for b.Loop() {
		st := engine.NewState("s")
		st.Transcript = &engine.TranscriptPos{File: transcriptFile(path), Off: from}
		zero := int64(0)
		st.Usage = &engine.HostUsage{InputTokens: &zero, OutputTokens: &zero}
		ev := &engine.Event{Kind: engine.KindBatch, TranscriptPath: path}
		Agent{}.Complete(nil, hookbridge.Env{}, ev, st)
	}
}
