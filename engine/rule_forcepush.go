package engine

import "fmt"

// ReasonForcePush: a push that overwrote the remote branch's history.
const ReasonForcePush Reason = "force-push"

// forcePush is raised when a foreground shell call force-pushes (`git push
// --force`, `-f`, a `+ref` refspec, --force-with-lease: the lease only
// refuses to overwrite commits this clone has not seen): the commits it
// replaced on the remote are gone from the branch for everyone, and the
// history it pushed was rewritten on this machine a moment ago, often with
// intermediate commits nobody built. Shown, not told: a force push to the
// agent's own topic branch is routine, and only the user knows whose
// branch it is; publish_tell tells it, with unasked-publish.
var forcePush = checkpointRule{
	reason: ReasonForcePush,
	action: "say which remote commits the push replaced, and whether each rewritten commit builds",
	due: func(s *State, ev *Event, _ *CmdSeen, _ *Config) (string, bool) {
		if ev.Subagent != "" || ev.Publish != PublishForce || ev.Outcome == OutcomeFailed {
			return "", false
		}
		return fmt.Sprintf("`%s` rewrote the remote branch's history (a force push)", preview(ev)), true
	},
	tell: func(_ *State, cfg *Config) bool { return cfg.PublishTell },
}
