package checkout

// go test's state flags.
const goJSON = 1 // -json events were seen

// scanGoTest reads go test, plain or -json.
//
// Fails: `FAIL` alone (the closing line of a run where anything failed),
// `FAIL\tpkg …` (Failed; Errors when `[build failed]` or `[setup failed]`),
// `--- FAIL:` at any depth, `panic:` and `fatal error:` at the start of a
// line, a compiler error (`file.go:12:3: …` at the start of a line, where
// t.Log output never is), a `go:` error of the go command (not `go:
// downloading` and its kin), and -json `fail` and `build-fail` events.
//
// Passes, by visibility:
//   - With one package (no `./...`, at most one package argument), its `ok`
//     line (or `PASS`, `[no test files]`, the -json package `pass`) is the
//     whole run's verdict: it counts wherever it is seen.
//   - With several, go test closes a run where anything failed with a bare
//     `FAIL` line; so `ok` and `?` lines seen in the end of the output with
//     no FAIL settle the run when the end is visible (`| tail` keeps it, `|
//     head` and `| grep` do not).
//   - -json output has no such closing event: with several packages it
//     settles the run only when the whole output is visible.
//
// Counts: ok lines are Passed (packages), build failures Errors,
// `[no test files]` Skipped; Failed is the top-level tests that failed
// (`--- FAIL:` at the start of a line, -json test `fail` events without a
// subtest's `/`), or the package when its FAIL line follows none: more
// failing tests in an already failing package is a worse run (the
// rollback trigger's figure). Counted when the whole output is visible.
func scanGoTest(t *tally, l *line, p *plan) bool {
	b := l.b
	if len(l.t) > 0 && l.t[0] == '{' && has(b, `"Action":"`) {
		goJSONEvent(t, b, p)
		return false
	}
	switch {
	case pre(b, "ok  \t") || pre(b, "ok \t"):
		t.known, t.unitPass, t.unitCounts = true, true, true
		t.passed++
		t.since = 0
		goPackagePass(t, l, p)
	case pre(b, "?   \t") && has(b, "[no test files]"):
		t.known, t.unitPass, t.unitCounts = true, true, true
		t.skipped++
		goPackagePass(t, l, p)
	case string(b) == "PASS":
		t.known = true
		if p.goOne {
			t.passVerdict()
		}
	case string(b) == "FAIL":
		t.known, t.fail = true, true
	case pre(b, "FAIL\t"):
		t.known, t.fail, t.unitCounts = true, true, true
		if has(b, "[build failed]") || has(b, "[setup failed]") {
			t.errors++
		} else {
			t.failed += max(1, t.since)
		}
		t.since = 0
	case pre(l.t, "--- FAIL:"):
		t.known, t.fail = true, true
		if pre(b, "--- FAIL:") { // a top-level test; a subtest's line is indented
			t.since++
		}
	case pre(b, "panic: ") || pre(b, "fatal error: "):
		t.fail = true
	default:
		return goBuildLine(t, b)
	}
	return false
}

func goPackagePass(t *tally, l *line, p *plan) {
	if p.goOne {
		t.passVerdict()
	}
	if l.end && t.state&goJSON == 0 {
		t.endPass = true
	}
}

// goJSONEvent reads one `go test -json` event. Package-level events (no
// "Test" key) count as the plain lines do; "output" events repeat the plain
// text and are skipped.
func goJSONEvent(t *tally, b []byte, p *plan) {
	t.state |= goJSON
	if !has(b, `"Test":"`) {
		t.unitCounts = true
	}
	t.endPass = false
	i := index(b, `"Action":"`)
	a := b[i+len(`"Action":"`):]
	if j := index(a, `"`); j >= 0 {
		a = a[:j]
	}
	test := has(b, `"Test":"`)
	switch string(a) {
	case "pass":
		t.known = true
		if !test {
			t.unitPass = true
			t.passed++
			if p.goOne {
				t.passVerdict()
			}
		}
	case "skip":
		t.known = true
		if !test {
			t.unitPass = true
			t.skipped++
			if p.goOne {
				t.passVerdict()
			}
		}
	case "fail":
		t.known, t.fail = true, true
		switch {
		case test && !goSubtest(b):
			t.since++
		case test:
		case has(b, `"FailedBuild"`):
			t.errors++
			t.since = 0
		default:
			t.failed += max(1, t.since)
			t.since = 0
		}
	case "build-fail":
		t.known, t.fail = true, true
	case "start", "run", "output", "pause", "cont", "bench", "build-output":
		t.known = true
	}
}

// goSubtest reports whether a -json event's test is a subtest ("Test":
// "TestX/case").
func goSubtest(b []byte) bool {
	i := index(b, `"Test":"`)
	rest := b[i+len(`"Test":"`):]
	if j := index(rest, `"`); j >= 0 {
		rest = rest[:j]
	}
	return index(rest, "/") >= 0
}

// goBuildLine reads the lines go build, go vet and go test share: compiler
// and vet diagnostics and the go command's own messages. It reports whether
// the line is harmless noise.
func goBuildLine(t *tally, b []byte) bool {
	switch {
	case pre(b, "vet: "):
		t.known, t.fail = true, true
	case posLine(b, ".go:"):
		t.known, t.fail = true, true
	case pre(b, "go: "):
		r := b[len("go: "):]
		switch {
		case pre(r, "downloading "), pre(r, "finding "), pre(r, "extracting "), pre(r, "added "),
			pre(r, "upgraded "), pre(r, "warning: "), pre(r, "found "):
			return true
		}
		t.fail = true
	}
	return false
}

// scanGoBuild reads go vet and go build, which print nothing when they
// succeed.
//
// Fails: a compiler or vet diagnostic (`file.go:12:3: …`, `vet: …`) and a
// `go:` error. Passes: silence, and only silence (with `go: downloading` and
// its kin as the only lines), when the command names go vet or go build
// itself, keeps stderr (they print there) and filters nothing. `| head` and
// `| tail` keep silence silent, so a cut output still counts; `| grep`
// could have hidden every line, so it does not; nor does `2>/dev/null`.
func scanGoBuild(t *tally, l *line, _ *plan) bool {
	return goBuildLine(t, l.b)
}
