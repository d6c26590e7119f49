package main

import (
	"cully/engine"

	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// signals writes one context file per signal the rules raised (a
// checkpoint, shown in status and the panel, or a guard, told before the
// call), for reviewers who have not read the rules to judge blind whether
// each was worth a look: the same context as a nudge's. Only the rules
// named in QUALITY_RULES (comma-separated; all when unset). The index
// (index.tsv) sits beside the folder, so that a reviewer reading the
// folder never sees which rule raised what.
func signals(corpus, outDir string) error {
	r, err := replay(corpus)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	want := map[string]bool{}
	for _, x := range strings.Split(os.Getenv("QUALITY_RULES"), ",") {
		if x = strings.TrimSpace(x); x != "" {
			want[x] = true
		}
	}
	type sig struct {
		n            nudge
		reason, kind string
	}
	var all []sig
	for _, s := range r.Sessions {
		for _, f := range s.Findings {
			if f.Kind != "checkpoint" && f.Kind != "guard" || f.Time == nil || len(want) > 0 && !want[f.Reason] {
				continue
			}
			n := nudge{Session: s.Session, Time: *f.Time, Call: f.Call, Text: f.Evidence, Tool: f.Tool, Preview: f.Preview, Files: s.Files, Rules: []string{f.Reason}}
			all = append(all, sig{n, f.Reason, f.Kind})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].n.Session != all[j].n.Session {
			return all[i].n.Session < all[j].n.Session
		}
		return all[i].n.Time.Before(all[j].n.Time)
	})
	idx, err := os.Create(strings.TrimSuffix(outDir, "/") + "-index.tsv")
	if err != nil {
		return err
	}
	defer idx.Close()
	fmt.Fprintln(idx, "id\tsession\tts\tcall\trule")
	var cur *session
	curKey := ""
	for i, sg := range all {
		n := sg.n
		n.ID = fmt.Sprintf("s%03d", i+1)
		if key := n.Session + "\x00" + strings.Join(n.Files, "\x00"); key != curKey {
			cur, curKey = readSession(n.Files), key
		}
		fmt.Fprintf(idx, "%s\t%s\t%s\t%d\t%s\n", n.ID, n.Session, n.Time.UTC().Format(time.RFC3339Nano), n.Call, sg.reason)
		head := fmt.Sprintf("signal %s · session %s · at %s\n\n", n.ID, n.Session, n.Time.UTC().Format(time.RFC3339))
		mark := ">>> CULLY SIGNAL, raised after the call above and shown to the user beside the session:\n" + n.Text + "\n<<<"
		if sg.kind == "guard" {
			mark = ">>> CULLY WARNING, told to the agent before the next call runs:\n" + n.Text + "\n<<<"
		}
		at := cur.locate(n)
		if sg.kind == "checkpoint" {
			at = after(cur.items, n.Time) // raised by the call (or the turn's end) before it
		}
		if err := os.WriteFile(filepath.Join(outDir, n.ID+".txt"), []byte(renderContext(head, mark, cur.items, at)), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "%d signals; contexts in %s, index beside it\n", len(all), outDir)
	return nil
}

// after is the index of the first step later than t: a checkpoint raised
// by a call's result or a turn's end is marked right after it, before the
// next prompt (len(items) when nothing follows; -1 when items is empty).
func after(items []item, t time.Time) int {
	if len(items) == 0 {
		return -1
	}
	for i, it := range items {
		if it.at.After(t) {
			return i
		}
	}
	return len(items)
}

const signalLabelsFile = "bench/quality/signal-labels.tsv"

// firing is one checkpoint the replay raised: its session, time and rule,
// as signal-labels.tsv names a judged one.
type firing struct{ session, ts, rule string }

// signalsSection reports the signals judged blind (signal-labels.tsv): per
// rule and labelling round, how many were worth a look; then what the
// status view shows as a whole: each checkpoint the replay raised counts
// by its own latest blind verdict where it has one, by its rule's latest
// precision otherwise.
func signalsSection(w io.Writer, shown []firing) error {
	f, err := os.Open(signalLabelsFile)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	type key struct {
		rule, round string
	}
	n, worth := map[key]int{}, map[key]int{}
	type judged struct {
		round string
		worth bool
	}
	verdict := map[firing]judged{}
	var keys []key
	sc := bufio.NewScanner(f)
	header := true
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if header {
			header = false
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) < 5 {
			return fmt.Errorf("%s: a line with %d columns", signalLabelsFile, len(c))
		}
		k := key{c[2], c[3]}
		f := firing{c[0], c[1], c[2]}
		if v, ok := verdict[f]; !ok || k.round >= v.round {
			verdict[f] = judged{k.round, c[4] == "worth"}
		}
		if n[k] == 0 {
			keys = append(keys, k)
		}
		n[k]++
		if c[4] == "worth" {
			worth[k]++
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].round != keys[j].round {
			return keys[i].round < keys[j].round
		}
		return keys[i].rule < keys[j].rule
	})
	fmt.Fprintln(w, "## Signals judged blind")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Every firing of the detectors written for recall (or a random sample where they fired often) was")
	fmt.Fprintln(w, "judged from its context by reviewers who had not read the rules (`go run ./bench/quality signals")
	fmt.Fprintln(w, "CORPUS DIR`; `bench/quality/signal-labels.tsv`): a guard told to the agent is *worth* when it says")
	fmt.Fprintln(w, "something true and useful then, a checkpoint shown in the pane when a user glancing at it would be")
	fmt.Fprintln(w, "glad to see it. Round 1 judged the detectors as first written; round 2 what the fixes left; round 3")
	fmt.Fprintln(w, "a random sample of every shown rule's firings (up to 12 a rule); round 4 every firing of the rules")
	fmt.Fprintln(w, "round 3 fixed, after the fixes; round 5 every firing of the turn-end checkpoints once they wait for the")
	fmt.Fprintln(w, "closing message to claim a passing check.")
	fmt.Fprintln(w, "docs/rules.md says which rules the figures kept, turned off or removed.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| round | rule | judged | worth a look | precision |")
	fmt.Fprintln(w, "| ---: | --- | ---: | ---: | ---: |")
	for _, k := range keys {
		fmt.Fprintf(w, "| %s | `%s` | %d | %d | %s |\n", k.round, k.rule, n[k], worth[k], pct(worth[k], n[k]))
	}
	fmt.Fprintln(w)
	latest := map[string]key{}
	for _, k := range keys {
		if l, ok := latest[k.rule]; !ok || k.round > l.round {
			latest[k.rule] = k
		}
	}
	var all, seedless shownTally
	unjudged := map[string]int{}
	own := 0
	for _, f := range shown {
		var share float64
		if v, ok := verdict[f]; ok {
			own++
			if v.worth {
				share = 1
			}
		} else if k, ok := latest[f.rule]; ok {
			share = float64(worth[k]) / float64(n[k])
		} else {
			unjudged[f.rule]++
			continue
		}
		all.add(1, share)
		if !engine.Reason(f.rule).Activity() {
			seedless.add(1, share)
		}
	}
	var notJudged []string
	for rule, fired := range unjudged {
		notJudged = append(notJudged, fmt.Sprintf("`%s` (%d)", rule, fired))
	}
	sort.Strings(notJudged)
	fmt.Fprintf(w, "The status view as a whole: each checkpoint the replay raises counts by its own latest blind verdict\n")
	fmt.Fprintf(w, "(%d of them have one), or by its rule's latest judged precision; together they make **%s worth\n", own, all.pct())
	fmt.Fprintf(w, "a look** (%d firings). The activity checkpoints\n", all.fired)
	fmt.Fprintf(w, "(`exploring`, `unverified-edits`, `rerun-filter`: shown, marked as activity, and flagging no\n")
	fmt.Fprintf(w, "session) are %d of them; the checkpoints that flag a session as needing you, **%s** (%d firings).\n",
		all.fired-seedless.fired, seedless.pct(), seedless.fired)
	if len(notJudged) > 0 {
		fmt.Fprintf(w, "Not judged (firings): %s.\n", strings.Join(notJudged, ", "))
	}
	fmt.Fprintln(w)
	return nil
}

// shownTally sums firings and the worth a rule's precision expects of them.
type shownTally struct {
	fired int
	worth float64
}

func (t *shownTally) add(fired int, worth float64) { t.fired += fired; t.worth += worth }

func (t shownTally) pct() string {
	if t.fired == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", 100*t.worth/float64(t.fired))
}
