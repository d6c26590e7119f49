// Package hookrun is the hook's whole path, shared by `cully hook` and the
// lean `cully-hook` binary: read the payload, decode it, fold it into the
// session and the journal, answer the agent. It also resolves the
// environment every command shares (state dir, clock, project dir).
//
// Invariants:
//   - Run never fails the agent: it returns nothing the caller must act on,
//     writes only the protocol answer to stdout, and records every error.
//   - Nothing here imports a TUI package: the hook binary's start-up cost is
//     the product's hot path.
package hookrun

import (
	"fmt"
	"os"
	"time"

	"cully/config"
	"cully/engine"
	"cully/store"
)

// Home resolves the state directory and the lock wait from the environment.
func Home(getenv func(string) string) (store.Home, error) {
	dir, err := store.ResolveHome(getenv)
	if err != nil {
		return store.Home{}, err
	}
	h := store.Home{Dir: dir}
	if v := getenv("CULLY_LOCK_TIMEOUT"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			h.LockWait = d
		}
	}
	return h, nil
}

// Now reads the clock: CULLY_NOW (RFC 3339) when set, for tests, demos and
// replays; the wall clock otherwise (with an error if CULLY_NOW is bad).
func Now(getenv func(string) string) (time.Time, error) {
	if v := getenv("CULLY_NOW"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return time.Now(), fmt.Errorf("CULLY_NOW %q is not RFC 3339: %w", v, err)
		}
		return t, nil
	}
	return time.Now(), nil
}

// ProjectDir is the agent's project root: the host's variable where it has
// one, else the working directory.
func ProjectDir(getenv func(string) string) string {
	for _, k := range []string{"CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CURSOR_PROJECT_DIR"} {
		if v := getenv(k); v != "" {
			return v
		}
	}
	wd, _ := os.Getwd()
	return wd
}

// Config loads the rule thresholds for a project directory.
func Config(getenv func(string) string, projectDir string) (engine.Config, []error) {
	return config.Load(getenv, projectDir)
}
