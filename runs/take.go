package runs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cully/redact"
	"cully/store"
)

// MaxFileBytes is the default bound of a file a snapshot copies
// (Policy.MaxFileBytes, [snapshots] max_file_bytes): past it a file is
// listed as not captured, and a rollback never changes it. Source files
// are far smaller; what is larger is data or a build product, and copying
// it at every change would cost seconds.
var MaxFileBytes int64 = 64 << 20 // a variable for tests

// maxUntracked bounds the files a snapshot takes that git does not track
// (outside a repository: all of them). Past it the snapshot fails rather
// than copy a home folder or an unignored dependency tree.
const maxUntracked = 100_000

// maxUntrackedBytes bounds the content of those files a snapshot copies
// into its store (what git tracks is borrowed from the repository's own
// objects and costs nothing). Without it a run in a folder that is no
// repository, full of large files, filled the state dir: a smoke run in a
// scratch folder of big files wrote 1.1 GB of snapshots in a minute.
var maxUntrackedBytes int64 = 256 << 20 // a variable for tests

// ErrNoBaseline: a run whose start state was never captured has nothing
// to tell its changes from.
var ErrNoBaseline = errors.New("the run's start state was not captured (its baseline snapshot failed or never ran), so what it changed cannot be told")

// Request asks for a snapshot of a run.
type Request struct {
	Session string
	Run     string
	Task    int
	Reason  string // engine.Snap* (baseline, calls, time, end, manual, rollback, stop)
	Calls   int    // the run's tool calls when it was asked for
	Dir     string // the project folder: where the baseline finds the work tree
	Now     time.Time
	// Policy bounds the store (nil: DefaultPolicy of the state dir).
	Policy *Policy
}

// capped reports whether a snapshot of this reason pauses at the store's
// cap: those taken on the reducer's cadence. A rollback's or a stop's own
// snapshot, the one before a destructive command and the user's own are
// what make the user's work recoverable, and stay (the disk's floor holds
// for all).
func (r Request) capped() bool {
	switch r.Reason {
	case "baseline", "calls", "time", "end":
		return true
	}
	return false
}

func (r Request) policy(h store.Home) Policy {
	if r.Policy != nil {
		return *r.Policy
	}
	return DefaultPolicy(h.Dir)
}

// Take writes the run's next snapshot, under the run's lock; the baseline
// (Reason "baseline", for a run with no snapshot yet) also sets the run
// up: finds its work tree and its store.
func Take(h store.Home, req Request) (*Snapshot, error) {
	dir, err := h.EnsureRunDir(req.Run)
	if err != nil {
		return nil, err
	}
	lk, err := store.Acquire(filepath.Join(dir, lockFile), LockWait)
	if err != nil {
		return nil, err
	}
	defer lk.Unlock()
	return takeLocked(h, dir, req)
}

func takeLocked(h store.Home, dir string, req Request) (*Snapshot, error) {
	m, err := readMeta(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) && req.Reason == "baseline":
		return start(h, dir, req)
	case errors.Is(err, fs.ErrNotExist):
		return nil, ErrNoBaseline
	case err != nil:
		return nil, err
	}
	if err := checkRoot(m); err != nil {
		return nil, err
	}
	if m.Store != "" {
		if err := roomFor(h, req.policy(h), m.Store, req.capped()); err != nil {
			return nil, err
		}
	}
	sl, err := m.lockStore(h)
	if err != nil {
		return nil, err
	}
	defer unlock(sl)
	ns, err := steps(dir)
	if err != nil {
		return nil, err
	}
	step := 1
	if len(ns) > 0 {
		step = ns[len(ns)-1] + 1
	}
	g := m.repo(h, dir)
	tree, skipped, err := capture(g, m, nil, false, req.policy(h).MaxFileBytes)
	if err != nil {
		return nil, err
	}
	changes, err := diffTrees(g, m.Baseline, tree)
	if err != nil {
		return nil, err
	}
	return write(dir, m, req, step, tree, skipped, paths(changes))
}

// checkRoot refuses a run whose work tree is gone (moved, deleted): a
// snapshot of it would say every file was deleted, and a rollback would
// create the folder again.
func checkRoot(m *Meta) error {
	if fi, err := os.Stat(m.Root); err != nil || !fi.IsDir() {
		return fmt.Errorf("the run's work tree %s is not there any more", m.Root)
	}
	return nil
}

