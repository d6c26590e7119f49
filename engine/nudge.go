package engine

import (
	"fmt"
	"strings"
)

// CheckpointQuestion is the question a checkpoint has the agent ask the user.
const CheckpointQuestion = "Are we still on track, or should I change direction?"

// composeNudge writes the one short text the agent receives. Checkpoints
// come first (they ask for a pause), guard warnings after. It states the
// evidence and a suggested step as facts, in a few lines: the host's hook
// documentation warns that text phrased as imperative system instructions
// can trip the model's prompt-injection defences, and the installed skill
// already says what a checkpoint is for.
//
// The advisor's advice, when the agent has not seen it, comes last, once,
// marked as the advisor's: it is a model's reading of the evidence, not a
// local rule's finding.
func composeNudge(cps []*Checkpoint, guards []Warning, adv *Advice, attended bool, cfg *Config) string {
	var b strings.Builder
	for _, c := range cps {
		fmt.Fprintf(&b, "cully checkpoint %s (%s): %s. Suggested: %s.\n", c.ID, c.Reason, c.Evidence, Action(c.Reason))
	}
	if len(cps) > 0 {
		switch {
		case attended:
			fmt.Fprintf(&b, "This is a point to check in with the user: a short summary (agreed outcome, progress, blocker, proposed next step) and the question %q Their answer decides how to go on, unless they already said to proceed.\n", CheckpointQuestion)
		case cfg.Unattended == "stop":
			b.WriteString("Nobody is watching this session, and the user set cully to stop here: a short written summary (agreed outcome, progress, blocker, proposed next step), then the end of the turn instead of more of this approach.\n")
		default:
			b.WriteString("Nobody is watching this session: a short written summary (agreed outcome, progress, blocker, proposed next step) keeps the run reviewable; then continue with the best next step.\n")
		}
	}
	for _, w := range guards {
		b.WriteString("cully: ")
		b.WriteString(guardAdvice(w))
		b.WriteByte('\n')
	}
	if adv != nil {
		b.WriteString("cully advisor (a model's reading of the evidence): ")
		b.WriteString(adv.Text)
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
