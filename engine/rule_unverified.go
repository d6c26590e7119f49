package engine

import (
	"fmt"
	"strings"
)

// ReasonUnverifiedEdits: many edits and no successful check.
const ReasonUnverifiedEdits Reason = "unverified-edits"

// unverifiedEdits is raised after cfg.UnverifiedEdits edits without a
// successful check (State.EditsSinceCheck: failed edits and edits of prose
// — plans, notes, docs — do not count; a check known to pass and a
// boundary reset it, a failed or unknown check does not).
var unverifiedEdits = checkpointRule{
	reason: ReasonUnverifiedEdits,
	action: "review the approach and how to verify it before widening the change",
	due: func(s *State, ev *Event, _ *CmdSeen, cfg *Config) (string, bool) {
		if ev.Class != ClassEdit || ev.Outcome == OutcomeFailed || s.EditsSinceCheck < cfg.UnverifiedEdits {
			return "", false
		}
		return fmt.Sprintf("%d edits since the last successful check", s.EditsSinceCheck), true
	},
	holds: func(ev *Event) bool { return ev.Class == ClassCheck },
	tell: func(s *State, cfg *Config) bool {
		return cfg.UnverifiedTell > 0 && unverifiedCount(s, cfg) >= cfg.UnverifiedTell
	},
	told: func(s *State, cfg *Config) string {
		switch {
		case s.EditsSinceTry == s.EditsSinceCheck:
			return fmt.Sprintf("%d edits since the last check of any kind", s.EditsSinceTry)
		case cfg.UnverifiedTellSince == TellSincePass:
			return fmt.Sprintf("%d edits since the last successful check, %d since the last check of any kind", s.EditsSinceCheck, s.EditsSinceTry)
		}
		return fmt.Sprintf("%d edits since the last check of any kind, %d since the last successful one", s.EditsSinceTry, s.EditsSinceCheck)
	},
	settled: func(s *State, c *Checkpoint) bool { return s.CheckEpoch > c.Epoch },
}

// unverifiedCount is the count unverified_tell is judged on: edits since
// any check (the default), or since a successful one
// (unverified_tell_since = "pass", the seed's checkpoint exactly).
func unverifiedCount(s *State, cfg *Config) int {
	if cfg.UnverifiedTellSince == TellSincePass {
		return s.EditsSinceCheck
	}
	return s.EditsSinceTry
}

// proseExt are the extensions of files no check verifies: plans, notes and
// documentation.
var proseExt = []string{".md", ".markdown", ".mdx", ".txt", ".rst", ".adoc", ".org"}

// proseEdit reports whether every file an edit writes is prose.
func proseEdit(ev *Event) bool {
	if !proseFile(ev.Target) {
		return false
	}
	for _, f := range ev.Files {
		if !proseFile(f) {
			return false
		}
	}
	return true
}

// proseFile reports whether an edit target is prose (see proseExt).
func proseFile(target string) bool { return extIn(target, proseExt) }

// extIn reports whether path's extension, lower-cased, is one of exts.
func extIn(path string, exts []string) bool {
	dot := strings.LastIndexByte(path, '.')
	if dot < 0 || strings.ContainsRune(path[dot:], '/') {
		return false
	}
	return contains(exts, strings.ToLower(path[dot:]))
}
