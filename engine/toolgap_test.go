package engine

import (
	"reflect"
	"testing"
	"time"
)

func TestMissingProgram(t *testing.T) {
	i := func(n int) *int { return &n }
	for _, c := range []struct {
		name string
		exit *int
		text string
		cmd  string
		want string
	}{
		{"bash", i(127), "bash: jq: command not found", "jq . data.json", "jq"},
		{"bash -c line", i(127), "/bin/bash: line 1: rg: command not found", "cd src && rg TODO", "rg"},
		{"dash", i(127), "sh: 1: yq: not found", "yq e '.a' x.yml", "yq"},
		{"busybox", nil, "sh: tsc: not found", "npx tsc || tsc -p .", "tsc"},
		{"zsh", i(127), "zsh: command not found: fd", "fd -e go", "fd"},
		{"zsh with line", i(127), "zsh:1: command not found: fd", "fd -e go", "fd"},
		{"fish", i(127), "fish: Unknown command: bat\nfish: \nbat x", "bat x", "bat"},
		{"env", i(127), "env: 'deno': No such file or directory", "env FOO=1 deno run x.ts", "deno"},
		{"xargs", i(127), "xargs: shfmt: No such file or directory", "git ls-files | xargs shfmt -l", "shfmt"},
		{"powershell", i(1), "jq : The term 'jq' is not recognized as a name of a cmdlet, function, script file", "jq . x", "jq"},
		{"cmd.exe", i(1), "'jq' is not recognized as an internal or external command,", "jq . x", "jq"},
		{"second line", i(127), "Error: something\nbash: line 1: jq: command not found", "jq .", "jq"},
		{"exit 127 alone, one program", i(127), "", "cd x && jq .", "jq"},
		{"exit 127 alone, two programs", i(127), "", "jq . && yq .", ""},
		{"exit 127 of a script by its path", i(127), "bash: ./run.sh: No such file or directory", "./run.sh", ""},
		{"a name the command does not run", i(127), "bash: sk-ant-secret: command not found", "jq .", "jq"},
		{"not a shell's message", i(1), "error: package jq: not found", "cargo add jq", ""},
		{"exit 1, no message", i(1), "boom", "jq .", ""},
		{"no exit, no message", nil, "", "jq .", ""},
		{"a variable", i(127), "bash: $TOOL: command not found", "$TOOL run", ""},
	} {
		if got := MissingProgram(c.exit, c.text, c.cmd); got != c.want {
			t.Errorf("%s: MissingProgram(%q, %q) = %q, want %q", c.name, c.text, c.cmd, got, c.want)
		}
	}
}

func TestGapQueries(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want []gapQuery
	}{
		{"which jq", []gapQuery{{"jq", true}}},
		{"which jq yq", []gapQuery{{"jq", true}, {"yq", true}}},
		{"command -v rg", []gapQuery{{"rg", true}}},
		{"type -a python3", []gapQuery{{"python3", true}}},
		{"whereis shfmt", []gapQuery{{"shfmt", false}}},
		{"find / -name 'jq' -type f", []gapQuery{{"jq", false}}},
		{"find /usr/local -iname '*protoc*'", []gapQuery{{"protoc", false}}},
		{"find . -name main.go", nil},
		{"ls -la /usr/local/bin/jq", []gapQuery{{"jq", true}}},
		{"ls ~/.cargo/bin/rg", []gapQuery{{"rg", true}}},
		{"ls /usr/local/bin", nil},
		{"npm ls -g typescript", []gapQuery{{"typescript", true}}},
		{"npm view @biomejs/biome@1.9 version", []gapQuery{{"biome", true}, {"version", true}}},
		{"pip show black", []gapQuery{{"black", true}}},
		{"python3 -m pip show ruff", []gapQuery{{"ruff", true}}},
		{"apt-cache search protobuf-compiler", []gapQuery{{"protobuf-compiler", false}}},
		{"dpkg -l jq", []gapQuery{{"jq", true}}},
		{"brew search hadolint", []gapQuery{{"hadolint", false}}},
		{"sudo apt-get install -y jq", []gapQuery{{"jq", true}}},
		{"pip install -r requirements.txt black==24.1", []gapQuery{{"black", true}}},
		{"pip install -e .", nil},
		{"go install golang.org/x/tools/cmd/goimports@latest", []gapQuery{{"goimports", true}}},
		{"go install ./...", nil},
		{"npm install lodash", nil},
		{"npm install -g typescript", []gapQuery{{"typescript", true}}},
		{"jq . x.json", nil},
		{"which", nil},
	} {
		segs := splitShell(c.cmd)
		var got []gapQuery
		for _, sg := range segs {
			got = append(got, gapQueries(sg.words)...)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %v, want %v", c.cmd, got, c.want)
		}
	}
}

