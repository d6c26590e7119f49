package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cully/store"
)

// A --json command that fails prints exactly one JSON object on stdout,
// {"schema_version":1,"error":{"code","message"}} and nothing else, exits
// with the documented code, and says the same message as one line on
// stderr.
func TestJSONErrors(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	for _, c := range []struct {
		args []string
		code string
		exit int
	}{
		{[]string{"status", "--json"}, codeNoSession, 1},
		{[]string{"status", "--json", "--session", "nope"}, codeUnknownSession, 1},
		{[]string{"status", "--json=maybe"}, codeUsage, 2},
		{[]string{"status", "extra", "--json"}, codeUsage, 2},
		{[]string{"status", "--json", "--bogus"}, codeUsage, 2},
		{[]string{"replay", "--json", filepath.Join(env["PWD"], "missing.jsonl")}, codeNotFound, 1},
		{[]string{"replay", "--json", "--agent", "vim", "x"}, codeUsage, 2},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := cully(t, env, nil, c.args...)
			if r.code != c.exit {
				t.Errorf("exit %d, want %d", r.code, c.exit)
			}
			var got jsonError
			dec := json.NewDecoder(strings.NewReader(r.stdout))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&got); err != nil {
				t.Fatalf("stdout is not the error object: %v\n%s", err, r.stdout)
			}
			if dec.More() {
				t.Errorf("more than one JSON value on stdout:\n%s", r.stdout)
			}
			if got.Schema != jsonSchema || got.Error.Code != c.code || got.Error.Message == "" {
				t.Errorf("got %+v, want schema %d and code %s", got, jsonSchema, c.code)
			}
			if want := "cully: " + got.Error.Message + "\n"; r.stderr != want {
				t.Errorf("stderr %q, want the one line %q", r.stderr, want)
			}
		})
	}
	// Without --json (or with --json=false) the same failure is plain text.
	for _, args := range [][]string{{"status"}, {"status", "--json=false"}} {
		if r := cully(t, env, nil, args...); r.code != 1 || strings.Contains(r.stdout, "{") || !strings.HasPrefix(r.stderr, "cully: no session recorded") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
}

// Every error code a --json command can print is in docs/json.md, and
// the docs name none that does not exist.
func TestErrorCodesDocumented(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "json.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	codes := []string{codeUsage, codeNoSession, codeUnknownSession, codeAmbiguous, codeNoSessionHere, codeConfirm, codeNotConfirmed, codeStateDir, codeState, codeJournal, codeLocked, codeNotFound, codeNothing, codeNoRun, codeSnapshot, codeRollback, codeNotPaused, codeFailed}
	for _, c := range codes {
		if !strings.Contains(doc, "| `"+c+"` |") {
			t.Errorf("docs/json.md does not document error code %q", c)
		}
	}
	_, table, ok := strings.Cut(doc, "| `error.code` | exit |")
	if !ok {
		t.Fatal("docs/json.md has no error code table")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	known := map[string]bool{}
	for _, c := range codes {
		known[c] = true
	}
	for _, l := range strings.Split(table, "\n") {
		if rest, ok := strings.CutPrefix(l, "| `"); ok {
			if c, _, _ := strings.Cut(rest, "`"); !known[c] {
				t.Errorf("docs/json.md documents error code %q, which cully never prints", c)
			}
		}
	}
}

// panel --session with an unknown id says so (as status does) instead of
// opening an empty screen.
func TestPanelUnknownSessionInTmux(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	if r := cully(t, env, []byte(`{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"go","cwd":"/home/dev/project"}`), "hook"); r.code != 0 {
		t.Fatal(r)
	}
	pane := newTmux(t, 100, 20, map[string]string{"CULLY_HOME": env["CULLY_HOME"], "HOME": env["HOME"], "NO_COLOR": "1"}, "panel", "--session", "nope")
	if code := pane.exitCode(5 * time.Second); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	out := squashSpace(pane.screen())
	if !strings.Contains(out, squashSpace(`no session "nope" in `+env["CULLY_HOME"]+`; recorded there, most recent first: "s1"`)) {
		t.Errorf("the panel does not say the session is unknown:\n%s", pane.screen())
	}
}

// Errors that reach the top in Go's wording are reworded, keeping what
// was being done; worded ones pass as they are.
func TestPlainWords(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want string
		code string
	}{
		{&fs.PathError{Op: "lstat", Path: "/x/state", Err: syscall.ENOENT}, "/x/state does not exist", codeFailed},
		{fmt.Errorf("allow F: %w", &fs.PathError{Op: "open", Path: "/x/allowed.json", Err: syscall.EACCES}), "allow F: permission denied on /x/allowed.json: it is not yours to read or write", codeFailed},
		{&fs.PathError{Op: "use state dir", Path: "/x/state", Err: syscall.ENOTDIR}, "/x/state is not a directory (or a part of its path is a file)", codeFailed},
		{fmt.Errorf("lock /x/s.lock: %w", store.ErrLockTimeout), "cully's state is locked by another cully process that did not let go in time: try again; CULLY_LOCK_TIMEOUT sets how long to wait (default 2s)", codeLocked},
		{fail(codeUnknownSession, &fs.PathError{Op: "lstat", Path: "/x", Err: syscall.ENOENT}, "no session %q", "s"), `no session "s"`, codeUnknownSession},
		{fmt.Errorf("%w: --width takes a whole number", errUsage), "--width takes a whole number", codeUsage},
	} {
		if got := plain(c.err); got != c.want {
			t.Errorf("plain(%v) = %q, want %q", c.err, got, c.want)
		}
		if got := errorCode(c.err); got != c.code {
			t.Errorf("errorCode(%v) = %s, want %s", c.err, got, c.code)
		}
	}
}
