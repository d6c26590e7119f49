package checkout

// The wrappers' own lines. A wrapper runs a script cully cannot see, so its
// output is read by every reader; these readers add the lines the wrapper
// itself prints when the script fails. They are read whatever the command,
// since a wrapper may run inside another (`make test` running `npm test`).
// None of them ever makes a pass: a wrapper that succeeded prints nothing
// that says so.

// scanMake: `make: *** [Makefile:3: test] Error 1`, `make[1]: *** …`,
// `make: *** No rule to make target 'x'.  Stop.`
func scanMake(t *tally, l *line, _ *plan) bool {
	b := l.b
	if pre(b, "make: *** ") || pre(b, "gmake: *** ") {
		t.known, t.fail = true, true
		return false
	}
	if pre(b, "make[") {
		_, r, ok := num(b[len("make["):])
		if ok && pre(r, "]: *** ") {
			t.known, t.fail = true, true
		}
	}
	return false
}

// scanNpm: `npm ERR! …` (npm 9 and before) and `npm error …` (npm 10 and
// after: a missing script, a failed npx). npm 11 prints nothing of its own
// when a script fails: the runner's lines must tell.
func scanNpm(t *tally, l *line, _ *plan) bool {
	if pre(l.b, "npm ERR!") || word(l.b, "npm error") {
		t.known, t.fail = true, true
	}
	return false
}

// scanPnpm: ` ELIFECYCLE  Test failed.` (set off by thin spaces) and
// `ERR_PNPM_…` codes.
func scanPnpm(t *tally, l *line, _ *plan) bool {
	if has(l.b, "ELIFECYCLE") || has(l.b, "ERR_PNPM_") {
		t.known, t.fail = true, true
	}
	return false
}

// scanYarn: yarn 1's `error Command failed with exit code 1.` and `error
// Command "x" not found.`
func scanYarn(t *tally, l *line, _ *plan) bool {
	if pre(l.b, "error Command ") {
		t.known, t.fail = true, true
	}
	return false
}

// scanJust: `error: Recipe `test` failed on line 2 with exit code 1`, and
// `error: Justfile does not contain recipe `x`.`
func scanJust(t *tally, l *line, _ *plan) bool {
	if pre(l.b, "error: Recipe `") || pre(l.b, "error: Justfile does not contain recipe") {
		t.known, t.fail = true, true
	}
	return false
}

// scanTask: `task: Failed to run task "test": exit status 1` and `task: Task
// "lint" does not exist`.
func scanTask(t *tally, l *line, _ *plan) bool {
	b := l.b
	if pre(b, "task: Failed to run task") || pre(b, `task: Task "`) && has(b, "does not exist") {
		t.known, t.fail = true, true
	}
	return false
}

// scanRake: `rake aborted!`.
func scanRake(t *tally, l *line, _ *plan) bool {
	if pre(l.b, "rake aborted!") {
		t.known, t.fail = true, true
	}
	return false
}

// scanShell reads the lines that say the check did not run at all: the
// shell's `command not found` (`bash: line 1: uv: command not found`, `sh: 1:
// pytest: not found`, `zsh: command not found: jest`), a script that is
// missing or not executable, `python: No module named pytest`, uv's `error:
// Failed to spawn`, poetry's `Command not found:`, bundler's `command not
// found`. The shell exits 126 or 127, the launcher non-zero: a fail.
func scanShell(t *tally, l *line, _ *plan) bool {
	b := l.b
	switch {
	case pre(b, "bash: "), pre(b, "sh: "), pre(b, "zsh: "), pre(b, "/bin/sh: "), pre(b, "/bin/bash: "),
		pre(b, "/usr/bin/env: "), pre(b, "env: "):
		if suf(b, ": command not found") || suf(b, ": not found") || pre(b, "zsh: command not found: ") ||
			suf(b, ": No such file or directory") || suf(b, ": Permission denied") {
			t.fail = true
		}
	case has(b, ": No module named "):
		i := index(b, ": No module named ")
		if i > 0 && has(b[:i], "python") && !has(b[:i], " ") {
			t.fail = true
		}
	case pre(b, "error: Failed to spawn: "), pre(b, "Command not found: "),
		pre(b, "bundler: command not found: "), pre(b, "bundler: failed to load command: "):
		t.fail = true
	}
	return false
}
