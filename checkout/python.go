package checkout

// pytest's state flags.
const pyDone = 1 // a progress line reached [100%]

// scanPytest reads pytest.
//
// The closing summary (`=== 1 failed, 2 passed in 0.12s ===`, or without the
// rules under -q) is the whole run's verdict, wherever it is seen: a fail
// with failed or error counts; a pass with passed, skipped, xfailed or
// xpassed tests and none failed; a fail when nothing ran (`no tests ran`, or
// every test deselected: pytest exits 5). Other fails: the FAILURES and
// ERRORS sections, `FAILED …` and `ERROR …` lines of the short test summary,
// `Interrupted: N errors during collection`, a usage error (`ERROR: …`, weak:
// counting when pytest is named or known), and
// an F or E in a progress line (`test_x.py ..F.  [ 50%]`, or FAILED/ERROR
// under -v). Under -qq pytest prints no summary: clean progress lines that
// reach [100%] settle the run only when the whole output is visible.
func scanPytest(t *tally, l *line, _ *plan) bool {
	b := l.b
	if len(b) > 0 && b[0] == '=' || isDigit(b[0]) || pre(b, "no tests ran") {
		s := trimRules(b)
		if c, ok := pytestSummary(s); ok {
			t.summary(c.failed+c.errors > 0 || c.passed+c.skipped+c.xfailed+c.xpassed == 0,
				c.passed, c.failed, c.errors, c.skipped)
			switch {
			case c.failed+c.errors > 0:
				t.verdict = -1
			case c.passed+c.skipped+c.xfailed+c.xpassed > 0:
				t.passVerdict()
			default:
				t.verdict = -1 // nothing ran: pytest exits 5
			}
			return false
		}
		switch string(s) {
		case "FAILURES", "ERRORS":
			t.known, t.fail = true, true
			return false
		case "test session starts", "short test summary info", "warnings summary", "PASSES":
			t.known = true
			return false
		}
	}
	switch {
	case pre(b, "FAILED ") && (has(b, "::") || has(b, ".py")):
		t.known, t.fail = true, true
	case pre(b, "ERROR ") && has(b, ".py"):
		t.known, t.fail = true, true
	case pre(b, "ERROR: "):
		t.weak = true // a usage error; other tools print the same
	case pre(b, "!!!") && has(b, "Interrupted: "):
		t.known, t.fail = true, true
	case suf(b, "%]"):
		pytestProgress(t, b)
	}
	return false
}

// trimRules drops pytest's `===` and `!!!` framing.
func trimRules(b []byte) []byte {
	for len(b) > 0 && (b[0] == '=' || b[0] == '!' || b[0] == ' ') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == '=' || b[len(b)-1] == '!' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}

// pytestSummary parses `1 failed, 2 passed, 1 skipped in 0.12s` (an optional
// `(0:00:01)` may follow) and `no tests ran in 0.01s`.
func pytestSummary(s []byte) (counts, bool) {
	var c counts
	i := -1
	for j := len(s) - 4; j >= 0; j-- {
		if string(s[j:j+4]) == " in " {
			i = j
			break
		}
	}
	if i <= 0 {
		return c, false
	}
	d := s[i+4:]
	_, d, ok := num(d)
	if !ok {
		return c, false
	}
	if len(d) > 0 && d[0] == '.' {
		_, d, _ = num(d[1:])
	}
	if len(d) == 0 || d[0] != 's' {
		return c, false
	}
	d = d[1:]
	if len(d) > 0 && !(d[0] == ' ' && len(d) > 1 && d[1] == '(' && d[len(d)-1] == ')') {
		return c, false
	}
	h := s[:i]
	if string(h) == "no tests ran" {
		return c, true
	}
	if !isDigit(h[0]) {
		return c, false
	}
	c = items(h)
	if c.n == 0 || c.other > 0 || c.tests+c.failures+c.examples+c.runs+c.problems+c.issues+c.files > 0 {
		return c, false
	}
	return c, true
}

