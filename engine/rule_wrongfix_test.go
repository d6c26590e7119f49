package engine

import (
	"strings"
	"testing"
)

func TestFixInTestRule(t *testing.T) {
	failed := func(cmd string) func(s *State) { return func(s *State) { s.FailedCheck = cmd } }
	ed := func(path string, more ...string) Event {
		return Event{Time: ruleNow, Kind: KindPostTool, Tool: "Edit", Class: ClassEdit, Target: path, Files: more, Outcome: OutcomeOK}
	}
	failedEdit, sub, created := ed("p/p_test.go"), ed("p/p_test.go"), ed("p/debug_test.go")
	failedEdit.Outcome = OutcomeFailed
	sub.Subagent = "a1"
	created.Tool, created.Created = "Write", true
	runCheckpointCases(t, fixInTest, []checkpointCase{
		{name: "go test file of the failing package", state: failed("go test ./p/"), ev: ed("p/p_test.go"),
			evidence: "the last check failed (`go test ./p/`) and the next edit changed a test file (p_test.go), not the code it tests"},
		{name: "whole suite, any test file", state: failed("go test ./..."), ev: ed("q/q_test.go"),
			evidence: "the last check failed (`go test ./...`) and the next edit changed a test file (q_test.go), not the code it tests"},
		{name: "pytest node, its file", state: failed("pytest tests/test_a.py::test_x -q"), ev: ed("tests/test_a.py"),
			evidence: "the last check failed (`pytest tests/test_a.py::test_x -q`) and the next edit changed a test file (test_a.py), not the code it tests"},
		{name: "a fixture", state: failed("npm test"), ev: ed("src/__fixtures__/user.json"),
			evidence: "the last check failed (`npm test`) and the next edit changed a test file (user.json), not the code it tests"},
		{name: "spec and conftest together", state: failed("npx vitest run"), ev: ed("web/a.spec.ts", "conftest.py"),
			evidence: "the last check failed (`npx vitest run`) and the next edit changed a test file (a.spec.ts), not the code it tests"},
		{name: "the Makefile the check ran", state: failed("make test"), ev: ed("Makefile"),
			evidence: "the last check failed (`make test`) and the next edit changed a test file (Makefile), not the code it tests"},
		{name: "CI workflow", state: failed("make test"), ev: ed(".github/workflows/ci.yml"),
			evidence: "the last check failed (`make test`) and the next edit changed a test file (ci.yml), not the code it tests"},
		{name: "product code", state: failed("go test ./p/"), ev: ed("p/p.go")},
		{name: "a test and the code together", state: failed("go test ./p/"), ev: ed("p/p_test.go", "p/p.go")},
		{name: "another package's test", state: failed("go test ./p/"), ev: ed("q/q_test.go")},
		{name: "a Makefile the check did not run", state: failed("go test ./..."), ev: ed("Makefile")},
		{name: "no failed run", ev: ed("p/p_test.go")},
		{name: "a failed edit", state: failed("go test ./p/"), ev: failedEdit},
		{name: "a subagent's edit", state: failed("go test ./p/"), ev: sub},
		{name: "a new test file", state: failed("go test ./p/"), ev: created},
	})
}

// The rule sees only the first edit of code after a failed test run, and
// only a run whose tests failed: a build error in a test file is fixed in
// the test file.
func TestFixInTestSequence(t *testing.T) {
	testsFailed := func() Event {
		ev := check(OutcomeFailed)
		ev.Tests = &TestCounts{Runner: "go test", Failed: 2}
		return ev
	}
	t.Run("test edited right after", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		s.call(edit("p/p.go"))
		s.call(testsFailed())
		s.call(Event{Tool: "Read", Class: ClassRead, Target: "p/p.go"})
		s.call(edit("NOTES.md")) // prose between: not a fix of anything
		s.call(edit("p/p_test.go"))
		if s.open(ReasonFixInTest) != 1 {
			t.Fatal("not raised")
		}
		if n := s.call(edit("p/p.go")); strings.Contains(n, "fix-in-test") {
			t.Errorf("shown, not told, by default: %q", n)
		}
	})
	t.Run("told when switched on", func(t *testing.T) {
		s := newSim(t)
		s.cfg.FixInTestTell = true
		s.prompt()
		s.call(edit("p/p.go"))
		s.call(testsFailed())
		s.call(edit("p/p_test.go"))
		if n := s.call(edit("p/p.go")); !strings.Contains(n, "fix-in-test") || !strings.Contains(n, "p_test.go") {
			t.Errorf("not told: %q", n)
		}
	})
	t.Run("writing tests", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		s.call(edit("p/p_test.go")) // a new test, red
		s.call(testsFailed())
		s.call(edit("p/p_test.go"))
		if s.open(ReasonFixInTest) != 0 {
			t.Fatal("a task that only wrote tests fixes its own new test")
		}
	})
	t.Run("the task's own new test", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		s.call(edit("p/p.go"))
		s.call(edit("p/new_test.go")) // written with the code, before any failure
		s.call(testsFailed())
		s.call(edit("p/new_test.go"))
		if s.open(ReasonFixInTest) != 0 {
			t.Fatal("the agent getting its own new test right is no fix in the test")
		}
		s.prompt() // a new task: yesterday's new test is an existing one
		s.call(edit("p/p.go"))
		s.call(testsFailed())
		s.call(edit("p/new_test.go"))
		if s.open(ReasonFixInTest) != 1 {
			t.Fatal("an existing test changed after a failure: not raised")
		}
	})
	t.Run("code first", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		s.call(testsFailed())
		s.call(edit("p/p.go"))
		s.call(edit("p/p_test.go"))
		if s.open(ReasonFixInTest) != 0 {
			t.Fatal("a test edited after the code is no fix in the test")
		}
	})
	t.Run("build error", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		ev := check(OutcomeFailed)
		ev.Tests = &TestCounts{Runner: "go test", Errors: 1}
		s.call(ev)
		s.call(edit("p/p_test.go"))
		if s.open(ReasonFixInTest) != 0 {
			t.Fatal("a test that does not build is fixed in the test")
		}
	})
	t.Run("a check between", func(t *testing.T) {
		s := newSim(t)
		s.prompt()
		s.call(testsFailed())
		s.call(check(OutcomeOK))
		s.call(edit("p/p_test.go"))
		if s.open(ReasonFixInTest) != 0 {
			t.Fatal("the failure was answered by a passing run")
		}
	})
}

func TestLintConfigFile(t *testing.T) {
	for path, want := range map[string]bool{
		".golangci.yaml": true, "sub/.golangci.yml": true, "eslint.config.js": true, ".eslintrc.json": true, "ruff.toml": true,
		"mise-tasks/lint/go": true, "scripts/lint.sh": true, ".github/workflows/lint.yml": true, "tsconfig.json": true,
		".credo.exs": true, "revive.toml": true,
		"revive.go": false, "internal/lint/rules.go": false, "main.go": false, "pyproject.toml": false, "src/linter.go": false, "README.md": false,
	} {
		if got := lintConfigFile(path); got != want {
			t.Errorf("lintConfigFile(%q) = %v, want %v", path, got, want)
		}
	}
	for cmd, want := range map[string]bool{
		"golangci-lint run --timeout=30m ./... 2>&1 | tee /tmp/out.txt | wc -l": true, "mise run lint": true, "npm run lint -- --fix": true,
		"cargo clippy --all-targets": true, "mix credo --strict": true, "make lint": true, "mise run lint:go": true,
		"go test ./...": false, "go build ./... && golangci-lint run": false, "": false,
	} {
		if got := lintCommand(cmd); got != want {
			t.Errorf("lintCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}
