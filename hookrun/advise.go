package hookrun

import (
	"cully/engine"
)

// workerEnv is set in an advisor worker's environment (advisor.WorkerEnv,
// not imported: that package links os/exec): a hook inside a worker, a
// headless agent with cully installed, never starts another advisor.
const workerEnv = "CULLY_ADVISOR_WORKER"

// refreshAfter is how long after the session's last advisor run an
// unchanged situation may be looked at again, with discovery on: the
// budget's hour (ledger.Window).
const refreshAfter = 3600

// adviseDue decides, from what the call already has in hand, whether the
// evidence changed enough to start the advisor: a checkpoint opened on
// this call (a failure loop, the same error from different commands such
// as a repeated "command not found", exploring, unverified edits), a tool
// gap became due on it (engine.ToolGap: the advisor's tool-gap research), or,
// with discovery on, an hour passed since the session's last advisor run
// while a checkpoint is still open (discovery's refresh). The budget
// decision is not the hook's: the started process takes it under the
// accounting lock, and most starts end in a skip it records.
func adviseDue(ev *engine.Event, sigs []engine.Signal, st *engine.State, discovery bool) bool {
	if ev.Subagent != "" {
		return false
	}
	for _, s := range sigs {
		if s.Kind == engine.SignalCheckpoint {
			return true
		}
	}
	if st.GapDueNow() {
		return true
	}
	if !discovery || ev.Kind != engine.KindPostTool || st.AdviceAt == 0 || ev.Time.Unix()-st.AdviceAt < refreshAfter {
		return false
	}
	for _, c := range st.Checkpoints {
		if c.Status == engine.StatusOpen {
			return true
		}
	}
	return false
}
