package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"

	"cully/engine"
	"cully/hookbridge"
	"cully/hookbridge/agents"
)

// `cully replay` runs the rules over recorded transcripts and measures
// what cully would have flagged and how often it would have nudged.
// Nothing is written to the state dir. It reads in three steps:
//
//  1. find the files: the arguments, folders walked recursively (none: the
//     agent's own transcript folder);
//  2. identify each one from its first lines (in parallel): the agent that
//     recorded it (each adapter that can replay is asked, unless --agent
//     names one) and the session it belongs to, or why it is skipped;
//  3. replay each session — every file that carries its id: split parts,
//     subagent transcripts — through its own rule state, sessions in
//     parallel (GOMAXPROCS workers), each one's records in time order.
//
// A worker holds one session's records at a time, never a whole file.

type replayOpts struct {
	json    bool
	agent   string
	moments string // a moments file: report which of its moments the rules caught
}

// replayFinding is one thing the rules would have said, and the call it
// was said on.
type replayFinding struct {
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

type replaySession struct {
	File             string          `json:"file"`  // the session's transcript (its first file)
	Files            []string        `json:"files"` // every file read for it: parts, subagents
	Session          string          `json:"session"`
	ToolCalls        int             `json:"tool_calls"`
	Tasks            int             `json:"tasks"`
	Turns            int             `json:"turns"` // turn ends of the main agent (Stop)
	Nudges           int             `json:"nudges"`
	Per100           float64         `json:"nudges_per_100_calls"`
	Subagents        int             `json:"subagents"` // distinct subagents that made calls
	Checkpoints      map[string]int  `json:"checkpoints"`
	Guards           map[string]int  `json:"guards"`
	Lines            int             `json:"lines"`
	CorruptLines     int             `json:"corrupt_lines"`
	UnmatchedResults int             `json:"unmatched_results"`
	DuplicateRecords int             `json:"duplicate_records"`
	Findings         []replayFinding `json:"findings"`

	subagents map[string]bool
	calls     []time.Time // the main agent's calls, in order (--moments finds a moment's call by its time)
	alerted   map[string]bool
}

type replaySkip struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// replayReport is `cully replay --json` (docs/json.md).
type replayReport struct {
	Schema      int             `json:"schema_version"`
	Files       int             `json:"files"` // files replayed
	Bytes       int64           `json:"bytes"` // their size
	Skipped     []replaySkip    `json:"skipped"`
	ToolCalls   int             `json:"tool_calls"`
	Turns       int             `json:"turns"`
	Nudges      int             `json:"nudges"`
	Per100      float64         `json:"nudges_per_100_calls"`
	Checkpoints map[string]int  `json:"checkpoints"`
	Guards      map[string]int  `json:"guards"`
	Sessions    []replaySession `json:"sessions"`
	Moments     *momentsReport  `json:"moments,omitempty"` // --moments
}

// replayFile is one file found for the replay.
type replayFile struct {
	path string
	size int64
	seq  int // its place in the walk
}

// replayGroup is one session's files.
type replayGroup struct {
	rp    hookbridge.Replayer
	id    string
	files []replayFile
	size  int64
	out   []replaySession
	stats hookbridge.ReplayStats
	err   error
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
	var ms []moment
	if o.moments != "" {
		if ms, err = readMoments(o.moments); err != nil {
			return fmt.Errorf("%w: --moments: %v", errUsage, err)
		}
	}
	cfg := a.config()
	files, err := findReplayFiles(roots)
	if err != nil {
		return err
	}
	prog := newReplayProgress(a.stderr)
	defer prog.stop()
	groups, skipped := identifyReplayFiles(rps, files, prog)
	for _, s := range skipped {
		prog.warn(fmt.Sprintf("cully: skipped %s: %s", s.File, s.Reason))
	}
	if len(groups) == 0 {
		return fail(codeNothing, nil, "nothing to replay: none of the %d file(s) found is a %s", len(files), recordNames(rps, ""))
	}
	replayGroups(groups, &cfg, prog)

	rep := replayReport{Schema: jsonSchema, Skipped: skipped, Checkpoints: map[string]int{}, Guards: map[string]int{}, Sessions: []replaySession{}}
	if rep.Skipped == nil {
		rep.Skipped = []replaySkip{}
	}
	for _, g := range groups {
		if g.err != nil {
			prog.warn(fmt.Sprintf("cully: skipped session %s: %v", g.id, g.err))
			for _, f := range g.files {
				rep.Skipped = append(rep.Skipped, replaySkip{f.path, g.err.Error()})
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
	prog.stop()
	if rep.Files == 0 {
		return fail(codeNothing, nil, "nothing to replay: no session could be read")
	}
	if ms != nil {
		m := judgeMoments(ms, rep.Sessions)
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

// alertReason names an alert by its key's rule: "runaway:no-modification",
// "budget-exceeded:tool_calls", "rollback-suggested".
func alertReason(key string) string {
	parts := strings.SplitN(key, ":", 3)
	if len(parts) >= 2 && parts[0] != engine.AlertRollback {
		return parts[0] + ":" + parts[1]
	}
	return parts[0]
}

func (a *app) printReplay(rep *replayReport) {
	w := termSafe{a.stdout}
	for _, rs := range rep.Sessions {
		parts, subs := 0, 0
		for _, f := range rs.Files[1:] {
			if isSubagentFile(f) {
				subs++
			} else {
				parts++
			}
		}
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

// findReplayFiles lists the files under roots: a file as named, a folder
// walked recursively (hidden entries skipped, symbolic links followed, each
// folder once), each file once, in the order found.
func findReplayFiles(roots []string) ([]replayFile, error) {
	var out []replayFile
	seenFile := map[string]bool{}
	seenDir := map[string]bool{}
	add := func(path string, size int64) {
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			real = path
		}
		if abs, err := filepath.Abs(real); err == nil {
			real = abs
		}
		if seenFile[real] {
			return
		}
		seenFile[real] = true
		out = append(out, replayFile{path: path, size: size, seq: len(out)})
	}
	var walk func(dir string) error
	walk = func(dir string) error {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			if seenDir[real] {
				return nil
			}
			seenDir[real] = true
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return fail(codeFailed, err, "cannot read the folder %s: %s", dir, readProblem(err))
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p := filepath.Join(dir, e.Name())
			fi, err := os.Stat(p) // follows a symbolic link
			if err != nil {
				continue // a dangling link
			}
			switch {
			case fi.IsDir():
				if err := walk(p); err != nil {
					return err
				}
			case fi.Mode().IsRegular():
				add(p, fi.Size())
			}
		}
		return nil
	}
	for _, r := range roots {
		fi, err := os.Stat(r)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fail(codeNotFound, err, "nothing to replay at %s: no such file or folder", r)
		}
		if err != nil {
			return nil, fail(codeFailed, err, "cannot replay %s: %s", r, readProblem(err))
		}
		if fi.IsDir() {
			if err := walk(r); err != nil {
				return nil, err
			}
			continue
		}
		add(r, fi.Size())
	}
	return out, nil
}

// replayHead is how much of a file is read to tell what it is before the
// adapter reads on (it reads further only until a record names a session).
const replayHead = 64 << 10

// identifyReplayFiles reads each file's first lines (GOMAXPROCS at a time)
// and groups the files by the session their records carry; the rest are
// skipped, each with its reason.
func identifyReplayFiles(rps []hookbridge.Replayer, files []replayFile, prog *replayProgress) ([]*replayGroup, []replaySkip) {
	type ident struct {
		rp           hookbridge.Replayer
		session, why string
	}
	ids := make([]ident, len(files))
	parallel(len(files), func(i int) {
		ids[i].rp, ids[i].session, ids[i].why = identifyReplayFile(rps, files[i].path)
		prog.identified.Add(1)
	})
	byID := map[string]*replayGroup{}
	var groups []*replayGroup
	var skipped []replaySkip
	for i, f := range files {
		if ids[i].session == "" {
			skipped = append(skipped, replaySkip{f.path, ids[i].why})
			continue
		}
		key := ids[i].rp.Name() + "\x00" + ids[i].session
		g := byID[key]
		if g == nil {
			g = &replayGroup{rp: ids[i].rp, id: ids[i].session}
			byID[key] = g
			groups = append(groups, g)
		}
		g.files = append(g.files, f)
		g.size += f.size
	}
	// The session's own transcript first, then its parts and subagents
	// (a walk meets <session>/subagents/ before <session>.jsonl); sessions
	// in the order their transcripts were found.
	for _, g := range groups {
		sort.SliceStable(g.files, func(i, j int) bool {
			si, sj := isSubagentFile(g.files[i].path), isSubagentFile(g.files[j].path)
			if si != sj {
				return !si
			}
			return g.files[i].path < g.files[j].path
		})
	}
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].files[0].seq < groups[j].files[0].seq })
	return groups, skipped
}

// isSubagentFile: Claude Code keeps a subagent's transcript in
// <session>/subagents/.
func isSubagentFile(path string) bool {
	return filepath.Base(filepath.Dir(path)) == "subagents"
}

// identifyReplayFile asks each replayer in turn whether the file is one
// of its agent's recorded sessions; when none says so, why says what each
// found.
func identifyReplayFile(rps []hookbridge.Replayer, path string) (rp hookbridge.Replayer, session, why string) {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, "", "cannot read: " + err.Error()
	}
	defer f.Close()
	head := make([]byte, replayHead)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, "", "cannot read: " + err.Error()
	}
	head = head[:n]
	var whys []string
	for _, rp := range rps {
		r := io.MultiReader(bytes.NewReader(head), io.NewSectionReader(f, int64(n), 1<<62))
		session, why := rp.Identify(r)
		if session != "" {
			return rp, session, ""
		}
		whys = append(whys, why)
	}
	return nil, "", joinWhys(whys)
}

