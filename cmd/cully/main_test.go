package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"cully/engine"
)

// TestMain builds the real cully binary (without the race detector, which
// would only slow thousands of process starts and cannot see across
// processes) and puts it first on PATH: tests and scripts exec it as a
// separate process, like an agent does.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cully-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "cully"), ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build cully:", err)
		os.Exit(1)
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

// cully runs the real binary with a clean environment plus env.
func cully(t testing.TB, env map[string]string, stdin []byte, args ...string) result {
	t.Helper()
	cmd := exec.Command("cully", args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + env["HOME"]}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if dir, ok := env["PWD"]; ok {
		cmd.Dir = dir
	}
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run cully: %v", err)
	}
	return result{out.String(), errb.String(), code}
}

// testEnv is a hermetic environment: HOME and CULLY_HOME inside a temp dir.
func testEnv(t testing.TB) map[string]string {
	dir := t.TempDir()
	return map[string]string{
		"HOME":               filepath.Join(dir, "home"),
		"CULLY_HOME":         filepath.Join(dir, "state"),
		"CLAUDE_PROJECT_DIR": "/home/dev/project",
		"PWD":                dir,
	}
}

func journal(t testing.TB, home string) []engine.Event {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "journal.jsonl"))
	if err != nil {
		return nil
	}
	var evs []engine.Event
	for _, ln := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		var ev engine.Event
		if err := json.Unmarshal([]byte(ln), &ev); err != nil {
			t.Fatalf("journal line is not JSON: %q: %v", ln, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(e *testscript.Env) error {
			e.Setenv("HOME", filepath.Join(e.WorkDir, "home"))
			e.Setenv("CULLY_HOME", filepath.Join(e.WorkDir, "state"))
			e.Setenv("CLAUDE_PROJECT_DIR", e.WorkDir)
			return nil
		},
	})
}
