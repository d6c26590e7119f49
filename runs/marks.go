package runs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"cully/store"
)

// Marks tell the agent's changes from everyone else's. Around each call
// that may change files the hook captures the work tree: before the call
// runs ("pre", which the hook waits for) and after it ("post"). What
// changes between a call's pre and post is the agent's; what changes
// between calls (the user's edits, another session's, a formatter on
// save) is not, and a rollback leaves it. A rollback records its own
// change the same way, so that its undo reverts it.
//
// marks.jsonl in the run's folder, one Mark a line, appended under the
// run's lock; a snapshot records how many marks came before it.
const marksFile = "marks.jsonl"

// MarkWait bounds how long a mark waits for the run's lock (a snapshot of
// a large tree may hold it): the hook that waits for a pre mark has the
// host's hook timeout to keep to.
const MarkWait = 3 * time.Second

// openFor is how long a call's pre mark counts as open without its post:
// a call the user refused, or one interrupted, sends no post, and its
// open mark must not make later changes look like the agent's. Ten
// minutes is a shell call's longest timeout in the hosts.
const openFor = 10 * time.Minute

// Mark is one capture around a call.
type Mark struct {
	Kind string `json:"kind"` // "pre" or "post"
	Call string `json:"call"` // the call's id (the host's, or the rollback's)
	Tree string `json:"tree"`
	At   int64  `json:"at"` // Unix seconds
	// Paths are the files the call says it edited (from the work tree's
	// root): a host with no hook before an edit (Cursor's afterFileEdit)
	// gives only a post mark, and then these paths are the agent's.
	Paths []string `json:"paths,omitempty"`
	// Skipped are the files present but not captured then (too large, a
	// secret, special): absent from Tree, yet not absent from the work
	// tree, so a rollback never "restores" their absence. Written only when
	// it differs from the mark before's (SameSkipped otherwise): a work
	// tree with many large files would repeat them at every call.
	Skipped     []string `json:"skipped,omitempty"`
	SameSkipped bool     `json:"same_skipped,omitempty"`
	// Gone are the files the mark before skipped that are no longer in the
	// work tree: a deletion no tree shows (neither held the file), which
	// the mark sees on the disk.
	Gone []string `json:"gone,omitempty"`
	// Wall is the real time, in nanoseconds, the capture began at (At
	// follows the hook's clock): a file whose modification time is older
	// was in the work tree before it, though the capture may not have
	// shown it (ignored then).
	Wall int64 `json:"wall,omitempty"`
	// Exact, on a post mark, says its Paths are all the call changed: a
	// rollback's, which knows what it wrote. What else differs between its
	// pre and post trees is no change of its own: a file it did not touch
	// that its captures saw only after it (one an edit of .gitignore had
	// hidden, which the rollback put back) is someone else's, never undone.
	Exact bool `json:"exact,omitempty"`
}

// MarkRequest asks for a mark.
type MarkRequest struct {
	Session string
	Run     string
	Task    int
	Kind    string // "pre" or "post"
	Call    string
	Calls   int    // the run's tool calls so far
	Dir     string // the project folder (for a baseline taken now)
	Now     time.Time
	// Destructive names the destructive command about to run: the pre
	// mark is then also a snapshot (Reason "destructive").
	Destructive string
	// Paths are the files the call edited, from Dir (a post mark's).
	Paths  []string
	Policy *Policy
}

// MarkResult is what a mark did.
type MarkResult struct {
	// Baseline: the run had no start state yet, and it was taken now
	// (also Snapshot when a destructive command is about to run).
	Baseline bool
	// Snapshot is the snapshot written before a destructive command.
	Snapshot *Snapshot
}

