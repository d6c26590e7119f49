package engine

import "fmt"

// ReasonMissingRead: a file read again at a path where it was just not
// found.
const ReasonMissingRead Reason = "read-missing-again"

// missingRead warns before a read tool (not a shell command: `cat` may
// read a file another command makes) reads a file at a path where the
// same tool's read of it failed, with nothing changed since: no edit, no
// file seen to change, no wait. A read fails when the file is not there
// (or is a folder, or too large for the tool); the same path will not
// appear by itself — the path is wrong (a sibling repository under
// another folder, a file the agent only assumed). The third-attempt guard
// speaks at the third try (and this one then holds its peace); a read is
// worth a word at the second. Dedup
// key: the file and the change count.
var missingRead = guardRule{
	reason: ReasonMissingRead,
	advice: "Find the file first (Glob, `ls`, `git ls-files`), or read it through the path that worked before.",
	check: func(s *State, ev *Event, cfg *Config) (string, string, bool) {
		if ev.Subagent != "" || ev.Class != ClassRead || ev.Target == "" || IsShellTool(ev.Tool) || !tracksCommand(ev) {
			return "", "", false
		}
		c := s.Commands[ev.CmdFP]
		if c == nil || c.Fails == 0 || c.Fails >= cfg.BlindRetryFailures || len(c.ChangeAt) == 0 || c.ChangeAt[len(c.ChangeAt)-1] != s.ChangeSeq {
			return "", "", false
		}
		return fmt.Sprintf("missing\x00%s\x00%d", ev.CmdFP, s.ChangeSeq),
			fmt.Sprintf("reading %s failed a moment ago at this same path, and nothing changed since", shortPath(ev.Target)),
			true
	},
}
