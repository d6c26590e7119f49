package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"cully/engine"
	"cully/hookbridge"
	"cully/jsonlite"
)

// runs are the captured real runs of Codex 0.171.0: a failing command, a
// patch and a read, with context injected (inject, skill-probe), and the
// same calls denied and blocked (block).
var runs = []string{"inject", "block", "skill-probe"}

// payloads are a run's hook payloads in the order they ran (their names
// start with the time in Unix nanoseconds).
func payloads(t *testing.T, run string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", run, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no payloads in %s: %v", run, err)
	}
	sort.Strings(files)
	return files
}

func hookOf(file string) string {
	base := strings.TrimSuffix(filepath.Base(file), ".json")
	_, h, _ := strings.Cut(base, "-")
	return h
}

var schemaFile = map[string]string{
	"SessionStart": "session-start", "UserPromptSubmit": "user-prompt-submit", "PreToolUse": "pre-tool-use",
	"PermissionRequest": "permission-request", "PostToolUse": "post-tool-use", "PreCompact": "pre-compact",
	"PostCompact": "post-compact", "SubagentStart": "subagent-start", "SubagentStop": "subagent-stop",
	"Stop": "stop", "SessionEnd": "session-end", "Interrupt": "interrupt",
}

// Every captured payload is what the 0.171.0 input schema describes, and
// decodes into the event cully records: its kind, its tool's class and
// file, and no outcome the payload does not give.
func TestDecodeCaptured(t *testing.T) {
	env := hookbridge.Env{Now: time.Date(2026, 11, 30, 4, 32, 0, 0, time.UTC)}
	for _, run := range runs {
		for _, f := range payloads(t, run) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			hook := hookOf(f)
			if err := loadSchema(t, schemaFile[hook]+".command.input.json").validate(raw); err != nil {
				t.Errorf("%s: not what the 0.171.0 input schema says: %v", f, err)
			}
			ev, err := Agent{}.Decode(raw, env)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if ev.Hook != hook || ev.Agent != "codex" || ev.Session == "" || ev.Kind == engine.KindOther {
				t.Errorf("%s: hook %q agent %q session %q kind %q", f, ev.Hook, ev.Agent, ev.Session, ev.Kind)
			}
			if !strings.HasSuffix(ev.TranscriptPath, ".jsonl") {
				t.Errorf("%s: transcript path %q", f, ev.TranscriptPath)
			}
			if hook != "SessionEnd" && (ev.Usage == nil || ev.Usage.Model != "gpt-5.5") {
				t.Errorf("%s: the model is in every payload but SessionEnd: %+v", f, ev.Usage)
			}
			if ev.Kind != engine.KindPreTool && ev.Kind != engine.KindPostTool {
				continue
			}
			want := map[string]struct {
				class  engine.Class
				target string
			}{
				"call_fail_1":  {engine.ClassRead, ""}, // ls, echo, exit: a listing
				"call_patch_2": {engine.ClassEdit, "cully-note.txt"},
				"call_read_3":  {engine.ClassRead, "cully-note.txt"},
			}[ev.ToolUseID]
			if want.class == "" || ev.Class != want.class || ev.Target != want.target {
				t.Errorf("%s: call %q class %q target %q, want %+v", f, ev.ToolUseID, ev.Class, ev.Target, want)
			}
			if ev.Kind == engine.KindPostTool {
				switch ev.Tool {
				case toolPatch: // its answer says its exit code
					if ev.Outcome != engine.OutcomeOK || ev.Exit == nil || *ev.Exit != 0 {
						t.Errorf("%s: patch outcome %q exit %v", f, ev.Outcome, ev.Exit)
					}
				default: // Complete reads it from the rollout
					if ev.Outcome != engine.OutcomeUnknown || ev.Exit != nil || ev.Note != noExit {
						t.Errorf("%s: a command's outcome is unknown until the rollout says: %q %v %q", f, ev.Outcome, ev.Exit, ev.Note)
					}
				}
			}
		}
	}
}

// rolloutLine is one line of a captured rollout, with its time.
type rolloutLine struct {
	at   time.Time
	text []byte
}

