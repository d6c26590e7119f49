package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// At a terminal, cully advisor setup asks before it writes: "n" (or just
// Enter) writes nothing, "y" appends the proposal.
func TestAdvisorSetupAsksAtATerminal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\necho advice\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.toml")
	env := map[string]string{"HOME": dir, "CULLY_HOME": filepath.Join(dir, "state"), "CULLY_CONFIG": cfg, "PATH": bin + ":" + os.Getenv("PATH")}
	for _, c := range []struct {
		answer string
		wrote  bool
	}{{"n", false}, {"", false}, {"y", true}} {
		p := newTmux(t, 100, 40, env, "advisor", "setup")
		p.waitFor("Write it to "+cfg+"? [y/N]", 10*time.Second)
		if c.answer != "" {
			p.send(c.answer)
		}
		p.send("Enter")
		if code := p.exitCode(10 * time.Second); code != 0 {
			t.Fatalf("answer %q: exit %d:\n%s", c.answer, code, p.screen())
		}
		b, err := os.ReadFile(cfg)
		if wrote := err == nil && strings.Contains(string(b), "[advisor]"); wrote != c.wrote {
			t.Errorf("answer %q: written %v:\n%s", c.answer, wrote, p.screen())
		}
		if !c.wrote && !strings.Contains(p.screen(), "not written") {
			t.Errorf("answer %q: no word that nothing was written:\n%s", c.answer, p.screen())
		}
	}
}
