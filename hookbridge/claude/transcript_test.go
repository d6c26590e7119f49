package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"cully/engine"
	"cully/hookbridge"
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

type replayFunc func(io.Reader, *engine.Config, func(*engine.Event) error) (hookbridge.ReplayStats, error)

func collect(t *testing.T, replay replayFunc, b []byte) ([]*engine.Event, hookbridge.ReplayStats, error) {
	t.Helper()
	cfg := engine.DefaultConfig()
	var evs []*engine.Event
	st, err := replay(bytes.NewReader(b), &cfg, func(ev *engine.Event) error {
		evs = append(evs, ev)
		return nil
	})
	return evs, st, err
}

func reference(r io.Reader, cfg *engine.Config, fn func(*engine.Event) error) (hookbridge.ReplayStats, error) {
	return referenceReplay(agent, r, cfg, fn)
}

func sameEvents(t *testing.T, name string, got, want []*engine.Event) {
	t.Helper()
	n := max(len(got), len(want))
	for i := 0; i < n; i++ {
		if i >= len(got) || i >= len(want) || !reflect.DeepEqual(got[i], want[i]) {
			var g, w []byte
			if i < len(got) {
				g, _ = json.Marshal(got[i])
			}
			if i < len(want) {
				w, _ = json.Marshal(want[i])
			}
			t.Errorf("%s: event %d of %d/%d differs:\nfast      %s\nreference %s", name, i, len(got), len(want), g, w)
			return
		}
	}
}

// Replay hands the rules exactly the events the reference (every line
// through encoding/json, payloads built as maps and decoded by the hook's
// decoder) produces, event for event, and counts the same lines and
// unmatched results.
func TestReplayMatchesReference(t *testing.T) {
	events := 0
	for name, b := range replayInputs(t) {
		want, wst, werr := collect(t, reference, b)
		if werr != nil {
			t.Logf("%s: the reference fails (%v): not compared", name, werr)
			continue
		}
		got, st, err := collect(t, agent.Replay, b)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		// The call and result fingerprints hash the payload's raw JSON: the
		// reference re-encodes it (sorted keys, other escapes), the replay
		// hands on the transcript's own bytes, as the hook hands on the
		// host's. The rules compare them within one path only: check that
		// equal inputs get equal fingerprints in both, then set them aside.
		sameFingerprintClasses(t, name, got, want)
		for _, evs := range [][]*engine.Event{got, want} {
			for _, ev := range evs {
				ev.CallFP, ev.OutFP = "", ""
			}
		}
		sameEvents(t, name, got, want)
		if st.Lines != wst.Lines || st.Skipped != wst.Skipped || st.Corrupt > wst.Corrupt {
			t.Errorf("%s: stats %+v, reference %+v", name, st, wst)
		}
		events += len(want)
	}
	if events < 50 {
		t.Fatalf("compared only %d events", events)
	}
	t.Logf("%d events compared", events)
}

