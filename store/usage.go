package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"cully/usage"
)

// maxUsageCache bounds a session's usage cache read back: a few hundred
// counted messages and the record's file names are some tens of KiB.
const maxUsageCache = 4 << 20

// UsageDir holds, per session, how far `cully status` and the panel have
// read the host's own record of it and what they counted (usage.Cache):
// derived data, read on from where it stopped, rebuilt from the record
// when lost.
func (h Home) UsageDir() string { return filepath.Join(h.Dir, "usage") }

func (h Home) usagePath(id string) string {
	return filepath.Join(h.UsageDir(), SafeName(id)+".json")
}

// UpdateUsage runs fn on a session's usage cache under its lock (a sidecar
// .lock, never deleted) and, when fn reports a change, writes what it left
// by a rename: the panel and `cully status` may read the same record at
// once, and neither counts a line twice. A cache that cannot be decoded is
// started over (the record it was read from is still there to read
// again); one that cannot be read is an error.
func (h Home) UpdateUsage(session string, fn func(c *usage.Cache) bool) (usage.Cache, error) {
	var c usage.Cache
	if err := h.ready(); err != nil {
		return c, err
	}
	if err := ensureDir(h.UsageDir(), "usage folder"); err != nil {
		return c, err
	}
	p := h.usagePath(session)
	l, err := AcquirePolling(p+".lock", h.wait())
	if err != nil {
		return c, fmt.Errorf("lock usage of %s: %w", session, err)
	}
	defer l.Unlock()
	b, err := ReadSmallFile(p, maxUsageCache)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return c, fmt.Errorf("read usage of %s: %w", session, err)
	default:
		if json.Unmarshal(b, &c) != nil {
			c = usage.Cache{}
		}
	}
	if !fn(&c) {
		return c, nil
	}
	b, err = json.Marshal(&c)
	if err != nil {
		return c, err
	}
	return c, WriteFileAtomic(p, append(b, '\n'))
}