// The gaps follow a task's calls: due on the call that makes the
// evidence enough, settled by a call that runs or finds the program,
// restarted by a boundary.
func TestToolGaps(t *testing.T) {
	type call struct {
		cmd     string
		exit    int
		missing string
		sub     bool
	}
	for _, c := range []struct {
		name  string
		calls []call
		want  []string // the names due after the calls
		at    int      // the call (1-based) the first due gap became due on; 0: none
	}{
		{"not found once: not yet", []call{{cmd: "jq . a.json", exit: 127, missing: "jq"}}, nil, 0},
		{"not found, then worked around", []call{{cmd: "python -V", exit: 127, missing: "python"}, {cmd: "python3 -V"}}, nil, 0},
		{"not found, then looked for", []call{{cmd: "jq . a.json", exit: 127, missing: "jq"}, {cmd: "which jq", exit: 1}}, []string{"jq"}, 2},
		{"not found twice", []call{{cmd: "jq . a.json", exit: 127, missing: "jq"}, {cmd: "ls"}, {cmd: "jq -r .x a.json", exit: 127, missing: "jq"}}, []string{"jq"}, 3},
		{"not found, then an install that failed", []call{{cmd: "rg x", exit: 127, missing: "rg"}, {cmd: "apt-get install -y rg", exit: 100}}, []string{"rg"}, 2},
		{"not found, then installed", []call{{cmd: "jq .", exit: 127, missing: "jq"}, {cmd: "apt-get install -y jq"}, {cmd: "which jq", exit: 1}}, nil, 0},
		{"not found, then it ran", []call{{cmd: "jq .", exit: 127, missing: "jq"}, {cmd: "cd /tmp && jq ."}, {cmd: "which jq", exit: 1}}, nil, 0},
		{"looked for, then installed, in one line", []call{{cmd: "jq .", exit: 127, missing: "jq"}, {cmd: "command -v jq || sudo apt-get install -y jq"}}, nil, 0},
		{"three lookups", []call{{cmd: "which protoc", exit: 1}, {cmd: "find / -name protoc"}, {cmd: "ls /usr/local/bin/protoc", exit: 2}}, []string{"protoc"}, 3},
		{"two lookups", []call{{cmd: "which protoc", exit: 1}, {cmd: "find / -name protoc"}}, nil, 0},
		{"lookups that found it", []call{{cmd: "which go"}, {cmd: "which go"}, {cmd: "command -v go"}}, nil, 0},
		{"a masked lookup counts", []call{{cmd: "which jq || echo none"}, {cmd: "which jq || echo none"}, {cmd: "which jq || echo none"}}, []string{"jq"}, 3},
		{"one call counts a name once", []call{{cmd: "jq . || which jq", exit: 127, missing: "jq"}}, nil, 0},
		{"a subagent's calls are not the agent's", []call{{cmd: "jq .", exit: 127, missing: "jq", sub: true}, {cmd: "which jq", exit: 1, sub: true}}, nil, 0},
	} {
		cfg := DefaultConfig()
		st := NewState("s")
		t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
		Apply(st, &Event{Kind: KindPrompt, Time: t0}, &cfg)
		at := 0
		for i, k := range c.calls {
			exit := k.exit
			out := OutcomeOK
			if exit != 0 {
				out = OutcomeFailed
			}
			ev := &Event{Kind: KindPostTool, Time: t0.Add(time.Duration(i+1) * time.Second), Tool: "Bash", Class: ClassRun,
				Cmd: k.cmd, CmdFP: Fingerprint(k.cmd), Outcome: out, Exit: &exit, Missing: k.missing}
			if k.sub {
				ev.Subagent = "a1"
			}
			Apply(st, ev, &cfg)
			if at == 0 && st.GapDueNow() {
				at = i + 1
			}
		}
		var got []string
		for _, g := range st.DueGaps() {
			got = append(got, g.Name)
		}
		if !reflect.DeepEqual(got, c.want) || at != c.at {
			t.Errorf("%s: due %v on call %d, want %v on call %d (gaps %+v)", c.name, got, at, c.want, c.at, st.Gaps)
		}
		Apply(st, &Event{Kind: KindPrompt, Time: t0.Add(time.Hour)}, &cfg)
		if len(st.Gaps) != 0 {
			t.Errorf("%s: a new task kept the gaps %+v", c.name, st.Gaps)
		}
	}
}

func TestToolGapEvidence(t *testing.T) {
	g := ToolGap{Name: "jq", Missing: 1, Lookups: 2, Forms: []string{"jq . a.json", "which jq"}}
	want := "the shell found no `jq` once; looked for or install tried without finding it 2 times (`jq . a.json`, `which jq`)"
	if got := g.Evidence(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
