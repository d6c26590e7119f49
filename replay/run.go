package replay

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"cully/engine"
	"cully/hookbridge"
)

// Finding is one thing the rules would have said, and the call it
// was said on.
type Finding struct {
	Call     int        `json:"call"` // tool calls so far in the session
	Kind     string     `json:"kind"` // checkpoint, guard or nudge
	Reason   string     `json:"reason,omitempty"`
	Evidence string     `json:"evidence,omitempty"`
	Text     string     `json:"text,omitempty"`
	Time     *time.Time `json:"ts"`       // the record's time (null: it had none)
	Tool     string     `json:"tool"`     // the tool of the call it was said on
	Preview  string     `json:"preview"`  // that call's redacted command, or its file
	Subagent *string    `json:"subagent"` // the subagent that made the call (null: the main agent)
}

// Session is what the rules said over one recorded session.
type Session struct {
	File             string         `json:"file"`  // the session's transcript (its first file)
	Files            []string       `json:"files"` // every file read for it: parts, subagents
	Session          string         `json:"session"`
	ToolCalls        int            `json:"tool_calls"`
	Tasks            int            `json:"tasks"`
	Turns            int            `json:"turns"` // turn ends of the main agent (Stop)
	Nudges           int            `json:"nudges"`
	Per100           float64        `json:"nudges_per_100_calls"`
	Subagents        int            `json:"subagents"` // distinct subagents that made calls
	Checkpoints      map[string]int `json:"checkpoints"`
	Guards           map[string]int `json:"guards"`
	Lines            int            `json:"lines"`
	CorruptLines     int            `json:"corrupt_lines"`
	UnmatchedResults int            `json:"unmatched_results"`
	DuplicateRecords int            `json:"duplicate_records"`
	Findings         []Finding      `json:"findings"`

	subagents map[string]bool
	calls     []time.Time // the main agent's calls, in order (--moments finds a moment's call by its time)
	alerted   map[string]bool
}

// Report is `cully replay --json` (docs/json.md).
type Report struct {
	Schema      int            `json:"schema_version"`
	Files       int            `json:"files"` // files replayed
	Bytes       int64          `json:"bytes"` // their size
	Skipped     []Skip         `json:"skipped"`
	ToolCalls   int            `json:"tool_calls"`
	Turns       int            `json:"turns"`
	Nudges      int            `json:"nudges"`
	Per100      float64        `json:"nudges_per_100_calls"`
	Checkpoints map[string]int `json:"checkpoints"`
	Guards      map[string]int `json:"guards"`
	Sessions    []Session      `json:"sessions"`
	Moments     *MomentsReport `json:"moments,omitempty"` // --moments
}

// Run replays every session, the largest first so that the workers finish
// together, and sums them up. A session that could not be read is warned
// about on prog and skipped, each of its files with the reason, after the
// files Identify skipped.
func Run(groups []*Group, skipped []Skip, cfg *engine.Config, prog *Progress) Report {
	order := make([]*Group, len(groups))
	copy(order, groups)
	sort.SliceStable(order, func(i, j int) bool { return order[i].size > order[j].size })
	prog.startReplay(groups)
	parallel(len(order), func(i int) {
		g := order[i]
		g.out, g.stats, g.err = runGroup(g.rp, g, cfg, prog)
		prog.sessions.Add(1)
		prog.files.Add(int64(len(g.files)))
	})

	rep := Report{Skipped: skipped, Checkpoints: map[string]int{}, Guards: map[string]int{}, Sessions: []Session{}}
	if rep.Skipped == nil {
		rep.Skipped = []Skip{}
	}
	for _, g := range groups {
		if g.err != nil {
			prog.Warn(fmt.Sprintf("cully: skipped session %s: %v", g.id, g.err))
			for _, f := range g.files {
				rep.Skipped = append(rep.Skipped, Skip{f.path, g.err.Error()})
			}
			continue
		}
		rep.Files += len(g.files)
		rep.Bytes += g.size
		for _, rs := range g.out {
			rep.ToolCalls += rs.ToolCalls
			rep.Turns += rs.Turns
			rep.Nudges += rs.Nudges
			for r, n := range rs.Checkpoints {
				rep.Checkpoints[r] += n
			}
			for r, n := range rs.Guards {
				rep.Guards[r] += n
			}
			rep.Sessions = append(rep.Sessions, rs)
		}
	}
	if rep.ToolCalls > 0 {
		rep.Per100 = 100 * float64(rep.Nudges) / float64(rep.ToolCalls)
	}
	return rep
}