// TakeMark captures the work tree for a mark, under the run's lock. A pre
// mark of a run with no baseline takes the baseline first: the state
// before the run's first change, whenever the prompt's own baseline has
// not run yet. A post mark of a run with no baseline does nothing.
func TakeMark(h store.Home, req MarkRequest) (*MarkResult, error) {
	dir, err := h.EnsureRunDir(req.Run)
	if err != nil {
		return nil, err
	}
	lk, err := store.Acquire(filepath.Join(dir, lockFile), MarkWait)
	if err != nil {
		return nil, err
	}
	defer lk.Unlock()
	res := &MarkResult{}
	wall := time.Now().UnixNano()
	m, err := readMeta(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if req.Kind != "pre" {
			return res, nil
		}
		s, err := takeLocked(h, dir, Request{Session: req.Session, Run: req.Run, Task: req.Task, Reason: "baseline", Calls: req.Calls, Dir: req.Dir, Now: req.Now, Policy: req.Policy})
		if err != nil {
			return nil, err
		}
		res.Baseline = true
		if req.Destructive != "" {
			res.Snapshot = s // the state before the destructive command
		}
		// The baseline is the state before the call: its tree is the mark's.
		return res, appendMark(dir, "", Mark{Kind: req.Kind, Call: req.Call, Tree: s.State.Tree, At: req.Now.Unix(), Skipped: skipPaths(s.skips), Wall: wall})
	}
	if err != nil {
		return nil, err
	}
	if m.Store == "" {
		return res, nil // a run of version 1 keeps no marks
	}
	if err := checkRoot(m); err != nil {
		return nil, err
	}
	if req.Destructive != "" && req.Kind == "pre" {
		s, err := takeLocked(h, dir, Request{Session: req.Session, Run: req.Run, Task: req.Task, Reason: "destructive", Calls: req.Calls, Now: req.Now, Policy: req.Policy})
		if err != nil {
			return nil, err
		}
		res.Snapshot = s
		return res, appendMark(dir, m.Root, Mark{Kind: req.Kind, Call: req.Call, Tree: s.State.Tree, At: req.Now.Unix(), Skipped: skipPaths(s.skips), Wall: wall})
	}
	if err := roomFor(h, req.policy(h), m.Store, false); err != nil {
		return nil, err
	}
	sl, err := m.lockStore(h)
	if err != nil {
		return nil, err
	}
	defer unlock(sl)
	tree, skipped, err := capture(m.repo(h, dir), m, nil, false, req.policy(h).MaxFileBytes)
	if err != nil {
		return nil, err
	}
	return res, appendMark(dir, m.Root, Mark{Kind: req.Kind, Call: req.Call, Tree: tree, At: req.Now.Unix(), Paths: fromRoot(m.Root, req.Dir, req.Paths), Skipped: skipPaths(skipped), Wall: wall})
}

// skipChanges are the paths in b but not in a: files that came to be
// present but not captured (grown past the cap, made a FIFO), which no
// tree shows. Leaving the list is no change of its own: a file captured
// again shows in the trees, and git does not list a special file the
// index no longer holds, so it drops out of later lists unchanged. A
// file deleted while skipped leaves it too, and only the disk tells:
// gonePaths.
func skipChanges(a, b []string) []string {
	var out []string
	for _, p := range b {
		if !slices.Contains(a, p) {
			out = append(out, p)
		}
	}
	return out
}

// gonePaths are the paths skipped before (prev) that are neither skipped
// now nor in the work tree under root: deleted while no capture held them.
func gonePaths(root string, prev, now []string) []string {
	var out []string
	for _, p := range prev {
		if slices.Contains(now, p) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p))); errors.Is(err, fs.ErrNotExist) {
			out = append(out, p)
		}
	}
	return out
}

// olderThan reports whether the file at p (from root) was last modified
// before wall (Unix nanoseconds). A file's time comes from the kernel's
// coarse clock, which may lag by a tick: a file the agent wrote just
// after the capture began may look older, and is then left, never removed.
func olderThan(root, p string, wall int64) bool {
	fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
	return err == nil && fi.ModTime().UnixNano() < wall
}

// skipPaths are the paths of skips.
func skipPaths(ks []Skip) []string {
	var out []string
	for _, k := range ks {
		out = append(out, k.Path)
	}
	return out
}

