package codex

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"cully/engine"
	"cully/jsonlite"
)

// A captured rollout replayed as the hooks saw it: calls (code mode's too),
// forks, turn ends, and what the player keeps across lines.

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

// A command still running when its call returns gets no PostToolUse then:
// Codex fires the command's one PostToolUse when a later write_stdin poll
// sees it end (openai/codex#18888), with the poll's output and exit code,
// under the command's own call id. The replay plays it there, so a failing
// check that finished in a poll is a failure the rules see; a command no
// poll saw end gets none, as in the live hook.
func TestReplayPolledCommandEnds(t *testing.T) {
	line := func(typ, payload string) string {
		return `{"timestamp":"2026-04-11T20:21:30.000Z","type":"` + typ + `","payload":` + payload + "}\n"
	}
	call := func(id, name, args string) string {
		return line("response_item", `{"type":"function_call","name":"`+name+`","arguments":`+strconv.Quote(args)+`,"call_id":"`+id+`"}`)
	}
	output := func(id, out string) string {
		return line("response_item", `{"type":"function_call_output","call_id":"`+id+`","output":`+strconv.Quote(out)+`}`)
	}
	rollout := line("session_meta", `{"id":"01a22ab9-0000-7000-8000-000000000001","cwd":"/p"}`) +
		call("c1", "exec_command", `{"cmd":"go test ./planner"}`) +
		output("c1", "Chunk ID: a\nWall time: 1.0 seconds\nProcess running with session ID 38836\nOriginal token count: 0\nOutput:\n") +
		call("p1", "write_stdin", `{"session_id":38836,"chars":"","yield_time_ms":1000}`) +
		output("p1", "Chunk ID: b\nWall time: 1.0 seconds\nProcess running with session ID 38836\nOriginal token count: 0\nOutput:\n") +
		call("p2", "write_stdin", `{"session_id":38836,"chars":"","yield_time_ms":1000}`) +
		output("p2", "Chunk ID: c\nWall time: 0.0 seconds\nProcess exited with code 1\nOriginal token count: 9\nOutput:\n--- FAIL: TestRelay (0.00s)\nFAIL\n") +
		call("c2", "exec_command", `{"cmd":"go vet ./..."}`) +
		output("c2", "Chunk ID: d\nWall time: 1.0 seconds\nProcess running with session ID 7\nOriginal token count: 0\nOutput:\n")
	cfg := engine.DefaultConfig()
	var got []string
	_, err := Agent{}.Replay(strings.NewReader(rollout), &cfg, func(ev *engine.Event) error {
		if ev.Kind != engine.KindPostTool {
			return nil
		}
		exit := "?"
		if ev.Exit != nil {
			exit = strconv.Itoa(*ev.Exit)
		}
		got = append(got, fmt.Sprintf("%s:%s:%s:%s:%s", ev.ToolUseID, ev.Tool, ev.Class, ev.Outcome, exit))
		if ev.ToolUseID == "c1" && ev.FailSig == "" {
			t.Errorf("the polled command's failure has no signature: %+v", ev)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "p1:write_stdin:poll:unknown:? c1:Bash:check:failed:1 p2:write_stdin:poll:failed:1"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("\n got %s\nwant %s", g, want)
	}
}
