package engine

import (
	"fmt"
	"strings"
)

// ReasonUncheckedCommit: a commit of code edited since the last passing check.
const ReasonUncheckedCommit Reason = "unchecked-commit"

// uncheckedCommit is raised when a `git commit` (any segment of a shell
// call, after wrappers) succeeds while source code or a build's own files
// have been edited since the task's last check of any kind
// (State.CodeSinceTry, codeFile), with no successful check since the edits
// (State.EditsSinceCheck). Edits of data, configuration, docs or a lock
// file, a commit regrouped with `git reset`, a branch made with
// `checkout -b`: none of these owe a check, and blind reviewers judged
// firings on them noise (1 of 12 firings worth a look before, most of the
// rest on such edits). A
// chain that checks first (`go test ./... && git commit`) has passed its
// check before the commit is judged. cully cannot see a pre-commit hook that
// runs the tests, nor which files were staged: the evidence says what it
// knows. Settled by a later successful check.
var uncheckedCommit = checkpointRule{
	reason: ReasonUncheckedCommit,
	action: "run the checks on what was committed",
	due: func(s *State, ev *Event, _ *CmdSeen, _ *Config) (string, bool) {
		if s.EditsSinceCheck == 0 || s.CodeSinceTry == 0 || ev.Outcome != OutcomeOK || ev.Subagent != "" || !IsShellTool(ev.Tool) || !gitCommit(ev.Cmd) {
			return "", false
		}
		return fmt.Sprintf("this commit includes code edited after the last check: `%s` ran after %s of code or build files, with no check since", preview(ev), plural(s.CodeSinceTry, "edit")), true
	},
	tell:    func(_ *State, cfg *Config) bool { return cfg.CommitTell },
	settled: func(s *State, c *Checkpoint) bool { return s.CheckEpoch > c.Epoch },
}

// gitCommit reports whether a command line runs `git commit` (not a dry run).
func gitCommit(cmd string) bool {
	if !strings.Contains(cmd, "commit") {
		return false // most calls: no lexing
	}
	for _, sg := range splitShell(cmd) {
		w := stripWrappers(sg.words)
		if len(w) > 1 && progName(w[0]) == "git" && gitSub(w[1:]) == "commit" && !hasFlag(w[2:], "--dry-run") {
			return true
		}
	}
	return false
}