// fromRoot makes paths given from the project folder dir (or absolute)
// paths from the work tree's root; one outside it is dropped.
func fromRoot(root, dir string, ps []string) []string {
	var out []string
	for _, p := range ps {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if r, err := filepath.Rel(root, p); err == nil && r != "." && !strings.HasPrefix(r, "..") {
			out = append(out, filepath.ToSlash(r))
		}
	}
	return out
}

func (r MarkRequest) policy(h store.Home) Policy {
	return Request{Policy: r.Policy}.policy(h)
}

// appendMark appends one mark to the run's marks (the run's lock held).
// With the work tree's root, it notes the files the mark before skipped
// that are gone from it (Mark.Gone).
func appendMark(dir, root string, mk Mark) error {
	if prev, ok := lastSkipped(dir); ok {
		if root != "" {
			mk.Gone = gonePaths(root, prev, mk.Skipped)
		}
		if len(mk.Skipped) > 0 && slices.Equal(prev, mk.Skipped) {
			mk.Skipped, mk.SameSkipped = nil, true
		}
	}
	b, err := json.Marshal(mk)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, marksFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("record the mark: %w", err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("record the mark: %w", err)
	}
	return f.Close()
}

var sameSkipped = []byte(`"same_skipped":true`)

// lastSkipped is the last mark's Skipped, read from the end of the marks
// (a hook waits for its pre mark, and a long run's file holds thousands):
// ok is false for a run with no mark. Its last 16 KiB settle it unless a
// skipped list has stood unchanged for longer (SameSkipped); then the
// whole file. BenchmarkLastSkipped, 5,000 marks, on a 2-core VM: 42 µs
// with no list, 1.5 ms when one has stood unchanged since the first mark
// (decoding every mark, as appendMark did before whenever a file was
// skipped: 21.6 ms).
func lastSkipped(dir string) ([]string, bool) {
	f, err := os.Open(filepath.Join(dir, marksFile))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	const tail = 16 << 10
	st, err := f.Stat()
	if err != nil {
		return nil, false
	}
	off := max(st.Size()-tail, 0)
	b := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil {
		return nil, false
	}
	if off > 0 {
		b = b[bytes.IndexByte(b, '\n')+1:] // a line cut by the read's start
	}
	skipped, found, settled := lastSkippedIn(b)
	if settled || off == 0 {
		return skipped, found
	}
	all := make([]byte, st.Size())
	if _, err := f.ReadAt(all, 0); err != nil {
		return nil, false
	}
	skipped, found, _ = lastSkippedIn(all)
	return skipped, found
}

// lastSkippedIn reads marks lines from their end: the last mark's Skipped,
// whether b holds a mark, and whether b settled the list (a mark with its
// own list, not SameSkipped).
func lastSkippedIn(b []byte) (skipped []string, found, settled bool) {
	for len(b) > 0 {
		b = bytes.TrimRight(b, "\n")
		line := b[bytes.LastIndexByte(b, '\n')+1:]
		b = b[:len(b)-len(line)]
		if found && bytes.Contains(line, sameSkipped) {
			continue // the same list as the mark before: no need to decode it
		}
		var mk Mark
		if json.Unmarshal(line, &mk) != nil || mk.Tree == "" {
			continue // a torn line, as readMarks leaves it out
		}
		found = true
		if !mk.SameSkipped {
			return mk.Skipped, true, true
		}
	}
	return nil, found, false
}

// readMarks reads a run's marks, oldest first; a torn last line (a mark
// cut off by a full disk) is left out.
func readMarks(dir string) ([]Mark, error) {
	b, err := os.ReadFile(filepath.Join(dir, marksFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Mark
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), maxMetaFile)
	for sc.Scan() {
		var mk Mark
		if json.Unmarshal(sc.Bytes(), &mk) == nil && mk.Tree != "" {
			if mk.SameSkipped && len(out) > 0 {
				mk.Skipped, mk.SameSkipped = out[len(out)-1].Skipped, false
			}
			out = append(out, mk)
		}
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("read the run's marks: %w", err)
	}
	return out, nil
}

