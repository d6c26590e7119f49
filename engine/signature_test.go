package engine

import (
	"strings"
	"testing"
)

func TestErrorSignature(t *testing.T) {
	same := [][2]string{
		{"/bin/bash: -c: line 1: syntax error near unexpected token `('", "/bin/bash: -c: line 3: syntax error near unexpected token `('"},
		{"bash: rg: command not found", "bash: rg: command not found"},
		{"cat: src/a.go: No such file or directory", "cat: lib/b.go: No such file or directory"},
		{"error: unexpected argument '--frobnicate' found", "error: unexpected argument '--json' found"},
	}
	for _, p := range same {
		if a, b := ErrorSignature(p[0]), ErrorSignature(p[1]); a == "" || a != b {
			t.Errorf("want one signature for %q and %q", p[0], p[1])
		}
	}
	differ := [][2]string{
		{"bash: rg: command not found", "cat: a: No such file or directory"},
		{"--- FAIL: TestA (0.00s)", "panic: runtime error: index out of range"},
	}
	for _, p := range differ {
		if ErrorSignature(p[0]) == ErrorSignature(p[1]) {
			t.Errorf("want different signatures for %q and %q", p[0], p[1])
		}
	}
	for _, empty := range []string{"", "\n\n", "  ", "1", "--"} {
		if s := ErrorSignature(empty); s != "" {
			t.Errorf("%q has nothing to judge by, got %q", empty, s)
		}
	}
}

func TestCheckFamily(t *testing.T) {
	cases := []struct{ cmd, want string }{
		{"go test ./parser/", ""},
		{"go test -run TestParse ./parser/", "go test ./parser/"},
		{"go test -run=TestParse -v -count=1 ./parser/", "go test ./parser/"},
		{"go test -count 1 ./parser/", "go test ./parser/"},
		{"pytest -k test_empty tests/test_parse.py", "pytest tests/test_parse.py"},
		{"pytest tests/test_parse.py::test_empty -x", "pytest tests/test_parse.py"},
		{"npx jest --testNamePattern=parses src/parser.test.ts", "npx jest src/parser.test.ts"},
		{"npx jest -t 'parses empty' src/parser.test.ts", "npx jest src/parser.test.ts"},
		{"go test -run TestX ./p 2>&1 | tail -5", "go test ./p | tail -5"},
		{"cargo test", ""},
	}
	for _, c := range cases {
		if got := CheckFamily(c.cmd); got != c.want {
			t.Errorf("CheckFamily(%q) = %q, want %q", c.cmd, got, c.want)
		}
	}
}

// A cgo package prints the same C warning before every test run: the error
// is what follows it, so two different failures keep two signatures.
func TestErrorSignatureSkipsCompilerWarnings(t *testing.T) {
	warn := "# github.com/x/tree-sitter/lua\nparser.c:254:18: warning: null character(s) preserved in string literal [-Wnull-character]\n  254 |   [anon] = \"\\0\",\n      |            ^\n"
	a := warn + "--- FAIL: TestParse (0.00s)\n    parser_test.go:224: parse status = error\nFAIL\n"
	b := warn + "--- FAIL: TestLex (0.00s)\n    lexer_test.go:12: unexpected token\nFAIL\n"
	if ErrorSignature(a) == ErrorSignature(b) {
		t.Error("two failures behind one compiler warning share a signature")
	}
	if ErrorSignature(a) != ErrorSignature(strings.Replace(a, "254", "255", -1)) {
		t.Error("the warning's line number changes the signature")
	}
}
