package engine

import "testing"

// Shell classification and the signatures never panic, are deterministic,
// and keep their promises on any command line.
func FuzzClassifyShell(f *testing.F) {
	for _, s := range []string{"go test ./... 2>&1 | tail -5", "cd x && make test; echo $?", "cat <<'EOF' > .env\nA=1\nEOF",
		"sleep 20 && kubectl rollout status deploy/web", `echo "unterminated`, "a | b || c && d ; e &", "sed -i 's/a/b/' f.go"} {
		f.Add(s)
	}
	cfg := DefaultConfig()
	f.Fuzz(func(t *testing.T, cmd string) {
		a, b := ClassifyShell(cmd, &cfg), ClassifyShell(cmd, &cfg)
		if a != b {
			t.Fatalf("not deterministic: %+v vs %+v", a, b)
		}
		switch a.Class {
		case ClassRead, ClassEdit, ClassCheck, ClassRun, ClassPoll:
		default:
			t.Fatalf("class %q", a.Class)
		}
		if a.Masked && a.Class != ClassCheck {
			t.Fatalf("masked but not a check: %+v", a)
		}
		n := NormalizeCommand(cmd)
		if NormalizeCommand(n) != n {
			t.Fatalf("normalization is not idempotent: %q", n)
		}
		_ = CheckFamily(cmd)
		_ = ErrorSignature(cmd)
		_ = FailureSignature(nil, cmd)
	})
}
