package checkout

import "strings"

// scanRSpec reads RSpec.
//
// `3 examples, 1 failure, 1 pending` is the whole run's verdict; `N errors
// occurred outside of examples` (a file that did not load) fails it too.
// `Failures:`, `Failed examples:`, `rspec ./spec/x_spec.rb:3 # …` and `An
// error occurred while loading …` are fails, and so, weakly (when rspec is
// named or known), is an F in the progress line (`F.*`). The pending section
// prints `Failure/Error:` for expected failures: that is not a fail.
func scanRSpec(t *tally, l *line, _ *plan) bool {
	b := l.b
	if isDigit(b[0]) {
		c := items(b)
		if c.n >= 2 && has(b, " example") && has(b, " failure") {
			t.summary(c.failures+c.errors > 0, max(c.examples-c.failures-c.pending, 0), c.failures, c.errors, c.pending)
			if c.failures+c.errors > 0 {
				t.verdict = -1
			} else {
				t.passVerdict()
			}
			return false
		}
	}
	switch {
	case string(b) == "Failures:", string(b) == "Failed examples:":
		t.known, t.fail = true, true
	case pre(b, "rspec ./") && has(b, " # "):
		t.known, t.fail = true, true
	case pre(b, "An error occurred while loading "), pre(b, "An error occurred in "):
		t.known, t.fail = true, true
	case progressFails(b, ".F*"):
		t.weak = true
	case string(b) == "No examples found.", string(b) == "Pending: (Failures listed here are expected and do not affect your suite's status)":
		t.known = true
	case rubyError(b):
		t.weak = true
	}
	return false
}

// scanMinitest reads minitest (ruby test files, rails test, rake test).
//
// `3 runs, 5 assertions, 1 failures, 0 errors, 0 skips` is the whole run's
// verdict. `  1) Failure:` and `  1) Error:` headings are fails. Weak fails,
// counting when the command names the test file or minitest's lines are
// seen: an F or E in the progress line (`.FS`), and a ruby error that stops
// the file before minitest runs (`x_test.rb:5: syntax error, …`, `…
// (NameError)`).
func scanMinitest(t *tally, l *line, _ *plan) bool {
	b := l.b
	if isDigit(b[0]) && has(b, " runs, ") || pre(b, "1 run, ") || pre(b, "0 runs, ") {
		c := items(b)
		if c.assertions+c.runs > 0 || has(b, " assertions, ") {
			t.summary(c.failures+c.errors > 0, max(c.runs-c.failures-c.errors-c.skips, 0), c.failures, c.errors, c.skips)
			if c.failures+c.errors > 0 {
				t.verdict = -1
			} else {
				t.passVerdict()
			}
			return false
		}
	}
	s := l.t
	if _, r, ok := num(s); ok && (string(r) == ") Failure:" || string(r) == ") Error:") {
		t.known, t.fail = true, true
		return false
	}
	switch {
	case progressFails(b, ".FES"):
		t.weak = true
	case pre(b, "Run options: "), string(b) == "# Running:":
		t.known = true
	case rubyError(b):
		t.weak = true
	}
	return false
}

// progressFails reports a progress line (only the characters of set, one
// character per test) that shows a failure (F) or an error (E).
func progressFails(b []byte, set string) bool {
	bad := false
	for _, c := range b {
		if strings.IndexByte(set, c) < 0 {
			return false
		}
		if c == 'F' || c == 'E' {
			bad = true
		}
	}
	return bad
}

// rubyError matches ruby stopping on an error: `file.rb:5: syntax error, …`,
// an uncaught exception `file.rb:3:in '…': message (NameError)`.
func rubyError(b []byte) bool {
	i := index(b, ".rb:")
	if i <= 0 || b[0] == ' ' || b[0] == '#' {
		return false
	}
	_, r, ok := num(b[i+len(".rb:"):])
	if !ok {
		return false
	}
	return pre(r, ": syntax error") || pre(r, ":in ") && suf(b, "Error)") || suf(b, "(SyntaxError)")
}
