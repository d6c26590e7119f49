package config

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"

	"cully/engine"
	"cully/jsonlite"
)

// CacheDir, in the state dir, holds one small file per (user file, project
// dir): the effective configuration and the stat of each file it came from.
// The hook runs before and after every tool call, so it reads this instead
// of parsing TOML: a stat of each config file, one small read, no parse.
const CacheDir = "config-cache"

const cacheVersion = 6

type cacheDoc struct {
	V            int           `json:"v"`
	User         string        `json:"user"`
	UserStat     string        `json:"user_stat"`
	Project      string        `json:"project"`
	ProjectStat  string        `json:"project_stat"`
	UserState    State         `json:"user_state,omitempty"`
	ProjectState State         `json:"project_state,omitempty"`
	Config       engine.Config `json:"config"`
	Workers      Workers       `json:"workers"`
}

// CachePath is where the cache for these sources lives ("" without a state dir).
func CachePath(src Sources) string {
	if src.StateDir == "" {
		return ""
	}
	// FNV names the entry (the entry itself says whose it is, so two
	// sources sharing a name only miss each other's cache).
	h := fnv.New128a()
	h.Write([]byte(src.User + "\x00" + src.ProjectDir))
	return filepath.Join(src.StateDir, CacheDir, hex.EncodeToString(h.Sum(nil)[:12])+".json")
}

// statKey is what a file's cache entry compares: its size, modification
// time and type, "-" when it is missing, "!" when it cannot be statted. A
// file edited in place changes its mtime; git checkout writes a new one.
// (Stat follows a symlink, so editing a linked file's target counts too.)
func statKey(path string) string {
	if path == "" {
		return "-"
	}
	fi, err := os.Stat(path)
	switch {
	case os.IsNotExist(err): // not errors.Is: its interface assertions cost the hook 15 µs of start-up, and Stat's errors are never wrapped further
		return "-"
	case err != nil:
		return "!"
	}
	return strconv.FormatInt(fi.Size(), 10) + ":" + strconv.FormatInt(fi.ModTime().UnixNano(), 10) + ":" + strconv.FormatUint(uint64(fi.Mode().Type()), 16)
}

// absent is what Load returns when neither file exists.
func absent(src Sources) Loaded {
	ld := Loaded{Config: engine.DefaultConfig().Sanitize()}
	if src.User != "" {
		ld.User = File{Path: src.User, State: Absent}
	}
	if p := src.ProjectPath(); p != "" {
		ld.Project = File{Path: p, State: Absent}
	}
	return ld
}

// ErrNoStateDir: without a state dir nothing is cached (and no project file
// allowed). Whenever Cached returns an error the caller should report
// problems only at session start, so an unwritable cache cannot turn into
// one report per tool call.
var ErrNoStateDir = errors.New("no state dir: config not cached")

// Cached is Load through the cache. With no config file at all it returns
// the defaults (parsed false: nothing read, nothing to report). Unless
// fresh, a cache entry whose files
// are unchanged (by size, mtime and type) is used as it is, and parsed is
// false: no file is read but the cache, nothing is reported. Otherwise the
// files are loaded (bounded, as Load does) and the entry rewritten
// atomically; err says when that failed (ErrNoStateDir without one). `cully allow` and `cully deny` drop
// every entry, since entries hold the trust file's verdicts.
func Cached(src Sources, fresh bool) (ld Loaded, parsed bool, err error) {
	userStat, projectStat := statKey(src.User), statKey(src.ProjectPath())
	// The common case, no config file at all, needs no cache: the defaults
	// are known without reading anything (a cache read cost the hook 0.04x
	// of a minimal hook's run). A dangling symlink stats as missing, and
	// Load takes it for an absent file too.
	if userStat == "-" && projectStat == "-" {
		return absent(src), false, nil
	}
	if src.StateDirOK != nil && !src.StateDirOK() {
		src.StateDir = "" // a state dir the store refuses gets no config cache either
	}
	path := CachePath(src)
	if path != "" && !fresh {
		if ld, ok := readCache(path, src, userStat, projectStat); ok {
			return ld, false, nil
		}
	}
	if path == "" {
		return Load(src), true, ErrNoStateDir
	}
	trustBefore := statKey(trustPath(src.StateDir))
	ld = Load(src)
	b, mErr := json.Marshal(cacheDoc{
		V: cacheVersion, User: src.User, UserStat: userStat, Project: src.ProjectPath(), ProjectStat: projectStat,
		UserState: ld.User.State, ProjectState: ld.Project.State, Config: ld.Config, Workers: ld.Workers,
	})
	if mErr != nil {
		return ld, true, mErr
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return ld, true, fmt.Errorf("write config cache: %w", err)
	}
	if err := writeAtomic(path, b); err != nil {
		return ld, true, fmt.Errorf("write config cache: %w", err)
	}
	// A `cully allow` between reading the trust file and writing this entry
	// dropped the cache before the entry existed: drop the entry too.
	if statKey(trustPath(src.StateDir)) != trustBefore {
		os.Remove(path)
	}
	return ld, true, nil
}

