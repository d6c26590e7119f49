package checkout

import (
	"path/filepath"
	"strings"
	"testing"
)

func r(outcome, runner string) Result { return Result{Outcome: outcome, Runner: runner} }

// n sets the counts: passed, failed, errors, skipped, and whether the runner
// printed them for the whole run.
func (x Result) n(passed, failed, errors, skipped int, counted bool) Result {
	x.Passed, x.Failed, x.Errors, x.Skipped, x.Counted = passed, failed, errors, skipped, counted
	return x
}

// want is the judgement of every sample in testdata, by <runner>/<case>.
// The first line of a sample is its command (after comment lines); a sample
// marked `# from documentation, not run here` was written from the runner's
// documented output format because the runner could not be run here.
var want = map[string]Result{
	"cargocheck/build_pass_devnull":  r(Unknown, ""),
	"cargocheck/clippy_deny":         r(Fail, "cargo check"),
	"cargocheck/clippy_deny_head":    r(Fail, "cargo check"),
	"cargocheck/compile_error":       r(Fail, "cargo check"),
	"cargocheck/compile_error_tail":  r(Fail, "cargo check"),
	"cargocheck/pass":                r(Pass, "cargo check"),
	"cargocheck/pass_tail":           r(Pass, "cargo check"),
	"cargocheck/warnings":            r(Pass, "cargo check"),
	"cargotest/compile_error":        r(Fail, "cargo test"),
	"cargotest/compile_error_head":   r(Fail, "cargo test"),
	"cargotest/fail":                 r(Fail, "cargo test").n(1, 1, 0, 1, true),
	"cargotest/fail_nofailfast_tail": r(Fail, "cargo test"),
	"cargotest/fail_tail":            r(Fail, "cargo test").n(1, 1, 0, 1, false),
	"cargotest/no_tests_grep":        r(Unknown, ""),
	"cargotest/no_tests_plain":       r(Pass, "cargo test").n(0, 0, 0, 0, true),
	"cargotest/pass":                 r(Pass, "cargo test").n(3, 0, 0, 1, true),
	"cargotest/pass_grep":            r(Unknown, ""),
	"cargotest/pass_head":            r(Unknown, ""),
	"cargotest/pass_tail":            r(Pass, "cargo test"),
	"eslint/fail":                    r(Fail, "eslint").n(0, 0, 3, 0, true),
	"eslint/fail_head":               r(Fail, "eslint"),
	"eslint/fail_tail":               r(Fail, "eslint").n(0, 0, 3, 0, true),
	"eslint/max_warnings":            r(Fail, "eslint").n(0, 0, 0, 0, true),
	"eslint/no_config":               r(Fail, "eslint"),
	"eslint/pass":                    r(Pass, "eslint"),
	"eslint/pass_tail":               r(Pass, "eslint"),
	"eslint/syntax_error":            r(Fail, "eslint").n(0, 0, 1, 0, true),
	"eslint/warnings_only":           r(Pass, "eslint").n(0, 0, 0, 0, true),
	"eslint/warnings_only_tail":      r(Pass, "eslint").n(0, 0, 0, 0, true),
	"gobuild/fail":                   r(Fail, "go build"),
	"gobuild/fail_tail":              r(Fail, "go build"),
	"gobuild/pass":                   r(Pass, "go build"),
	"gobuild/pass_and_vet":           r(Pass, "go build"),
	"gobuild/pass_head":              r(Pass, "go build"),
	"golangci/compile_error":         r(Fail, "golangci-lint").n(0, 0, 1, 0, true),
	"golangci/fail":                  r(Fail, "golangci-lint").n(0, 0, 3, 0, true),
	"golangci/fail_head":             r(Fail, "golangci-lint"),
	"golangci/fail_tail":             r(Fail, "golangci-lint").n(0, 0, 3, 0, true),
	"golangci/pass":                  r(Pass, "golangci-lint").n(0, 0, 0, 0, true),
	"golangci/pass_head":             r(Pass, "golangci-lint").n(0, 0, 0, 0, true),
	"gotest/build_failed":            r(Fail, "go test").n(1, 0, 1, 0, true),
	"gotest/build_failed_tail":       r(Fail, "go test").n(0, 0, 1, 0, false),
	"gotest/fail":                    r(Fail, "go test").n(2, 1, 0, 1, true),
	"gotest/fail_tests":              r(Fail, "go test").n(1, 3, 0, 0, true), // three top-level tests failing in one package: 3
	"gotest/fail_grep":               r(Fail, "go test").n(2, 1, 0, 0, false),
	"gotest/fail_head":               r(Unknown, ""),
	"gotest/fail_tail":               r(Fail, "go test").n(1, 0, 0, 1, false),
	"gotest/json_build_failed":       r(Fail, "go test").n(0, 0, 1, 0, false),
	"gotest/json_fail":               r(Fail, "go test").n(0, 1, 0, 0, false),
	"gotest/json_multi_tail":         r(Unknown, ""),
	"gotest/json_pass":               r(Pass, "go test").n(1, 0, 0, 0, false),
	"gotest/no_test_files":           r(Pass, "go test").n(0, 0, 0, 1, true),
	"gotest/no_tests_to_run":         r(Pass, "go test").n(1, 0, 0, 0, true),
	"gotest/panic":                   r(Fail, "go test").n(0, 1, 0, 0, true),
	"gotest/pass":                    r(Pass, "go test").n(2, 0, 0, 1, true),
	"gotest/pass_echo":               r(Pass, "go test").n(1, 0, 0, 0, true),
	"gotest/pass_grep":               r(Unknown, ""),
	"gotest/pass_head":               r(Unknown, ""),
	"gotest/pass_tail":               r(Pass, "go test").n(1, 0, 0, 1, false),
	"gotest/pass_verbose_tail":       r(Pass, "go test").n(1, 0, 0, 0, false),
	"gotest/verbose_16k":             r(Pass, "go test").n(1, 0, 0, 0, true),
	"govet/compile_error":            r(Fail, "go vet"),
	"govet/fail":                     r(Fail, "go vet"),
	"govet/fail_head":                r(Fail, "go vet"),
	"govet/pass":                     r(Pass, "go vet"),
	"govet/pass_devnull":             r(Unknown, ""),
	"govet/pass_echo":                r(Pass, "go vet"),
	"govet/pass_grep":                r(Unknown, ""),
	"govet/pass_tail":                r(Pass, "go vet"),
	"jest/fail":                      r(Fail, "jest").n(2, 1, 0, 1, true),
	"jest/fail_tail":                 r(Fail, "jest").n(2, 1, 0, 1, true),
	"jest/no_tests":                  r(Fail, "jest"),
	"jest/no_tests_pass_with":        r(Pass, "jest").n(0, 0, 0, 0, true),
	"jest/npm_test_fail":             r(Fail, "jest").n(2, 1, 0, 1, true),
	"jest/pass":                      r(Pass, "jest").n(3, 0, 0, 1, true),
	"jest/pass_head":                 r(Unknown, ""),
	"jest/pass_tail":                 r(Pass, "jest").n(3, 0, 0, 1, true),
	"jest/syntax_error":              r(Fail, "jest").n(1, 0, 1, 0, true),
	"minitest/error":                 r(Fail, "minitest").n(0, 0, 1, 0, true),
	"minitest/fail":                  r(Fail, "minitest").n(1, 1, 0, 1, true),
	"minitest/fail_tail":             r(Unknown, ""),
	"minitest/fail_tail3":            r(Fail, "minitest").n(1, 1, 0, 1, true),
	"minitest/no_tests":              r(Pass, "minitest").n(0, 0, 0, 0, true),
	"minitest/pass":                  r(Pass, "minitest").n(2, 0, 0, 1, true),
	"minitest/pass_head":             r(Unknown, ""),
	"minitest/syntax_error":          r(Fail, "minitest"),
	"mix/compile_error":              r(Fail, "mix test"),
	"mix/fail":                       r(Fail, "mix test").n(2, 1, 0, 1, true),
	"mix/fail_head":                  r(Fail, "mix test"),
	"mix/fail_tail":                  r(Fail, "mix test").n(2, 1, 0, 1, true),
	"mix/no_tests":                   r(Fail, "mix test").n(0, 0, 0, 4, true),
	"mix/pass":                       r(Pass, "mix test").n(3, 0, 0, 1, true),
	"mix/pass_tail":                  r(Unknown, ""),
	"mocha/fail":                     r(Fail, "mocha").n(1, 1, 0, 1, true),
	"mocha/fail_head":                r(Fail, "mocha"),
	"mocha/no_tests":                 r(Fail, "mocha"),
	"mocha/pass":                     r(Pass, "mocha").n(2, 0, 0, 1, true),
	"mocha/pass_grep":                r(Unknown, ""),
	"mocha/pass_tail":                r(Pass, "mocha").n(2, 0, 0, 1, true),
	"mocha/syntax_error":             r(Fail, "mocha"),
	"mypy/fail":                      r(Fail, "mypy").n(0, 0, 2, 0, true),
	"mypy/fail_head":                 r(Fail, "mypy"),
	"mypy/fail_tail":                 r(Fail, "mypy").n(0, 0, 2, 0, true),
	"mypy/pass":                      r(Pass, "mypy").n(0, 0, 0, 0, true),
	"mypy/pass_tail":                 r(Pass, "mypy").n(0, 0, 0, 0, true),
	"mypy/syntax_error":              r(Fail, "mypy").n(0, 0, 1, 0, true),
	"pytest/command_not_found":       r(Fail, "shell"),
	"pytest/deselected_all":          r(Fail, "pytest").n(0, 0, 0, 0, true),
	"pytest/fail":                    r(Fail, "pytest").n(1, 1, 1, 1, true),
	"pytest/fail_grep":               r(Fail, "pytest").n(1, 1, 1, 1, true),
	"pytest/fail_head":               r(Fail, "pytest"),
	"pytest/fail_tail":               r(Fail, "pytest").n(1, 1, 1, 1, true),
	"pytest/module_missing":          r(Fail, "shell"),
	"pytest/no_tests":                r(Fail, "pytest").n(0, 0, 0, 0, true),
	"pytest/no_tests_quiet":          r(Fail, "pytest").n(0, 0, 0, 0, true),
	"pytest/pass":                    r(Pass, "pytest").n(2, 0, 0, 1, true),
	"pytest/pass_head":               r(Unknown, ""),
	"pytest/pass_quiet":              r(Pass, "pytest").n(2, 0, 0, 1, true),
	"pytest/pass_tail":               r(Pass, "pytest").n(2, 0, 0, 1, true),
	"pytest/qq_fail_tail":            r(Fail, "pytest"),
	"pytest/qq_pass":                 r(Pass, "pytest"),
	"pytest/syntax_error":            r(Fail, "pytest").n(0, 0, 1, 0, true),
	"pytest/syntax_error_tail":       r(Fail, "pytest").n(0, 0, 1, 0, true),
	"pytest/verbose_head":            r(Unknown, ""),
	"rspec/fail":                     r(Fail, "rspec").n(1, 1, 0, 1, true),
	"rspec/fail_head":                r(Fail, "rspec"),
	"rspec/fail_tail":                r(Fail, "rspec").n(1, 1, 0, 1, true),
	"rspec/no_examples":              r(Pass, "rspec").n(0, 0, 0, 0, true),
	"rspec/pass":                     r(Pass, "rspec").n(2, 0, 0, 1, true),
	"rspec/pass_head":                r(Unknown, ""),
	"rspec/pass_tail":                r(Pass, "rspec").n(2, 0, 0, 1, true),
	"rspec/syntax_error":             r(Fail, "rspec").n(0, 0, 1, 0, true),
	"ruff/fail":                      r(Fail, "ruff").n(0, 0, 2, 0, true),
	"ruff/fail_concise_head":         r(Fail, "ruff"),
	"ruff/fail_tail":                 r(Fail, "ruff").n(0, 0, 2, 0, true),
	"ruff/fixed":                     r(Pass, "ruff").n(0, 0, 0, 0, true),
	"ruff/fixed_remaining":           r(Fail, "ruff").n(0, 0, 1, 0, true),
	"ruff/format_check_fail":         r(Fail, "ruff"),
	"ruff/format_check_pass":         r(Pass, "ruff"),
	"ruff/pass":                      r(Pass, "ruff"),
	"ruff/pass_head":                 r(Pass, "ruff"),
	"ruff/syntax_error":              r(Fail, "ruff").n(0, 0, 1, 0, true),
	"tsc/fail":                       r(Fail, "tsc"),
	"tsc/fail_head":                  r(Fail, "tsc"),
	"tsc/fail_head_sigpipe_tsc7":     r(Fail, "tsc"),
	"tsc/fail_one_file":              r(Fail, "tsc").n(0, 0, 1, 0, true),
	"tsc/fail_pretty":                r(Fail, "tsc").n(0, 0, 3, 0, true),
	"tsc/fail_pretty_head":           r(Fail, "tsc"),
	"tsc/fail_pretty_tail":           r(Fail, "tsc"),
	"tsc/fail_pretty_tsc7":           r(Fail, "tsc").n(0, 0, 3, 0, true),
	"tsc/fail_tail_tsc7":             r(Unknown, ""),
	"tsc/fail_tsc7":                  r(Fail, "tsc"),
	"tsc/pass":                       r(Pass, "tsc"),
	"tsc/pass_grep":                  r(Unknown, ""),
	"tsc/pass_tail":                  r(Pass, "tsc"),
	"tsc/pass_tsc5_head":             r(Pass, "tsc"),
	"tsc/syntax_error":               r(Fail, "tsc"),
	"tsc/syntax_error_tsc7_tail":     r(Fail, "tsc"),
	"vitest/fail":                    r(Fail, "vitest").n(2, 1, 0, 1, true),
	"vitest/fail_head":               r(Fail, "vitest"),
	"vitest/fail_tail_nocolor":       r(Fail, "vitest").n(2, 1, 0, 1, true),
	"vitest/no_tests":                r(Fail, "vitest"),
	"vitest/pass":                    r(Pass, "vitest").n(3, 0, 0, 1, true),
	"vitest/pass_tail":               r(Pass, "vitest").n(3, 0, 0, 1, true),
	"vitest/syntax_error":            r(Fail, "vitest").n(1, 0, 0, 0, true),
	"wrappers/just_test_fail_tail":   r(Fail, "go test"),
	"wrappers/make_no_rule":          r(Fail, "make"),
	"wrappers/make_pytest_fail_tail": r(Fail, "pytest").n(1, 1, 1, 1, true),
	"wrappers/make_test_fail":        r(Fail, "go test").n(2, 1, 0, 1, true),
	"wrappers/make_test_fail_tail":   r(Fail, "go test").n(1, 0, 0, 0, false),
	"wrappers/make_test_pass":        r(Pass, "go test").n(2, 0, 0, 1, true),
	"wrappers/make_test_pass_tail":   r(Pass, "go test").n(1, 0, 0, 1, false),
	"wrappers/npm9_test_fail_tail":   r(Fail, "npm"),
	"wrappers/npm_missing_script":    r(Fail, "npm"),
	"wrappers/npm_script_fail":       r(Unknown, ""),
	"wrappers/pnpm_test_fail_tail":   r(Fail, "pnpm"),
	"wrappers/pnpm_test_pass":        r(Pass, "jest").n(3, 0, 0, 1, true),
	"wrappers/rake_test_fail_tail":   r(Fail, "minitest").n(2, 1, 0, 0, true),
	"wrappers/task_missing":          r(Fail, "task"),
	"wrappers/task_test_fail":        r(Fail, "go test").n(2, 1, 0, 1, true),
	"wrappers/task_test_fail_tail":   r(Fail, "go test"),
	"wrappers/task_test_pass":        r(Pass, "go test").n(2, 0, 0, 1, true),
	"wrappers/yarn_test_fail_tail":   r(Fail, "yarn"),
	"wrappers/yarn_test_pass":        r(Pass, "jest").n(3, 0, 0, 1, true),
}

