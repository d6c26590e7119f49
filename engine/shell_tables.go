package engine

// The tables the shell classifier matches words against. Only names and
// prefixes live here; how they are matched is in shell.go.

// runnerPrefixes run another program named by the next words; they are
// dropped before check patterns are matched ("npx tsc", "uv run pytest").
var runnerPrefixes = [][]string{
	{"npx"}, {"bunx"}, {"pnpx"}, {"pnpm", "exec"}, {"pnpm", "dlx"}, {"yarn", "exec"}, {"yarn", "dlx"},
	{"uv", "run"}, {"uvx"}, {"poetry", "run"}, {"pipenv", "run"}, {"pdm", "run"}, {"hatch", "run"},
	{"bundle", "exec"}, {"python", "-m"}, {"python3", "-m"}, {"py", "-m"}, {"go", "tool"},
	{"mise", "exec", "--"}, {"dotenv", "--"},
}

// checkPatterns are the default check commands: tests, builds, linters and
// type checks. Broad on purpose: a missed check runner turns into a false
// unverified-edits alarm. Each is matched against the leading words; a
// trailing "*" matches any word that starts with the prefix.
var checkPatterns = []string{
	"go test", "go vet", "go build", "go install", "gotestsum", "golangci-lint", "staticcheck", "govulncheck", "gofmt -l", "revive",
	"pytest", "py.test", "tox", "nox", "mypy", "pyright", "ruff check", "ruff format --check", "flake8", "pylint", "black --check", "unittest",
	"npm test", "npm t", "npm run test*", "npm run lint*", "npm run check*", "npm run typecheck*", "npm run type-check*", "npm run build*", "npm run vet*",
	"pnpm test", "pnpm run test*", "pnpm run lint*", "pnpm run check*", "pnpm run typecheck*", "pnpm run build*", "pnpm test*", "pnpm lint*", "pnpm typecheck*", "pnpm build*", "pnpm check*",
	"yarn test*", "yarn lint*", "yarn typecheck*", "yarn build*", "yarn check*", "yarn run test*", "yarn run lint*", "yarn run typecheck*", "yarn run build*",
	"bun test", "bun run test*", "bun run lint*", "bun run typecheck*", "bun run build*", "bun run check*",
	"deno test", "deno check", "deno lint",
	"cargo test", "cargo check", "cargo clippy", "cargo build", "cargo nextest", "cargo fmt --check",
	"make test*", "make check*", "make lint*", "make vet*", "make typecheck*", "make build", "make",
	"just test*", "just check*", "just lint*", "just vet*", "just typecheck*",
	"mise run test*", "mise run check*", "mise run lint*", "mise run typecheck*", "mise test*",
	"task test*", "task check*", "task lint*", "task vet*", "task typecheck*",
	"mix test", "mix compile", "mix credo", "mix format --check-formatted", "mix dialyzer",
	"rspec", "rake test*", "rake spec", "rubocop", "bin/rails test",
	"gradle test", "gradle check", "gradle build", "./gradlew test", "./gradlew check", "./gradlew build", "gradlew test",
	"mvn test", "mvn verify", "mvn package", "mvn compile", "./mvnw test", "./mvnw verify",
	"dotnet test", "dotnet build", "swift test", "swift build", "ctest", "zig build test", "zig test",
	"tsc", "vue-tsc", "eslint", "biome check", "biome lint", "biome ci", "prettier --check", "prettier -c", "stylelint",
	"jest", "vitest", "mocha", "ava", "playwright test", "cypress run", "karma start",
	"phpunit", "vendor/bin/phpunit", "composer test", "phpstan", "psalm",
	"shellcheck", "hadolint", "terraform validate", "tflint", "bazel test", "bazel build", "buck2 test",
	"clang-tidy", "cppcheck", "meson test", "ninja test", "cmake --build", "elm-test", "stack test", "cabal test", "dune test", "dune build",
	"bash -n", "sh -n", "zsh -n", "py_compile", "node --check", "ruby -c", "php -l", "perl -c",
}

// readOnly commands only read the tree (after wrappers are stripped).
func readOnly(s string) bool {
	switch s {
	case "cat", "head", "tail", "less", "more", "wc", "rg", "grep", "egrep", "fgrep", "ag", "ack", "find",
		"fd", "fdfind", "ls", "tree", "file", "stat", "du", "df", "pwd", "which", "whereis", "type",
		"realpath", "readlink", "basename", "dirname", "diff", "cmp", "sort", "uniq", "cut", "jq", "yq",
		"bat", "batcat", "nl", "od", "xxd", "hexdump", "strings", "column", "sed", "awk", "tr", "comm",
		"printenv", "locate", "zcat", "md5sum", "sha256sum", "sha1sum", "tac":
		return true
	}
	return false
}

// neutral commands do not decide a command line's class.
func neutral(s string) bool {
	switch s {
	case "cd", "pushd", "popd", "set", "export", "echo", "printf", "true", ":", "unset", "source", ".",
		"shopt", "trap", "exit", "date", "clear", "read":
		return true
	}
	return false
}

// changers modify files whatever their arguments.
func changers(s string) bool {
	switch s {
	case "rm", "mv", "cp", "touch", "mkdir", "rmdir", "ln", "chmod", "chown", "patch", "truncate",
		"install", "dd", "unzip", "rsync", "shred":
		return true
	}
	return false
}

// gitRead are git subcommands that only read.
func gitRead(s string) bool {
	switch s {
	case "status", "log", "show", "diff", "blame", "grep", "ls-files", "rev-parse", "describe", "shortlog",
		"reflog", "ls-tree", "cat-file", "whatchanged", "branch", "tag", "remote", "config", "rev-list",
		"show-ref", "merge-base", "name-rev", "for-each-ref", "worktree":
		return true
	}
	return false
}

// gitChange are git subcommands that rewrite the work tree.
func gitChange(s string) bool {
	switch s {
	case "apply", "am", "checkout", "restore", "reset", "merge", "rebase", "cherry-pick", "revert", "mv",
		"rm", "pull", "switch", "clean", "stash":
		return true
	}
	return false
}
