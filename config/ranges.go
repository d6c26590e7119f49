package config

import (
	"fmt"

	"cully/engine"
)

// Limit is one threshold's sane range. A project file (someone else's
// words, however allowed) is held to Project; the user's own file to the
// wider User range, which only keeps the numbers finite. Below Floor a value
// is nonsense (zero, negative) and the default is used, as engine.Sanitize
// does; otherwise a value outside its range is clamped to the nearest end.
// Each is reported. docs/rules.md lists the same ranges (a test keeps them
// in step).
type Limit struct {
	Key     string
	Floor   int64
	Project [2]int64
	User    [2]int64
	Bytes   bool   // a size, printed as KiB/MiB
	Why     string // why the project range ends where it does
	get     func(*engine.Config) int64
	set     func(*engine.Config, int64)
}

// Limits are the thresholds a config file may set, in the order the docs
// list them.
var Limits = []Limit{
	{Key: "explore_reads", Floor: 1, Project: [2]int64{5, 200}, User: [2]int64{1, 100_000},
		Why: "under 5 reads any task's first look around is nudged; over 200 the checkpoint never fires in a real session",
		get: func(c *engine.Config) int64 { return int64(c.ExploreReads) }, set: func(c *engine.Config, v int64) { c.ExploreReads = int(v) }},
	{Key: "unverified_edits", Floor: 1, Project: [2]int64{3, 200}, User: [2]int64{1, 100_000},
		Why: "under 3 every small fix is nudged; over 200 unchecked edits the checkpoint has stopped meaning anything",
		get: func(c *engine.Config) int64 { return int64(c.UnverifiedEdits) }, set: func(c *engine.Config, v int64) { c.UnverifiedEdits = int(v) }},
	{Key: "loop_failures", Floor: 1, Project: [2]int64{2, 20}, User: [2]int64{2, 1000},
		Why: "one failure is not a loop; twenty identical failures have cost more than any checkpoint",
		get: func(c *engine.Config) int64 { return int64(c.LoopFailures) }, set: func(c *engine.Config, v int64) { c.LoopFailures = int(v) }},
	{Key: "blind_retry_failures", Floor: 1, Project: [2]int64{1, 4}, User: [2]int64{1, 4},
		Why: "a command remembers its last 4 failures, so a larger number could never fire",
		get: func(c *engine.Config) int64 { return int64(c.BlindRetryFailures) }, set: func(c *engine.Config, v int64) { c.BlindRetryFailures = int(v) }},
	{Key: "large_read_bytes", Floor: 1, Project: [2]int64{16 << 10, 64 << 20}, User: [2]int64{1 << 10, 1 << 40}, Bytes: true,
		Why: "under 16 KiB ordinary source files are warned; over 64 MiB no read an agent makes is",
		get: func(c *engine.Config) int64 { return c.LargeReadBytes }, set: func(c *engine.Config, v int64) { c.LargeReadBytes = v }},
	{Key: "reread_min_bytes", Floor: 0, Project: [2]int64{0, 1 << 20}, User: [2]int64{0, 1 << 30}, Bytes: true,
		Why: "0 warns every unchanged re-read (still once per file); over 1 MiB the guard is off for ordinary files",
		get: func(c *engine.Config) int64 { return c.RereadMinBytes }, set: func(c *engine.Config, v int64) { c.RereadMinBytes = v }},
}

// Range is a scope's range of this limit, printed as the docs print it.
func (l Limit) Range(project bool) string {
	r := l.User
	if project {
		r = l.Project
	}
	return l.num(r[0]) + "–" + l.num(r[1])
}

func (l Limit) num(v int64) string {
	if l.Bytes && v > 0 {
		return human(v)
	}
	return fmt.Sprint(v)
}

// clamp holds v to the scope's range. It returns the value to use and, when
// that is not v, why.
func (l Limit) clamp(v int64, project bool) (int64, string) {
	r, scope := l.User, "your config"
	if project {
		r, scope = l.Project, "a project file"
	}
	switch {
	case v < l.Floor:
		d := l.get(ptr(engine.DefaultConfig()))
		return d, fmt.Sprintf("%s = %d is not a usable value: the default %s is used", l.Key, v, l.num(d))
	case v < r[0]:
		return r[0], fmt.Sprintf("%s = %d is below the range %s for %s: %s is used", l.Key, v, l.Range(project), scope, l.num(r[0]))
	case v > r[1]:
		return r[1], fmt.Sprintf("%s = %d is above the range %s for %s: %s is used", l.Key, v, l.Range(project), scope, l.num(r[1]))
	}
	return v, ""
}

func ptr[T any](v T) *T { return &v }
