package engine

import (
	"strings"
	"testing"
)

func TestClassifyShell(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Checks = []string{"./scripts/verify"}
	cases := []struct {
		cmd     string
		class   Class
		masked  bool
		changes bool
		target  string
		ranged  bool
	}{
		{"go test ./...", ClassCheck, false, false, "", false},
		{"cd /repo && go test ./... -run TestX", ClassCheck, false, false, "", false},
		{"CGO_ENABLED=0 timeout 120 go test -race ./pkg", ClassCheck, false, false, "", false},
		{"time pytest -x tests/", ClassCheck, false, false, "", false},
		{"python -m pytest -q", ClassCheck, false, false, "", false},
		{"uv run pytest", ClassCheck, false, false, "", false},
		{"npm test", ClassCheck, false, false, "", false},
		{"npm run typecheck", ClassCheck, false, false, "", false},
		{"pnpm lint", ClassCheck, false, false, "", false},
		{"npx tsc --noEmit", ClassCheck, false, false, "", false},
		{"cargo clippy -- -D warnings", ClassCheck, false, false, "", false},
		{"make test", ClassCheck, false, false, "", false},
		{`bash -n scripts/capture.sh && echo "capture.sh OK"`, ClassCheck, false, false, "", false},
		{"python3 -m py_compile tools/gen.py", ClassCheck, false, false, "", false},
		{"node --check web/app.js", ClassCheck, false, false, "", false},
		{"bash -c 'source lib.sh && run'", ClassRun, false, false, "", false},
		{"make", ClassCheck, false, false, "", false},
		{"make install", ClassRun, false, false, "", false},
		{"just lint", ClassCheck, false, false, "", false},
		{"task test:unit", ClassCheck, false, false, "", false},
		{"mix test", ClassCheck, false, false, "", false},
		{"./gradlew test", ClassCheck, false, false, "", false},
		// A project's own check script, by its path and name.
		{"./scripts/test.sh", ClassCheck, false, false, "", false},
		{"script/test", ClassCheck, false, false, "", false},
		{"bash scripts/lint.sh --fix-none", ClassCheck, false, false, "", false},
		{"hack/verify-gofmt.sh", ClassCheck, false, false, "", false},
		{"python3 tests/test_fixes.py 2>&1 | tail -5", ClassCheck, true, false, "", false},
		{"~/src/app/mise-tasks/lint/go", ClassCheck, false, false, "", false},
		{"./run_tests.sh -k parser", ClassCheck, false, false, "", false},
		{"./scripts/test-server.sh", ClassRun, false, false, "", false},
		{"./scripts/setup-test-db.sh", ClassRun, false, false, "", false},
		{"./testing.sh", ClassRun, false, false, "", false},
		{"python3 tests/conftest.py", ClassRun, false, false, "", false},
		{"bin/test-data-gen", ClassRun, false, false, "", false},
		{"test -f go.mod", ClassRun, false, false, "", false},
		{"lint", ClassRun, false, false, "", false},
		{"./scripts/deploy.sh", ClassRun, false, false, "", false},
		{"dotnet test", ClassCheck, false, false, "", false},
		{"zig build test", ClassCheck, false, false, "", false},
		{"ruff check .", ClassCheck, false, false, "", false},
		{"./scripts/verify --all", ClassCheck, false, false, "", false},
		{"go test ./... 2>&1 | tail -20", ClassCheck, true, false, "", false},
		{"set -o pipefail; go test ./... | tail -20", ClassCheck, false, false, "", false},
		{"go test ./...; echo done", ClassCheck, true, false, "", false},
		{"go vet ./... && go test ./...", ClassCheck, false, false, "", false},
		{"go test ./... || true", ClassCheck, true, false, "", false},
		{"gofmt -w . && go test ./...", ClassCheck, false, true, "", false},
		{"cat README.md", ClassRead, false, false, "README.md", false},
		{"cat a.go b.go", ClassRead, false, false, "", false},
		{"head -n 50 src/main.go", ClassRead, false, false, "src/main.go", true},
		{"sed -n '10,40p' internal/x.go", ClassRead, false, false, "internal/x.go", true},
		{"rg -n 'func Parse' .", ClassRead, false, false, "", false},
		{"grep -rn foo src | head", ClassRead, false, false, "", false},
		{"find . -name '*.go' | wc -l", ClassRead, false, false, "", false},
		{"git status && git diff", ClassRead, false, false, "", false},
		{"git log --oneline -5", ClassRead, false, false, "", false},
		{"ls -la 2>/dev/null", ClassRead, false, false, "", false},
		{"echo changed >> notes.txt", ClassEdit, false, true, "", false},
		{"cat > out.txt <<'EOF'\nhello\nEOF", ClassEdit, false, true, "", false},
		{"sed -i 's/a/b/' x.go", ClassEdit, false, true, "", false},
		{"rm -rf build", ClassEdit, false, true, "", false},
		{"git checkout -- file.go", ClassEdit, false, true, "", false},
		// A branch made at HEAD, a stash listed: the work tree is as it was.
		{"git checkout -b fix/empty-pack", ClassRead, false, false, "", false},
		{"git switch -c topic", ClassRead, false, false, "", false},
		{"git stash list", ClassRead, false, false, "", false},
		{"git -C stash stash list", ClassRead, false, false, "", false}, // a folder named like the subcommand
		{"git stash show -p stash@{0}", ClassRead, false, false, "", false},
		{"git checkout -b topic origin/main", ClassEdit, false, true, "", false},
		{"git checkout main", ClassEdit, false, true, "", false},
		{"git switch -c topic v1.2", ClassEdit, false, true, "", false},
		{"git stash", ClassEdit, false, true, "", false},
		{"git stash pop", ClassEdit, false, true, "", false},
		{"git reset HEAD~1", ClassRead, false, false, "", false},
		{"git reset --soft HEAD~2", ClassRead, false, false, "", false},
		{"git reset --hard HEAD~1", ClassEdit, false, true, "", false},
		{"find . -name '*.orig' -delete", ClassEdit, false, true, "", false},
		{"find . -type f -name '*.go' -exec sed -i '' 's|old/mod|new/mod|g' {} +", ClassEdit, false, true, "", false},
		{"find . -name '*.go' -exec grep -l needle {} \\;", ClassRun, false, false, "", false},
		{"echo hi | tee log.txt", ClassEdit, false, true, "", false},
		{"go run ./cmd/app 2>&1", ClassRun, false, false, "", false},
		{"./app --flag", ClassRun, false, false, "", false},
		{"curl -s localhost:8080/health", ClassRun, false, false, "", false},
		{"sleep 30", ClassPoll, false, false, "", false},
		{"tail -f server.log", ClassPoll, false, false, "", false},
		{"echo hello", ClassRun, false, false, "", false},
		{"false", ClassRun, false, false, "", false},
		{"", ClassRun, false, false, "", false},
		{`echo "unterminated`, ClassRun, false, false, "", false},
	}
	for _, c := range cases {
		got := ClassifyShell(c.cmd, &cfg)
		if got.Class != c.class || got.Masked != c.masked || got.Changes != c.changes || got.Target != c.target || got.Ranged != c.ranged {
			t.Errorf("%q: got %+v, want class=%s masked=%v changes=%v target=%q ranged=%v", c.cmd, got, c.class, c.masked, c.changes, c.target, c.ranged)
		}
	}
}

