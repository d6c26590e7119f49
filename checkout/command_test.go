package checkout

import (
	"reflect"
	"testing"
)

func TestPlanReaders(t *testing.T) {
	for _, c := range []struct {
		command string
		first   string // the first reader consulted
		direct  bool
		silent  bool
	}{
		{"go test ./...", "go test", true, false},
		{"cd sub && go test -race ./... 2>&1 | tail -20", "go test", true, false},
		{"GOFLAGS=-mod=mod timeout 300 go test ./pkg", "go test", true, false},
		{"go vet ./...", "go vet", true, true},
		{"go build ./... && go vet ./...", "go build", true, true},
		{"/usr/local/go/bin/go build -o /dev/null .", "go build", true, true},
		{"npx jest --ci", "jest", true, false},
		{"npx -y vitest run", "vitest", true, false},
		{"pnpm exec mocha", "mocha", true, false},
		{"yarn jest", "jest", true, false},
		{"pnpm vitest run", "vitest", true, false},
		{"npm test", "go test", false, false},
		{"npm run lint", "go test", false, false},
		{"make test", "go test", false, false},
		{"just test", "go test", false, false},
		{"task test", "go test", false, false},
		{"./scripts/check.sh | tail -5", "go test", false, false},
		{"cargo test --offline", "cargo test", true, false},
		{"cargo +nightly test", "cargo test", true, false},
		{"cargo clippy -- -D warnings", "cargo check", true, false},
		{"python -m pytest -q", "pytest", true, false},
		{"python3 -X dev -m pytest", "pytest", true, false},
		{"uv run pytest tests/", "pytest", true, false},
		{"uv run --with pytest-cov pytest", "pytest", true, false},
		{"poetry run pytest", "pytest", true, false},
		{"poetry run mypy .", "mypy", true, false},
		{"uvx ruff check .", "ruff", true, false},
		{"bundle exec rspec spec/x_spec.rb", "rspec", true, false},
		{"ruby -Itest test/calc_test.rb", "minitest", true, false},
		{"bin/rails test", "minitest", true, false},
		{"bundle exec rake test", "go test", false, false},
		{"MIX_ENV=test mix test --trace", "mix test", true, false},
		{"npx tsc --noEmit", "tsc", true, true},
		{"npx eslint . --max-warnings 0", "eslint", true, true},
		{"golangci-lint run ./...", "golangci-lint", true, true},
		{"env CI=1 npx jest", "jest", true, false},
		{"git stash && go vet ./...; git stash pop", "go vet", true, true},
		{"go test ./... > out.txt 2>&1; tail -20 out.txt", "go test", true, false},
	} {
		p := parseCommand(c.command)
		if len(p.readers) == 0 || p.readers[0].name != c.first || p.direct != c.direct || p.silent != c.silent {
			first := ""
			if len(p.readers) > 0 {
				first = p.readers[0].name
			}
			t.Errorf("%q: first reader %q, direct %v, silent %v; want %q, %v, %v",
				c.command, first, p.direct, p.silent, c.first, c.direct, c.silent)
		}
	}
}

