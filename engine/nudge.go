package engine

import (
	"fmt"
	"strings"
)

// CheckpointQuestion is the question a checkpoint has the agent ask the user.
const CheckpointQuestion = "Are we still on track, or should I change direction?"

// composeNudge writes the one short text the agent receives. Checkpoints
// come first (they ask for a pause), guard warnings after.
func composeNudge(cps []*Checkpoint, guards []Warning, attended bool, cfg *Config) string {
	var b strings.Builder
	for _, c := range cps {
		fmt.Fprintf(&b, "cully checkpoint %s (%s): %s. %s\n", c.ID, c.Reason, c.Evidence, Action[c.Reason])
	}
	if len(cps) > 0 {
		switch {
		case attended:
			fmt.Fprintf(&b, "Give the user a short summary: the agreed outcome, progress so far, the blocker, and your proposed next step. Then ask: %q Wait for the answer before continuing this approach, unless the user already authorized you to proceed.\n", CheckpointQuestion)
		case cfg.Unattended == "stop":
			b.WriteString("Nobody is watching this session. Write that summary in your output (agreed outcome, progress, blocker, proposed next step), then stop and end your turn instead of continuing this approach.\n")
		default:
			b.WriteString("Nobody is watching this session. Write that summary in your output (agreed outcome, progress, blocker, proposed next step), then continue with the best next step.\n")
		}
	}
	for _, w := range guards {
		b.WriteString("cully: ")
		b.WriteString(guardAdvice(w))
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// humanBytes renders a size for a nudge: 12.3 KiB, 1.2 MiB.
func humanBytes(n int64) string {
	const k = 1024
	switch {
	case n < k:
		return fmt.Sprintf("%d B", n)
	case n < k*k:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/k)) + " KiB"
	default:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(k*k))) + " MiB"
	}
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }
