package env

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"cully/config"
	"cully/engine"
	"cully/store"
)

// Env reads settings through Getenv (os.Getenv in the binaries; a map in
// tests).
type Env struct {
	Getenv func(string) string
}

// OS is the process environment.
func OS() Env { return Env{Getenv: os.Getenv} }

// StateDir finds the state directory: $CULLY_HOME, else
// $XDG_STATE_HOME/cully, else ~/.local/state/cully. A relative CULLY_HOME
// (or HOME) is an error rather than a path resolved against the working
// directory: the hook runs in whatever directory the agent is in, so a
// relative state dir would scatter journals across the user's
// repositories. A relative XDG_STATE_HOME is ignored, as the XDG spec says.
func (e Env) StateDir() (string, error) {
	if d := e.Getenv("CULLY_HOME"); d != "" {
		if !filepath.IsAbs(d) {
			return "", fmt.Errorf("CULLY_HOME %q is not an absolute path: set it to an absolute directory", d)
		}
		return filepath.Clean(d), nil
	}
	if d := e.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "cully"), nil
	}
	home := e.Getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find state dir: %w", err)
		}
		home = h
	}
	if !filepath.IsAbs(home) {
		return "", fmt.Errorf("find state dir: HOME %q is not an absolute path: set CULLY_HOME to an absolute directory", home)
	}
	return filepath.Join(home, ".local", "state", "cully"), nil
}

// MaxLockWait bounds CULLY_LOCK_TIMEOUT well under the 5 s the hosts give
// a hook call (Claude Code, Codex, Gemini CLI): a hook still waiting for a
// lock when its host gives up is killed mid-write, and the call lost.
const MaxLockWait = 3 * time.Second

// LockWait is how long a writer waits for a lock: $CULLY_LOCK_TIMEOUT, a
// Go duration from 1ms to MaxLockWait; store.DefaultLockWait when unset.
// A value that is no positive duration is an error and the default
// applies; one above MaxLockWait is an error and MaxLockWait applies. The
// duration returned is always one to use.
func (e Env) LockWait() (time.Duration, error) {
	v := e.Getenv("CULLY_LOCK_TIMEOUT")
	if v == "" {
		return store.DefaultLockWait, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Millisecond {
		return store.DefaultLockWait, fmt.Errorf("CULLY_LOCK_TIMEOUT %q is not a positive duration such as 500ms or 2s: waiting the default %v; fix it, or unset it", v, store.DefaultLockWait)
	}
	if d > MaxLockWait {
		return MaxLockWait, fmt.Errorf("CULLY_LOCK_TIMEOUT %q is longer than %v, the most a hook call may wait for a lock (hosts give a hook 5s): waiting %v", v, MaxLockWait, MaxLockWait)
	}
	return d, nil
}

// Home is the state directory with the lock wait (LockWait; a bad
// CULLY_LOCK_TIMEOUT is reported by whoever calls LockWait) and the clock
// (Now), which Record reads under the session lock.
func (e Env) Home() (store.Home, error) {
	dir, err := e.StateDir()
	if err != nil {
		return store.Home{}, err
	}
	h := store.Home{Dir: dir, Now: func() time.Time {
		t, _ := e.Now() // a bad CULLY_NOW is reported by whoever read the clock first
		return t
	}}
	h.LockWait, _ = e.LockWait()
	h.Durable = e.Getenv("CULLY_DURABLE") == "1"
	return h, nil
}

// NoticeDir is the private folder where the hook notes which sessions it
// told that the state dir is refused (store.RefusedNoticeDue): the refused
// dir itself takes no write. $XDG_RUNTIME_DIR/cully when that is set,
// else cully-<uid> in the temporary directory ($TMPDIR, else the
// system's).
func (e Env) NoticeDir() string {
	if d := e.Getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "cully")
	}
	tmp := e.Getenv("TMPDIR")
	if tmp == "" || !filepath.IsAbs(tmp) {
		tmp = os.TempDir()
	}
	return filepath.Join(tmp, "cully-"+strconv.Itoa(os.Getuid()))
}

// Now reads the clock: CULLY_NOW (RFC 3339) when set, for tests, demos and
// replays; the wall clock otherwise (with an error if CULLY_NOW is bad).
func (e Env) Now() (time.Time, error) {
	if v := e.Getenv("CULLY_NOW"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return time.Now(), fmt.Errorf("CULLY_NOW %q is not an RFC 3339 time such as 2026-11-30T12:00:00Z: fix it, or unset it to use the system clock", v)
		}
		return t, nil
	}
	return time.Now(), nil
}

// ProjectDir is the agent's project root: the first of the host's variables
// that is set (each agent names its own, e.g. CLAUDE_PROJECT_DIR), else the
// working directory.
func (e Env) ProjectDir(hostVars ...string) string {
	for _, k := range hostVars {
		if v := e.Getenv(k); v != "" {
			return v
		}
	}
	wd, _ := os.Getwd() // "" when the working directory is gone: no project to name
	return wd
}

// ConfigPath is the user's config file: $CULLY_CONFIG, else
// $XDG_CONFIG_HOME/cully/config.toml, else ~/.config/cully/config.toml.
func (e Env) ConfigPath() string {
	if p := e.Getenv("CULLY_CONFIG"); p != "" {
		return p
	}
	if d := e.Getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "cully", "config.toml")
	}
	if h := e.Getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "cully", "config.toml")
	}
	return ""
}

// ConfigSources says where the configuration for a project directory comes
// from: the user's file, the project's .cully.toml, and the state dir that
// holds the user's consent to project files.
func (e Env) ConfigSources(projectDir string) config.Sources {
	dir, _ := e.StateDir()
	return config.Sources{User: e.ConfigPath(), ProjectDir: projectDir, StateDir: dir}
}

// Config loads the rule thresholds for a project directory: the user's
// file, then the project's .cully.toml if the user allowed it.
func (e Env) Config(projectDir string) (engine.Config, []error) {
	ld := config.Load(e.ConfigSources(projectDir))
	return ld.Config, ld.Errors()
}

// Quiet reports CULLY_GUARD=off: record everything, nudge nothing.
func (e Env) Quiet() bool { return e.Getenv("CULLY_GUARD") == "off" }

// Snapshots reports whether run control takes recovery snapshots
// (CULLY_SNAPSHOTS=off turns them off; the run is still followed).
func (e Env) Snapshots() bool { return e.Getenv("CULLY_SNAPSHOTS") != "off" }
