package main

import (
	"time"

	"cully/engine"
	"cully/hookbridge"
	"cully/hookbridge/agents"
	"cully/store"
	"cully/usage"
)

// searchEvery is how often the host's folders are searched again for a
// session's record: for one not found yet (a session that has not written
// it, a record kept elsewhere), and for the subagents' files of one found.
// A search is a few directory reads; the panel reloads a state on every
// change of it.
const searchEvery = 30 * time.Second

// recordFigures reads on the host's own record of a session (its
// transcript, rollout or session log) from where the last read stopped,
// off the hook's path, and returns what it holds so far; nil when the
// agent keeps no such record or it cannot be found or read.
func recordFigures(h store.Home, st *engine.State, getenv func(string) string, now time.Time) *usage.Cache {
	if st == nil || st.Agent == "" {
		return nil
	}
	ad, err := agents.Lookup(st.Agent)
	if err != nil {
		return nil
	}
	r, ok := ad.(hookbridge.UsageReader)
	if !ok {
		return nil
	}
	known := ""
	if st.Transcript != nil {
		known = st.Transcript.File
	}
	c, err := h.UpdateUsage(st.Session, func(c *usage.Cache) bool {
		files := make([]string, 0, len(c.Files))
		for _, f := range c.Files {
			files = append(files, f.Path)
		}
		searched := false
		if len(files) == 0 || now.Unix()-c.Searched >= int64(searchEvery/time.Second) || now.Unix() < c.Searched {
			if found := r.UsageFiles(st.Session, known, getenv); len(found) > 0 || len(files) == 0 {
				files = found
			}
			searched = true
		}
		changed := hookbridge.ReadUsage(r, c, files)
		if searched {
			c.Searched, changed = now.Unix(), true
		}
		return changed
	})
	if err != nil || len(c.Files) == 0 {
		return nil
	}
	return &c
}