// markCount is how many marks a run has.
func markCount(dir string) int {
	ms, _ := readMarks(dir)
	return len(ms)
}

// markTrees lists the trees a run's marks refer to.
func markTrees(dir string) []string {
	ms, _ := readMarks(dir)
	out := make([]string, len(ms))
	for i, mk := range ms {
		out[i] = mk.Tree
	}
	return out
}

// segment is one step of a run's history of captures: from tree From to
// tree To, made by the agent's calls or by someone else.
type segment struct {
	From, To string
	Agent    bool
	// Skipped: present but not captured at To (Mark.Skipped); FromSkipped
	// at From. A file coming into them changed, though neither tree says
	// so; Gone: one of FromSkipped deleted (Mark.Gone).
	Skipped, FromSkipped, Gone []string
	// FromWall is the real time the capture of From began (Mark.Wall; 0
	// when unknown).
	FromWall int64
	// Paths: of the changes, these are the agent's (a post mark with no
	// pre: a host that has no hook before an edit).
	Paths []string
}

// history is the run's captures since the target snapshot, as segments:
// the target's tree, each mark's tree in order, then now. A segment is the
// agent's when a call was open (its pre seen, its post not yet, for less
// than openFor) at its start; a new pre closes a call of the same session
// left open by a refused or interrupted call only by that time, so calls
// running side by side stay open together.
//
// root is the work tree's: what was skipped at the last capture and is no
// longer on the disk now was deleted since.
func history(ms []Mark, from int, fromTree string, fromSkipped []string, nowTree string, nowSkipped []string, root string) []segment {
	open := map[string]int64{}
	// expire closes the calls open longer than openFor at mk: what changed
	// while one was open that long is not known to be the agent's.
	expire := func(mk Mark) {
		for c, at := range open {
			if mk.At-at > int64(openFor/time.Second) {
				delete(open, c)
			}
		}
	}
	apply := func(mk Mark) {
		switch mk.Kind {
		case "pre":
			open[mk.Call] = mk.At
		case "post":
			if _, ok := open[mk.Call]; ok {
				delete(open, mk.Call)
			} else {
				// A post that pairs with no open call: its id was lost (a
				// payload past the hook's size limit is read from its head)
				// or it never had a pre. Every open call ends with it, so
				// that nothing after is taken for the agent's.
				clear(open)
			}
		}
	}
	for _, mk := range ms[:min(from, len(ms))] {
		expire(mk)
		apply(mk)
	}
	var segs []segment
	cur, curSkipped := fromTree, fromSkipped
	var curWall int64
	for _, mk := range ms[min(from, len(ms)):] {
		expire(mk)
		agent := len(open) > 0
		if mk.Tree != cur || !slices.Equal(mk.Skipped, curSkipped) || len(mk.Gone) > 0 {
			sg := segment{From: cur, To: mk.Tree, Agent: agent, Skipped: mk.Skipped, FromSkipped: curSkipped, Gone: mk.Gone, FromWall: curWall}
			switch _, ok := open[mk.Call]; {
			case mk.Kind == "post" && mk.Exact:
				sg.Agent, sg.Paths = false, mk.Paths
			case !ok && mk.Kind == "post":
				sg.Paths = mk.Paths
			}
			segs = append(segs, sg)
		}
		cur, curSkipped, curWall = mk.Tree, mk.Skipped, mk.Wall
		apply(mk)
	}
	// Since the last mark, nothing is known to be the agent's: a call
	// still open may be one the user refused (no post comes), and what
	// changed since may be the user's.
	if gone := gonePaths(root, curSkipped, nowSkipped); nowTree != cur || !slices.Equal(nowSkipped, curSkipped) || len(gone) > 0 {
		segs = append(segs, segment{From: cur, To: nowTree, Skipped: nowSkipped, FromSkipped: curSkipped, Gone: gone})
	}
	return segs
}

