package hookrun

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"cully/engine"
	"cully/store"
)

// markWait bounds the hook's wait for a mark (`cully snapshot --mark`):
// the host waits for the hook, and cully installs its hooks with a 5 s
// timeout. A mark of a repository git already knows takes tens of
// milliseconds; the first of a large repository (its baseline) can take
// seconds. Past the wait the mark is given up (the call runs unmarked,
// and a rollback takes its changes for someone else's, so leaves them).
// CULLY_MARK_TIMEOUT (a Go duration) changes it.
const markWait = 3500 * time.Millisecond

// mark captures the work tree for the marks the reducer asked for
// (SignalMark): before a call that may change files, which the call waits
// for, and after it. It runs `cully snapshot --mark` and waits for it,
// bounded; a mark that fails is logged, never the agent's problem.
func (a IO) mark(h store.Home, ev *engine.Event, sigs []engine.Signal, dir string) {
	if a.Wait == nil {
		return
	}
	for _, s := range sigs {
		if s.Kind != engine.SignalMark {
			continue
		}
		args := []string{"snapshot", "--mark=" + string(s.Reason), "--session=" + ev.Session, "--run=" + s.ID,
			"--task=" + strconv.Itoa(ev.Task), "--calls=" + strconv.Itoa(s.N), "--call=" + callID(ev), "--dir=" + dir}
		if s.Evidence != "" {
			args = append(args, "--destructive="+s.Evidence)
		}
		if s.Reason == "post" && ev.Class == engine.ClassEdit { // the files it says it edited (a host with no hook before an edit)
			for _, p := range append([]string{ev.Target}, ev.Files...) {
				if p != "" {
					args = append(args, "--path="+p)
				}
			}
		}
		wait := markWait
		if v := a.Getenv("CULLY_MARK_TIMEOUT"); v != "" {
			if d, err := time.ParseDuration(v); err == nil && d > 0 && d < time.Minute {
				wait = d
			}
		}
		if err := a.Wait(dir, args, wait); err != nil {
			logCall(h, "mark", fmt.Errorf("capture the work tree %s the call: %w", map[engine.Reason]string{"pre": "before", "post": "after"}[s.Reason], err), ev)
		}
	}
}

// callID is what pairs a call's two marks: the host's id of the call, or
// the call's own fingerprint where the host gives none.
func callID(ev *engine.Event) string {
	switch {
	case ev.ToolUseID != "":
		return ev.ToolUseID
	case ev.CmdFP != "":
		return ev.Tool + ":" + ev.CmdFP
	}
	return ev.Tool
}

// errMarkTimeout: the mark did not finish in its time.
var errMarkTimeout = errors.New("timed out")

// Wait runs `cully ARGS...` in dir and waits for it at most wait: stdio on
// the null device (the hook's stdout is the agent's answer), killed past
// the wait with every process it started (its own process group: a git
// it ran, left alive, went on writing the run's index and left its
// index.lock behind, and the run's next rollback failed on it). The cully
// binary is Detach's (cullyBinary).
func Wait(dir string, args []string, wait time.Duration) error {
	exe, err := cullyBinary()
	if err != nil {
		return err
	}
	p, err := startQuiet(exe, args, dir)
	if err != nil {
		return err
	}
	t := time.AfterFunc(wait, func() { killGroup(p) })
	st, err := p.Wait()
	stopped := t.Stop()
	switch {
	case err != nil:
		return err
	case !stopped:
		return fmt.Errorf("%w after %v", errMarkTimeout, wait)
	case !st.Success():
		return fmt.Errorf("cully snapshot --mark: %s (errors.log says why)", st)
	}
	return nil
}

// startQuiet starts exe in dir with its stdio on the null device.
func startQuiet(exe string, args []string, dir string) (*os.Process, error) {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer null.Close()
	return os.StartProcess(exe, append([]string{exe}, args...), &os.ProcAttr{Dir: dir, Env: os.Environ(), Files: []*os.File{null, null, null}, Sys: groupAttr()})
}