// joinWhys puts the replayers' reasons together: one when they agree,
// "not a Claude Code transcript or a Codex rollout (not JSON lines)" when
// they differ only in what they looked for, else all of them.
func joinWhys(whys []string) string {
	same := true
	for _, w := range whys {
		same = same && w == whys[0]
	}
	if same {
		return whys[0]
	}
	var what []string
	detail := ""
	for i, w := range whys {
		head, rest, ok := strings.Cut(w, " (")
		if !ok || !strings.HasPrefix(head, "not a ") || i > 0 && rest != detail {
			return strings.Join(whys, "; ")
		}
		detail, what = rest, append(what, strings.TrimPrefix(head, "not a "))
	}
	return "not a " + strings.Join(what, " or a ") + " (" + detail
}

// replayGroups replays every session, the largest first so that the
// workers finish together.
func replayGroups(groups []*replayGroup, cfg *engine.Config, prog *replayProgress) {
	order := make([]*replayGroup, len(groups))
	copy(order, groups)
	sort.SliceStable(order, func(i, j int) bool { return order[i].size > order[j].size })
	prog.startReplay(groups)
	parallel(len(order), func(i int) {
		g := order[i]
		g.out, g.stats, g.err = replayGroup1(g.rp, g, cfg, prog)
		prog.sessions.Add(1)
		prog.files.Add(int64(len(g.files)))
	})
}

