package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"cully/hookbridge"
	"cully/hookbridge/agents"
	"cully/replay"
)

// `cully replay` runs the rules over recorded transcripts (package replay)
// and reports what cully would have flagged and how often it would have
// nudged. With no argument it replays the agents' own record folders.

type replayOpts struct {
	json    bool
	agent   string
	moments string // a moments file: report which of its moments the rules caught
}

func (a *app) replay(o replayOpts, args []string) error {
	rps, err := replayers(o.agent)
	if err != nil {
		return err
	}
	roots := args
	if len(roots) == 0 {
		var missing []string
		for _, rp := range rps {
			dirs, err := rp.RecordDirs(a.getenv)
			if err != nil {
				if o.agent != "" {
					return err
				}
				continue
			}
			for _, r := range dirs {
				if _, err := os.Stat(r); err != nil {
					if o.agent != "" {
						return fail(codeNotFound, err, "no %s %ss to replay: %s does not exist (name files or folders to replay)", rp.Title(), rp.Record(), r)
					}
					missing = append(missing, r)
					continue
				}
				roots = append(roots, r)
			}
		}
		if len(roots) == 0 {
			return fail(codeNotFound, nil, "no %s to replay: %s (name files or folders to replay)", recordNames(rps, "s"), existNone(missing))
		}
	}
	var ms []replay.Moment
	if o.moments != "" {
		if ms, err = replay.ReadMoments(o.moments); err != nil {
			return fmt.Errorf("%w: --moments: %v", errUsage, err)
		}
	}
	cfg := a.config()
	files, err := replay.Find(roots)
	if err != nil {
		var re *replay.ReadError
		if !errors.As(err, &re) {
			return err
		}
		code := codeFailed
		if re.Missing {
			code = codeNotFound
		}
		return fail(code, re.Err, "%s", re.Msg)
	}
	prog := replay.NewProgress(a.stderr, isTerminal(a.stderr))
	defer prog.Stop()
	groups, skipped := replay.Identify(rps, files, prog)
	for _, s := range skipped {
		prog.Warn(fmt.Sprintf("cully: skipped %s: %s", s.File, s.Reason))
	}
	if len(groups) == 0 {
		return fail(codeNothing, nil, "nothing to replay: none of the %d file(s) found is a %s", len(files), recordNames(rps, ""))
	}
	rep := replay.Run(groups, skipped, &cfg, prog)
	rep.Schema = jsonSchema
	prog.Stop()
	if rep.Files == 0 {
		return fail(codeNothing, nil, "nothing to replay: no session could be read")
	}
	if ms != nil {
		m := replay.JudgeMoments(ms, rep.Sessions)
		rep.Moments = &m
	}
	if o.json {
		enc := json.NewEncoder(jsonSafe{a.stdout})
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	a.printReplay(&rep)
	if rep.Moments != nil {
		printMoments(termSafe{a.stdout}, *rep.Moments)
	}
	return nil
}

func (a *app) printReplay(rep *replay.Report) {
	w := termSafe{a.stdout}
	for _, rs := range rep.Sessions {
		parts, subs := rs.Parts()
		var more []string
		if parts > 0 {
			more = append(more, fmt.Sprintf("+%d part(s)", parts))
		}
		if subs > 0 {
			more = append(more, fmt.Sprintf("+%d subagent transcript(s)", subs))
		}
		extra := ""
		if len(more) > 0 {
			extra = " (" + strings.Join(more, ", ") + ")"
		}
		fmt.Fprintf(w, "%s — session %s: %d tool calls, %d task(s), %d nudge(s)%s\n", rs.File, shortID(rs.Session), rs.ToolCalls, rs.Tasks, rs.Nudges, extra)
		for _, f := range rs.Findings {
			at := "(no time)"
			if f.Time != nil {
				at = f.Time.Format("2006-01-02 15:04:05")
			}
			on := strings.TrimSpace(at + "  " + f.Tool + "  " + f.Preview)
			if f.Subagent != nil {
				on += "  (subagent " + *f.Subagent + ")"
			}
			switch f.Kind {
			case "nudge":
				fmt.Fprintf(w, "  call %-4d nudge\n             %s\n%s\n", f.Call, on, indent(f.Text, "             "))
			default:
				fmt.Fprintf(w, "  call %-4d %-10s %-16s %s\n             %s\n", f.Call, f.Kind, f.Reason, f.Evidence, on)
			}
		}
	}
	fmt.Fprintf(w, "\n%d file(s) (%.1f MB) replayed as %d session(s)", rep.Files, float64(rep.Bytes)/1e6, len(rep.Sessions))
	if len(rep.Skipped) > 0 {
		fmt.Fprintf(w, "; %d file(s) skipped (see stderr)", len(rep.Skipped))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "checkpoints: %s\n", byReason(rep.Checkpoints))
	fmt.Fprintf(w, "guards: %s\n", byReason(rep.Guards))
	fmt.Fprintf(w, "%d nudge(s) in %d tool calls: %.1f per 100 calls\n", rep.Nudges, rep.ToolCalls, rep.Per100)
	fmt.Fprintf(w, "%d turn end(s) of the main agent\n", rep.Turns)
	fmt.Fprintln(w, "(transcripts hold no file sizes or modification times: the large-read and unchanged-re-read guards are not judged in a replay)")
}

// replayers are the adapters a replay asks about each file: the one
// --agent names, else every one that can replay.
func replayers(name string) ([]hookbridge.Replayer, error) {
	if name != "" {
		rp, err := adapter[hookbridge.Replayer](name, "replay the sessions of")
		if err != nil {
			return nil, err
		}
		return []hookbridge.Replayer{rp}, nil
	}
	var out []hookbridge.Replayer
	for _, ag := range agents.All() {
		if rp, ok := ag.(hookbridge.Replayer); ok {
			out = append(out, rp)
		}
	}
	return out, nil
}

// recordNames names what the replayers read: "Claude Code transcript or
// Codex rollout" (plural: "…transcripts or Codex rollouts").
func recordNames(rps []hookbridge.Replayer, plural string) string {
	var n []string
	for _, rp := range rps {
		n = append(n, rp.Title()+" "+rp.Record()+plural)
	}
	return strings.Join(n, " or ")
}

// existNone says that none of the folders exists.
func existNone(dirs []string) string {
	if len(dirs) == 1 {
		return dirs[0] + " does not exist"
	}
	return "none of " + strings.Join(dirs, ", ") + " exists"
}

// byReason lists counts by reason, in name order ("none" for none).
func byReason(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, r := range slices.Sorted(func(yield func(string) bool) {
		for r := range m {
			if !yield(r) {
				return
			}
		}
	}) {
		parts = append(parts, fmt.Sprintf("%s %d", r, m[r]))
	}
	return strings.Join(parts, ", ")
}

func printMoments(w io.Writer, r replay.MomentsReport) {
	fmt.Fprintf(w, "\nmoments: %d of %d caught within 3 calls (%s)", r.Caught, r.Moments, pctOf(r.Caught, r.Moments))
	if r.NotFound > 0 {
		fmt.Fprintf(w, "; %d not found in the replay", r.NotFound)
	}
	fmt.Fprintln(w)
	kinds := make([]string, 0, len(r.ByKind))
	for k := range r.ByKind {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		a, b := r.ByKind[kinds[i]], r.ByKind[kinds[j]]
		if a.Moments != b.Moments {
			return a.Moments > b.Moments
		}
		return kinds[i] < kinds[j]
	})
	for _, k := range kinds {
		c := r.ByKind[k]
		note := ""
		if replay.NoRuleFor(k) {
			note = "  (no rule looks for it)"
		}
		fmt.Fprintf(w, "  %-20s %d of %d%s\n", k, c.Caught, c.Moments, note)
	}
}

func pctOf(a, b int) string {
	if b == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(a)/float64(b))
}
