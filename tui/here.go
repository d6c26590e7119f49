package tui

import (
	"time"

	"cully/runs"
)

// Where sessions work: started in a repository (Options.Here), the panel
// follows that repository's sessions and lists them before any other's.

// place is where a session works: its project root, found from its run
// and its folder (key, so that a reload finds it again only when those
// changed).
type place struct {
	key  string
	root string
}

// placeKey is what a session's project root is found from: its run, its
// folder, and whether the run has a snapshot yet: its baseline, after
// which its work tree is the root (runs.Root).
func placeKey(run, cwd string, snapshots bool) string {
	b := "0"
	if snapshots {
		b = "1"
	}
	return run + "\x00" + cwd + "\x00" + b
}

// ours reports whether s works in the folder the panel started in: its
// project root holds it.
func (m Model) ours(s *session) bool {
	return s != nil && m.here != "" && runs.Within(s.place.root, m.here)
}

// newest is the session an unpinned panel follows: the most recently
// active of those working in the folder it started in, else of all.
func (m Model) newest() string {
	best, bestOurs := "", false
	var t time.Time
	for id, s := range m.sess {
		l, o := s.last(), m.ours(s)
		if best == "" || o && !bestOurs || o == bestOurs && (l.After(t) || l.Equal(t) && id < best) {
			best, t, bestOurs = id, l, o
		}
	}
	return best
}

// autoFollow moves an unpinned panel to newest(), starting afresh on it
// (no selection, no details) as a switch to another session does.
func (m *Model) autoFollow() {
	if m.pinned {
		return
	}
	if id := m.newest(); id != "" && id != m.follow {
		m.follow, m.sel, m.selIdx, m.details, m.scroll, m.chose = id, "", 0, false, 0, false
	}
}