// start sets the run up and writes its baseline, step 0.
func start(h store.Home, dir string, req Request) (*Snapshot, error) {
	m := &Meta{V: metaVersion, RunID: req.Run, Session: req.Session, Task: req.Task, Started: req.Now.UTC()}
	format, err := locate(m, req.Dir)
	if err != nil {
		return nil, err
	}
	m.Store = storeKey(m.Root)
	if err := initStore(h, m, format); err != nil {
		return nil, err
	}
	pol := req.policy(h)
	if err := roomFor(h, pol, m.Store, true); err != nil {
		if _, perr := Prune(h, pol, req.Now, m.Store, req.Run); perr != nil {
			return nil, fmt.Errorf("%w (and the prune that would make room failed: %v)", err, perr)
		}
		if err := roomFor(h, pol, m.Store, true); err != nil {
			return nil, err
		}
	}
	s, err := baseline(h, dir, req, m)
	if err != nil {
		return nil, err
	}
	if due(h, pol, req.Now, m.Store) {
		if _, err := Prune(h, pol, req.Now, m.Store, req.Run); err != nil {
			return s, fmt.Errorf("the baseline is written, but pruning old runs failed: %w", err)
		}
	}
	return s, nil
}

// due reports whether a store has a run the policy would remove, or is
// over its cap.
func due(h store.Home, p Policy, now time.Time, key string) bool {
	rs := runsByStore(h)[key]
	for i, r := range rs {
		if i >= p.KeepRuns && now.Sub(r.meta.Started) >= p.KeepFor {
			return true
		}
	}
	return dirBytes(filepath.Join(h.StoreDir(key), gitDirName)) > p.MaxBytes
}

// baseline captures the run's start under the store's lock.
func baseline(h store.Home, dir string, req Request, m *Meta) (*Snapshot, error) {
	sl, err := m.lockStore(h)
	if err != nil {
		return nil, err
	}
	defer unlock(sl)
	if err := writeExcludes(h, m, dir); err != nil {
		return nil, err
	}
	seeded, fromUser, err := seedRunIndex(h, m, dir)
	if err != nil {
		return nil, err
	}
	var tracked []string
	if m.Git {
		user := git{root: m.Root}
		if out, err := user.out(nil, "rev-parse", "-q", "--verify", "HEAD"); err == nil {
			m.Head = strings.TrimSpace(string(out))
		}
		out, err := user.out(nil, "ls-files", "-z")
		if err != nil {
			return nil, err
		}
		tracked = nulFields(out)
	}
	g := m.repo(h, dir)
	if fromUser {
		// The user's blobs of converted files are not their bytes: those
		// entries leave the seed, and are hashed as they are.
		conv, all, err := converted(git{root: m.Root}, tracked)
		switch {
		case err != nil || all:
			if rerr := os.Remove(filepath.Join(dir, runIndex)); rerr != nil {
				return nil, rerr
			}
			seeded = false
		case len(conv) > 0:
			if _, err := g.out(nulJoin(conv), "update-index", "-z", "--force-remove", "--stdin"); err != nil {
				return nil, err
			}
		}
	}
	tree, skipped, err := capture(g, m, tracked, true, req.policy(h).MaxFileBytes)
	if err != nil && seeded {
		// A seed git will not take (the user's index split, or mid-merge
		// with conflicted entries): hash every file instead.
		if rerr := os.Remove(filepath.Join(dir, runIndex)); rerr == nil {
			tree, skipped, err = capture(g, m, tracked, true, req.policy(h).MaxFileBytes)
		}
	}
	if err != nil {
		return nil, err
	}
	m.Baseline = tree
	if err := writeJSON(filepath.Join(dir, metaFile), m); err != nil {
		return nil, err
	}
	keepSeed(h, m, dir)
	return write(dir, m, req, 0, tree, skipped, nil)
}

// systemDirs are folders no run's work tree may be in: a forged project
// folder of /etc would otherwise copy it into the store.
var systemDirs = []string{"/etc", "/proc", "/dev", "/sys", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
	"/boot", "/run", "/var/run", "/var/lib", "/var/log", "/var/cache", "/private/etc", "/private/var/db", "/System", "/Library"}

