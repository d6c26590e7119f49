package checkout

// scanJest reads jest.
//
// `Test Suites: 1 failed, 1 passed, 2 total` is the whole run's verdict: a
// suite that failed to run (a syntax error) fails it even when every test
// that ran passed, so `Tests:` alone never makes a pass; it gives the counts,
// and fails the run when tests failed. Other fails: a `FAIL path` line, a `●`
// failure heading (weak, counting when jest is named or known, since other
// programs draw bullets; not jest's validation or deprecation warnings; `Test
// suite failed to run` counts in Errors), `No tests found, exiting with code
// 1`, and an unmet coverage threshold. `No tests found, exiting with code 0`
// (--passWithNoTests) is a pass.
func scanJest(t *tally, l *line, _ *plan) bool {
	b := l.b
	switch {
	case pre(b, "Test Suites:"):
		c := items(b)
		t.known = true
		switch {
		case c.failed > 0:
			t.verdict = -1
		case c.n > 0:
			t.passVerdict()
		}
	case pre(b, "Tests:"):
		c := items(b)
		t.summary(c.failed > 0, c.passed, c.failed, t.errors, c.skipped+c.todo)
		if c.failed > 0 {
			t.fail = true
		}
	case pre(b, "FAIL "):
		t.known, t.fail = true, true
	case pre(b, "PASS "), pre(b, "Ran all test suites"), pre(b, "Snapshots:"):
		t.known = true
	case pre(l.t, "● "):
		r := l.t[len("● "):]
		if pre(r, "Validation Warning") || pre(r, "Deprecation Warning") {
			t.known = true
			return false
		}
		t.weak = true // other programs draw bullets too
		if pre(r, "Test suite failed to run") {
			t.known = true
			t.errors++
		}
	case pre(b, "No tests found, exiting with code "):
		t.known = true
		if suf(b, "code 0") {
			t.passVerdict()
			t.counted = true
		} else {
			t.verdict = -1
		}
	case pre(b, "Jest: ") && has(b, "threshold") && has(b, "not met"):
		t.known, t.fail = true, true
	}
	return false
}

// vitest's state flags.
const vitestFilesPass = 1 // a passing `Test Files` line was seen

// scanVitest reads vitest (run mode), colours removed.
//
// `Test Files  1 failed | 2 passed (3)` is the whole run's verdict, but
// vitest prints `Errors  1 error` (unhandled errors, which fail the run) after
// it: a passing Test Files line makes a pass only once the `Start at` or
// `Duration` line that closes the summary is seen too. `Tests  …` gives the
// counts and fails the run when tests failed. Other fails: `FAIL …`, a `×`
// test (weak: counts when vitest is named or known), a `❯ file (… | 1
// failed)` line, the `Failed Tests` and `Failed Suites` banners, `No test
// files found, exiting with code 1`.
func scanVitest(t *tally, l *line, _ *plan) bool {
	s := l.t
	switch {
	case pre(s, "Test Files "):
		c := items(s)
		if c.n == 0 {
			return false
		}
		t.known = true
		if c.failed > 0 {
			t.verdict = -1
		} else {
			t.state |= vitestFilesPass
		}
	case pre(s, "Tests ") && !pre(s, "Tests:"):
		c := items(s)
		if c.n == 0 {
			return false
		}
		t.summary(c.failed > 0, c.passed, c.failed, 0, c.skipped+c.todo)
		if c.failed > 0 {
			t.fail = true
		}
	case pre(s, "Errors ") && items(s).errors > 0:
		t.known, t.fail = true, true
	case pre(s, "Start at "), pre(s, "Duration "):
		if t.state&vitestFilesPass != 0 && t.verdict == 0 {
			t.passVerdict()
		}
	case pre(s, "FAIL "):
		t.known, t.fail = true, true
	case pre(s, "× "):
		t.weak = true
	case pre(s, "❯ ") && has(s, " failed"):
		t.known, t.fail = true, true
	case has(s, "Failed Tests ") || has(s, "Failed Suites "):
		t.known, t.fail = true, true
	case pre(s, "No test files found, exiting with code "):
		t.known = true
		if suf(s, "code 0") {
			t.passVerdict()
			t.counted = true
		} else {
			t.verdict = -1
		}
	case pre(s, "RUN  v"), pre(s, "RUN v"):
		t.known = true
	}
	return false
}