func readRolloutLines(t *testing.T, run string) []rolloutLine {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", run, "rollout.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []rolloutLine
	for _, l := range bytes.SplitAfter(b, []byte{'\n'}) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var rec struct {
			Timestamp time.Time `json:"timestamp"`
		}
		if err := json.Unmarshal(l, &rec); err != nil {
			t.Fatal(err)
		}
		out = append(out, rolloutLine{rec.Timestamp, l})
	}
	return out
}

// replayRun runs a captured run's payloads through Decode and Complete in
// order, with the rollout growing as it did: before each hook, the lines
// written up to the hook's start. It returns the events, as recorded.
func replayRun(t *testing.T, run string, cut func(i int, line []byte) []byte) []*engine.Event {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "rollout.jsonl")
	lines := readRolloutLines(t, run)
	written := 0
	st := engine.NewState("")
	cfg := engine.DefaultConfig()
	var out []*engine.Event
	for _, f := range payloads(t, run) {
		ns, _ := strconv.ParseInt(strings.SplitN(filepath.Base(f), "-", 2)[0], 10, 64)
		at := time.Unix(0, ns).UTC()
		var grow []byte
		for written < len(lines) && !lines[written].at.After(at) {
			l := lines[written].text
			if cut != nil {
				l = cut(written, l)
			}
			grow = append(grow, l...)
			written++
		}
		fh, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		fh.Write(grow)
		fh.Close()
		raw, _ := os.ReadFile(f)
		p, _ := jsonlite.ParseObject(raw)
		p["transcript_path"] = []byte(strconv.Quote(path))
		raw = encodeObject(p)
		env := hookbridge.Env{Now: at, Config: &cfg}
		ev, err := Agent{}.Decode(raw, env)
		if err != nil {
			t.Fatal(err)
		}
		Agent{}.Complete(raw, env, ev, st)
		engine.Apply(st, ev, &cfg)
		out = append(out, ev)
	}
	return out
}

// encodeObject writes members back as one JSON object (for a test that
// changed one).
func encodeObject(p jsonlite.Object) []byte {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b := []byte{'{'}
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, strconv.Quote(k)...)
		b = append(b, ':')
		b = append(b, p[k]...)
	}
	return append(b, '}')
}

