package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"cully/engine"
)

// Started inside a repository, the panel follows that repository's
// session, though another is more recently active, and lists the
// repository's sessions first after those that need the user (parser's
// open checkpoints); activity elsewhere does not move it, a new session
// of the repository does.
func TestFollowsTheFolderSessionsFirst(t *testing.T) {
	f := scenario() // parser is the most recently active, webapp 40 minutes before
	var tm tea.Model = start(t, newModel(f, 56, 40, Options{Here: "/home/dev/webapp/src"}))
	m := tm.(Model)
	if m.follow != webID || m.pinned {
		t.Fatalf("following %q, pinned %v: want webapp's session, unpinned", m.follow, m.pinned)
	}
	out := screen(tm)
	for _, want := range []string{"cully  webapp · main", "1  parser", "2▸ webapp", "3  infra"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%s", want, out)
		}
	}
	// Another repository's session at work: the panel stays.
	ev := &engine.Event{V: 1, Time: t0, Session: mainID, Agent: "claude", Cwd: "/home/dev/parser", Kind: engine.KindPostTool, Tool: "Read", Class: engine.ClassRead, Outcome: engine.OutcomeOK}
	tm, cmd := tm.Update(journalMsg{batch: batchOf(ev)})
	tm = run(t, tm, cmd)
	if tm.(Model).follow != webID {
		t.Fatalf("activity in parser moved the panel to %q", tm.(Model).follow)
	}
	// A new session in the repository, once read, is followed.
	st := engine.NewState("web-2")
	st.Cwd, st.LastSeen, st.Started = "/home/dev/webapp", t0.Add(time.Second), t0
	f.states["web-2"] = st
	ev = &engine.Event{V: 1, Time: t0.Add(time.Second), Session: "web-2", Agent: "claude", Cwd: "/home/dev/webapp", Kind: engine.KindPostTool, Tool: "Read", Class: engine.ClassRead, Outcome: engine.OutcomeOK}
	tm, cmd = tm.Update(journalMsg{batch: batchOf(ev)})
	tm = run(t, tm, cmd)
	m = tm.(Model)
	if m.follow != "web-2" {
		t.Fatalf("a new session of the repository is not followed: %q", m.follow)
	}
	if ls := m.listed(); len(ls) != 4 || ls[0].id != mainID || !m.ours(ls[1]) || !m.ours(ls[2]) || m.ours(ls[3]) {
		t.Errorf("the session that needs the user, then the repository's sessions: %v", ids(ls))
	}
}

// A folder that no session works in changes nothing: the most recently
// active session, in start order after those that need the user; nor does a name that only starts the
// same (/home/dev/web is not inside /home/dev/webapp's repository).
func TestFolderOfNoSessionFollowsTheLatest(t *testing.T) {
	for _, here := range []string{"/home/dev/web", "/elsewhere"} {
		tm := start(t, newModel(scenario(), 56, 40, Options{Here: here}))
		if tm.follow != mainID {
			t.Errorf("%s: following %q, want the most recent (parser)", here, tm.follow)
		}
		out := screen(tm)
		for _, want := range []string{"1▸ parser", "2  infra", "3  webapp"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: missing %q:\n%s", here, want, out)
			}
		}
	}
}

func ids(ss []*session) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.id)
	}
	return out
}

// A row cut at the width drops a redaction marker whole: "[REDACT…" would
// read as a value, not as what was taken out.
func TestCutKeepsMarkersWhole(t *testing.T) {
	in := "mysql -p[REDACTED] shop"
	for w := 9; w < len(in); w++ {
		got := cut(in, w)
		part := ""
		if i := strings.LastIndex(got, "["); i >= 0 {
			part = strings.TrimSuffix(got[i:], "…")
		}
		if len(part) >= 2 && part != "[REDACTED]" && strings.HasPrefix("[REDACTED]", part) {
			t.Errorf("cut(%q, %d) = %q: a marker cut in two", in, w, got)
		}
	}
	if got := cut("go test ./... [1/3]", 16); got != "go test ./... […" {
		t.Errorf("a lone bracket is no marker: %q", got)
	}
}
