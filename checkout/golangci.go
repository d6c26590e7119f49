package checkout

// scanGolangci reads golangci-lint run.
//
// `N issues:` (followed by a count per linter) is the whole-run fail with
// Errors N; `0 issues.` (v2) the whole-run pass. A diagnostic (`file.go:6:11:
// … (errcheck)`), a `level=error` log line (v1) and an `Error:` of the tool
// (a bad configuration) are fails. v1 prints nothing on a clean run: silence
// is a pass only when the command names golangci-lint itself, keeps stderr
// and filters nothing.
func scanGolangci(t *tally, l *line, p *plan) bool {
	b := l.b
	if n, r, ok := num(b); ok && (string(r) == " issues:" || string(r) == " issue:" || string(r) == " issues.") {
		t.known, t.counted = true, true
		t.errors = n
		if n > 0 {
			t.verdict = -1
		} else {
			t.passVerdict()
		}
		return false
	}
	switch {
	case posLine(b, ".go:"):
		t.known, t.fail = true, true
	case has(b, "level=error"):
		t.known, t.fail = true, true
	case pre(b, "Error: ") && p.named[rGolangci]:
		t.fail = true
	case has(b, "level=warning"), has(b, "level=info"):
		t.known = true
		return true
	}
	return false
}