func TestFailureSignatureNormalizes(t *testing.T) {
	one, two := 1, 2
	a := FailureSignature(&one, "--- FAIL: TestX (0.00s)\n    x_test.go:12: boom\nFAIL")
	b := FailureSignature(&one, "--- FAIL: TestX (0.31s)\n    x_test.go:14: boom\nFAIL\nok other 0.2s")
	if a != b {
		t.Error("timings, line numbers and trailing lines should not change the signature")
	}
	if a == FailureSignature(&two, "--- FAIL: TestX (0.00s)\n    x_test.go:12: boom\nFAIL") {
		t.Error("the exit code is part of the signature")
	}
	if a == FailureSignature(&one, "--- FAIL: TestY (0.00s)\n    y_test.go:12: other\nFAIL") {
		t.Error("a different error must change the signature")
	}
}

// A failure whose count moved is not the same error: the digits that count
// failures survive normalization, every other number is folded.
func TestFailureSignatureKeepsFailureCounts(t *testing.T) {
	one := 1
	out := func(n string) string {
		return "    debug_sql_test.go:46: wrote " + n + " failing files\n--- FAIL: TestDebugSQLFailures (1.00s)\nFAIL"
	}
	if FailureSignature(&one, out("20")) == FailureSignature(&one, out("10")) {
		t.Error("20 failing files and 10 failing files share a signature")
	}
	if FailureSignature(&one, out("20")) != FailureSignature(&one, strings.Replace(out("20"), "1.00s", "0.71s", 1)) {
		t.Error("a duration split one failure into two")
	}
	for _, c := range [][2]string{
		{"3 failed, 10 passed in 1.2s", "2 failed, 11 passed in 1.3s"},
		{"FAILED (failures=3)", "FAILED (failures=2)"},
		{"Found 5 errors in 2 files", "Found 4 errors in 2 files"},
		{"Tests: failed: 4", "Tests: failed: 3"},
		{"✖ 7 problems (7 errors, 0 warnings)", "✖ 6 problems (6 errors, 0 warnings)"},
	} {
		if normalizeErrLine(c[0]) == normalizeErrLine(c[1]) {
			t.Errorf("%q and %q normalize alike", c[0], c[1])
		}
	}
	for _, c := range [][2]string{
		{"3 failed, 10 passed in 1.2s", "3 failed, 11 passed in 1.9s"},
		{"x_test.go:12: boom", "x_test.go:14: boom"},
		{"make: *** [test] Error 2", "make: *** [test] Error 2"},
		{"ERROR 230:32 unexpected token", "ERROR 94:48 unexpected token"},
	} {
		if normalizeErrLine(c[0]) != normalizeErrLine(c[1]) {
			t.Errorf("%q and %q normalize apart: %q, %q", c[0], c[1], normalizeErrLine(c[0]), normalizeErrLine(c[1]))
		}
	}
}
