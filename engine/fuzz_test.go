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

// MissingProgram keeps nothing but a program-like word the command itself
// holds, whatever the error text; and the gaps' lookups read any command
// without panicking.
func FuzzMissingProgram(f *testing.F) {
	for _, s := range [][2]string{
		{"bash: line 1: jq: command not found", "cd x && jq ."},
		{"zsh:1: command not found: fd", "fd -e go"},
		{"env: 'deno': No such file or directory", "env A=1 deno run x.ts"},
		{"jq : The term 'jq' is not recognized as a name", "jq ."},
		{"", "sudo apt-get install -y jq && which jq || find / -name '*jq*'"},
		{"sh: 1: : not found", "npm view @a/b@1 version; pip install -r r.txt x==1"},
	} {
		f.Add(s[0], s[1], 127)
	}
	f.Fuzz(func(t *testing.T, errText, cmd string, exit int) {
		got := MissingProgram(&exit, errText, cmd)
		if got != "" {
			var words []string
			for _, sg := range splitShell(cmd) {
				for _, w := range sg.words {
					words = append(words, gapName(w))
				}
			}
			if gapName(got) != got || !contains(words, got) {
				t.Fatalf("MissingProgram(%q, %q) = %q: not a program word of the command", errText, cmd, got)
			}
		}
		for _, sg := range splitShell(cmd) {
			for _, q := range gapQueries(sg.words) {
				if q.name == "" || gapName(q.name) != q.name {
					t.Fatalf("%q: lookup of %q", cmd, q.name)
				}
			}
		}
	})
}