// attribute splits a rollback's changes (target → now) by who made them,
// from the run's history since the target. A path that only someone else
// changed, or that someone else changed after the agent's last change, is
// left as it is (outside). Any other path goes back to its content just
// after the last change someone else made to it (the target's, when there
// was none): the agent's changes are undone, the others' kept — also for
// a path the agent put back as the target had it after someone else had
// changed it (the user deleted a file, the agent's git stash brought it
// back: it goes away again). Each change returned carries the tree it
// restores from.
//
// A path whose content then no snapshot held (targetSkipped, or a mark's
// Skipped) cannot be put back: it is left as it is (left). So is a file
// that first showed in a segment of the agent's that changed a .gitignore,
// and is older than the capture before that segment (root: the work
// tree): it was there, ignored until the edit (the user's debug.log, once
// the agent's .gitignore stops ignoring *.log), and removing it would
// destroy work no snapshot holds. (A file the agent moved into place keeps
// its old time too: only beside an edit of .gitignore is it taken for
// one that was there, and then left, never removed.)
func attribute(g git, segs []segment, cs []change, target, now string, targetSkipped []string, root string) ([]change, []string, []Skip, error) {
	type story struct {
		lastOutside int // the index of the last segment where someone else changed it; -1: none
		agentAfter  bool
		appeared    int64 // FromWall of the agent's segment that changed an ignore file and first showed it; 0: none
	}
	stories := map[string]*story{}
	for i, sg := range segs {
		changed, err := diffTrees(g, sg.From, sg.To)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, p := range append(skipChanges(sg.FromSkipped, sg.Skipped), sg.Gone...) {
			changed = append(changed, change{Path: p})
		}
		// A segment that changed an ignore file may show files it did not
		// make: ones that were there, ignored until then.
		var unhides int64
		for _, c := range changed {
			if path.Base(c.Path) == ".gitignore" {
				unhides = sg.FromWall
			}
		}
		for _, c := range changed {
			st := stories[c.Path]
			if st == nil {
				st = &story{lastOutside: -1}
				stories[c.Path] = st
			}
			if sg.Agent || slices.Contains(sg.Paths, c.Path) {
				if !st.agentAfter && unhides > 0 && c.ModeA == noMode && c.ModeB != "" && c.ModeB != noMode {
					st.appeared = unhides
				}
				st.agentAfter = true
			} else {
				st.lastOutside, st.agentAfter, st.appeared = i, false, 0
			}
		}
	}
	inCS := map[string]bool{}
	for _, c := range cs {
		inCS[c.Path] = true
	}
	byTree := map[string]map[string]bool{}
	var outside []string
	var left []Skip
	for p, st := range stories {
		if !st.agentAfter {
			if inCS[p] {
				outside = append(outside, p)
			}
			continue
		}
		from, skipped := target, targetSkipped
		if st.lastOutside >= 0 {
			from, skipped = segs[st.lastOutside].To, segs[st.lastOutside].Skipped
		}
		if from == target && !inCS[p] {
			continue // the agent put it back as it was
		}
		if slices.Contains(skipped, p) {
			left = append(left, Skip{Path: p, Why: "no snapshot held it as it was then (too large, a secret, or not a file), so it cannot be put back"})
			continue
		}
		if st.appeared > 0 && olderThan(root, p, st.appeared) {
			left = append(left, Skip{Path: p, Why: "it was in the work tree before the agent's call that made it visible (an ignore rule changed), and no snapshot held it"})
			continue
		}
		if byTree[from] == nil {
			byTree[from] = map[string]bool{}
		}
		byTree[from][p] = true
	}
	var out []change
	for tree, ps := range byTree {
		diff := cs
		if tree != target {
			var err error
			if diff, err = diffTrees(g, tree, now); err != nil {
				return nil, nil, nil, err
			}
		}
		for _, c := range diff {
			if ps[c.Path] {
				c.Tree = tree
				out = append(out, c)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	sort.Strings(outside)
	sort.Slice(left, func(i, j int) bool { return left[i].Path < left[j].Path })
	return out, outside, left, nil
}
