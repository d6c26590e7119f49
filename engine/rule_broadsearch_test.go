package engine

import (
	"strings"
	"testing"
)

func TestBroadRoot(t *testing.T) {
	for _, c := range []struct{ cmd, root string }{
		{`find /Users/rizel -name ffmpeg -type f 2>/dev/null | head -20`, "/Users/rizel"},
		{`find ~ -name "report_status.go" -path "*go-git*" 2>/dev/null | head -3`, "~"},
		{`find / -name libfoo.so`, "/"},
		{`cd /tmp && sudo find $HOME -iname '*.pem'`, "$HOME"},
		{`grep -rln "func StorePackfile" / 2>/dev/null`, "/"},
		{`grep -rn -e needle /home/dev/`, "/home/dev/"},
		{`rg needle ~`, "~"},
		{`fd config.toml /`, "/"},
		// aimed: below a home folder, the project, a cache
		{`find ~/go/pkg/mod -path "*go-git/v6*report_status.go"`, ""},
		{`find . -name '*.go'`, ""},
		{`grep -rn needle .`, ""},
		{`grep needle /etc/hosts`, ""},
		{`grep -n / file.txt`, ""},             // not recursive: / is the pattern
		{`rg / src/`, ""},                      // the pattern is /
		{`ls / && echo ~`, ""},                 // no search
		{`find /home/dev/src/app -name x`, ""}, // a project under home
		{`grep -rn "Profile" /Users/th…`, ""},  // a preview clipped in the path
	} {
		if got := broadRoot(c.cmd); got != c.root {
			t.Errorf("broadRoot(%q) = %q, want %q", c.cmd, got, c.root)
		}
	}
}

func TestBroadSearchGuard(t *testing.T) {
	s := newSim(t)
	s.prompt()
	ev := Event{Tool: "Bash", Class: ClassRead, Cmd: `find ~ -name ffmpeg -type f 2>/dev/null | head -20`, CmdFP: "fp1"}
	n := s.call(ev)
	if !strings.Contains(n, "searches the whole home folder (`~`)") || !strings.Contains(n, "command -v") {
		t.Fatalf("first broad search: nudge %q", n)
	}
	if n := s.call(ev); n != "" {
		t.Fatalf("the same search again is not warned twice: %q", n)
	}
	sub := ev
	sub.Subagent, sub.CmdFP = "a1", "fp2"
	if n := s.call(sub); n != "" {
		t.Fatalf("a subagent's search: %q", n)
	}
}
