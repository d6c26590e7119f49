package engine

import "testing"

func TestSearchFP(t *testing.T) {
	same := [][]string{
		{`func NewServer`, `"func NewServer"`, `func\s+NewServer`, `'func NewServer'`, `FUNC newserver`},
		{`foo(bar`, `foo\(bar`, `"foo\\(bar"`, `foo.*bar`},
	}
	for _, group := range same {
		for _, p := range group[1:] {
			if SearchFP(p) != SearchFP(group[0]) {
				t.Errorf("%q and %q are one term", p, group[0])
			}
		}
	}
	if SearchFP("foo bar") == SearchFP("foobar") {
		t.Error("two words are not one")
	}
	if SearchFP(`"(*)"`) != "" || SearchFP("") != "" {
		t.Error("a pattern of punctuation has no term")
	}
}

func TestShellSearch(t *testing.T) {
	cases := []struct {
		cmd, pattern, filter string
		plain                bool
	}{
		{`grep -rn "func Foo" src/`, "func Foo", "", true},
		{`cd app && rg -n 'foo\(' --type go`, `foo\(`, "go", true},
		{`rg -g '*.go' -e Bar .`, "Bar", "*.go", true},
		{`rg Bar --glob='*.go' -g '!vendor'`, "Bar", "*.go !vendor", true},
		{`grep -rn --include="*.go" go-git .`, "go-git", "*.go", true},
		{`git grep -n Baz`, "Baz", "", true},
		{`grep -A 3 qux file.go`, "qux", "", true},
		{`grep foo file | head -5`, "foo", "", false},
		{`grep foo file || echo none`, "foo", "", false},
		{`ls src`, "", "", false},
		{`find . -name x`, "", "", false},
	}
	for _, c := range cases {
		p, f, plain := ShellSearch(c.cmd)
		if p != c.pattern || f != c.filter || plain != c.plain {
			t.Errorf("%s: got %q %q %v, want %q %q %v", c.cmd, p, f, plain, c.pattern, c.filter, c.plain)
		}
	}
}

func TestPlainCommand(t *testing.T) {
	same := [][]string{
		{"go test ./...", "go test ./... | tail -20", "go test -v ./... 2>&1 | grep -E 'FAIL|ok'", "go test -count=1 ./... | cat",
			"go test -count 1 ./... 2>&1 | tail -5; echo \"exit $?\"", "go test ./... 2>&1 | head -50"},
		{"cd web && npm test", "cd web && npm test -- --verbose 2>&1 | tail -30"},
		{"pytest tests/", "pytest -q tests/", "pytest tests/ -v --tb=short | tail -3"},
	}
	for _, group := range same {
		for _, c := range group[1:] {
			if got, want := PlainCommand(c), PlainCommand(group[0]); got != want {
				t.Errorf("%q: plain %q, want %q", c, got, want)
			}
		}
	}
	differ := [][2]string{
		{"go test ./...", "go test ./parser/"},
		{"go test ./...", "go test -run TestX ./..."},
		{"go test ./...", "go test -race ./..."},
		{"go test ./... && go vet ./...", "go test ./..."},
	}
	for _, d := range differ {
		if PlainCommand(d[0]) == PlainCommand(d[1]) {
			t.Errorf("%q and %q run different things", d[0], d[1])
		}
	}
}

func TestProgram(t *testing.T) {
	cases := map[string]string{
		"go vet ./...":                   "go vet",
		"cd x && go test -run T ./p":     "go test",
		"FOO=1 timeout 60 npm test -- a": "npm test",
		"golangci-lint run ./...":        "golangci-lint run",
		"pytest tests/a.py -k x":         "pytest",
		"./scripts/check.sh --fast":      "./scripts/check.sh",
		"python -m mypy src":             "python",
		"echo hi":                        "",
	}
	for cmd, want := range cases {
		if got := program(cmd); got != want {
			t.Errorf("%s: %q, want %q", cmd, got, want)
		}
	}
}
