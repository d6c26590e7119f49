package main

import (
	"strings"
	"testing"
	"time"
)

// `cully status --short` is one plain line for a status bar: the live
// sessions by what they need from the user, read from their states; a
// call open past what it takes, a paused run need the user, a turn's end
// is idle, a session quiet for more than 12 hours is not counted.
func TestStatusShort(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) { env["CULLY_NOW"] = t0.Add(d).Format(time.RFC3339) }
	short := func(want string) {
		t.Helper()
		r := cully(t, env, nil, "status", "--short")
		if r.code != 0 || r.stdout != want+"\n" || r.stderr != "" {
			t.Fatalf("status --short at %s: %+v, want %q", env["CULLY_NOW"], r, want)
		}
		if strings.ContainsAny(r.stdout, "\x1b\a") {
			t.Fatalf("escape codes in %q", r.stdout)
		}
	}
	hook := func(session, event, rest string) {
		t.Helper()
		p := `{"session_id":"` + session + `","cwd":"/home/dev/project","hook_event_name":"` + event + `"` + rest + `}`
		if r := cully(t, env, []byte(p), "hook"); r.code != 0 {
			t.Fatal(r)
		}
	}
	read := `,"tool_name":"Read","tool_input":{"file_path":"/home/dev/project/a.go"},"tool_use_id":"`

	at(-13 * time.Hour) // quiet for longer than the panel lists
	hook("old", "UserPromptSubmit", `,"prompt":"go"`)
	at(0)
	short("cully: no live session")

	hook("s1", "UserPromptSubmit", `,"prompt":"go"`)
	hook("s1", "PreToolUse", read+`r1"`)
	at(5 * time.Second)
	short("cully: 1 working")
	at(time.Minute) // a read open for a minute: its permission prompt, most likely
	short("cully: 1 needs you (a call waits)")

	hook("s2", "UserPromptSubmit", `,"prompt":"go"`)
	hook("s2", "PreToolUse", read+`r2"`)
	hook("s2", "PostToolUse", read+`r2","tool_response":{}`)
	short("cully: 1 needs you (a call waits) · 1 working")
	hook("s2", "Stop", `,"stop_hook_active":false,"last_assistant_message":"Done."`)
	short("cully: 1 needs you (a call waits) · 1 idle")

	hook("s3", "UserPromptSubmit", `,"prompt":"go"`)
	// Snapshots are off here: the pause is recorded, the final snapshot fails (exit 1).
	if r := cully(t, env, nil, "stop", "--soft", "--session", "s3", "--yes"); !strings.Contains(r.stdout, "is paused") {
		t.Fatalf("stop --soft: %+v", r)
	}
	short("cully: 2 needs you · 1 idle")
	// The status line says the pause too, never "on track".
	line := cully(t, env, []byte(`{"session_id":"s3","model":{"id":"claude-opus-5-5","display_name":"Opus"}}`), "statusline")
	if line.stdout != "\x1b[33mcully ■ paused · cully resume\x1b[0m · 0 calls\n" {
		t.Fatalf("statusline of a paused run: %q", line.stdout)
	}
	if r := cully(t, env, nil, "stop", "--session", "s2", "--yes"); !strings.Contains(r.stdout, "is stopped") {
		t.Fatalf("stop: %+v", r)
	}
	env["NO_COLOR"] = "1"
	line = cully(t, env, []byte(`{"session_id":"s2"}`), "statusline")
	delete(env, "NO_COLOR")
	if line.stdout != "cully ■ stopped · cully resume · 1 calls\n" {
		t.Fatalf("statusline of a stopped run: %q", line.stdout)
	}
	short("cully: 3 needs you")
	if r := cully(t, env, nil, "resume", "--session", "s2", "--yes"); r.code != 0 {
		t.Fatalf("resume: %+v", r)
	}

	hook("s1", "PostToolUse", read+`r1","tool_response":{}`)
	short("cully: 1 needs you (paused) · 1 working · 1 idle")

	if r := cully(t, env, nil, "status", "--short", "--json"); r.code != 2 || !strings.Contains(r.stderr, "--short") {
		t.Fatalf("--short --json: %+v", r)
	}
}
