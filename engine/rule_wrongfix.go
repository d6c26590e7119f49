package engine

import (
	"fmt"
	"strings"
)

// ReasonFixInTest: the edit that followed a failing test run changed the
// test or its harness, not the code under test.
const ReasonFixInTest Reason = "fix-in-test"

// fixInTest is raised when the first edit of code after a failed test run
// (State.FailedCheck: a check whose runner counted failed tests, not a
// build or setup error, which a test file's own fix answers, in a task that
// had already changed code other than tests) writes only
// test files, fixtures or the harness that runs them, linked to the run
// that failed: under a path the failing command names, or anywhere when it
// names none (a whole suite). Getting past a failure by changing what
// checks the code rather than the code is sometimes right (a wrong
// expectation), so it is shown, not told, unless fix_in_test_tell is on.
var fixInTest = checkpointRule{
	reason: ReasonFixInTest,
	action: "say whether the test was wrong or the code is, before changing what checks it",
	due: func(s *State, ev *Event, _ *CmdSeen, _ *Config) (string, bool) {
		if s.FailedCheck == "" || ev.Class != ClassEdit || ev.Outcome == OutcomeFailed || ev.Subagent != "" || ev.Target == "" {
			return "", false
		}
		if ev.Created {
			// A new file changes no test that failed: a probe to print
			// what the code does, or the next test of a test-first plan
			// (blind reviewers: noise).
			return "", false
		}
		files := append([]string{ev.Target}, ev.Files...)
		if lintCommand(s.FailedCheck) {
			for _, f := range files {
				if !lintConfigFile(f) {
					return "", false
				}
			}
			return fmt.Sprintf("the last lint run did not pass (`%s`) and the next edit changed the linter's configuration or scripts (%s), not the code it checks", s.FailedCheck, shortPath(ev.Target)), true
		}
		own := true
		for _, f := range files {
			if !harnessFile(f, s.FailedCheck) || !linkedToCheck(f, s.FailedCheck) {
				return "", false
			}
			own = own && contains(s.TaskTests, testKey(f))
		}
		if own {
			// Tests the task wrote before this failure: the agent is
			// getting its own new test right, not weakening one (blind
			// reviewers: noise on 5 of 12 firings).
			return "", false
		}
		return fmt.Sprintf("the last check failed (`%s`) and the next edit changed a test file (%s), not the code it tests", s.FailedCheck, shortPath(ev.Target)), true
	},
	tell: func(_ *State, cfg *Config) bool { return cfg.FixInTestTell },
}

// bookFailedCheck remembers a failed test run until the next edit of code:
// what fixInTest judges that edit against. Called once the call is booked
// and judged.
func (s *State) bookFailedCheck(ev *Event) {
	switch {
	case ev.Subagent != "":
	case ev.Class == ClassCheck && ev.Outcome == OutcomeFailed && ev.Tests != nil && ev.Tests.Failed > 0 && s.TaskEdits > 0:
		// Only once the task changed the code under test: a task that so far
		// only wrote tests is writing them, and fixes its own new test.
		s.FailedCheck = preview(ev)
	case ev.Class == ClassCheck && ev.Outcome != OutcomeOK && lintCommand(ev.Cmd):
		// A linter that did not pass (or whose status a pipeline hid, as
		// `golangci-lint run | wc -l` does): its findings are answered in
		// the code, or by changing what it checks.
		s.FailedCheck = preview(ev)
	case ev.Class == ClassCheck:
		s.FailedCheck = ""
	case ev.Class == ClassEdit && ev.Outcome != OutcomeFailed && !proseEdit(ev):
		if s.FailedCheck == "" {
			s.bookTaskTests(ev)
		}
		s.FailedCheck = ""
	}
}

// maxTaskTests bounds the test files a task's state names.
const maxTaskTests = 16

// bookTaskTests notes the test files an edit writes while no failing check
// is pending: tests the task is writing.
func (s *State) bookTaskTests(ev *Event) {
	for _, f := range append([]string{ev.Target}, ev.Files...) {
		if f == "" || !harnessFile(f, "") {
			continue
		}
		if k := testKey(f); !contains(s.TaskTests, k) {
			if len(s.TaskTests) == maxTaskTests {
				s.TaskTests = s.TaskTests[1:]
			}
			s.TaskTests = append(s.TaskTests, k)
		}
	}
}

// testKey fingerprints a test file's path: the state keeps no more of it.
func testKey(path string) string { return Fingerprint("test", path) }

// linters are the programs that judge code without running it.
var linters = []string{"golangci-lint", "staticcheck", "revive", "gofmt", "eslint", "biome", "prettier", "stylelint", "ruff", "flake8",
	"pylint", "black", "mypy", "pyright", "tsc", "vue-tsc", "rubocop", "shellcheck", "hadolint", "tflint", "clippy", "credo", "ktlint", "swiftlint"}

// lintCommand reports whether a check's command line runs a linter: by its
// program (`cargo clippy`, `mix credo` by their subcommand), or a task
// named for it (`make lint`, `npm run lint`, `mise run lint:go`).
func lintCommand(cmd string) bool {
	if cmd == "" {
		return false
	}
	for _, sg := range splitShell(cmd) {
		w := stripWrappers(sg.words)
		if len(w) == 0 {
			continue
		}
		for i, a := range w {
			if i > 2 || strings.HasPrefix(a, "-") {
				break
			}
			name := strings.ToLower(progName(a))
			if contains(linters, name) || strings.HasPrefix(name, "lint") || strings.Contains(name, ":lint") || strings.HasSuffix(name, "-lint") {
				return true
			}
		}
		return false // the first command of the line is what ran as the check
	}
	return false
}