// The hook reads each call's outcome from the rollout as it grew in the
// real run: the failing command exit 3, the read exit 0; and the token
// counts of the model's responses up to then.
func TestCompleteFromTheGrowingRollout(t *testing.T) {
	evs := replayRun(t, "inject", nil)
	posts := map[string]*engine.Event{}
	var last *engine.HostUsage
	for _, ev := range evs {
		if ev.Kind == engine.KindPostTool {
			posts[ev.ToolUseID] = ev
		}
		if ev.Usage != nil {
			last = ev.Usage
		}
		if ev.Transcript == nil && ev.Hook != "SessionStart" {
			t.Errorf("%s: no transcript position", ev.Hook)
		}
	}
	fail, read := posts["call_fail_1"], posts["call_read_3"]
	if fail == nil || fail.Outcome != engine.OutcomeFailed || fail.Exit == nil || *fail.Exit != 3 || fail.FailSig == "" || fail.ErrSig == "" {
		t.Errorf("failing command: %+v", fail)
	}
	if read == nil || read.Outcome != engine.OutcomeOK || read.Exit == nil || *read.Exit != 0 || read.Class != engine.ClassRead || read.Target != "cully-note.txt" {
		t.Errorf("read: %+v", read)
	}
	if fail.Transcript == nil || len(fail.Transcript.Exits) != 0 {
		t.Errorf("a claimed outcome stays pending: %+v", fail.Transcript)
	}
	// Four responses of 1000, 1100, 1200 and 1300 input tokens, 800 of the
	// 4600 read from the cache (Codex counts them in its input figure:
	// taken out); the hook at Stop has seen all of them.
	if last == nil || last.InputTokens == nil || *last.InputTokens != 3800 || *last.CacheReadTokens != 800 || *last.OutputTokens != 206 ||
		*last.ContextTokens != 1300 || *last.ContextWindow != 258400 || last.Model != "gpt-5.5" {
		t.Errorf("usage: %s", jsonOf(last))
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Two calls whose outcomes the rollout records before either's
// PostToolUse: the first hook reads both, claims its own and keeps the
// other's for its hook; a rollout that was rewritten is read anew; a line
// still being written is read once it ends.
func TestCompletePendingAndPartial(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.jsonl")
	done := func(id string, code int) string {
		return fmt.Sprintf(`{"timestamp":"t","type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":%q,"status":"failed","aggregated_output":"no","exit_code":%d}}}`+"\n", id, code)
	}
	write := func(s string, appendTo bool) {
		flag := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
		if appendTo {
			flag = os.O_CREATE | os.O_WRONLY | os.O_APPEND
		}
		f, err := os.OpenFile(path, flag, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	st := engine.NewState("s")
	cfg := engine.DefaultConfig()
	post := func(id string) *engine.Event {
		raw := []byte(fmt.Sprintf(`{"session_id":"s","transcript_path":%q,"cwd":"/p","hook_event_name":"PostToolUse","model":"m","tool_name":"Bash","tool_input":{"command":"make %s"},"tool_response":"boom\n","tool_use_id":%q}`, path, id, id))
		env := hookbridge.Env{Config: &cfg}
		ev, err := Agent{}.Decode(raw, env)
		if err != nil {
			t.Fatal(err)
		}
		Agent{}.Complete(raw, env, ev, st)
		engine.Apply(st, ev, &cfg)
		return ev
	}
	half := done("c3", 5)
	write(done("c1", 1)+done("c2", 2)+half[:20], false)
	if ev := post("c1"); ev.Exit == nil || *ev.Exit != 1 || len(ev.Transcript.Exits) != 1 || ev.Transcript.Exits[0].ID != "c2" {
		t.Fatalf("c1: exit %v, pending %s", ev.Exit, jsonOf(ev.Transcript))
	}
	if ev := post("c2"); ev.Exit == nil || *ev.Exit != 2 || len(ev.Transcript.Exits) != 0 {
		t.Fatalf("c2: exit %v, pending %s", ev.Exit, jsonOf(ev.Transcript))
	}
	if ev := post("c3"); ev.Exit != nil || ev.Outcome != engine.OutcomeUnknown {
		t.Fatalf("c3 is half written: exit %v", ev.Exit)
	}
	write(half[20:], true)
	post("c0") // another call's hook reads c3 once its line ends
	if ev := post("c3"); ev.Exit == nil || *ev.Exit != 5 {
		t.Fatalf("c3, once whole: exit %v, pos %s", ev.Exit, jsonOf(ev.Transcript))
	}
	write(done("c4", 4), false) // rewritten: shorter than what was read
	if ev := post("c4"); ev.Exit == nil || *ev.Exit != 4 {
		t.Fatalf("c4 in a rewritten rollout: exit %v, pos %s", ev.Exit, jsonOf(ev.Transcript))
	}
	// Outcomes never claimed are capped.
	var many strings.Builder
	for i := range 3 * maxExits {
		many.WriteString(done(fmt.Sprintf("x%d", i), 1))
	}
	write(many.String(), true)
	if ev := post("c0"); len(ev.Transcript.Exits) != maxExits || ev.Transcript.Exits[maxExits-1].ID != fmt.Sprintf("x%d", 3*maxExits-1) {
		t.Errorf("pending outcomes: %d kept, want the newest %d", len(ev.Transcript.Exits), maxExits)
	}
}

// However much was written since the last call, one call reads at most
// maxRead bytes: the newest, from the first whole line in them.
func TestCompleteReadIsBounded(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.jsonl")
	filler := `{"type":"response_item","payload":{"type":"function_call_output","output":"` + strings.Repeat("x", 1000) + `"}}` + "\n"
	var b strings.Builder
	b.WriteString(`{"type":"event_msg","payload":{"type":"item_completed","item":{"id":"old","status":"completed","exit_code":0}}}` + "\n")
	for b.Len() < 2*maxRead {
		b.WriteString(filler)
	}
	b.WriteString(`{"type":"event_msg","payload":{"type":"item_completed","item":{"id":"new","status":"completed","exit_code":0}}}` + "\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	pos := engine.TranscriptPos{}
	var u engine.HostUsage
	if !readRollout(path, &pos, &u, nil) {
		t.Fatal("nothing read")
	}
	if pos.Off != int64(b.Len()) || len(pos.Exits) != 1 || pos.Exits[0].ID != "new" {
		t.Errorf("read to %d of %d, exits %s: want the end, and only the newest outcome", pos.Off, b.Len(), jsonOf(pos.Exits))
	}
	if readRollout(path, &pos, &u, nil) {
		t.Error("nothing new, yet the position moved")
	}
	if readRollout(filepath.Join(dir, "missing"), &pos, &u, nil) || readRollout(dir, &pos, &u, nil) {
		t.Error("a missing rollout, or a folder, must read as nothing")
	}
}

func TestPatchFiles(t *testing.T) {
	for patch, want := range map[string]string{
		"*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n":                                                     "a.txt",
		"*** Begin Patch\n*** Update File: src/app.py\n*** Move to: src/main.py\n@@\n-a\n+b\n*** Delete File: old.go\n": "src/app.py src/main.py old.go",
		"*** Begin Patch\r\n*** Update File: a b.go\r\n@@\r\n*** Update File: a b.go\r\n*** End Patch":                  "a b.go",
		"+*** Add File: inside.txt\n": "",
		"":                            "",
	} {
		if got := strings.Join(patchFiles(patch), " "); got != want {
			t.Errorf("patchFiles(%q) = %q, want %q", patch, got, want)
		}
	}
}

// A patch of several files edits its first, and names the others.
func TestDecodePatchOfSeveralFiles(t *testing.T) {
	raw := []byte(`{"session_id":"s","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: /p/a.go\n@@\n*** Add File: docs/b.md\n+x\n*** End Patch\n"},"tool_response":"Exit code: 1\nWall time: 0 seconds\nOutput:\napply_patch verification failed: no match\n","tool_use_id":"c1"}`)
	ev, err := Agent{}.Decode(raw, hookbridge.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Target != "a.go" || strings.Join(ev.Files, ",") != "docs/b.md" || ev.Class != engine.ClassEdit {
		t.Errorf("target %q files %v class %q", ev.Target, ev.Files, ev.Class)
	}
	if ev.Outcome != engine.OutcomeFailed || ev.Exit == nil || *ev.Exit != 1 || ev.FailSig == "" || ev.CmdFP == "" {
		t.Errorf("a failed patch: %+v", ev)
	}
}

// Each answer is exactly what the event's 0.171.0 output schema accepts,
// and only the events whose schema carries context for the model get one.
func TestAnswersValidate(t *testing.T) {
	nudge := "cully: `go test ./...` failed on its last 2 runs\n\"quoted\" \\ tab\t \x01 é"
	for hook, file := range schemaFile {
		out := Agent{}.Encode(hook, nudge)
		if !contextEvent(hook) {
			if out != nil {
				t.Errorf("%s has no context channel, yet got %s", hook, out)
			}
			continue
		}
		if file == "" || !bytes.HasSuffix(out, []byte("}\n")) {
			t.Fatalf("%s: %q", hook, out)
		}
		if err := loadSchema(t, file+".command.output.json").validate(out); err != nil {
			t.Errorf("%s: answer %s: %v", hook, out, err)
		}
		var a struct {
			HookSpecificOutput struct {
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(out, &a); err != nil || a.HookSpecificOutput.AdditionalContext != nudge {
			t.Errorf("%s: the nudge does not round-trip: %q, %v", hook, a.HookSpecificOutput.AdditionalContext, err)
		}
		if (Agent{}).Encode(hook, "") != nil {
			t.Errorf("%s: an empty nudge gets no answer", hook)
		}
	}
	for _, hook := range []string{"Stop", "SubagentStop", "SessionEnd", "PreCompact", "PermissionRequest"} {
		if contextEvent(hook) {
			t.Errorf("%s carries no context in the 0.171.0 schemas", hook)
		}
	}
}

// A captured rollout replays as the hooks saw the session: its start, the
// prompt, and each call with the outcome the hook read, exit codes
// included; Identify names its session.
func TestReplayCaptured(t *testing.T) {
	for _, run := range runs {
		f, err := os.Open(filepath.Join("testdata", run, "rollout.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		session, why := Agent{}.Identify(f)
		f.Close()
		if session == "" || !strings.HasPrefix(session, "01a22ab9-") {
			t.Fatalf("%s: Identify = %q, %q", run, session, why)
		}
		b, _ := os.ReadFile(filepath.Join("testdata", run, "rollout.jsonl"))
		cfg := engine.DefaultConfig()
		var got []string
		var usage *engine.HostUsage
		st, err := Agent{}.Replay(bytes.NewReader(b), &cfg, func(ev *engine.Event) error {
			if ev.Session != session {
				t.Errorf("%s: event of session %q", run, ev.Session)
			}
			s := ev.Hook
			if ev.Kind == engine.KindPostTool {
				exit := "?"
				if ev.Exit != nil {
					exit = strconv.Itoa(*ev.Exit)
				}
				s += fmt.Sprintf(":%s:%s:%s:%s", ev.Tool, ev.Class, ev.Outcome, exit)
			}
			if ev.Usage != nil {
				usage = ev.Usage
			}
			// The turn's end and its prompt carry what the hooks carried:
			// the closing message's fingerprint, the prompt's.
			if fp, _, _ := engine.ClosingOf("Mock run complete: the ls failed with exit 3, the note was written and read back."); ev.Kind == engine.KindStop && ev.EndFP != fp {
				t.Errorf("%s: the replayed Stop's closing fingerprint %q, want the hook's %q", run, ev.EndFP, fp)
			}
			got = append(got, s)
			return nil
		})
		if err != nil || st.Corrupt != 0 || st.Skipped != 0 {
			t.Fatalf("%s: %v %+v", run, err, st)
		}
		want := "SessionStart UserPromptSubmit PreToolUse PostToolUse:Bash:read:failed:3 PreToolUse PostToolUse:apply_patch:edit:ok:0 PreToolUse PostToolUse:Bash:read:ok:0 Stop"
		if run == "block" { // both calls denied by the hooks: no output for the patch, the read failed
			want = "SessionStart UserPromptSubmit PreToolUse PostToolUse:Bash:read:unknown:? PreToolUse PostToolUse:apply_patch:edit:unknown:? PreToolUse PostToolUse:Bash:read:failed:1 Stop"
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("%s:\n got %s\nwant %s", run, g, want)
		}
		if usage == nil || usage.InputTokens == nil || usage.ContextWindow == nil {
			t.Errorf("%s: no usage replayed: %s", run, jsonOf(usage))
		}
	}
	if s, why := (Agent{}).Identify(strings.NewReader("not json\n")); s != "" || why != "not a Codex rollout (not JSON lines)" {
		t.Errorf("Identify(not json) = %q, %q", s, why)
	}
}

// Code mode: the model's one tool is `exec`, whose input is a script that
// calls the real tools. Each call is replayed as the call it makes (the
// corpus's rollouts hold 512 of them; read as one opaque `exec` they all
// looked alike and raised 29 false repeated-call guards).
func TestCodeModeCall(t *testing.T) {
	for _, c := range []struct{ code, name, input string }{
		{`const r = await tools.exec_command({"cmd":"sed -n '1,240p' a.md","workdir":"/p","yield_time_ms":10000}); text(r.output);`,
			`"Bash"`, `{"command":"sed -n '1,240p' a.md"}`},
		{`const a = await tools.exec_command({"cmd":"go test ./..."}); const b = await tools.exec_command({"cmd":"git status"}); text(a.output + b.output);`,
			`"Bash"`, `{"command":"go test ./...\ngit status"}`},
		{`const r = await tools.write_stdin({"session_id":39705,"chars":"","yield_time_ms":1000}); text(r.output);`,
			`"write_stdin"`, `{"session_id":39705,"chars":"","yield_time_ms":1000}`},
		{`const r = await tools.exec_command({"cmd":"echo \"}\" {"}); text(r.output);`,
			`"Bash"`, `{"command":"echo \"}\" {"}`},
		{"await tools.apply_patch(`*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch`);",
			`"apply_patch"`, ""},
		{`text("hello")`, `"exec"`, `{"input":"text(\"hello\")"}`},
		{`await tools.mcp__x__fetch(42)`, `"mcp__x__fetch"`, `{"input":"await tools.mcp__x__fetch(42)"}`},
	} {
		name, input := codeModeCall(c.code)
		if string(name) != c.name || c.input != "" && string(input) != c.input {
			t.Errorf("codeModeCall(%q) = %s %s, want %s %s", c.code, name, input, c.name, c.input)
		}
		if c.name == `"apply_patch"` {
			o, _ := jsonlite.ParseObject(input)
			if got := patchFiles(o.Str("command")); len(got) != 1 || got[0] != "a.txt" {
				t.Errorf("patch in code mode: files %v", got)
			}
		}
	}
	// Two different scripts are two different calls.
	_, a := codeModeCall(`text(1)`)
	_, b := codeModeCall(`text(2)`)
	if string(a) == string(b) {
		t.Error("different scripts read as the same input")
	}
}

// Most code-mode scripts write JavaScript objects, keys unquoted.
func TestCodeModeJavaScriptObjects(t *testing.T) {
	for code, want := range map[string]string{
		`const r = await tools.exec_command({cmd:"go test ./...", yield_time_ms: 1000}); text(r.output);`: `{"command":"go test ./..."}`,
		`await tools.exec_command({ cmd: 'git log -1 \'x\'' })`:                                           `{"command":"git log -1 'x'"}`,
		"await tools.exec_command({workdir: \"/p\", cmd: `make\tbuild`})":                                 `{"command":"make\tbuild"}`,
		`await tools.exec_command({xcmd:"no", cmd:"yes"})`:                                                `{"command":"yes"}`,
	} {
		name, input := codeModeCall(code)
		if string(name) != `"Bash"` || string(input) != want {
			t.Errorf("codeModeCall(%q) = %s %s, want Bash %s", code, name, input, want)
		}
	}
	if _, ok := jsField(`{cmd: 42}`, "cmd"); ok {
		t.Error("a number is no command")
	}
}

// A fork's rollout (a subagent thread spawned from another) opens with a
// copy of its parent's history: that is the parent's work, not replayed
// as the fork's; the fork's own turns are, under the fork's id.
func TestReplayForkSkipsTheCopiedHistory(t *testing.T) {
	lines := []string{
		`{"timestamp":"2026-04-11T20:34:05.810Z","type":"session_meta","payload":{"id":"019d7e40-7150-7df3-b034-a8421746ef80","forked_from_id":"019d7d08-46c9-7f73-affe-4e6ca9852d56","cwd":"/p"}}`,
		`{"timestamp":"2026-04-11T20:34:05.811Z","type":"session_meta","payload":{"id":"019d7d08-46c9-7f73-affe-4e6ca9852d56","cwd":"/p"}}`,
		`{"timestamp":"2026-04-11T20:34:05.811Z","type":"event_msg","payload":{"type":"task_started","turn_id":"019d7d08-f1d2-78a1-ae52-df8e21f9b394"}}`,
		`{"timestamp":"2026-04-11T20:34:05.812Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"parent-cmd\"}","call_id":"c1"}}`,
		`{"timestamp":"2026-04-11T20:34:05.812Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"x"}}`,
		`{"timestamp":"2026-04-11T20:34:05.821Z","type":"event_msg","payload":{"type":"task_started","turn_id":"019d7e40-717d-7ed2-8052-2778f1ce5e83"}}`,
		`{"timestamp":"2026-04-11T20:34:06.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"fork-cmd\"}","call_id":"c2"}}`,
		`{"timestamp":"2026-04-11T20:34:07.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"y"}}`,
	}
	cfg := engine.DefaultConfig()
	var cmds, sessions []string
	_, err := Agent{}.Replay(strings.NewReader(strings.Join(lines, "\n")+"\n"), &cfg, func(ev *engine.Event) error {
		sessions = append(sessions, ev.Session)
		if ev.Kind == engine.KindPostTool {
			cmds = append(cmds, ev.Cmd)
		}
		return nil
	})
	if err != nil || strings.Join(cmds, " ") != "fork-cmd" {
		t.Fatalf("commands %q (err %v), want only the fork's", cmds, err)
	}
	for _, s := range sessions {
		if s != "019d7e40-7150-7df3-b034-a8421746ef80" {
			t.Fatalf("an event of session %q, want the fork's", s)
		}
	}
}

// What the player keeps across lines survives the reader's buffer reuse:
// a rollout of several megabytes keeps its session id to the end.
func TestReplayKeepsTheSessionPastTheBuffer(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"timestamp":"2026-04-11T20:00:00.000Z","type":"session_meta","payload":{"id":"019d7d08-46c9-7f73-affe-4e6ca9852d56","cwd":"/p"}}` + "\n")
	pad := strings.Repeat("x", 64<<10)
	for i := 0; i < 80; i++ { // ~5 MB
		fmt.Fprintf(&b, `{"timestamp":"2026-04-11T20:00:%02d.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"echo %d\"}","call_id":"c%d"}}`+"\n", i%60, i, i)
		fmt.Fprintf(&b, `{"timestamp":"2026-04-11T20:00:%02d.500Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c%d","output":"%s"}}`+"\n", i%60, i, pad)
	}
	cfg := engine.DefaultConfig()
	n := 0
	_, err := Agent{}.Replay(strings.NewReader(b.String()), &cfg, func(ev *engine.Event) error {
		if ev.Session != "019d7d08-46c9-7f73-affe-4e6ca9852d56" {
			t.Fatalf("event %d has session %q", n, ev.Session)
		}
		if ev.Kind == engine.KindPostTool && !strings.HasPrefix(ev.Cmd, "echo ") {
			t.Fatalf("event %d: command %q", n, ev.Cmd)
		}
		n++
		return nil
	})
	if err != nil || n < 160 {
		t.Fatalf("%d events, %v", n, err)
	}
}

// Codex's lines before a command's output are the same for every failure:
// the error signature is taken from the output itself, so three different
// failing tests are three different errors.
func TestOutputBody(t *testing.T) {
	a := "Script completed\nWall time 4.5 seconds\nOutput:\n --- FAIL: TestA (0.00s)\n    a_test.go:11: import broken\nFAIL\n"
	b := "Script completed\nWall time 3.2 seconds\nOutput:\n --- FAIL: TestB (0.00s)\n    a_test.go:70: DDL corrupted\nFAIL\n"
	if engine.ErrorSignature(outputBody(a)) == engine.ErrorSignature(outputBody(b)) {
		t.Error("two different failures share a signature")
	}
	if got := outputBody("Chunk ID: 1f2e\nWall time: 0.0 seconds\nProcess exited with code 2\nOriginal token count: 9\nOutput:\nls: x: No such file\n"); got != "ls: x: No such file\n" {
		t.Errorf("outputBody = %q", got)
	}
	for _, s := range []string{"plain output\nOutput:\nx", "Output: inline", ""} {
		if got := outputBody(s); got != s {
			t.Errorf("outputBody(%q) = %q, want it unchanged", s, got)
		}
	}
}

// Only PowerShell, among the shells Codex may run hook commands through,
// does not take the hook's environment before the command; whichever of
// the user's shells names it, the command goes bare.
func TestHookShellTakesEnv(t *testing.T) {
	for _, c := range []struct {
		shells []string
		want   bool
	}{
		{nil, true},
		{[]string{"/bin/bash"}, true},
		{[]string{"/bin/bash", "/usr/bin/tcsh"}, true}, // Codex falls back to bash for tcsh
		{[]string{"/usr/bin/fish", "/usr/bin/nu"}, true},
		{[]string{"/usr/bin/zsh", "/usr/bin/pwsh"}, false},
		{[]string{"/opt/microsoft/powershell/7/pwsh"}, false},
		{[]string{`C:\Program Files\PowerShell\7\pwsh.exe`}, false},
		{[]string{"powershell"}, false},
		{[]string{"/usr/local/bin/pwsh-preview"}, true}, // not a name Codex knows: it falls back to bash
	} {
		if got := hookShellTakesEnv(c.shells); got != c.want {
			t.Errorf("hookShellTakesEnv(%q) = %v, want %v", c.shells, got, c.want)
		}
	}
}

// The rollout's first line says who runs the session: `codex exec`
// (originator codex_exec, source exec) runs with nobody watching.
func TestRolloutSaysExecIsHeadless(t *testing.T) {
	for line, exec := range map[string]bool{
		`{"timestamp":"2026-11-30T12:00:00Z","type":"session_meta","payload":{"id":"s","originator":"codex_exec","source":"exec","cwd":"/p"}}`: true,
		`{"timestamp":"2026-11-30T12:00:00Z","type":"session_meta","payload":{"id":"s","originator":"codex-tui","source":"cli","cwd":"/p"}}`:   false,
	} {
		var meta rolloutMeta
		var u engine.HostUsage
		readLine([]byte(line), &engine.TranscriptPos{}, &u, &meta)
		if !meta.seen || meta.exec != exec {
			t.Errorf("%s: %+v, want exec %v", line, meta, exec)
		}
	}
}

// A turn's user_message gives its replayed prompt a fingerprint, and its
// task_complete a Stop with the closing message's; a turn whose text never
// comes is replayed without.
func TestReplayTurnEnds(t *testing.T) {
	rollout := `{"timestamp":"2026-11-30T12:00:00Z","type":"session_meta","payload":{"id":"s1","cwd":"/p"}}
{"timestamp":"2026-11-30T12:00:01Z","type":"event_msg","payload":{"type":"task_started","turn_id":"t1"}}
{"timestamp":"2026-11-30T12:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"check the CI"}}
{"timestamp":"2026-11-30T12:00:02Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"t1","last_agent_message":"Waiting for CI."}}
{"timestamp":"2026-11-30T12:00:03Z","type":"event_msg","payload":{"type":"task_started","turn_id":"t2"}}
`
	cfg := engine.DefaultConfig()
	var got []string
	_, err := Agent{}.Replay(strings.NewReader(rollout), &cfg, func(ev *engine.Event) error {
		got = append(got, fmt.Sprintf("%s:%v:%v", ev.Hook, ev.PromptFP == engine.PromptFingerprint("check the CI") && ev.PromptFP != "", ev.EndSays))
		return nil
	})
	if want := "SessionStart:false: UserPromptSubmit:true: Stop:false:waiting UserPromptSubmit:false:"; err != nil || strings.Join(got, " ") != want {
		t.Errorf("got %s (%v)\nwant %s", strings.Join(got, " "), err, want)
	}
}

// A shell call the shell could not run names the program it lacks (the
// tool-gap evidence), from the output Codex hands the hook.
func TestDecodeMissingProgram(t *testing.T) {
	raw := []byte(`{"session_id":"s","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"yq e .a x.yml"},"tool_response":"Exit code: 127\nWall time: 0 seconds\nOutput:\nbash: line 1: yq: command not found\n","tool_use_id":"c1"}`)
	p, err := jsonlite.ParseObject(raw)
	if err != nil {
		t.Fatal(err)
	}
	code := 127 // the exit code the rollout holds (Complete)
	ev, err := decodePayload(p, hookbridge.Env{}, &ended{exit: &code})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Outcome != engine.OutcomeFailed || ev.Missing != "yq" {
		t.Errorf("outcome %s, missing %q: want failed, yq", ev.Outcome, ev.Missing)
	}
}