func TestPlanView(t *testing.T) {
	for _, c := range []struct {
		command string
		want    cmdView
	}{
		{"go test ./...", cmdView{}},
		{"go test ./... | tail -5", cmdView{cuts: []cut{{tail: true, n: 5}}}},
		{"go test ./... 2>&1 | tail -n 20", cmdView{cuts: []cut{{tail: true, n: 20}}}},
		{"go test ./... | tail -n +3", cmdView{cuts: []cut{{tail: true, n: 3, from: true}}}},
		{"go test ./... | head", cmdView{cuts: []cut{{n: 10}}}},
		{"go test ./... | head -c 400", cmdView{cuts: []cut{{bytes: true, n: 400}}}},
		{"go test ./... | head --lines=-2", cmdView{cuts: []cut{{n: 10, neg: true}}}},
		{"go test ./... | tee out.log | tail -3", cmdView{cuts: []cut{{tail: true, n: 3}}}},
		{`go test ./... 2>&1 | grep -E "FAIL|ok"`, cmdView{filtered: true}},
		{"go test ./... | tail -3 > out.log", cmdView{cuts: []cut{{tail: true, n: 3}}, filtered: true}},
		{"go test ./... > out.log 2>&1; tail out.log", cmdView{filtered: true, stderrLost: true}},
		{"go vet ./... 2>/dev/null | head", cmdView{cuts: []cut{{n: 10}}, stderrLost: true}},
		{"go vet ./... &>/dev/null", cmdView{filtered: true, stderrLost: true}},
		{"go vet ./... 2>&1 >/dev/null", cmdView{filtered: true}},
		{"go test ./... ; echo done", cmdView{}},
		{"go test ./... || true", cmdView{}},
		{"(cd sub && go test ./...) | tail -3", cmdView{cuts: []cut{{tail: true, n: 3}}}},
		{"{ go test ./...; echo x; } 2>&1 | head -5", cmdView{cuts: []cut{{n: 5}}}},
		{"go test ./... | cat", cmdView{}},
		{"go test ./... | less", cmdView{}},
		{"go test ./... | wc -l", cmdView{filtered: true}},
		{`go test ./... 2>&1 | tail -5 # "| head"`, cmdView{cuts: []cut{{tail: true, n: 5}}}},
		{`echo "a | head" && go test ./...`, cmdView{}},
		{"go test ./... |& tail -2", cmdView{cuts: []cut{{tail: true, n: 2}}}},
		{"go test ./... | tail -f", cmdView{cuts: []cut{{tail: true, n: 10}}}},
		{"go vet ./... 2>&1 | head -n 0", cmdView{filtered: true}},
		{"go test ./... | tail -n +1", cmdView{cuts: []cut{{tail: true, n: 1, from: true}}}},
	} {
		got := parseCommand(c.command).view
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: view %+v, want %+v", c.command, got, c.want)
		}
	}
}

func TestGoSinglePackage(t *testing.T) {
	for _, c := range []struct {
		command string
		one     bool
	}{
		{"go test", true},
		{"go test .", true},
		{"go test -run TestX ./pkg", true},
		{"go test -run 'TestX/sub' -count=1 ./pkg", true},
		{"go test -v -coverprofile c.out ./pkg", true},
		{"go test ./...", false},
		{"go test ./a ./b", false},
		{"go test ./a/...", false},
		{"go test x_test.go x.go", true},
		{"go test ./pkg -args ./other", true},
	} {
		if got := parseCommand(c.command).goOne; got != c.one {
			t.Errorf("%q: single package %v, want %v", c.command, got, c.one)
		}
	}
}

func TestEchoLiterals(t *testing.T) {
	p := parseCommand(`go vet ./... ; echo "vet done"; echo -e ok; echo "$?"; echo -n x`)
	if want := []string{"vet done", "ok"}; !reflect.DeepEqual(p.echoes, want) {
		t.Errorf("echoes %q, want %q", p.echoes, want)
	}
}

func TestMaxWarnings(t *testing.T) {
	for cmd, want := range map[string]int{
		"npx eslint .":                     -1,
		"npx eslint . --max-warnings 0":    0,
		"npx eslint --max-warnings=3 src/": 3,
	} {
		if got := parseCommand(cmd).maxWarn; got != want {
			t.Errorf("%q: max warnings %d, want %d", cmd, got, want)
		}
	}
}

func TestSplitCommandForgiving(t *testing.T) {
	// Unbalanced quotes, groups and substitutions still yield words.
	for _, cmd := range []string{`go test "./...`, `go test ./... | tail -5'`, `(go test`, `go test )) | tail`,
		"go test $(go list ./... | grep -v e2e", "go test `x", "go test ${X", `go test \`, "go test 2>", "go test >&"} {
		_ = parseCommand(cmd)
	}
}