// runGroup folds one session's events through a fresh rule state (one
// per session id its records carry) and collects the findings.
func runGroup(rp hookbridge.Replayer, g *Group, cfg *engine.Config, prog *Progress) ([]Session, hookbridge.ReplayStats, error) {
	var readers []io.Reader
	for _, f := range g.files {
		fh, err := os.Open(f.path)
		if err != nil {
			return nil, hookbridge.ReplayStats{}, err
		}
		defer fh.Close()
		readers = append(readers, &countingReader{r: fh, n: &prog.bytes})
	}
	states := map[string]*engine.State{}
	found := map[string]*Session{}
	st, err := rp.ReplaySession(readers, cfg, func(ev *engine.Event) error {
		s := states[ev.Session]
		rs := found[ev.Session]
		if s == nil {
			s = engine.NewState(ev.Session)
			states[ev.Session] = s
			rs = &Session{File: g.files[0].path, Session: ev.Session, Findings: []Finding{},
				Checkpoints: map[string]int{}, Guards: map[string]int{}, subagents: map[string]bool{}, alerted: map[string]bool{}}
			for _, f := range g.files {
				rs.Files = append(rs.Files, f.path)
			}
			found[ev.Session] = rs
		}
		for _, sg := range engine.Apply(s, ev, cfg) {
			f := Finding{Kind: string(sg.Kind), Reason: string(sg.Reason), Evidence: sg.Evidence, Tool: ev.Tool, Preview: ev.Cmd}
			if f.Preview == "" {
				f.Preview = ev.Target
			}
			if !ev.Time.IsZero() {
				t := ev.Time
				f.Time = &t
			}
			if ev.Subagent != "" {
				sub := ev.Subagent
				f.Subagent = &sub
			}
			switch sg.Kind {
			case engine.SignalCheckpoint: // raised by the call that just ended
				f.Call = s.Counts.ToolCalls
				rs.Checkpoints[f.Reason]++
			case engine.SignalGuard: // before the call about to run
				f.Call = s.Counts.ToolCalls + 1
				rs.Guards[f.Reason]++
			case engine.SignalNudge:
				f.Call, f.Reason, f.Evidence, f.Text = s.Counts.ToolCalls+1, "", "", sg.Text
				rs.Nudges++
			default:
				continue
			}
			rs.Findings = append(rs.Findings, f)
		}
		// A run control alert (a budget, a runaway, a rollback suggested)
		// is shown in status: a finding of its own, once.
		if s.Run != nil {
			for _, al := range s.Run.Budget.Alerts {
				if al.Text == "" || rs.alerted[al.Key] {
					continue
				}
				rs.alerted[al.Key] = true
				f := Finding{Call: s.Counts.ToolCalls + 1, Kind: "alert", Reason: alertReason(al.Key), Evidence: al.Text, Tool: ev.Tool, Preview: ev.Cmd}
				if !ev.Time.IsZero() {
					t := ev.Time
					f.Time = &t
				}
				rs.Findings = append(rs.Findings, f)
			}
		}
		if ev.Kind == engine.KindPreTool && ev.Subagent == "" && !ev.Time.IsZero() {
			rs.calls = append(rs.calls, ev.Time)
		}
		if ev.Kind == engine.KindStop && ev.Subagent == "" {
			rs.Turns++
		}
		if ev.Subagent != "" && ev.Kind == engine.KindPreTool {
			rs.subagents[ev.Subagent] = true
		}
		rs.ToolCalls, rs.Tasks = s.Counts.ToolCalls, s.Task
		return nil
	})
	if err != nil {
		return nil, st, err
	}
	ids := make([]string, 0, len(found))
	for id := range found {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]Session, 0, len(ids))
	for _, id := range ids {
		rs := found[id]
		if rs.ToolCalls > 0 {
			rs.Per100 = 100 * float64(rs.Nudges) / float64(rs.ToolCalls)
		}
		rs.Subagents = len(rs.subagents)
		if id == g.id { // the file-level counts belong to the session the files were grouped by
			rs.Lines, rs.CorruptLines, rs.UnmatchedResults, rs.DuplicateRecords = st.Lines, st.Corrupt, st.Skipped, st.Duplicates
		}
		out = append(out, *rs)
	}
	return out, st, nil
}

// alertReason names an alert by its key's rule: "runaway:no-modification",
// "budget-exceeded:tool_calls", "rollback-suggested".
func alertReason(key string) string {
	parts := strings.SplitN(key, ":", 3)
	if len(parts) >= 2 && parts[0] != engine.AlertRollback {
		return parts[0] + ":" + parts[1]
	}
	return parts[0]
}

// parallel runs fn(0..n-1) on GOMAXPROCS workers.
func parallel(n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}