// readCache returns the cached configuration when the entry is for these
// sources and their files are as they were.
func readCache(path string, src Sources, userStat, projectStat string) (Loaded, bool) {
	b, err := readSmall(path, 64<<10)
	if err != nil {
		return Loaded{}, false
	}
	o, err := jsonlite.ParseObject(b)
	if err != nil || o.Int("v") != cacheVersion || o.Str("user") != src.User || o.Str("project") != src.ProjectPath() ||
		o.Str("user_stat") != userStat || o.Str("project_stat") != projectStat {
		return Loaded{}, false
	}
	c := o.Sub("config")
	cfg := engine.DefaultConfig()
	for _, l := range Limits {
		if c.Present(l.Key) {
			l.set(&cfg, c.Int(l.Key))
		}
	}
	if s := c.Str("unattended"); s != "" {
		cfg.Unattended = s
	}
	cfg.UnverifiedTell, cfg.ExploreTell = int(c.Int("unverified_tell")), int(c.Int("explore_tell"))
	cfg.EmptySearchTell, cfg.RerunTell, cfg.SameFailureTell = int(c.Int("empty_search_tell")), int(c.Int("rerun_tell")), int(c.Int("same_failure_tell"))
	cfg.UnverifiedTellSince = c.Str("unverified_tell_since")
	cfg.FixInTestTell, cfg.CommitTell, cfg.ReportedTell = c.Bool("fix_in_test_tell"), c.Bool("commit_tell"), c.Bool("reported_tell")
	cfg.FinishChecks = c.Bool("finish_checks")
	cfg.Checks, cfg.ReadOnly = strs(c.Items("checks")), strs(c.Items("read_only"))
	if b := c.Sub("budget"); b != nil {
		cfg.Budget = engine.BudgetConfig{Class: b.Str("class"), WallSeconds: b.Int("wall_clock_seconds"),
			ToolCalls: b.Int("tool_calls"), Tokens: b.Int("tokens"), Mode: b.Str("mode"), AutoRollback: b.Bool("auto_rollback")}
		if f, err := strconv.ParseFloat(string(b["cost_usd"]), 64); err == nil {
			cfg.Budget.CostUSD = f
		}
	}
	if sn := c.Sub("snapshots"); sn != nil {
		cfg.Snapshots = engine.SnapshotConfig{MaxStoreBytes: sn.Int("max_store_bytes"), MinFreeBytes: sn.Int("min_free_bytes"),
			KeepRuns: sn.Int("keep_runs"), KeepDays: sn.Int("keep_days"), MaxFileBytes: sn.Int("max_file_bytes")}
	}
	wk := o.Sub("workers")
	return Loaded{
		Config:  cfg.Sanitize(),
		Workers: Workers{Advisor: strs(wk.Items("advisor")), Discovery: strs(wk.Items("discovery")), Deadline: int(wk.Int("deadline_seconds"))},
		User:    File{Path: src.User, State: State(o.Str("user_state"))},
		Project: File{Path: src.ProjectPath(), State: State(o.Str("project_state"))},
	}, true
}

func strs(raw [][]byte) []string {
	var out []string
	for _, r := range raw {
		if s, ok := jsonlite.Unquote(r); ok {
			out = append(out, s)
		}
	}
	return out
}

// dropCache removes every cache entry: the trust file changed.
func dropCache(stateDir string) { _ = os.RemoveAll(filepath.Join(stateDir, CacheDir)) }

// Report is what the hook records of a load: at most max problems, then one
// line that counts the rest, so a file of ten thousand typos is a few lines
// in errors.log, not ten thousand.
func (l Loaded) Report(max int) []error {
	var out []error
	n := 0
	for _, p := range l.Problems {
		if n == max {
			break
		}
		out = append(out, p)
		n++
	}
	if more := len(l.Problems) - n + l.More; more > 0 {
		out = append(out, moreProblems(more))
	}
	return out
}
