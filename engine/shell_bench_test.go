package engine

import "testing"

// BenchmarkClassifyShell classifies commands of every kind the hook sees:
// a read, a check behind a pipe, a check by path, a chain of edits and a
// command that is no check at all.
func BenchmarkClassifyShell(b *testing.B) {
	cfg := DefaultConfig()
	cmds := []string{
		"cat cully-note.txt",
		"go test ./... 2>&1 | tail -20",
		"/usr/local/bin/pytest -k parse -x",
		"sed -i 's/a/b/' x.go && gofmt -w x.go",
		"docker compose up -d",
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range cmds {
			ClassifyShell(c, &cfg)
		}
	}
}

// BenchmarkBookGaps books the same commands, and a lookup, for the tool
// gaps: the cost the hook pays on every shell call's result.
func BenchmarkBookGaps(b *testing.B) {
	cmds := []string{
		"cat cully-note.txt",
		"go test ./... 2>&1 | tail -20",
		"/usr/local/bin/pytest -k parse -x",
		"sed -i 's/a/b/' x.go && gofmt -w x.go",
		"docker compose up -d",
		"which jq || echo none",
	}
	evs := make([]Event, len(cmds))
	for i, c := range cmds {
		evs[i] = Event{Kind: KindPostTool, Tool: "Bash", Cmd: c, Outcome: OutcomeOK}
	}
	st := NewState("s")
	b.ReportAllocs()
	for b.Loop() {
		for i := range evs {
			st.bookGaps(&evs[i])
		}
		st.Gaps = st.Gaps[:0]
	}
}

// BenchmarkShellGuards runs the guards that read a shell command's words
// (broad-search, edits-git-internals, changes-machine) on the commands an
// agent runs most, none of which they warn about: their cost on every
// pre-tool call of a shell command.
func BenchmarkShellGuards(b *testing.B) {
	cfg := DefaultConfig()
	s := NewState("s")
	var evs []Event
	for _, c := range []string{
		"cat /home/dev/app/internal/cully-note.txt",
		"go test ./... 2>&1 | tail -20",
		"/usr/local/bin/pytest -k parse -x",
		"sed -i 's/a/b/' x.go && gofmt -w x.go",
		"git diff --stat origin/main...HEAD -- internal/",
		"rg -n 'func Parse' internal/parser/ | head -20",
		"npm run build 2>&1 | grep -i error",
	} {
		evs = append(evs, Event{Tool: "Bash", Class: ClassRun, Cmd: c, CmdFP: c})
	}
	guards := []*guardRule{&broadSearch, &gitInternals, &machineChange}
	b.ReportAllocs()
	for b.Loop() {
		for i := range evs {
			for _, g := range guards {
				g.check(s, &evs[i], &cfg)
			}
		}
	}
}