// replayGroup1 folds one session's events through a fresh rule state (one
// per session id its records carry) and collects the findings.
func replayGroup1(rp hookbridge.Replayer, g *replayGroup, cfg *engine.Config, prog *replayProgress) ([]replaySession, hookbridge.ReplayStats, error) {
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
	found := map[string]*replaySession{}
	st, err := rp.ReplaySession(readers, cfg, func(ev *engine.Event) error {
		s := states[ev.Session]
		rs := found[ev.Session]
		if s == nil {
			s = engine.NewState(ev.Session)
			states[ev.Session] = s
			rs = &replaySession{File: g.files[0].path, Session: ev.Session, Findings: []replayFinding{},
				Checkpoints: map[string]int{}, Guards: map[string]int{}, subagents: map[string]bool{}, alerted: map[string]bool{}}
			for _, f := range g.files {
				rs.Files = append(rs.Files, f.path)
			}
			found[ev.Session] = rs
		}
		for _, sg := range engine.Apply(s, ev, cfg) {
			f := replayFinding{Kind: string(sg.Kind), Reason: string(sg.Reason), Evidence: sg.Evidence, Tool: ev.Tool, Preview: ev.Cmd}
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
				f := replayFinding{Call: s.Counts.ToolCalls + 1, Kind: "alert", Reason: alertReason(al.Key), Evidence: al.Text, Tool: ev.Tool, Preview: ev.Cmd}
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
	out := make([]replaySession, 0, len(ids))
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

// replayProgress shows how far a replay is on stderr, when stderr is a
// terminal and the replay has taken more than a second; warnings go
// through it so they do not tangle with the progress line.
type replayProgress struct {
	w       io.Writer
	tty     bool
	start   time.Time
	mu      sync.Mutex
	shown   bool
	stopped bool
	done    chan struct{}
	wg      sync.WaitGroup

	identified, files, sessions, bytes atomic.Int64
	totalFiles, totalSessions          atomic.Int64
	totalBytes                         atomic.Int64
	replaying                          atomic.Bool
}

func newReplayProgress(w io.Writer) *replayProgress {
	p := &replayProgress{w: w, start: time.Now(), done: make(chan struct{})}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.tty = true
		p.wg.Go(p.loop)
	}
	return p
}

func (p *replayProgress) startReplay(groups []*replayGroup) {
	var files, size int64
	for _, g := range groups {
		files += int64(len(g.files))
		size += g.size
	}
	p.totalFiles.Store(files)
	p.totalSessions.Store(int64(len(groups)))
	p.totalBytes.Store(size)
	p.replaying.Store(true)
}

func (p *replayProgress) loop() {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
			if time.Since(p.start) < time.Second {
				continue
			}
			p.mu.Lock()
			line := fmt.Sprintf("replay: %d files identified", p.identified.Load())
			if p.replaying.Load() {
				line = fmt.Sprintf("replay: %d/%d sessions, %d/%d files, %.0f/%.0f MB read",
					p.sessions.Load(), p.totalSessions.Load(), p.files.Load(), p.totalFiles.Load(),
					float64(p.bytes.Load())/1e6, float64(p.totalBytes.Load())/1e6)
			}
			fmt.Fprintf(p.w, "\r\033[K%s", line)
			p.shown = true
			p.mu.Unlock()
		}
	}
}

// warn prints one line, above the progress line.
func (p *replayProgress) warn(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
	fmt.Fprintln(p.w, line)
}

// stop ends the progress line, leaving the totals and the time taken.
func (p *replayProgress) stop() {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	p.stopped = true
	p.mu.Unlock()
	close(p.done)
	p.wg.Wait()
	if p.shown {
		el := time.Since(p.start).Seconds()
		mb := float64(p.bytes.Load()) / 1e6
		fmt.Fprintf(p.w, "\r\033[Kreplay: %d sessions, %d files, %.0f MB in %.1f s (%.0f MB/s)\n",
			p.sessions.Load(), p.files.Load(), mb, el, mb/el)
	}
}

// readProblem is why a file or folder could not be read, in words.
func readProblem(err error) string {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, fs.ErrNotExist):
		return "it does not exist"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