// lintConfigFile reports whether path configures a linter or runs it: the
// linters' own config files, a lint script or task, CI.
func lintConfigFile(path string) bool {
	dir, base := lowerSplit(path)
	if ciFile(dir, base) {
		return true
	}
	stem := base
	if i := strings.IndexByte(base[min(1, len(base)):], '.'); i >= 0 {
		stem = base[:i+min(1, len(base))]
	}
	if ext := base[len(stem):]; !strings.HasPrefix(stem, ".") && contains(sourceExts, ext) {
		return false // revive.go is code, revive.toml its config
	}
	for _, d := range strings.Split(dir, "/") {
		if d == "lint" || d == "linters" {
			return true // mise-tasks/lint/go, scripts/lint/…
		}
	}
	switch stem {
	case ".golangci", ".eslintrc", "eslint", ".prettierrc", "prettier", ".stylelintrc", "stylelint", "biome", "ruff", ".ruff",
		".flake8", ".pylintrc", "pylintrc", "mypy", ".mypy", ".rubocop", ".credo", "clippy", ".clippy", "rustfmt", ".rustfmt",
		".shellcheckrc", ".hadolint", ".tflint", ".swiftlint", ".editorconfig", "tsconfig", "staticcheck", ".revive", "revive":
		return true
	}
	return strings.HasPrefix(base, "lint") && !strings.Contains(dir, "src") // lint.sh, lint-go, but not a source file named lint
}

// lowerSplit is a path, lower-cased, as its folder and its file's name.
func lowerSplit(path string) (dir, base string) {
	p := strings.ToLower(path)
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return "", p
}

// ciFile: a CI pipeline's file (GitHub Actions, CircleCI, GitLab).
func ciFile(dir, base string) bool {
	return strings.HasPrefix(dir, ".github/workflows") || strings.HasPrefix(dir, ".circleci") || base == ".gitlab-ci.yml"
}

// sourceExts are code, not configuration, whatever the file's name.
var sourceExts = []string{".go", ".py", ".rb", ".rs", ".ex", ".java", ".kt", ".swift", ".c", ".h", ".cc", ".cpp"}

// testDirs are folders that hold tests, fixtures or their data.
var testDirs = []string{"test", "tests", "__tests__", "spec", "testdata", "fixtures", "__fixtures__", "__snapshots__", "e2e"}

// harnessFile reports whether path is a test, a fixture, or the harness that
// runs the failing check: a test folder, a test file by its runner's naming,
// a runner's config, CI, or the Makefile (justfile, Taskfile) when the
// failing check ran through it.
func harnessFile(path, failing string) bool {
	dir, base := lowerSplit(path)
	for _, d := range strings.Split(dir, "/") {
		if contains(testDirs, d) {
			return true
		}
	}
	if ciFile(dir, base) {
		return true
	}
	stem, ext := base, ""
	if i := strings.IndexByte(base, '.'); i > 0 {
		stem, ext = base[:i], base[i:]
	}
	switch {
	case strings.HasSuffix(base, "_test.go"), base == "conftest.py",
		strings.HasPrefix(base, "test_") && ext == ".py", strings.HasSuffix(stem, "_test") && ext == ".py",
		strings.HasSuffix(base, "_spec.rb"), strings.HasSuffix(base, "_test.rb"), strings.HasSuffix(base, "_test.exs"),
		strings.Contains(ext, ".test.") || strings.Contains(ext, ".spec.") || strings.HasPrefix(ext, ".test.") || strings.HasPrefix(ext, ".spec."),
		stem == "jest" || stem == "vitest" || stem == "playwright" || stem == "karma", // jest.config.js, vitest.config.ts …
		base == "pytest.ini" || base == "tox.ini" || base == "noxfile.py":
		return true
	}
	runner := progName(firstWord(failing))
	switch base {
	case "makefile", "gnumakefile":
		return runner == "make"
	case "justfile":
		return runner == "just"
	case "taskfile.yml", "taskfile.yaml":
		return runner == "task"
	}
	return false
}

// linkedToCheck reports whether a test file belongs to the failing run: the
// run names no path (a whole suite: every test is its own), or the file
// lies under one it names (`go test ./parser/`, `pytest tests/test_a.py::t`).
// Harness files (CI, Makefile, runner configs) run every test.
func linkedToCheck(path, failing string) bool {
	var named []string
	for _, w := range strings.Fields(failing) {
		if strings.HasPrefix(w, "-") || strings.ContainsAny(w, "&|;<>=$") {
			continue
		}
		w = strings.Trim(w, `"'`)
		if i := strings.Index(w, "::"); i >= 0 {
			w = w[:i]
		}
		if !strings.Contains(w, "/") && (!strings.Contains(w, ".") || strings.HasSuffix(w, "…")) {
			continue // a word, not a path
		}
		w = strings.TrimSuffix(strings.TrimSuffix(w, "/..."), "...")
		w = strings.TrimPrefix(strings.TrimSuffix(w, "/"), "./")
		if w == "." || w == "" {
			continue // the whole tree
		}
		named = append(named, w)
	}
	if len(named) == 0 {
		return true
	}
	for _, w := range named {
		if path == w || strings.HasPrefix(path, w+"/") || strings.HasSuffix(path, "/"+w) || strings.Contains(path, "/"+w+"/") {
			return true
		}
	}
	return false
}

func firstWord(cmd string) string {
	if f := strings.Fields(cmd); len(f) > 0 {
		return f[0]
	}
	return ""
}

// progName is a program's name without its folder: `./bin/mytool` → mytool.
func progName(w string) string {
	if i := strings.LastIndexByte(w, '/'); i >= 0 {
		return w[i+1:]
	}
	return w
}

// shortPath is a file's name in evidence: its base name.
func shortPath(p string) string { return progName(p) }
