package engine

import (
	"slices"
	"testing"
)

func TestPromptCommands(t *testing.T) {
	cases := []struct {
		name   string
		prompt string
		want   []string
	}{
		{"backticked command that crashes", "`mytool sync --all` crashes on an empty repo", []string{cmdKey("mytool", "sync")}},
		{"backticked with a flag", "running `./bin/mytool --verbose` panics", []string{cmdKey("mytool", "")}},
		{"a known program", "npm install fails with EACCES. Also `git push` is broken", []string{cmdKey("git", "push"), cmdKey("npm", "install")}},
		{"no report", "please add a `mytool sync` subcommand", nil},
		{"code, not a command", "there is a bug in `func parse` and in `s.Commands` and `parse(x)`", nil},
		{"a single word", "`mytool` fails", nil},
		{"a file", "`main.go run` error", nil},
		{"English after a known program", "go ahead and make sure the error is handled", nil},
		{"a pasted terminal: the error under its command", "❯ go run ./cmd/tool sync \\\n    --tags \\\n    https://example.com/a.git\n\nerror: push target refs: object not found\nexit status 1",
			[]string{cmdKey("go", "run")}},
		{"a pasted review: failure words far from the commands", "Review findings:\n\n1. Medium: the retry loop can spin when the server returns an error.\n2. Low: a wrong comment.\n\n\n\n\nVerified locally: `go build ./...`, `go vet ./...` and `go test ./...` pass.",
			nil},
		{"a review with its sections", "Here's my review of the branch changes.\n\n## Overall\n\nSolid.\n\n## Issues / nitpicks\n\n**1. Breaking JSON field rename** silently breaks consumers; `go test ./...` would not catch it.",
			nil},
		{"a review's findings", "1. Medium: the `fetch --all-refs` wording overstates what it does.\n\nI didn't find additional correctness regressions.", nil},
		{"fenced output left out", "it fails:\n```\n$ other thing\nerror\n```\nwhen I run `mytool build`", []string{cmdKey("mytool", "build")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := PromptCommands(c.prompt)
			slices.Sort(got)
			want := slices.Clone(c.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

func TestRanReported(t *testing.T) {
	cfg := DefaultConfig()
	fps := []string{cmdKey("mytool", "sync")}
	for _, c := range []struct {
		cmd  string
		want bool
	}{
		{"mytool sync", true},
		{"cd /r && ./bin/mytool sync --all 2>&1 | tail", true},
		{"FOO=1 timeout 30 mytool sync", true},
		{"go run ./cmd/mytool sync", true}, // the project's program through a launcher: may be it
		{"cargo run -- sync", true},
		{"mytool status", false},
		{"go test ./...", false},
		{"python -m pytest tests", false}, // a check through a launcher is the unit tests
		{"grep mytool sync.go", false},
	} {
		if got := ranReported(c.cmd, fps, &cfg); got != c.want {
			t.Errorf("%q: %v, want %v", c.cmd, got, c.want)
		}
	}
	if !ranReported("mytool anything", []string{cmdKey("mytool", "")}, &cfg) {
		t.Error("a report naming no subcommand is any run of the program")
	}
}

func TestReportedCommandRule(t *testing.T) {
	st := func(edits, checks int, cmds ...string) func(s *State) {
		return func(s *State) { s.TaskEdits, s.TaskChecks, s.PromptCmds = edits, checks, cmds }
	}
	stop := Event{Time: ruleNow, Kind: KindStop}
	subStop := stop
	subStop.Subagent = "a1"
	asks, blocked := stop, stop
	asks.EndSays, blocked.EndSays = SaysWaiting, SaysBlocked
	runCheckpointCases(t, reportedCommand, []checkpointCase{
		{name: "edited, tested, never ran it", state: st(3, 2, "fp"), ev: stop,
			evidence: "the prompt reported 1 command failing; the turn ended after 3 edits of code and 2 checks, and none of those commands ran"},
		{name: "ran it", state: st(3, 2), ev: stop},
		{name: "no edit", state: st(0, 2, "fp"), ev: stop},
		{name: "no check", state: st(3, 0, "fp"), ev: stop},
		{name: "a subagent stopped", state: st(3, 2, "fp"), ev: subStop},
		{name: "the turn hands the command back to the user", state: st(3, 2, "fp"), ev: asks},
		{name: "the turn says it cannot go on", state: st(3, 2, "fp"), ev: blocked},
		{name: "not a turn's end", state: st(3, 2, "fp"), ev: Event{Time: ruleNow, Kind: KindPostTool, Class: ClassEdit, Outcome: OutcomeOK}},
	})
}

func TestReportedCommandSequence(t *testing.T) {
	run := func(s *sim, prompt string, calls ...Event) {
		s.apply(Event{Kind: KindPrompt, PromptCmds: PromptCommands(prompt)})
		for _, c := range calls {
			s.call(c)
		}
		s.apply(Event{Kind: KindStop})
	}
	sh := func(cmd string) Event { return Event{Tool: "Bash", Class: ClassRun, Cmd: cmd, CmdFP: "fp-" + cmd} }
	s := newSim(t)
	run(s, "`mytool sync` crashes on empty input", edit("sync.go"), check(OutcomeOK))
	if s.open(ReasonReportedCommand) != 1 {
		t.Fatal("unit tests only: not raised")
	}
	s.apply(Event{Kind: KindStop}) // a second turn's end in the task: once
	if len(s.st.Checkpoints) != 1 {
		t.Fatalf("raised again: %d", len(s.st.Checkpoints))
	}
	run(s, "`mytool sync` crashes on empty input", edit("sync.go"), check(OutcomeOK), sh("./mytool sync < /dev/null"))
	if s.open(ReasonReportedCommand) != 0 {
		t.Fatal("the command was run")
	}
	run(s, "`mytool sync` is slow", edit("sync.go"), check(OutcomeOK))
	if s.open(ReasonReportedCommand) != 0 {
		t.Fatal("nothing reported misbehaving")
	}
}
