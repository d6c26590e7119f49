package engine

import (
	"reflect"
	"testing"
)

func TestSplitShell(t *testing.T) {
	type seg struct {
		words, redirs []string
		op            string
	}
	w := func(words ...string) []string { return words }
	cases := []struct {
		name string
		cmd  string
		want []seg
	}{
		{"one command", "go test ./...", []seg{{w("go", "test", "./..."), nil, ""}}},
		{"and", "cd /repo && go test", []seg{{w("cd", "/repo"), nil, "&&"}, {w("go", "test"), nil, ""}}},
		{"or, background, end", "a || b & c", []seg{{w("a"), nil, "||"}, {w("b"), nil, "&"}, {w("c"), nil, ""}}},
		{"newline separates like ;", "a\nb", []seg{{w("a"), nil, ";"}, {w("b"), nil, ""}}},
		{"empty segments collapse", "&& a ;; b", []seg{{w("a"), nil, ";"}, {w("b"), nil, ""}}},
		{"quotes and escapes join words", `echo "a b" 'c d' e\ f`, []seg{{w("echo", "a b", "c d", "e f"), nil, ""}}},
		{"line continuation", "a \\\n b", []seg{{w("a", "b"), nil, ""}}},
		{"unterminated quote still yields words", `echo "unterminated`, []seg{{w("echo", "unterminated"), nil, ""}}},
		{"append to a file", "echo x >> notes.txt", []seg{{w("echo", "x"), w("notes.txt"), ""}}},
		{"&> to a file", "make &> build.log", []seg{{w("make"), w("build.log"), ""}}},
		{"descriptor duplication is no file", "go test 2>&1 | tail -20", []seg{{w("go", "test"), nil, "|"}, {w("tail", "-20"), nil, ""}}},
		{">&2 is no file", "echo hi >&2", []seg{{w("echo", "hi"), nil, ""}}},
		{"/dev/null is no file", "ls 2>/dev/null; pwd", []seg{{w("ls"), nil, ";"}, {w("pwd"), nil, ""}}},
		{"input redirection is skipped", "sort < in.txt | uniq", []seg{{w("sort"), nil, "|"}, {w("uniq"), nil, ""}}},
		{"here-doc body is data", "cat > out.txt <<'EOF'\nrm -rf /\nEOF", []seg{{w("cat"), w("out.txt"), ""}}},
		{"the line after a here-doc goes on", "git commit -F - <<'EOF'\nit's the `x` fix\nEOF\ngit push 2>&1 | tail -3",
			[]seg{{w("git", "commit", "-F", "-"), nil, ";"}, {w("git", "push"), nil, "|"}, {w("tail", "-3"), nil, ""}}},
		{"<<- drops the tabs", "cat <<-END > f\n\tbody\n\tEND\nls", []seg{{w("cat"), w("f"), ";"}, {w("ls"), nil, ""}}},
		{"two here-docs on one line", "cmd <<A <<\"B\"\na\nA\nb\nB\npwd", []seg{{w("cmd"), nil, ";"}, {w("pwd"), nil, ""}}},
		{"a body with no end is data", "cat <<EOF\nrm -rf /\n", []seg{{w("cat"), nil, ""}}},
		{"a here-string is no here-doc", "grep x <<< \"$v\"; ls", []seg{{w("grep", "x"), nil, ";"}, {w("ls"), nil, ""}}},
		{"assignments are words", "x=1 y=2", []seg{{w("x=1", "y=2"), nil, ""}}},
		{"empty", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []seg
			for _, s := range splitShell(c.cmd) {
				got = append(got, seg{s.words, s.redirs, s.op})
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("splitShell(%q)\n got %q\nwant %q", c.cmd, got, c.want)
			}
		})
	}
}
