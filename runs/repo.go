package runs

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"cully/store"
)

// A work tree's store, stores/<key>/ in the state dir, shared by every run
// of that work tree:
//
//	git/        a bare repository: the objects (the user's object dir an alternate), config, info/attributes
//	root        the work tree it holds content for, for doctor and prune
//	index.seed  the index of the last baseline: the next one hashes only what changed since
//	lock        shared by a snapshot or a rollback; held alone by a prune
//
// Content is stored once, by its hash: an unchanged file is never copied
// again, whichever run or prompt snapshots it.
const (
	storeRoot   = "root"
	storeLock   = "lock"
	seedIndex   = "index.seed"
	runIndex    = "index"
	runExcludes = "exclude"
)

// storeAttributes make git keep every file byte for byte: no line-ending
// conversion (a repository's `* text=auto` turned CRLF into LF on
// rollback), no clean or smudge filter (a user's global LFS filter would
// store a pointer, and runs a program), no ident or encoding rewrite.
// $GIT_DIR/info/attributes outranks the work tree's .gitattributes.
const storeAttributes = "* -text -eol -filter -ident -working-tree-encoding\n"

// storeKey names a work tree's store: a hash of its path, so that a
// renamed repository starts a store of its own and no path becomes a
// folder name.
func storeKey(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:10])
}

// repo is the git a run's commands go through: the work tree's store, the
// run's own index and excludes. A run written before stores were shared
// (run.json version 1) keeps its private repository in its folder.
func (m *Meta) repo(h store.Home, dir string) git {
	if m.Store == "" {
		return git{dir: filepath.Join(dir, gitDirName), root: m.Root}
	}
	return git{dir: filepath.Join(h.StoreDir(m.Store), gitDirName), root: m.Root,
		index: filepath.Join(dir, runIndex), excludes: filepath.Join(dir, runExcludes)}
}

// indexPath is the index the commands of g use.
func (g git) indexPath() string {
	if g.index != "" {
		return g.index
	}
	return filepath.Join(g.dir, "index")
}

// lockStore takes the run's store shared (a snapshot or a rollback), so
// that no prune removes content while it is written and not yet in a
// snapshot. A run of version 1 has no shared store.
func (m *Meta) lockStore(h store.Home) (*store.Lock, error) {
	if m.Store == "" {
		return nil, nil
	}
	dir, err := h.EnsureStoreDir(m.Store)
	if err != nil {
		return nil, err
	}
	return store.AcquireShared(filepath.Join(dir, storeLock), LockWait)
}

func unlock(l *store.Lock) {
	if l != nil {
		l.Unlock()
	}
}

// initStore creates (or brings up to date) the work tree's store: the
// object format of the user's repository, whose objects it borrows as an
// alternate, and the attributes that keep bytes exact. Created by hand:
// git init would copy its templates and read the user's init settings.
func initStore(h store.Home, m *Meta, format string) error {
	dir, err := h.EnsureStoreDir(m.Store)
	if err != nil {
		return err
	}
	gitDir := filepath.Join(dir, gitDirName)
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "info"} {
		if err := os.MkdirAll(filepath.Join(gitDir, d), 0o700); err != nil {
			return fmt.Errorf("create the snapshot store: %w", err)
		}
	}
	config := "[core]\n\trepositoryformatversion = 0\n\tbare = true\n\tsharedRepository = 0600\n"
	if format == "sha256" {
		config = "[core]\n\trepositoryformatversion = 1\n\tbare = true\n\tsharedRepository = 0600\n[extensions]\n\tobjectformat = sha256\n"
	}
	files := map[string]string{"HEAD": "ref: refs/heads/main\n", "config": config, "info/attributes": storeAttributes}
	if m.Objects != "" {
		files["objects/info/alternates"] = m.Objects + "\n"
	}
	for name, content := range files {
		p := filepath.Join(gitDir, name)
		if b, err := os.ReadFile(p); err == nil && string(b) == content {
			continue
		}
		if err := store.WriteFileAtomic(p, []byte(content)); err != nil {
			return fmt.Errorf("create the snapshot store: %w", err)
		}
	}
	rootFile := filepath.Join(dir, storeRoot)
	if b, err := os.ReadFile(rootFile); err != nil || string(b) != m.Root+"\n" {
		if err := store.WriteFileAtomic(rootFile, []byte(m.Root+"\n")); err != nil {
			return fmt.Errorf("create the snapshot store: %w", err)
		}
	}
	return nil
}

