package engine

import "fmt"

// ReasonExploring: a long run of reads and searches with nothing done.
const ReasonExploring Reason = "exploring"

// exploring is raised after cfg.ExploreReads read/search calls of the
// foreground agent without an edit or a check (State.ReadsSinceAct: an
// edit, a file seen to change, any check and a new task reset it).
// Subagents' reads do not count: exploring in a subagent is how an agent
// spares its own context.
var exploring = checkpointRule{
	reason: ReasonExploring,
	action: "summarize what the exploration found before spending more context",
	due: func(s *State, ev *Event, _ *CmdSeen, cfg *Config) (string, bool) {
		if ev.Class != ClassRead || ev.Subagent != "" || s.ReadsSinceAct < cfg.ExploreReads {
			return "", false
		}
		return fmt.Sprintf("%d read/search calls since the last edit or check", s.ReadsSinceAct), true
	},
	holds: func(ev *Event) bool { return ev.Subagent == "" && (ev.Class == ClassEdit || ev.Class == ClassCheck) },
	tell:  func(s *State, cfg *Config) bool { return cfg.ExploreTell > 0 && s.ReadsSinceAct >= cfg.ExploreTell },
	told: func(s *State, _ *Config) string {
		return fmt.Sprintf("%d read/search calls since the last edit or check", s.ReadsSinceAct)
	},
	settled: func(s *State, _ *Checkpoint) bool { return s.ReadsSinceAct == 0 },
}
