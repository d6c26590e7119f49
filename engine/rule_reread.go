package engine

import (
	"fmt"
	"time"
)

// ReasonReread: a whole-file read of a file read whole before and unchanged.
const ReasonReread Reason = "unchanged-reread"

// unchangedReread warns before a whole-file read of a file of at least
// cfg.RereadMinBytes that this session (or subagent) already read whole,
// if its modification time is no newer than at that read. A file changed
// by the agent, and every file after a compaction, counts as not read
// (apply.go: changed, forgetReads), and so does a file the foreground agent
// read before a subagent last worked. Dedup key: the file (per subagent),
// size and mtime.
var unchangedReread = guardRule{
	reason: ReasonReread,
	advice: "Reuse what you already read, or read only the range you need. (Metadata only: cully cannot prove the content is identical.)",
	check: func(s *State, ev *Event, cfg *Config) (string, string, bool) {
		if !wholeRead(ev) {
			return "", "", false
		}
		f := s.Files[fileKey(ev)]
		if f == nil || f.WholeAt == 0 || *ev.Size < cfg.RereadMinBytes || ev.Mtime == nil || ev.Mtime.UnixNano() > f.WholeMod {
			return "", "", false
		}
		if ev.Subagent == "" && s.SubagentAt >= f.WholeAt { // a subagent worked since: the agent may be taking up its findings
			return "", "", false
		}
		return "reread\x00" + fileKey(ev) + "\x00" + sizeMtime(ev),
			fmt.Sprintf("%s (%s) was read whole %s and is unchanged since by modification time", ev.Target, humanBytes(*ev.Size), ago(ev.Time, f.WholeAt)),
			true
	},
}

// ago says how long before now a Unix time was, to the second.
func ago(now time.Time, then int64) string {
	if then == 0 {
		return "earlier"
	}
	d := now.Sub(time.Unix(then, 0)).Round(time.Second)
	if d <= 0 {
		return "just now"
	}
	return d.String() + " ago"
}