// locate finds the run's work tree from the project folder: the git
// repository's top level, or the folder itself outside any repository. It
// must be a folder this user owns, outside the system's folders, and
// (outside a repository) neither a home folder nor the file system's root,
// which no snapshot should copy. It returns the repository's object
// format.
func locate(m *Meta, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("the project folder %s is not a directory", abs)
	}
	out, err := git{root: abs}.out(nil, "rev-parse", "--show-toplevel", "--git-common-dir", "--show-object-format")
	if errors.Is(err, ErrNoGit) {
		return "", err
	}
	format := "sha1"
	if f := strings.Split(strings.TrimSpace(string(out)), "\n"); err == nil && len(f) >= 2 && f[0] != "" {
		m.Root, m.Git = filepath.Clean(f[0]), true
		common := f[1]
		if !filepath.IsAbs(common) {
			common = filepath.Join(abs, common)
		}
		m.Objects = filepath.Join(common, "objects")
		if len(f) >= 3 && f[2] == "sha256" {
			format = "sha256"
		}
	} else {
		home, _ := os.UserHomeDir()
		if abs == filepath.Dir(abs) || home != "" && abs == filepath.Clean(home) {
			return "", fmt.Errorf("%s is not in a git repository, and it is the whole of your home folder or of the disk: no snapshot copies that (run the agent in a project folder)", abs)
		}
		m.Root = abs
	}
	if err := checkWorkTree(m.Root); err != nil {
		return "", err
	}
	return format, nil
}

// checkWorkTree refuses a work tree in a system folder or one this user
// does not own.
func checkWorkTree(root string) error {
	for _, d := range systemDirs {
		if root == d || strings.HasPrefix(root, d+string(filepath.Separator)) {
			return fmt.Errorf("%s is a system folder: no snapshot copies it (run the agent in a project folder)", root)
		}
	}
	fi, err := os.Stat(root)
	if err != nil {
		return err
	}
	if !ownedByUser(fi) {
		return fmt.Errorf("%s is not your folder (another user owns it): no snapshot copies it", root)
	}
	return nil
}

// Skip is a file present in the work tree that a snapshot does not hold,
// and why (why* above).
type Skip struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// capture brings the run's index up to the work tree and writes its tree.
// git lists what may have changed since the index last saw it (by each
// file's metadata: size, times, inode), plus the files it does not hold;
// a baseline also takes every file the user's repository tracks, ignored
// or not. A file the index holds that can no longer be captured (grown
// past the cap, unreadable, a special file) leaves the index: a tree
// never claims content it does not have. A file new to the index that
// is not the repository's (untracked) and is a secret by name or content
// is never stored. It returns the tree and the files it did not capture.
func capture(g git, m *Meta, tracked []string, baseline bool, maxFile int64) (string, []Skip, error) {
	seen := map[string]bool{}
	isTracked := map[string]bool{}
	var cands []string
	for _, p := range tracked {
		if !seen[p] {
			seen[p], isTracked[p] = true, true
			cands = append(cands, p)
		}
	}
	// -t tags each path: "? " for one the run's index does not hold.
	args := []string{"ls-files", "-z", "-t", "--others", "--exclude-standard", "--modified", "--deleted"}
	untracked := 0
	others := map[string]bool{}
	err := g.lines(func(f string) error {
		if len(f) < 3 || f[1] != ' ' {
			return fmt.Errorf("git ls-files: unexpected entry %q", f)
		}
		tag, p := f[0], f[2:]
		if seen[p] {
			return nil
		}
		seen[p] = true
		cands = append(cands, p)
		if tag != '?' || isTracked[p] {
			return nil
		}
		others[p] = true
		if untracked++; untracked > maxUntracked {
			return fmt.Errorf("more than %d files under %s that git does not track or ignore: not snapshotted (ignore build outputs and dependencies in .gitignore)", maxUntracked, m.Root)
		}
		return nil
	}, args...)
	if err != nil {
		return "", nil, err
	}
	// Removals first: a path that became a directory (or whose directory
	// became a file) must leave the index before what replaced it enters.
	var remove, add []string
	var skipped []Skip
	var otherBytes int64
	links := map[string]bool{}
	skip := func(p, why string) {
		skipped = append(skipped, Skip{Path: p, Why: why})
		if !others[p] {
			remove = append(remove, p)
		}
	}
	for _, p := range cands {
		if strings.HasSuffix(p, "/") { // a repository inside the work tree: its own business
			continue
		}
		if underLink(m.Root, p, links) { // its folder is a link now: the link is an entry of its own
			remove = append(remove, p)
			continue
		}
		full := filepath.Join(m.Root, filepath.FromSlash(p))
		fi, err := os.Lstat(full)
		switch {
		case err != nil:
			remove = append(remove, p)
		case fi.IsDir():
			if !baseline { // a submodule or an embedded repository at a baseline
				remove = append(remove, p)
			}
		case fi.Mode()&fs.ModeSymlink != 0:
			add = append(add, p)
		case !fi.Mode().IsRegular():
			skip(p, whySpecial)
		case fi.Size() > maxFile:
			skip(p, whyTooBig)
		case !readable(full):
			skip(p, whyUnreadable)
		case others[p] && (secretByName(p) || secretByContent(full, fi.Size())):
			skip(p, whySecret)
		default:
			add = append(add, p)
			if others[p] {
				if otherBytes += fi.Size(); otherBytes > maxUntrackedBytes {
					return "", nil, fmt.Errorf("more than %d MiB of new files under %s that git does not track or ignore: followed, not snapshotted (ignore data and build outputs in .gitignore)", maxUntrackedBytes>>20, m.Root)
				}
			}
		}
	}
	if len(remove) > 0 {
		if _, err := g.out(nulJoin(remove), "update-index", "-z", "--force-remove", "--stdin"); err != nil {
			return "", nil, err
		}
	}
	if len(add) > 0 {
		if _, err := g.out(nulJoin(add), "update-index", "-z", "--add", "--remove", "--replace", "--stdin"); err != nil {
			return "", nil, err
		}
	}
	out, err := g.out(nil, "write-tree")
	if err != nil {
		return "", nil, err
	}
	return strings.TrimSpace(string(out)), skipped, nil
}

