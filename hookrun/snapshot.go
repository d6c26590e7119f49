package hookrun

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"cully/engine"
	"cully/store"
)

// startSnapshot starts the snapshot the reducer asked for, if any, as a
// background `cully snapshot` that records its own outcome: the hook's
// part is one process start, every 10 tool calls. When the start fails,
// the failure is recorded in its place, so the run's accounting (and
// `cully snapshot --wait`) does not wait for it and the agent is told.
func (a IO) startSnapshot(h store.Home, ev *engine.Event, sigs []engine.Signal, dir string, cfg *engine.Config) {
	if a.Detach == nil {
		return
	}
	for _, s := range sigs {
		if s.Kind != engine.SignalSnapshot {
			continue
		}
		err := a.Detach(dir, []string{"snapshot", "--background", "--session=" + ev.Session, "--run=" + s.ID,
			"--task=" + strconv.Itoa(ev.Task), "--reason=" + string(s.Reason), "--calls=" + strconv.Itoa(s.N), "--dir=" + dir})
		if err == nil {
			return
		}
		fail := &engine.Event{V: engine.SchemaVersion, Time: ev.Time, Agent: ev.Agent, Session: ev.Session, Hook: "snapshot", Kind: engine.KindSnapshot,
			Run: s.ID, Source: string(s.Reason), Outcome: engine.OutcomeFailed, Note: "cannot start the background snapshot: " + err.Error()}
		if _, rerr := h.Record(fail, cfg); rerr != nil {
			_ = h.LogError("snapshot", fmt.Errorf("%v (and recording that failed: %w)", err, rerr), map[string]any{"session": ev.Session})
		}
		return
	}
}

// startRollback starts the rollback the reducer asked for (enforce mode's
// auto_rollback), as a background `cully rollback` that records its own
// outcome; the run is halted meanwhile. A start that fails is logged: the
// halt already told the agent and the user what to do.
func (a IO) startRollback(h store.Home, ev *engine.Event, sigs []engine.Signal, dir string) {
	if a.Detach == nil {
		return
	}
	for _, s := range sigs {
		if s.Kind != engine.SignalRollback {
			continue
		}
		if err := a.Detach(dir, []string{"rollback", "--session=" + ev.Session, "--to=" + strconv.Itoa(s.N)}); err != nil {
			_ = h.LogError("rollback", fmt.Errorf("cannot start the automatic rollback: %w", err), map[string]any{"session": ev.Session})
		}
		return
	}
}

// Detach starts `cully ARGS...` in dir, detached: its own session, stdio
// on the null device, nothing of the hook's kept open, so the host that
// waits for the hook never waits for it. The cully binary is the one
// running (`cully hook`) or the one beside cully-hook, as install places
// them.
func Detach(dir string, args []string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if base := filepath.Base(exe); strings.HasPrefix(base, "cully-hook") {
		exe = filepath.Join(filepath.Dir(exe), "cully"+strings.TrimPrefix(base, "cully-hook")) // cully-hook.exe: cully.exe
	}
	return startDetached(exe, args, dir)
}
