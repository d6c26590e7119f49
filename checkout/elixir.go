package checkout

// scanMix reads mix test (ExUnit).
//
// `1 doctest, 3 tests, 1 failure, 1 skipped` is the whole run's verdict
// (invalid tests, whose setup failed, fail it too), except when every test
// was excluded: with --only, mix then exits 1 after the summary (`The --only
// option was given … but no test was executed`), so such a summary is a pass
// only when the end of the output is visible and that line is not in it.
// Fails: a numbered failure (`  1) test adds (MathTest)`), a compilation
// error (`== Compilation error in file …`, `** (CompileError) …`) and any
// `** (…)` exception of mix itself.
func scanMix(t *tally, l *line, _ *plan) bool {
	b := l.b
	if isDigit(b[0]) && (has(b, " test") || has(b, " doctest") || has(b, " propert")) && has(b, " failure") {
		c := items(b)
		total := c.tests + c.doctests
		t.summary(c.failures+c.invalid > 0, max(total-c.failures-c.invalid-c.skipped-c.excluded, 0),
			c.failures+c.invalid, 0, c.skipped+c.excluded)
		switch {
		case c.failures+c.invalid > 0:
			t.verdict = -1
		case total > c.excluded || total == 0:
			t.passVerdict()
		case l.end:
			t.endPass = true
		}
		return false
	}
	s := l.t
	if _, r, ok := num(s); ok && l.ind >= 2 && (pre(r, ") test ") || pre(r, ") doctest ") || pre(r, ") property ")) {
		t.known, t.fail = true, true
		return false
	}
	switch {
	case pre(b, "== Compilation error"), pre(b, "** ("):
		t.known, t.fail = true, true
	case pre(b, "The --only option was given"):
		t.known, t.fail = true, true
	case pre(b, "Randomized with seed "), pre(b, "Finished in ") && has(b, " seconds ("):
		t.known = true
	}
	return false
}