func TestSamples(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range allSamples(t) {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.ToSlash(f), "testdata/"), ".txt")
		seen[name] = true
		w, ok := want[name]
		if !ok {
			t.Errorf("%s: sample has no expected result in want", name)
			continue
		}
		s := loadSample(t, f)
		if got := Read(s.command, s.out, s.out); got != w {
			t.Errorf("%s: Read(%q)\n got %+v\nwant %+v", name, s.command, got, w)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("%s: expected result for a sample that does not exist", name)
		}
	}
}

// TestSampleWindows cuts every sample into smaller head and tail windows, as
// the hook does with a long output: what a window shows may settle less, but
// never the opposite of the whole output.
func TestSampleWindows(t *testing.T) {
	for _, f := range allSamples(t) {
		s := loadSample(t, f)
		whole := Read(s.command, s.out, s.out)
		for _, n := range []int{16, 64, 128, 256, 512, 1024, 4096, 8192} {
			h, tl := Split(s.out, n)
			got := Read(s.command, h, tl)
			if got.Outcome != whole.Outcome && got.Outcome != Unknown {
				t.Errorf("%s with %d-byte windows: %s, whole output: %s", f, n, got.Outcome, whole.Outcome)
			}
		}
	}
}

// TestSamplesCover checks that every runner has its cases: a pass and a fail
// at least, and a sample cut by head or tail.
func TestSamplesCover(t *testing.T) {
	dirs := map[string][]string{}
	for name := range want {
		d, c, _ := strings.Cut(name, "/")
		dirs[d] = append(dirs[d], c)
	}
	for d, cases := range dirs {
		var pass, fail, cut bool
		for _, c := range cases {
			o := want[d+"/"+c].Outcome
			pass = pass || o == Pass
			fail = fail || o == Fail
			cut = cut || strings.Contains(c, "head") || strings.Contains(c, "tail")
		}
		if !pass || !fail || !cut {
			t.Errorf("%s: samples lack a pass (%v), a fail (%v) or a cut output (%v)", d, pass, fail, cut)
		}
	}
}

// TestSamplesBehindWrapper reads every sample as if a wrapper had run it
// (`make check`, where every reader reads): the readers of other runners must
// not contradict the runner's own. (A cut output may settle more there: the
// wrapper's command line shows no cut.)
func TestSamplesBehindWrapper(t *testing.T) {
	for _, f := range allSamples(t) {
		s := loadSample(t, f)
		direct := Read(s.command, s.out, s.out)
		wrapped := Read("make check", s.out, s.out)
		if direct.Outcome != Unknown && wrapped.Outcome != Unknown && direct.Outcome != wrapped.Outcome {
			t.Errorf("%s: %s behind a wrapper (%s), %s read directly", f, wrapped.Outcome, wrapped.Runner, direct.Outcome)
		}
	}
}