// seedRunIndex starts a run's index from the store's last baseline, so
// that the baseline hashes only the files changed since (git trusts an
// entry whose size and times still match). A repository's first run
// starts from the user's own index (read, never written): on a 1 GB
// repository of 10,000 files the first baseline took 6.3 s hashing every
// file, longer than a call waits for its mark. It reports whether it
// seeded the index (a seed git then refuses is dropped: see start), and
// whether from the user's index.
func seedRunIndex(h store.Home, m *Meta, dir string) (seeded, user bool, err error) {
	seed := filepath.Join(h.StoreDir(m.Store), seedIndex)
	b, err := os.ReadFile(seed)
	if errors.Is(err, fs.ErrNotExist) && m.Git {
		if out, gerr := (git{root: m.Root}).out(nil, "rev-parse", "--path-format=absolute", "--git-path", "index"); gerr == nil {
			seed, user = strings.TrimSpace(string(out)), true
			b, err = store.ReadSmallFile(seed, 1<<30)
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	idx := filepath.Join(dir, runIndex)
	if err := store.WriteFileAtomic(idx, b); err != nil {
		return false, false, err
	}
	// The copy keeps the seed's time: git trusts an entry's stat only when
	// the file is older than the index (see dryCapture).
	if fi, err := os.Stat(seed); err == nil {
		return true, user, os.Chtimes(idx, fi.ModTime(), fi.ModTime())
	}
	return true, user, nil
}

// converted lists the paths, of those given, whose blob in the user's
// index need not be the file's bytes: git converts them when it adds them
// (line endings under text or eol, or core.autocrlf; a filter such as
// Git LFS; ident; a working-tree encoding). A run's index seeded from the
// user's must not hold them: git would trust their size and times and
// keep the converted blob, and a rollback would then write LF where the
// file had CRLF (torture seed 306 found it, on a machine slow enough that
// the index was not racily clean). all: every path is.
func converted(user git, paths []string) (out []string, all bool, err error) {
	if o, err := user.out(nil, "config", "--get", "core.autocrlf"); err == nil {
		if v := strings.ToLower(strings.TrimSpace(string(o))); v == "true" || v == "input" {
			return nil, true, nil
		}
	}
	if len(paths) == 0 {
		return nil, false, nil
	}
	o, err := user.out(nulJoin(paths), "check-attr", "-z", "--stdin", "text", "eol", "filter", "ident", "working-tree-encoding")
	if err != nil {
		return nil, false, err
	}
	f := nulFields(o) // path, attribute, value, …
	seen := map[string]bool{}
	for i := 0; i+2 < len(f); i += 3 {
		p, v := f[i], f[i+2]
		if v == "unspecified" || v == "unset" || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out, false, nil
}

// keepSeed saves a run's index after its baseline as the store's seed.
func keepSeed(h store.Home, m *Meta, dir string) {
	idx := filepath.Join(dir, runIndex)
	b, err := os.ReadFile(idx)
	if err != nil {
		return
	}
	seed := filepath.Join(h.StoreDir(m.Store), seedIndex)
	if store.WriteFileAtomic(seed, b) == nil {
		if fi, err := os.Stat(idx); err == nil {
			_ = os.Chtimes(seed, fi.ModTime(), fi.ModTime())
		}
	}
}

// writeExcludes writes the run's ignore list: the user's global excludes
// file and the repository's info/exclude as they are at the run's start,
// the state dir when it lies in the work tree, and every file and folder
// git ignored at the start. Ignore rules are the baseline's: when the run
// edits .gitignore, a file that was ignored before it (.env,
// node_modules/) stays out of its snapshots and is never "created since".
func writeExcludes(h store.Home, m *Meta, dir string) error {
	var b strings.Builder
	if m.Git {
		user := git{root: m.Root}
		global := ""
		if out, err := user.out(nil, "config", "--path", "--get", "core.excludesFile"); err == nil {
			global = strings.TrimSpace(string(out))
		} else if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
			global = filepath.Join(x, "git", "ignore")
		} else if home, err := os.UserHomeDir(); err == nil {
			global = filepath.Join(home, ".config", "git", "ignore")
		}
		for _, f := range []string{global, filepath.Join(filepath.Dir(m.Objects), "info", "exclude")} {
			if f == "" {
				continue
			}
			if c, err := store.ReadSmallFile(f, 4<<20); err == nil {
				b.Write(c)
				b.WriteString("\n")
			}
		}
		err := user.lines(func(p string) error {
			if line, ok := literalPattern(p); ok {
				b.WriteString(line + "\n")
			}
			return nil
		}, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
		if err != nil {
			return err
		}
	}
	if rel, err := filepath.Rel(m.Root, h.Dir); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
		if line, ok := literalPattern(filepath.ToSlash(rel) + "/"); ok {
			b.WriteString(line + "\n")
		}
	}
	return store.WriteFileAtomic(filepath.Join(dir, runExcludes), []byte(b.String()))
}

// literalPattern is an ignore line that matches exactly one path from the
// work tree's top (a folder when p ends in /). A name with a newline has
// no such line.
func literalPattern(p string) (string, bool) {
	if p == "" || strings.ContainsAny(p, "\n\r") {
		return "", false
	}
	var b strings.Builder
	b.WriteByte('/')
	dir := strings.HasSuffix(p, "/")
	p = strings.TrimSuffix(p, "/")
	for _, r := range p {
		switch r {
		case '\\', '*', '?', '[', ']', '!', '#':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	s := b.String()
	// Trailing spaces are dropped unless escaped.
	trim := strings.TrimRight(s, " ")
	if n := len(s) - len(trim); n > 0 {
		s = trim + strings.Repeat("\\ ", n)
	}
	if dir {
		s += "/"
	}
	return s, true
}
