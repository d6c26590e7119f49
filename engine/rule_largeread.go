package engine

import "fmt"

// ReasonLargeRead: a whole-file read of a large file.
const ReasonLargeRead Reason = "large-read"

// largeRead warns before a whole-file read of a file over
// cfg.LargeReadBytes: a range or a search costs a fraction of the context.
// Ranged reads are exempt, and so are reads the host bounds itself
// (Event.Bounded: it refuses them with the same advice). Dedup key: path, size and mtime, so a file read
// whole again after it changed is warned again.
var largeRead = guardRule{
	reason: ReasonLargeRead,
	advice: "Read a range (offset/limit) or search it instead of loading it all into context.",
	check: func(s *State, ev *Event, cfg *Config) (string, string, bool) {
		if !wholeRead(ev) || ev.Bounded || *ev.Size <= cfg.LargeReadBytes {
			return "", "", false
		}
		return "large\x00" + ev.Target + "\x00" + sizeMtime(ev),
			fmt.Sprintf("whole-file read of %s (%s, over %s)", ev.Target, humanBytes(*ev.Size), humanBytes(cfg.LargeReadBytes)),
			true
	},
}