// underLink reports whether a folder on p's way from the root is a link
// (or no folder at all): git refuses a path beyond a link, and the old
// entries under a folder replaced by a link must leave the index. dirs
// remembers the folders already looked at.
func underLink(root, p string, dirs map[string]bool) bool {
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		d := p[:i]
		bad, ok := dirs[d]
		if !ok {
			fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(d)))
			bad = err == nil && !fi.IsDir()
			dirs[d] = bad
		}
		if bad {
			return true
		}
	}
	return false
}

func readable(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// write writes a snapshot file.
// Every path in it goes through the hook's path redaction: a token in a
// file's name stays out of the state dir (the snapshot's tree has the
// name; the run's own commands read that).
func write(dir string, m *Meta, req Request, step int, tree string, skipped []Skip, files []string) (*Snapshot, error) {
	st := State{V: stateVersion, Session: req.Session, Task: req.Task, Reason: req.Reason, ToolCalls: req.Calls,
		Root: m.Root, Tree: tree, Baseline: m.Baseline, Marks: markCount(dir)}
	for _, k := range skipped {
		st.NotCaptured = append(st.NotCaptured, redact.Path(k.Path))
		st.Skipped = append(st.Skipped, Skip{Path: redact.Path(k.Path), Why: k.Why})
	}
	files = RedactPaths(files)
	if files == nil {
		files = []string{}
	}
	s := &Snapshot{File: File{RunID: m.RunID, Step: step, Timestamp: req.Now.UTC().Format(time.RFC3339), State: compactJSON(st), Files: files},
		State: st, Path: snapshotPath(dir, step), skips: skipped}
	if err := writeJSON(s.Path, &s.File); err != nil {
		return nil, err
	}
	return s, nil
}

// change is one path that differs between two trees: its mode and object
// in the first (A) and the second (B); a zero mode means absent there.
type change struct {
	Path         string
	ModeA, ModeB string
	IDA, IDB     string
	// Tree is the tree a rollback takes the A side from (the target's, or
	// for a path someone else changed since, the tree after their change).
	Tree string
}

const noMode = "000000"

func (c change) inA() bool { return c.ModeA != noMode }
func (c change) inB() bool { return c.ModeB != noMode }

// diffTrees lists what differs between two trees, in path order.
func diffTrees(g git, a, b string) ([]change, error) {
	out, err := g.out(nil, "diff-tree", "-r", "-z", "--no-renames", "--raw", a, b)
	if err != nil {
		return nil, err
	}
	f := nulFields(out)
	var cs []change
	for i := 0; i+1 < len(f); i += 2 {
		// ":100644 100644 <id> <id> M", then the path
		meta := strings.Fields(strings.TrimPrefix(f[i], ":"))
		if len(meta) < 5 {
			return nil, fmt.Errorf("git diff-tree: unexpected output %q", f[i])
		}
		cs = append(cs, change{Path: f[i+1], ModeA: meta[0], ModeB: meta[1], IDA: meta[2], IDB: meta[3]})
	}
	return cs, nil
}

func paths(cs []change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Path
	}
	return out
}
