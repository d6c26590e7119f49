package engine

import "fmt"

// ReasonForcePush: a push that overwrote the remote branch's history.
const ReasonForcePush Reason = "force-push"

// forcePush is raised when a foreground shell call force-pushes (`git push
// --force`, `-f`, a `+ref` refspec; --force-with-lease, which refuses to
// overwrite what it has not seen, is not one): the commits it replaced
// on the remote are gone for everyone who had not fetched them, and the
// history it pushed was rewritten on this machine a moment ago, often with
// commits nobody built. Shown, not told: a force push to the agent's own
// topic branch is routine, and only the user knows whose branch it is.
var forcePush = checkpointRule{
	reason: ReasonForcePush,
	action: "say which remote commits the push replaced, and use --force-with-lease next time",
	due: func(s *State, ev *Event, _ *CmdSeen, _ *Config) (string, bool) {
		if ev.Subagent != "" || ev.Publish != PublishForce || ev.Outcome == OutcomeFailed {
			return "", false
		}
		return fmt.Sprintf("`%s` overwrote the remote branch's history (a force push without --force-with-lease)", preview(ev)), true
	},
}
