package codex

import (
	"bytes"
	"encoding/json"
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

// A patch that only adds files creates them; any update, deletion or
// move changes a file that was there.
func TestPatchAddsOnly(t *testing.T) {
	for patch, want := range map[string]bool{
		"*** Begin Patch\n*** Add File: a_test.go\n+x\n*** Add File: b.go\n+y\n*** End Patch\n": true,
		"*** Begin Patch\r\n*** Add File: a.txt\r\n+x\r\n*** End Patch":                         true,
		"*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b.go\n@@\n-a\n+b\n":         false,
		"*** Begin Patch\n*** Delete File: old.go\n*** End Patch\n":                             false,
		"+*** Add File: inside.txt\n":                                                           false,
		"":                                                                                      false,
	} {
		if got := patchAddsOnly(patch); got != want {
			t.Errorf("patchAddsOnly(%q) = %v, want %v", patch, got, want)
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
