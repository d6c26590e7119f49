package hookrun

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"cully/engine"
	"cully/store"
)

// startSnapshot hands the snapshot the reducer asked for, if any, to the
// state dir's snapshot server: the ask goes into its queue, and when no
// server is running (a probe of its lock) the hook starts one, `cully
// snapshot --serve`, which takes this ask and the ones after it. The
// hook's part is a small file and a lock probe, and a process start only
// for the first ask in a while (docs/performance.md). Where the queue
// cannot be written, and on Windows, the hook starts the single snapshot
// itself (`cully snapshot --background`), as it did before the server.
// When no start works, the failure is recorded in the snapshot's place,
// so the run's accounting (and `cully snapshot --wait`) does not wait for
// it and the agent is told.
func (a IO) startSnapshot(h store.Home, ev *engine.Event, sigs []engine.Signal, dir string, cfg *engine.Config) {
	if a.Detach == nil {
		return
	}
	for _, s := range sigs {
		if s.Kind != engine.SignalSnapshot {
			continue
		}
		err := a.askSnapshot(h, store.SnapshotAsk{Session: ev.Session, Run: s.ID, Task: ev.Task, Reason: string(s.Reason), Calls: s.N, Dir: dir, At: ev.Time})
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

// askSnapshot queues k for the snapshot server, starting one when none
// holds the queue. A nil error means a server has the ask or will take it.
func (a IO) askSnapshot(h store.Home, k store.SnapshotAsk) error {
	if runtime.GOOS == "windows" {
		return a.detachSnapshot(k)
	}
	name, err := h.Ask(k)
	if err != nil {
		_ = h.LogError("snapshot", fmt.Errorf("queue the snapshot (starting it alone instead): %w", err), map[string]any{"session": k.Session})
		return a.detachSnapshot(k)
	}
	if live, err := h.Served(); err == nil && live {
		return nil
	}
	err = a.Detach(k.Dir, []string{"snapshot", "--serve"})
	if err == nil {
		return nil
	}
	if withdrawn, werr := h.Withdraw(name); werr == nil && !withdrawn {
		return nil // a server started meanwhile has claimed it
	}
	return err
}

// detachSnapshot starts one snapshot of k as a process of its own.
func (a IO) detachSnapshot(k store.SnapshotAsk) error {
	return a.Detach(k.Dir, []string{"snapshot", "--background", "--session=" + k.Session, "--run=" + k.Run,
		"--task=" + strconv.Itoa(k.Task), "--reason=" + k.Reason, "--calls=" + strconv.Itoa(k.Calls), "--dir=" + k.Dir})
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
		// --yes: the hook names its own session, which needs no one's
		// confirmation wherever its folder is.
		if err := a.Detach(dir, []string{"rollback", "--session=" + ev.Session, "--to=" + strconv.Itoa(s.N), "--yes"}); err != nil {
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
	exe, err := cullyBinary()
	if err != nil {
		return err
	}
	return startDetached(exe, args, dir)
}

// cullyBinary is the cully binary the hook starts: the one running
// (`cully hook`), or the one beside cully-hook, as install places them.
func cullyBinary() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if base := filepath.Base(exe); strings.HasPrefix(base, "cully-hook") {
		exe = filepath.Join(filepath.Dir(exe), "cully"+strings.TrimPrefix(base, "cully-hook")) // cully-hook.exe: cully.exe
	}
	return exe, nil
}
