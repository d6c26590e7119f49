package replay

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Moments: points in recorded sessions where a watching engineer would
// have interrupted the agent, marked blind by people who had not read the
// rules (../shared/corpus/MOMENTS.md; bench/quality/moments.tsv). `cully
// replay --moments FILE` says which of them the rules caught: a moment is
// caught when a signal of a fitting kind (a nudge's checkpoint or guard,
// or an alert shown in status) lands from the call before it to three
// calls after it (that call's result and a turn's end after it included).

// momentSignals are, for each kind of moment, the signals that fit it:
// checkpoint and guard reasons, and alert keys' prefixes. A kind with none
// (an unverified claim, an instruction ignored) is one no rule of cully's
// can see today, and counts as missed.
var momentSignals = map[string][]string{
	"loop":             {"failure-loop", "same-error", "third-attempt", "cycle", "same-failure"},
	"rerun":            {"repeated-call", "rerun-filter", "failure-loop", "same-error"},
	"repeated-mistake": {"empty-search", "failure-loop", "same-error", "repeated-call", "same-failure", "third-attempt"},
	"explore":          {"exploring", "unchanged-reread", "large-read", "runaway:no-modification", "broad-search"},
	"stuck-wait":       {"runaway:no-modification"},
	"unverified":       {"unverified-edits", "unchecked-commit", "reported-command", "finish-unchecked", "finish-failing"},
	"unverified-claim": {"finish-failing", "finish-unchecked"},
	"wrong-fix":        {"fix-in-test"},
	"spin":             {"idle-loop"},
	"risky-git":        {"edits-git-internals"},
	"risky-env":        {"changes-machine"},
}

// Moment is one row of a moments file.
type Moment struct {
	ID, Session, Kind string
	Call              int
	At                time.Time
}

// ReadMoments reads a moments file: tab-separated with a header naming at
// least moment, session, call, ts and kind; lines starting with # are
// comments.
func ReadMoments(path string) ([]Moment, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseMoments(f, path)
}

func parseMoments(r io.Reader, name string) ([]Moment, error) {
	sc := bufio.NewScanner(r)
	var col map[string]int
	var out []Moment
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if col == nil {
			col = map[string]int{}
			for i, h := range f {
				col[h] = i
			}
			for _, need := range []string{"moment", "session", "call", "ts", "kind"} {
				if _, ok := col[need]; !ok {
					return nil, fmt.Errorf("%s:%d: the header has no %q column", name, n, need)
				}
			}
			continue
		}
		get := func(k string) string {
			if i := col[k]; i < len(f) {
				return f[i]
			}
			return ""
		}
		m := Moment{ID: get("moment"), Session: get("session"), Kind: get("kind")}
		var err error
		if m.Call, err = strconv.Atoi(get("call")); err != nil || m.Call < 1 {
			return nil, fmt.Errorf("%s:%d: call %q is no call number", name, n, get("call"))
		}
		if ts := get("ts"); ts != "" {
			if m.At, err = time.Parse(time.RFC3339Nano, ts); err != nil {
				return nil, fmt.Errorf("%s:%d: ts %q: %v", name, n, ts, err)
			}
		}
		out = append(out, m)
	}
	return out, sc.Err()
}

// MomentsReport is what --moments adds to the replay's report.
type MomentsReport struct {
	Moments  int                  `json:"moments"`
	Caught   int                  `json:"caught"`
	NotFound int                  `json:"not_found"` // moments whose session or call the replay did not hold
	ByKind   map[string]KindCount `json:"by_kind"`
	Items    []MomentResult       `json:"items"`
}

// KindCount is how many moments of one kind there were, and how many were
// caught.
type KindCount struct {
	Moments int `json:"moments"`
	Caught  int `json:"caught"`
}

// MomentResult is one moment: whether the replay held it, and the signals
// around it.
type MomentResult struct {
	Moment  string   `json:"moment"`
	Session string   `json:"session"`
	Kind    string   `json:"kind"`
	Found   bool     `json:"found"`
	Caught  bool     `json:"caught"`
	By      []string `json:"by"`   // the fitting signals, kind:reason
	Near    []string `json:"near"` // signals in the window that do not fit the kind
}

// JudgeMoments finds each moment in the replayed sessions and the signals
// around it.
func JudgeMoments(ms []Moment, sessions []Session) MomentsReport {
	by := map[string]*Session{}
	for i := range sessions {
		by[sessions[i].Session] = &sessions[i]
	}
	rep := MomentsReport{ByKind: map[string]KindCount{}, Items: []MomentResult{}}
	for _, m := range ms {
		res := MomentResult{Moment: m.ID, Session: m.Session, Kind: m.Kind, By: []string{}, Near: []string{}}
		kc := rep.ByKind[m.Kind]
		kc.Moments++
		rep.Moments++
		if rs := by[m.Session]; rs != nil && len(rs.calls) > 0 {
			// the moment's call: at its time when the file gives one, else by its number
			p := m.Call - 1
			if !m.At.IsZero() {
				p = sort.Search(len(rs.calls), func(i int) bool { return !rs.calls[i].Before(m.At.Add(-time.Second)) })
			}
			if p < len(rs.calls) {
				res.Found = true
				// From the call before to the third call after, its result and
				// a turn's end after it included: up to the fourth call after,
				// or the session's end.
				from, to := rs.calls[max(p-1, 0)], time.Time{}
				if p+4 < len(rs.calls) {
					to = rs.calls[p+4]
				}
				for _, f := range rs.Findings {
					if f.Time == nil || f.Time.Before(from) || !to.IsZero() && !f.Time.Before(to) || f.Kind == "nudge" {
						continue
					}
					sig := f.Kind + ":" + f.Reason
					if fits(m.Kind, f.Reason) {
						res.By = append(res.By, sig)
					} else {
						res.Near = append(res.Near, sig)
					}
				}
			}
		}
		if !res.Found {
			rep.NotFound++
		}
		if len(res.By) > 0 {
			res.Caught = true
			rep.Caught++
			kc.Caught++
		}
		rep.ByKind[m.Kind] = kc
		rep.Items = append(rep.Items, res)
	}
	return rep
}

func fits(kind, reason string) bool {
	for _, p := range momentSignals[kind] {
		if reason == p || strings.HasPrefix(reason, p) {
			return true
		}
	}
	return false
}

// NoRuleFor tells whether no rule of cully's looks for moments of kind.
func NoRuleFor(kind string) bool { return len(momentSignals[kind]) == 0 }
