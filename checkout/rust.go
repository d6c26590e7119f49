package checkout

// scanCargoTest reads cargo test.
//
// Each test binary (unit tests, each integration test, doc-tests) ends with
// its own `test result:` line, so none is the whole run's verdict. But cargo
// stops at the first failing binary (`error: test failed, to rerun pass
// …`), and with --no-fail-fast closes with `error: N targets failed:`: so a
// `test result: ok.` seen in the end of the output, with no fail, settles the
// run when the end is visible (`| tail`), not when it is cut (`| head`) or
// filtered (`| grep "test result"`). Fails: `test result: FAILED.`, `test …
// ... FAILED`, `error[E0425]: …`, `error: could not compile`, `error: test
// failed`; another `error:` line is weak (it counts when cargo is named or
// its lines are seen). Counts are tests, summed over the visible results
// (ignored as Skipped); Counted when the whole output is visible.
func scanCargoTest(t *tally, l *line, _ *plan) bool {
	s := l.t
	switch {
	case pre(s, "test result: ok."):
		t.known, t.unitPass = true, true
		cargoCounts(t, s)
		if l.end {
			t.endPass = true
		}
	case pre(s, "test result: FAILED."):
		t.known, t.fail = true, true
		cargoCounts(t, s)
	case pre(s, "test ") && suf(s, " ... FAILED"):
		t.known, t.fail = true, true
	case pre(l.b, "error[E"):
		t.known, t.fail = true, true
	case pre(l.b, "error: could not compile"), pre(l.b, "error: test failed"),
		pre(l.b, "error: no test target"):
		t.known, t.fail = true, true
	case pre(l.b, "error: ") && (has(l.b, " target failed") || has(l.b, " targets failed")):
		t.known, t.fail = true, true
	case pre(l.b, "error: "), pre(l.b, "error:"):
		t.weak = true
	case pre(s, "running ") && (suf(s, " tests") || suf(s, " test")):
		t.known = true
	case pre(s, "Running ") && has(s, "target"), pre(s, "Doc-tests "):
		t.known = true
	}
	return false
}

func cargoCounts(t *tally, s []byte) {
	t.unitCounts = true
	c := items(s)
	t.passed += c.passed
	t.failed += c.failed
	t.skipped += c.skipped
}

// scanCargoCheck reads cargo check, cargo clippy and cargo build.
//
// `Finished … target(s) in 0.5s` is printed once, when the whole build is
// done without error: a whole-run pass. `error[E…]`, `error: could not
// compile` and any other `error:` line are fails; warnings are not (clippy
// with -D warnings turns them into errors, which fail). This reader is used
// only when the command names cargo check, clippy or build: behind a wrapper
// a `Finished` line says nothing of what ran after it.
func scanCargoCheck(t *tally, l *line, _ *plan) bool {
	s := l.t
	switch {
	case pre(s, "Finished ") && has(s, "target(s) in "):
		t.known = true
		t.passVerdict()
	case pre(l.b, "error[E"), pre(l.b, "error:"):
		t.known, t.fail = true, true
	case pre(l.b, "warning:"), pre(s, "Checking "), pre(s, "Compiling "):
		t.known = true
	}
	return false
}
