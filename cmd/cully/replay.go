package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"cully/engine"
	"cully/hookbridge"
)

// replayFinding is one thing the rules would have said.
type replayFinding struct {
	Call     int    `json:"call"` // tool calls so far in the session
	Kind     string `json:"kind"` // checkpoint, guard or nudge
	Reason   string `json:"reason,omitempty"`
	Evidence string `json:"evidence,omitempty"`
	Text     string `json:"text,omitempty"`
}

type replaySession struct {
	File      string          `json:"file"`
	Session   string          `json:"session"`
	ToolCalls int             `json:"tool_calls"`
	Tasks     int             `json:"tasks"`
	Nudges    int             `json:"nudges"`
	Per100    float64         `json:"nudges_per_100_calls"`
	Findings  []replayFinding `json:"findings"`
}

// cmdReplay runs the rules over recorded Claude Code transcripts and
// reports what cully would have flagged, and how often it would have
// nudged. Nothing is written to the state dir.
type replayOpts struct {
	json  bool
	agent string
}

func (a *app) replay(o replayOpts, files []string) error {
	asJSON := &o.json
	if len(files) == 0 {
		return fmt.Errorf("%w: name one or more transcripts (~/.claude/projects/<project>/<session>.jsonl)", errUsage)
	}
	rp, err := adapter[hookbridge.Replayer](o.agent, "replay the sessions of")
	if err != nil {
		return err
	}
	cfg, _ := a.config(a.projectDir())
	var all []replaySession
	totalCalls, totalNudges := 0, 0
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		states := map[string]*engine.State{}
		found := map[string]*replaySession{}
		_, err = rp.Replay(f, &cfg, func(ev *engine.Event) error {
			st := states[ev.Session]
			if st == nil {
				st = engine.NewState(ev.Session)
				states[ev.Session] = st
				found[ev.Session] = &replaySession{File: path, Session: ev.Session, Findings: []replayFinding{}}
			}
			rs := found[ev.Session]
			for _, sg := range engine.Apply(st, ev, &cfg) {
				switch sg.Kind {
				case engine.SignalCheckpoint: // raised by the call that just ended
					rs.Findings = append(rs.Findings, replayFinding{Call: st.Counts.ToolCalls, Kind: string(sg.Kind), Reason: string(sg.Reason), Evidence: sg.Evidence})
				case engine.SignalGuard: // before the call about to run
					rs.Findings = append(rs.Findings, replayFinding{Call: st.Counts.ToolCalls + 1, Kind: string(sg.Kind), Reason: string(sg.Reason), Evidence: sg.Evidence})
				case engine.SignalNudge:
					rs.Nudges++
					rs.Findings = append(rs.Findings, replayFinding{Call: st.Counts.ToolCalls + 1, Kind: "nudge", Text: sg.Text})
				}
			}
			rs.ToolCalls, rs.Tasks = st.Counts.ToolCalls, st.Task
			return nil
		})
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		ids := make([]string, 0, len(found))
		for id := range found {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			rs := found[id]
			if rs.ToolCalls > 0 {
				rs.Per100 = 100 * float64(rs.Nudges) / float64(rs.ToolCalls)
			}
			totalCalls += rs.ToolCalls
			totalNudges += rs.Nudges
			all = append(all, *rs)
		}
	}
	if *asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"schema_version": jsonSchema, "sessions": all, "tool_calls": totalCalls, "nudges": totalNudges})
	}
	for _, rs := range all {
		fmt.Fprintf(a.stdout, "%s — session %s: %d tool calls, %d task(s), %d nudge(s)\n", rs.File, shortID(rs.Session), rs.ToolCalls, rs.Tasks, rs.Nudges)
		for _, f := range rs.Findings {
			switch f.Kind {
			case "nudge":
				fmt.Fprintf(a.stdout, "  call %-4d nudge\n%s\n", f.Call, indent(f.Text, "             "))
			default:
				fmt.Fprintf(a.stdout, "  call %-4d %-10s %-16s %s\n", f.Call, f.Kind, f.Reason, f.Evidence)
			}
		}
	}
	rate := 0.0
	if totalCalls > 0 {
		rate = 100 * float64(totalNudges) / float64(totalCalls)
	}
	fmt.Fprintf(a.stdout, "\n%d nudge(s) in %d tool calls: %.1f per 100 calls\n", totalNudges, totalCalls, rate)
	fmt.Fprintln(a.stdout, "(transcripts hold no file sizes or modification times: the large-read and unchanged-re-read guards are not judged in a replay)")
	return nil
}
