package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The headless demo prints every caption of the script (the panel's
// footer shows the same ones), what the agent was told at each nudge, the
// final status and the closing words; its folder is gone after.
func TestDemoHeadlessNarration(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	tmp := filepath.Join(env["PWD"], "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	env["TMPDIR"] = tmp
	r := cully(t, env, nil, "demo", "--headless")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	_, noGit := exec.LookPath("git") // run control's store is git's: without it the demo leaves that part out
	rc := noGit == nil
	var captions []string
	for _, st := range demoScript("/p", rc) {
		if st.say != "" {
			captions = append(captions, "· "+st.say+"\n")
		}
	}
	rest := r.stdout
	for _, c := range captions {
		i := strings.Index(rest, c)
		if i < 0 {
			t.Fatalf("caption %q missing or out of order in:\n%s", c, r.stdout)
		}
		rest = rest[i+len(c):]
	}
	if n := strings.Count(r.stdout, "↳ cully → agent:"); n != 4 {
		t.Errorf("%d nudges printed, want 4", n)
	}
	title, text := demoClosing(4, rc)
	wants := []string{"cully checkpoint c1 (failure-loop)", "── cully status ──", "checkpoints 0 open of 2", title, text}
	if rc {
		// Run control: the agent's rm -rf of testdata/ is rolled back by
		// the user's step, and the status no longer offers to recover it.
		wants = append(wants, "↳ cully rollback --to 0:", "1 restored, 0 removed", "restored  testdata/corpus.json")
	}
	for _, want := range wants {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output misses %q", want)
		}
	}
	if strings.Contains(r.stdout, "recoverable:") || strings.Contains(r.stdout, "clock skew") || strings.Contains(r.stdout, "went backwards") {
		t.Errorf("the status after the rollback reads as a stale or broken run:\n%s", r.stdout)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("the demo left %d entries in TMPDIR", len(ents))
	}
	// A pace that means nothing is a usage error in plain words.
	for _, bad := range []string{"0", "-2", "NaN", "fast"} {
		r := cully(t, env, nil, "demo", "--headless", "--speed", bad)
		if r.code != 2 || !strings.Contains(r.stderr, "--speed") {
			t.Errorf("--speed %s: exit %d, stderr %q", bad, r.code, r.stderr)
		}
	}
}
