package engine

import (
	"strings"
	"testing"
)

func TestUncheckedCommitRule(t *testing.T) {
	edits := func(n int) func(s *State) { return func(s *State) { s.EditsSinceCheck, s.CodeSinceTry = n, n } }
	// Edits with no check since, none of them code (data, a lock file,
	// docs): nothing a check is owed for.
	noCode := func(s *State) { s.EditsSinceCheck, s.CodeSinceTry = 3, 0 }
	sh := func(cmd string) Event {
		return Event{Time: ruleNow, Kind: KindPostTool, Tool: "Bash", Class: ClassRun, Cmd: cmd, CmdFP: "fp", Outcome: OutcomeOK}
	}
	failed, sub, codex := sh("git commit -m x"), sh("git commit -m x"), sh("git commit -m x")
	failed.Outcome = OutcomeFailed
	sub.Subagent = "a1"
	codex.Tool = "exec_command"
	runCheckpointCases(t, uncheckedCommit, []checkpointCase{
		{name: "commit after edits", state: edits(3), ev: sh("git commit -m 'fix parser'"),
			evidence: "this commit includes code edited after the last check: `git commit -m 'fix parser'` ran after 3 edits of code or build files, with no check since"},
		{name: "add and commit", state: edits(1), ev: sh("git add -A && git commit -m x"),
			evidence: "this commit includes code edited after the last check: `git add -A && git commit -m x` ran after 1 edit of code or build files, with no check since"},
		{name: "git -C dir, amend", state: edits(2), ev: sh("cd /r && git -C sub commit --amend --no-edit"),
			evidence: "this commit includes code edited after the last check: `cd /r && git -C sub commit --amend --no-edit` ran after 2 edits of code or build files, with no check since"},
		{name: "another agent's shell", state: edits(2), ev: codex,
			evidence: "this commit includes code edited after the last check: `git commit -m x` ran after 2 edits of code or build files, with no check since"},
		{name: "checked since the edits", state: edits(0), ev: sh("git commit -m x")},
		{name: "no code among the edits", state: noCode, ev: sh("git commit -m x")},
		{name: "dry run", state: edits(2), ev: sh("git commit --dry-run")},
		{name: "the commit failed", state: edits(2), ev: failed},
		{name: "a subagent's commit", state: edits(2), ev: sub},
		{name: "not a commit", state: edits(2), ev: sh("git log --grep commit")},
		{name: "commit in a message", state: edits(2), ev: sh("echo 'git commit'")},
	})
}

func TestUncheckedCommitSequence(t *testing.T) {
	commit := Event{Tool: "Bash", Class: ClassRun, Cmd: "git commit -am wip", CmdFP: "fp-commit"}
	s := newSim(t)
	s.prompt()
	s.call(edit("a.go"))
	s.call(check(OutcomeOK))
	s.call(edit("a.go"))
	s.call(edit("README.md")) // prose is not unchecked code
	s.call(commit)
	if s.open(ReasonUncheckedCommit) != 1 {
		t.Fatal("not raised")
	}

	// Data edited and a lock file removed after the passing check: no code
	// went unchecked.
	s = newSim(t)
	s.prompt()
	s.call(edit("a.go"))
	s.call(check(OutcomeOK))
	s.call(edit("testdata/repos.json"))
	s.call(Event{Tool: "Bash", Class: ClassEdit, Cmd: "rm -f .git/index.lock", CmdFP: "fp-rm", Target: ".git/index.lock"})
	s.call(commit)
	if s.open(ReasonUncheckedCommit) != 0 {
		t.Fatal("raised on a commit of data and a lock file's removal")
	}

	s = newSim(t)
	s.prompt()
	s.call(edit("a.go"))
	s.call(check(OutcomeOK))
	s.call(edit("a.go"))
	s.call(edit("README.md"))
	s.call(commit)
	if n := s.call(edit("b.go")); strings.Contains(n, "unchecked-commit") {
		t.Errorf("shown, not told, by default: %q", n)
	}
	s.call(check(OutcomeOK))
	if s.open(ReasonUncheckedCommit) != 0 {
		t.Error("a passing check settles it")
	}

	s = newSim(t)
	s.cfg.CommitTell = true
	s.prompt()
	s.call(edit("a.go"))
	s.call(Event{Tool: "Bash", Class: ClassCheck, Cmd: "go test ./... && git commit -m ok", CmdFP: "fp-tc"})
	if s.open(ReasonUncheckedCommit) != 0 {
		t.Fatal("checked in the same chain before the commit")
	}
	s.call(edit("a.go"))
	s.call(commit)
	if n := s.call(edit("a.go")); !strings.Contains(n, "unchecked-commit") {
		t.Errorf("commit_tell: not told: %q", n)
	}
}