// scanMocha reads mocha's spec reporter.
//
// Its summary is several lines: `N passing`, then `N pending`, then `N
// failing`. `N failing` fails the run wherever it is seen; `N passing`
// without it is a pass only when the end of the output is visible (a `| head`
// may cut the summary after its first line, a `| grep passing` drops the
// rest). A numbered failure (`  1) title`), `Exception during run:` are
// fails; a JavaScript error at the start of a line (`Error: No test files
// found`, `SyntaxError: …`) is weak: it counts when mocha is named or its
// lines are seen.
func scanMocha(t *tally, l *line, _ *plan) bool {
	s := l.t
	if n, r, ok := num(s); ok {
		switch {
		case pre(r, " passing"):
			t.known, t.counted = true, true
			t.passed = n
			if l.end {
				t.endPass = true
			}
			return false
		case word(r, " pending"):
			t.skipped = n
			return false
		case word(r, " failing"):
			t.known, t.fail, t.counted = true, true, true
			t.failed = n
			return false
		case pre(r, ") ") && l.ind >= 2:
			t.weak = true
			return false
		}
	}
	switch {
	case pre(s, "Exception during run:"):
		t.known, t.fail = true, true
	case l.ind == 0 && jsError(s):
		t.weak = true
	case pre(s, "✔ "), pre(s, "✓ "):
		t.known = true
	}
	return false
}

// jsError matches a JavaScript exception heading: `Error: …`, `TypeError:
// …`, `Error [ERR_X]: …`.
func jsError(b []byte) bool {
	i := 0
	for i < len(b) && isLetter(b[i]) {
		i++
	}
	if i < len("Error") || string(b[i-len("Error"):i]) != "Error" {
		return false
	}
	r := b[i:]
	return pre(r, ": ") || pre(r, " [")
}

// scanTsc reads tsc (TypeScript 5 and the native TypeScript 7), plain or
// --pretty.
//
// Every `error TS1234:` diagnostic is a fail. `Found N errors in M files.`
// (or `in file.ts:3`) is the whole-run fail with Errors N; `Found 0 errors.`
// (watch mode) a pass; the `Errors  Files` table a fail. A plain `Found N
// errors.` is read as tsc's only when the command names tsc (ruff prints it
// too). A clean tsc prints nothing: silence is a pass only when the command
// names tsc itself, keeps stderr and filters nothing; `| head` and `| tail`
// keep silence silent.
func scanTsc(t *tally, l *line, p *plan) bool {
	b := l.b
	if i := index(b, "error TS"); i >= 0 {
		if _, r, ok := num(b[i+len("error TS"):]); ok && len(r) > 0 && r[0] == ':' {
			t.known, t.fail = true, true
			return false
		}
	}
	switch {
	case pre(b, "Found "):
		n, r, ok := num(b[len("Found "):])
		if !ok || !(pre(r, " error") || pre(r, " errors")) {
			return false
		}
		r = r[len(" error"):]
		if len(r) > 0 && r[0] == 's' {
			r = r[1:]
		}
		switch {
		case pre(r, " in ") && !has(r, "(checked ") && !has(r, "(errors prevented"),
			pre(r, ". Watching"),
			string(r) == "." && p.named[rTsc]:
		default:
			return false
		}
		t.known, t.counted = true, true
		t.errors = n
		if n > 0 {
			t.verdict = -1
		} else {
			t.passVerdict()
		}
	case string(b) == "Errors  Files":
		t.known, t.fail = true, true
	}
	return false
}

// scanESLint reads eslint's default (stylish) output.
//
// `✖ 3 problems (2 errors, 1 warning)` is the whole run's verdict: errors
// fail it; warnings alone pass it, unless the command sets --max-warnings
// and they exceed it (`ESLint found too many warnings` is a fail too). An
// `error` row (`  1:7  error  …`), a crash (`Oops! Something went wrong!`)
// and a missing configuration are fails. A clean eslint prints nothing:
// silence is a pass only when the command names eslint itself, keeps stderr
// and filters nothing.
func scanESLint(t *tally, l *line, p *plan) bool {
	s := l.t
	switch {
	case pre(s, "✖ "):
		c := items(s)
		if c.problems == 0 {
			return false
		}
		t.known, t.counted = true, true
		t.errors = c.errors
		switch {
		case c.errors > 0:
			t.verdict = -1
		case p.maxWarn >= 0 && c.warnings > p.maxWarn:
			t.verdict = -1
		default:
			t.passVerdict()
		}
	case pre(s, "ESLint found too many warnings"):
		t.known, t.fail = true, true
	case pre(s, "Oops! Something went wrong!"), pre(s, "ESLint couldn't find"):
		t.known, t.fail = true, true
	case l.ind >= 2 && isDigit(s[0]):
		_, r, _ := num(s)
		if len(r) == 0 || r[0] != ':' {
			return false
		}
		_, r, ok := num(r[1:])
		if !ok {
			return false
		}
		r = skipSpace(r)
		switch {
		case word(r, "error"):
			t.known, t.fail = true, true
		case word(r, "warning"):
			t.known = true
		}
	}
	return false
}