// pytestProgress reads a progress line: `test_x.py ..F.s  [ 75%]`, `..s
// [100%]` (-q), or `test_x.py::test_a PASSED  [ 33%]` (-v).
func pytestProgress(t *tally, b []byte) {
	k := -1
	for j := len(b) - 1; j >= 0; j-- {
		if b[j] == '[' {
			k = j
			break
		}
	}
	if k < 0 {
		return
	}
	pct := skipSpace(b[k+1 : len(b)-2])
	if _, r, ok := num(pct); !ok || len(r) > 0 {
		return
	}
	body := b[:k]
	for len(body) > 0 && body[len(body)-1] == ' ' {
		body = body[:len(body)-1]
	}
	if len(body) == 0 {
		return
	}
	if has(body, "::") {
		if has(body, " FAILED") || has(body, " ERROR") {
			t.fail = true
		}
		t.known = true
	} else {
		st := body
		for j := len(body) - 1; j >= 0; j-- {
			if body[j] == ' ' {
				st = body[j+1:]
				break
			}
		}
		for _, c := range st {
			switch c {
			case '.', 's', 'x', 'X', 'R', 'p':
			case 'F', 'E':
				t.fail = true
			default:
				return // not a progress line
			}
		}
		t.known = true
	}
	if string(pct) == "100" {
		t.state |= pyDone
		t.unitPass = true
	}
}

// scanMypy reads mypy.
//
// `Success: no issues found in N source files` is a whole-run pass; `Found N
// errors in M files (checked K source files)` (or `(errors prevented further
// checking)`) a whole-run fail with Errors N; a diagnostic `file.py:12: error:
// …` or a `mypy:` error of the tool itself is a fail wherever it is seen.
// Notes are not.
func scanMypy(t *tally, l *line, _ *plan) bool {
	b := l.b
	switch {
	case pre(b, "Success: no issues found in "):
		t.known, t.counted = true, true
		t.passVerdict()
	case pre(b, "Found ") && (has(b, "(checked ") || has(b, "(errors prevented")):
		n, r, ok := num(b[len("Found "):])
		if ok && (pre(r, " error in ") || pre(r, " errors in ")) {
			t.known, t.counted = true, true
			t.errors = n
			t.verdict = -1
		}
	case (posLine(b, ".py:") || posLine(b, ".pyi:")) && has(b, ": error: "):
		t.known, t.fail = true, true
	case pre(b, "mypy: "):
		t.fail = true
	}
	return false
}

// scanRuff reads ruff check and ruff format --check.
//
// `All checks passed!` and `N files already formatted` are whole-run passes.
// `Found N errors.` is a whole-run fail; after --fix, `Found N errors (F
// fixed, R remaining).` fails only with R remaining. A diagnostic (`file.py:
// 1:8: F401 …` in the concise format) and `Would reformat: …` are fails
// wherever seen; ruff's ` --> file.py:1:8` pointer and `error:` lines are
// weak (rustc prints the same), counting when ruff is named or known.
func scanRuff(t *tally, l *line, _ *plan) bool {
	b := l.b
	switch {
	case pre(b, "All checks passed!"):
		t.known = true
		t.passVerdict()
	case pre(b, "Found "):
		n, r, ok := num(b[len("Found "):])
		if !ok {
			return false
		}
		switch {
		case pre(r, " error.") || pre(r, " errors."):
			t.known, t.counted = true, true
			t.errors = n
			if n > 0 {
				t.verdict = -1
			}
		case pre(r, " error (") || pre(r, " errors ("):
			c := items(r)
			if c.fixed+c.remaining > 0 || has(r, " remaining)") {
				t.known, t.counted = true, true
				t.errors = c.remaining
				if c.remaining > 0 {
					t.verdict = -1
				} else {
					t.passVerdict()
				}
			}
		}
	case pre(b, "Would reformat: ") || has(b, " would be reformatted"):
		t.known, t.fail = true, true
	case suf(b, " already formatted"):
		t.known = true
		t.passVerdict()
	case pre(b, "[*] ") && has(b, " fixable"):
		t.known = true
	case ruffDiagnostic(b):
		t.known, t.fail = true, true
	case pre(l.t, "--> ") && l.ind > 0, pre(b, "error: "):
		t.weak = true
	}
	return false
}

// ruffDiagnostic matches `path:LINE:COL: CODE …` where CODE is a rule code
// (letters then digits) or SyntaxError.
func ruffDiagnostic(b []byte) bool {
	if b[0] == ' ' || b[0] == '\t' {
		return false
	}
	i := 0
	for i < len(b) && b[i] != ':' {
		if b[i] == ' ' {
			return false
		}
		i++
	}
	if i == 0 || i == len(b) {
		return false
	}
	_, r, ok := num(b[i+1:])
	if !ok || len(r) == 0 || r[0] != ':' {
		return false
	}
	_, r, ok = num(r[1:])
	if !ok || !pre(r, ": ") {
		return false
	}
	r = r[2:]
	if pre(r, "SyntaxError") {
		return true
	}
	j := 0
	for j < len(r) && r[j] >= 'A' && r[j] <= 'Z' {
		j++
	}
	k := j
	for k < len(r) && isDigit(r[k]) {
		k++
	}
	return j > 0 && k > j && (k == len(r) || r[k] == ' ')
}