// BenchmarkReplayCorpus replays every file of CULLY_REPLAY_CORPUS, one
// after the other (bench/replay.sh measures the whole command).
func BenchmarkReplayCorpus(b *testing.B) {
	dir := os.Getenv("CULLY_REPLAY_CORPUS")
	if dir == "" {
		b.Skip("CULLY_REPLAY_CORPUS names no folder")
	}
	var files [][]byte
	var size int64
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if data, err := os.ReadFile(p); err == nil {
				files = append(files, data)
				size += int64(len(data))
			}
		}
		return nil
	})
	cfg := engine.DefaultConfig()
	for _, c := range []struct {
		name string
		fn   replayFunc
	}{{"fast", agent.Replay}, {"reference", reference}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				for _, f := range files {
					if _, err := c.fn(bytes.NewReader(f), &cfg, func(*engine.Event) error { return nil }); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// line builds one transcript record: the session's, at second sec, with
// uuid id ("" for none), of type typ, and extra members (raw JSON).
func line(id string, sec int, typ, extra string) string {
	uuid := ""
	if id != "" {
		uuid = `"uuid":"` + id + `",`
	}
	return fmt.Sprintf(`{"sessionId":"s1","cwd":"/p",%s"timestamp":"2026-11-30T10:00:%02d.000Z","type":%q,%s}`, uuid, sec, typ, extra)
}

func call(id, tool, input string) string {
	return fmt.Sprintf(`"message":{"role":"assistant","content":[{"type":"tool_use","id":%q,"name":%q,"input":%s}]}`, id, tool, input)
}

func result(id string) string {
	return fmt.Sprintf(`"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":"ok"}]},"toolUseResult":{"stdout":"ok","interrupted":false}`, id)
}

func lines(l ...string) []byte { return []byte(strings.Join(l, "\n") + "\n") }

func session(t *testing.T, files ...[]byte) ([]*engine.Event, hookbridge.ReplayStats) {
	t.Helper()
	cfg := engine.DefaultConfig()
	var rs []io.Reader
	for _, f := range files {
		rs = append(rs, bytes.NewReader(f))
	}
	var evs []*engine.Event
	st, err := agent.ReplaySession(rs, &cfg, func(ev *engine.Event) error {
		evs = append(evs, ev)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return evs, st
}

// A session's file replayed alone gives the events of Replay (the test
// transcripts are in time order).
func TestReplaySessionOfOneFileIsReplay(t *testing.T) {
	for name, b := range replayInputs(t) {
		if os.Getenv("CULLY_REPLAY_CORPUS") != "" && !strings.Contains(name, "testdata") {
			continue // real transcripts are not in time order
		}
		want, _, err := collect(t, agent.Replay, b)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := session(t, b)
		sameEvents(t, name, got, want)
	}
}

// A transcript split into parts that overlap is one session: each record
// once, in time order, whatever order the parts come in.
func TestReplaySessionMergesSplitFiles(t *testing.T) {
	all := []string{
		line("u1", 1, "user", `"message":{"role":"user","content":"fix it"}`),
		line("u2", 2, "assistant", call("t1", "Bash", `{"command":"go test ./..."}`)),
		line("u3", 3, "user", result("t1")),
		line("u4", 4, "assistant", call("t2", "Read", `{"file_path":"/p/a.go"}`)),
		line("u5", 5, "user", result("t2")),
		line("u6", 6, "assistant", call("t3", "Bash", `{"command":"go vet ./..."}`)),
		line("u7", 7, "user", result("t3")),
	}
	want, _, err := collect(t, agent.Replay, lines(all...))
	if err != nil || len(want) != 7 { // a prompt, six calls' events (the turn ends on a call's result: no Stop)
		t.Fatalf("%d events, %v", len(want), err)
	}
	part2, part1 := lines(all[3:]...), lines(all[:5]...) // u4 and u5 in both
	got, st := session(t, part2, part1)
	sameEvents(t, "split", got, want)
	if st.Duplicates != 2 {
		t.Errorf("duplicates %d, want 2", st.Duplicates)
	}
}

// A record without a uuid is taken once by its exact line; two different
// such lines are two records.
func TestReplaySessionDedupesLinesWithoutUUID(t *testing.T) {
	a := line("", 1, "user", `"message":{"role":"user","content":"one"}`)
	b := line("", 2, "user", `"message":{"role":"user","content":"two"}`)
	got, st := session(t, lines(a, b), lines(a))
	if len(got) != 2 || st.Duplicates != 1 { // each prompt (no agent text: no turn's end)
		t.Fatalf("%d events, %d duplicates; want 2, 1", len(got), st.Duplicates)
	}
}

// A subagent's transcript (sidechain records naming their agent) is
// played inside its parent's session, between the Task call and its
// result, its events carrying the subagent.
func TestReplaySessionAttachesSubagents(t *testing.T) {
	main := lines(
		line("m1", 1, "user", `"message":{"role":"user","content":"explore"}`),
		line("m2", 2, "assistant", call("task1", "Task", `{"prompt":"look","subagent_type":"Explore"}`)),
		line("m3", 9, "user", result("task1")),
	)
	side := `"isSidechain":true,"agentId":"a77",`
	sub := lines(
		line("s1", 3, "user", side+`"message":{"role":"user","content":"look"}`),
		line("s2", 4, "assistant", side+call("r1", "Read", `{"file_path":"/p/x.go"}`)),
		line("s3", 5, "user", side+result("r1")),
	)
	got, _ := session(t, main, sub)
	var seq []string
	for _, ev := range got {
		seq = append(seq, ev.Hook+":"+ev.Tool+":"+ev.Subagent)
	}
	want := "UserPromptSubmit::,PreToolUse:Task:,PreToolUse:Read:a77,PostToolUse:Read:a77,PostToolUse:Task:"
	if strings.Join(seq, ",") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(seq, ","), want)
	}
}

func TestIdentify(t *testing.T) {
	for _, c := range []struct{ in, session, why string }{
		{line("u1", 1, "user", `"message":{"role":"user","content":"hi"}`), "s1", ""},
		{`{"type":"summary","summary":"x","leafUuid":"u"}` + "\n" + `{"type":"file-history-snapshot","messageId":"m"}` + "\n" + line("u1", 1, "user", `"message":{}`), "s1", ""},
		{"", "", "empty file"},
		{"hello world\n", "", "not JSON lines"},
		{`{"type":"summary","summary":"x"}` + "\n", "", "no record names its session"},
	} {
		s, why := agent.Identify(strings.NewReader(c.in))
		if s != c.session || !strings.Contains(why, c.why) || (c.why == "") != (why == "") {
			t.Errorf("Identify(%.40q) = %q, %q; want %q, %q", c.in, s, why, c.session, c.why)
		}
	}
	// A large file without a newline (an image, an archive) is not read to
	// its end to find out.
	r := &countReader{r: bytes.NewReader(make([]byte, 64<<20))}
	if s, why := agent.Identify(r); s != "" || why == "" || r.n > 10<<20 {
		t.Errorf("binary: %q %q after reading %d bytes", s, why, r.n)
	}
}

type countReader struct {
	r io.Reader
	n int
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// sameFingerprintClasses checks that two event lists group their calls and
// results alike: events i and j share a CallFP (an OutFP) in one exactly
// when they do in the other.
func sameFingerprintClasses(t *testing.T, name string, got, want []*engine.Event) {
	t.Helper()
	if len(got) != len(want) {
		return // sameEvents reports it
	}
	for _, fp := range []func(*engine.Event) string{func(e *engine.Event) string { return e.CallFP }, func(e *engine.Event) string { return e.OutFP }} {
		g, w := map[string]int{}, map[string]int{}
		for i := range got {
			gi, ok1 := g[fp(got[i])]
			wi, ok2 := w[fp(want[i])]
			if ok1 != ok2 || ok1 && gi != wi {
				t.Errorf("%s: event %d groups with other events differently in the replay and the reference", name, i)
				return
			}
			if !ok1 {
				g[fp(got[i])], w[fp(want[i])] = i, i
			}
		}
	}
}

// The replay hands each prompt's text to the decoder, which keeps only
// the fingerprints of the commands it reports failing (a turn that ends on
// a call's result, with no text of the agent's, plays no Stop:
// the reference replay and replay_idleloop.txtar have those).
func TestReplayTurnEndsAndPrompts(t *testing.T) {
	evs, _, err := collect(t, agent.Replay, lines(
		line("u1", 1, "user", `"message":{"role":"user","content":"`+"`mytool sync` crashes"+`"}`),
		line("u2", 2, "assistant", call("t1", "Bash", `{"command":"go test ./..."}`)),
		line("u3", 3, "user", result("t1")),
		line("u4", 7, "user", `"message":{"role":"user","content":"thanks"}`),
	))
	if err != nil {
		t.Fatal(err)
	}
	var seq []string
	for _, ev := range evs {
		seq = append(seq, fmt.Sprintf("%s@%d", ev.Kind, ev.Time.Second()))
	}
	if got, want := strings.Join(seq, ","), "prompt@1,pre_tool@2,post_tool@3,prompt@7"; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if len(evs[0].PromptCmds) != 1 || len(evs[3].PromptCmds) != 0 {
		t.Errorf("prompt commands: %v, %v", evs[0].PromptCmds, evs[3].PromptCmds)
	}
}

// A Stop hook that blocked the turn's end leaves a meta record of its
// feedback, a background task's notification a user record no one typed:
// the replay plays the Stop there, and the calls the agent then makes
// belong to the same task (no prompt).
func TestReplayStopHookFeedbackIsATurnEnd(t *testing.T) {
	evs, _, err := collect(t, agent.Replay, lines(
		line("u1", 1, "user", `"message":{"role":"user","content":"add a function"}`),
		line("u2", 2, "assistant", call("t1", "Edit", `{"file_path":"/p/a.py","old_string":"a","new_string":"b"}`)),
		line("u3", 3, "user", result("t1")),
		line("u4", 4, "assistant", `"message":{"role":"assistant","content":[{"type":"text","text":"Done."}]}`),
		line("u5", 5, "user", `"isMeta":true,"message":{"role":"user","content":"Stop hook feedback:\nrun the tests"}`),
		line("u6", 6, "assistant", call("t2", "Bash", `{"command":"pytest"}`)),
		line("u7", 7, "user", result("t2")),
		line("u8", 8, "assistant", `"message":{"role":"assistant","content":[{"type":"text","text":"Tests pass."}]}`),
		line("u9", 9, "user", `"origin":{"kind":"task-notification"},"message":{"role":"user","content":"<task-notification>done</task-notification>"}`),
		line("u10", 10, "assistant", call("t3", "Bash", `{"command":"echo waiting"}`)),
		line("u11", 11, "user", result("t3")),
	))
	if err != nil {
		t.Fatal(err)
	}
	var seq []string
	for _, ev := range evs {
		seq = append(seq, fmt.Sprintf("%s@%d", ev.Kind, ev.Time.Second()))
	}
	if got, want := strings.Join(seq, ","), "prompt@1,pre_tool@2,post_tool@3,stop@4,pre_tool@6,post_tool@7,stop@8,pre_tool@10,post_tool@11"; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
