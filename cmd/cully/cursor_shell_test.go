//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"cully/hookbridge/cursor"
	"cully/install"
)

// cursorWrapper is how Cursor runs a hook command on Linux and macOS, cut
// to what touches the command: published live captures of the Cursor CLI
// show `/bin/zsh -c '<its shell snapshot's set-up>; builtin eval "$1";
// COMMAND_EXIT_CODE=$?; dump_zsh_state >&4; builtin exit
// $COMMAND_EXIT_CODE' -- '<the entry's command>' <event>`, and its agent's
// terminal is bash or zsh. No Cursor client runs here (docs/agents.md).
const cursorWrapper = `builtin eval "$1"; COMMAND_EXIT_CODE=$?; builtin exit $COMMAND_EXIT_CODE`

// The command `cully install --agent cursor` writes, run as Cursor runs
// it, in bash and in zsh: every payload of Cursor's is recorded, each call
// exits 0 with an answer that is empty or JSON, and each hook process ran
// with GOMAXPROCS=1 (a stand-in cully-hook notes its environment and execs
// the real one).
func TestCursorShellRunsTheInstalledCommand(t *testing.T) {
	t.Parallel()
	if sh := install.ShellWithoutEnv(install.UserShells(func(string) string { return "" })); sh != "" {
		t.Skipf("this user's login shell, %s, would not take the hook's environment: install writes the command bare", sh)
	}
	all, _ := filepath.Glob("../../hookbridge/cursor/testdata/hooks/*.json")
	sort.Strings(all)
	var payloads []string // those of the events install registers
	for _, p := range all {
		ev, _, _ := strings.Cut(strings.TrimSuffix(filepath.Base(p), ".json"), "-") // named event[-case].json
		if !slices.Contains(cursor.Retired, ev) {
			payloads = append(payloads, p)
		}
	}
	if len(payloads) < 10 {
		t.Fatalf("payloads missing: %d", len(payloads))
	}
	shells := 0
	for _, name := range []string{"bash", "zsh"} {
		shell, err := exec.LookPath(name)
		if err != nil {
			t.Logf("no %s here", name)
			continue
		}
		shells++
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := testEnv(t)
			dir := t.TempDir()
			envLog := filepath.Join(dir, "env.log")
			hook := filepath.Join(dir, "bin", "cully-hook")
			os.MkdirAll(filepath.Dir(hook), 0o755)
			stub := "#!/bin/sh\necho \"GOMAXPROCS=$GOMAXPROCS\" >> '" + envLog + "'\nexec '" + filepath.Join(testBin, "cully-hook") + "' \"$@\"\n"
			if err := os.WriteFile(hook, []byte(stub), 0o755); err != nil {
				t.Fatal(err)
			}
			env["SHELL"] = shell
			if r := cully(t, env, nil, "install", "--agent", "cursor", "--command", hook); r.code != 0 {
				t.Fatalf("install: %d %s%s", r.code, r.stdout, r.stderr)
			}
			var f struct {
				Hooks map[string][]struct {
					Command string `json:"command"`
				} `json:"hooks"`
			}
			b, _ := os.ReadFile(filepath.Join(env["HOME"], ".cursor", "hooks.json"))
			if err := json.Unmarshal(b, &f); err != nil {
				t.Fatal(err)
			}
			for i, p := range payloads {
				raw, _ := os.ReadFile(p)
				var head struct {
					Event string `json:"hook_event_name"`
				}
				json.Unmarshal(raw, &head)
				entries := f.Hooks[head.Event]
				if len(entries) != 1 || !strings.HasPrefix(entries[0].Command, "GOMAXPROCS=1 ") {
					t.Fatalf("%s: entries %+v", head.Event, entries)
				}
				cmd := exec.Command(shell, "-c", cursorWrapper, "--", entries[0].Command, head.Event)
				cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + env["HOME"], "CULLY_HOME=" + env["CULLY_HOME"], "CULLY_SNAPSHOTS=off"}
				cmd.Dir = dir
				cmd.Stdin = bytes.NewReader(raw)
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				if err := cmd.Run(); err != nil || errb.Len() > 0 {
					t.Fatalf("%s: %v %s", p, err, errb.String())
				}
				if s := strings.TrimSpace(out.String()); s != "" && !json.Valid([]byte(s)) {
					t.Errorf("%s: answer is not JSON: %q", p, s)
				}
				if n := len(journal(t, env["CULLY_HOME"])); n != i+1 {
					t.Fatalf("%s: journal has %d records after %d calls", p, n, i+1)
				}
			}
			logged, _ := os.ReadFile(envLog)
			if want := strings.Repeat("GOMAXPROCS=1\n", len(payloads)); string(logged) != want {
				t.Errorf("the hook's environment, call by call:\n%s", logged)
			}
		})
	}
	if shells == 0 {
		t.Skip("neither bash nor zsh here")
	}
}
