package engine

import (
	"strings"
	"testing"
)

func TestMissingRead(t *testing.T) {
	missing := Event{Tool: "Read", Class: ClassRead, Target: "../other/server/receive_pack.go", CmdFP: "tool:Read:x", Outcome: OutcomeFailed, FailSig: "nf"}
	s := newSim(t)
	s.prompt()
	if n := s.call(missing); n != "" {
		t.Fatalf("the first read: %q", n)
	}
	s.call(read("a.go"))
	n := s.call(missing)
	if !strings.Contains(n, "reading receive_pack.go failed a moment ago at this same path") {
		t.Fatalf("the second read of a missing path: %q", n)
	}
	// Something changed (a file written): the path may exist now.
	q := newSim(t)
	q.prompt()
	q.call(missing)
	q.call(edit("b.go"))
	if n := q.call(missing); strings.Contains(n, "failed a moment ago") {
		t.Fatalf("after an edit: %q", n)
	}
}
