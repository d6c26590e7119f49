package engine

import (
	"fmt"
	"strings"
)

// ReasonFinishUnchecked: the turn ended with code edited after the last
// check of any kind.
const ReasonFinishUnchecked Reason = "finish-unchecked"

// finishUnchecked is judged at the end of the agent's turn (a Stop event):
// the foreground agent edited source code (State.CodeSinceTry: files by a
// programming language's extension; docs, data, config and git operations
// have no check to owe) since the task's last check of any kind, passing
// or not, and handed the turn back. "Tests pass" said over edits nothing
// ran is the claim a reviewer has to check by hand; a failing check after
// the edits is finishFailing's. A turn that ends on a question, an
// interrupt or a review-only answer is no mistake, so the rule waits for
// the closing message to claim a passing check (Event.EndClaim), or, with
// finish_checks, fires at every such turn end (blind reviewers found 2 of
// 13 of those firings on the corpus worth a look). Shown, never told.
var finishUnchecked = checkpointRule{
	reason: ReasonFinishUnchecked,
	action: "run the project's checks on the edits before calling them done",
	stop:   true,
	due: func(s *State, ev *Event, _ *CmdSeen, cfg *Config) (string, bool) {
		if !cfg.FinishChecks && ev.EndClaim == "" || ev.Kind != KindStop || ev.Subagent != "" || s.CodeSinceTry == 0 {
			return "", false
		}
		since := "since the last check"
		if s.TaskChecks == 0 {
			since = "and no check ran in this task"
		}
		if ev.EndClaim != "" {
			return fmt.Sprintf("the turn ended after %s of code %s, and its closing message says a check passes", plural(s.CodeSinceTry, "edit"), since), true
		}
		return fmt.Sprintf("the turn ended after %s of code %s", plural(s.CodeSinceTry, "edit"), since), true
	},
	tell:    func(*State, *Config) bool { return false },
	settled: func(s *State, c *Checkpoint) bool { return s.CodeSinceTry == 0 },
}

// bookCodeEdit counts a foreground edit of source code until the next
// check of any kind.
func (s *State) bookCodeEdit(ev *Event) {
	switch {
	case ev.Subagent != "":
	case ev.Class == ClassCheck:
		s.CodeSinceTry = 0
	case ev.Class == ClassEdit && ev.Outcome != OutcomeFailed && (codeFile(ev.Target) || anyCode(ev.Files)):
		s.CodeSinceTry++
	}
}

func anyCode(files []string) bool {
	for _, f := range files {
		if codeFile(f) {
			return true
		}
	}
	return false
}

// codeExts are the extensions of source code a check is owed for.
var codeExts = []string{".go", ".py", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".rs", ".rb", ".ex", ".exs", ".erl", ".java",
	".kt", ".kts", ".scala", ".swift", ".m", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".fs", ".php", ".lua", ".dart", ".zig",
	".hs", ".ml", ".clj", ".vue", ".svelte", ".sh", ".bash", ".zsh", ".sql", ".proto"}

// codeFile reports whether path is source code, by its extension, or a
// build's own file (buildFiles): what a check is owed for.
func codeFile(path string) bool {
	if extIn(path, codeExts) {
		return true
	}
	base := path[strings.LastIndexByte(path, '/')+1:]
	return contains(buildFiles, base)
}

// buildFiles configure how the code builds and its tests run: an edit of
// one changes what the checks check (a test's environment in mise.toml, a
// dependency in go.mod), as an edit of code does.
var buildFiles = []string{"Makefile", "makefile", "GNUmakefile", "justfile", "Justfile", "Taskfile.yml", "Taskfile.yaml",
	"mise.toml", ".mise.toml", "go.mod", "go.work", "package.json", "Cargo.toml", "pyproject.toml", "setup.cfg", "tox.ini",
	"build.gradle", "build.gradle.kts", "settings.gradle", "pom.xml", "CMakeLists.txt", "Dockerfile", "docker-compose.yml",
	"tsconfig.json", "deno.json", "mix.exs", "Gemfile", "composer.json"}
