package engine

import "time"

// Reason names a checkpoint or guard rule. Each rule declares its own in its
// rule_*.go file.
type Reason string

// CheckpointStatus is where a checkpoint stands.
type CheckpointStatus string

// Checkpoint statuses.
const (
	StatusOpen       CheckpointStatus = "open"
	StatusAcked      CheckpointStatus = "acknowledged" // cully ack or the panel
	StatusAnswered   CheckpointStatus = "answered"     // the user's next prompt answered it
	StatusSuperseded CheckpointStatus = "superseded"   // a new task began before it reached the agent
	StatusResolved   CheckpointStatus = "resolved"     // its condition ended: the check passed, the agent acted, the command succeeded
)

// Checkpoint asks the user to judge whether the agent is still on track.
// One is raised at most once per (task, reason, check epoch).
type Checkpoint struct {
	ID       string           `json:"id"`
	Reason   Reason           `json:"reason"`
	Task     int              `json:"task"`
	Epoch    int              `json:"epoch"`
	Raised   time.Time        `json:"raised"`
	Evidence string           `json:"evidence"`
	Status   CheckpointStatus `json:"status"`
	Nudged   bool             `json:"nudged,omitempty"` // the agent has been told
	Closed   *time.Time       `json:"closed,omitempty"`
	Key      string           `json:"key,omitempty"` // what the condition is about (a failure loop's command), for settling it
	// Carried: due to be told when a prompt interrupted the agent mid-turn,
	// it stays open into the new task and is told once at its next call.
	Carried bool `json:"carried,omitempty"`
	// Asked: the user asked for it to be told (the panel's t): it is told
	// once at the agent's next call, whatever its rule's threshold for
	// telling and whether or not that call may end its condition.
	Asked bool `json:"asked,omitempty"`
}

// Warning is one guard warning raised before a tool call.
type Warning struct {
	Reason   Reason    `json:"reason"`
	Time     time.Time `json:"ts"`
	Task     int       `json:"task"`
	Target   string    `json:"target,omitempty"`
	Evidence string    `json:"evidence"`
	Nudged   bool      `json:"nudged,omitempty"`
	// Held: raised on a deferred pre-tool event (Event.Defer), it waits
	// for the post-tool answer that delivers it.
	Held bool `json:"held,omitempty"`
}

// SignalKind says what a Signal is.
type SignalKind string

// Signal kinds.
const (
	SignalCheckpoint SignalKind = "checkpoint" // a checkpoint was raised
	SignalGuard      SignalKind = "guard"      // a guard warning was raised
	SignalAck        SignalKind = "ack"        // a checkpoint was closed
	SignalNudge      SignalKind = "nudge"      // text handed to the agent on this call
	// SignalSnapshot asks for a recovery snapshot of the run (ID), for its
	// Reason, the run's tool calls so far in N: the hook starts it in the
	// background, off its own time.
	SignalSnapshot SignalKind = "snapshot"
	// SignalHalt refuses the tool call: the run is halted (enforce mode),
	// Text says why and how the user resumes it. The adapter of a host
	// that can refuse a call answers with its own refusal and stop.
	SignalHalt SignalKind = "halt"
	// SignalRollback asks for the run's rollback to snapshot N (enforce
	// mode with auto_rollback, on a check worse than at the run's start):
	// the hook starts it in the background; the run is halted meanwhile.
	SignalRollback SignalKind = "rollback"
	// SignalMark asks for a capture of the run's work tree (ID) around a
	// call that may change files: Reason "pre" before it runs (the hook
	// waits for it: the run's baseline, when it has none yet, is taken
	// then), "post" after. Changes between a call's two captures are the
	// agent's; changes between calls are someone else's, and a rollback
	// leaves them. Evidence names a destructive command: the pre capture
	// is then also a snapshot the user can roll back to.
	SignalMark SignalKind = "mark"
)

// Signal is an output of the reducer: something raised, closed or said.
type Signal struct {
	Kind     SignalKind `json:"kind"`
	Reason   Reason     `json:"reason,omitempty"`
	ID       string     `json:"id,omitempty"`
	Evidence string     `json:"evidence,omitempty"`
	Text     string     `json:"text,omitempty"` // the nudge, for SignalNudge
	N        int        `json:"n,omitempty"`    // a count the signal carries: the run's tool calls, for SignalSnapshot
}

// RefuseCall is the Reason of a SignalHalt that refuses the one call and
// lets the agent go on (summary-only: an edit past 80% of the tokens in
// enforce mode); without it a SignalHalt halts the run.
const RefuseCall Reason = "call"

// HaltEnds reports whether the refusal also ends the agent's loop: the
// run is halted, not just this call refused.
func HaltEnds(sigs []Signal) bool {
	for _, s := range sigs {
		if s.Kind == SignalHalt {
			return s.Reason != RefuseCall
		}
	}
	return false
}

// Halt returns the refusal's text when the call is refused, else "".
func Halt(sigs []Signal) string {
	for _, s := range sigs {
		if s.Kind == SignalHalt {
			return ShowControls(s.Text)
		}
	}
	return ""
}

// Nudge returns the text to hand the agent, or "" when there is none.
func Nudge(sigs []Signal) string {
	for _, s := range sigs {
		if s.Kind == SignalNudge {
			return ShowControls(s.Text)
		}
	}
	return ""
}
