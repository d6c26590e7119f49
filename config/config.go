package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"cully/engine"
)

// ProjectFile is the name of the optional per-repository threshold file.
const ProjectFile = ".cully.toml"

// Sources says where a configuration comes from.
type Sources struct {
	User       string // the user's own file; "" for none
	ProjectDir string // the project whose .cully.toml may tune thresholds; "" for none
	StateDir   string // where the trust file lives; "" allows no project file
	// StateDirOK, when set, is asked before Cached uses StateDir (the
	// hook's check that the store accepts it): only then, since with no
	// config file at all the state dir is never touched.
	StateDirOK func() bool
}

// ProjectPath is the project file this configuration would read ("" for none).
func (s Sources) ProjectPath() string {
	if s.ProjectDir == "" {
		return ""
	}
	return filepath.Join(s.ProjectDir, ProjectFile)
}

// State is what became of one config file.
type State string

const (
	Absent     State = "absent"
	InEffect   State = "in effect"
	NotAllowed State = "not allowed"
	Changed    State = "changed since allowed"
	Denied     State = "denied"
	Refused    State = "refused" // not a regular file, too large, a symlink out of the project
	Broken     State = "broken"  // a TOML syntax error: ignored whole
)

// File is one config file and what became of it.
type File struct {
	Path  string `json:"path"`
	State State  `json:"state"`
	Sum   string `json:"sha256,omitempty"` // a project file's content, when read (set by the CLI; Load leaves it empty)
}

// Loaded is a loaded configuration: what the rules use, where it came from,
// and what was wrong (at most MaxProblems, then More counts the rest).
type Loaded struct {
	Config   engine.Config
	Workers  Workers // the advisor's commands: the user's file alone sets them
	User     File
	Project  File
	Problems []Problem
	More     int
}

// Errors are the problems as errors, plus one that counts those not kept.
func (l Loaded) Errors() []error {
	var errs []error
	for _, p := range l.Problems {
		errs = append(errs, p)
	}
	if l.More > 0 {
		errs = append(errs, moreProblems(l.More))
	}
	return errs
}

type moreProblems int

func (n moreProblems) Error() string {
	return "and " + strconv.Itoa(int(n)) + " more config problem(s) like these (`cully doctor` lists the first ones)"
}

// AllowCommand is the command that allows a project file, for messages.
func AllowCommand(path string) string { return "cully allow " + quote(path) }

// quote quotes a path for a POSIX shell when it needs it.
func quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@%=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Load reads the user's file, then the project file if the user allowed
// exactly its content, and returns the effective configuration. It never
// fails: what it could not use is in the problems.
func Load(src Sources) Loaded {
	ld := Loaded{Config: engine.DefaultConfig()}
	var ps problems
	if src.User != "" {
		ld.User = File{Path: src.User, State: Absent}
		if b, ok := readFile(src.User, "", MaxUserBytes, &ps, &ld.User); ok {
			if set, ok := parse(b, src.User, false, &ps); ok {
				apply(&ld.Config, set, false, src.User, &ps)
				applyWorkers(&ld.Workers, set, src.User, &ps)
				ld.User.State = InEffect
			} else {
				ld.User.State = Broken
			}
		}
	}
	if p := src.ProjectPath(); p != "" {
		ld.Project = File{Path: p, State: Absent}
		loadProject(&ld, src, &ps)
	}
	ld.Config = ld.Config.Sanitize()
	ld.Problems, ld.More = ps.sorted(), ps.more
	return ld
}

// loadProject applies the project file, if allowed.
func loadProject(ld *Loaded, src Sources, ps *problems) {
	p := ld.Project.Path
	if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
		return // the common case: no project file, and nothing more to read
	}
	canon := Canonical(p)
	trust, terr := map[string]Verdict{}, error(nil)
	if src.StateDir != "" {
		trust, terr = readTrust(src.StateDir)
	}
	if v, ok := trust[canon]; ok && !v.Allowed {
		ld.Project.State = Denied // the user said no: ignored without a reminder
		return
	}
	b, ok := readFile(p, src.ProjectDir, MaxProjectBytes, ps, &ld.Project)
	if !ok {
		return
	}
	switch _, ok := trust[canon]; {
	case terr != nil:
		ld.Project.State = NotAllowed
		ps.add(Problem{File: p, Consent: true, Msg: "not allowed: the trust file cannot be read (" + terr.Error() + "); its thresholds are ignored"})
		return
	case !ok:
		ld.Project.State = NotAllowed
		ps.add(Problem{File: p, Consent: true, Msg: "not allowed: its thresholds are ignored until you run `" + AllowCommand(p) + "`"})
		return
	case !allowedContent(src.StateDir, canon, b):
		ld.Project.State = Changed
		ps.add(Problem{File: p, Consent: true, Msg: "changed since you allowed it: its thresholds are ignored until you run `" + AllowCommand(p) + "` again"})
		return
	}
	if set, ok := parse(b, p, true, ps); ok {
		apply(&ld.Config, set, true, p, ps)
		ld.Project.State = InEffect
	} else {
		ld.Project.State = Broken
	}
}

// readFile reads one config file bounded, recording a refusal.
func readFile(path, root string, limit int64, ps *problems, f *File) ([]byte, bool) {
	b, err := readBounded(path, root, limit)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		f.State = Refused
		ps.add(Problem{File: path, Err: true, Msg: "refused, " + err.Error() + ": the file is ignored"})
		return nil, false
	}
	return b, true
}

// Inspection is what `cully allow` shows before recording consent: the
// content's hash, what the file would set (after clamping) and its problems.
type Inspection struct {
	Content  []byte   // what was read: what `cully allow` records
	Sets     []string // "explore_reads = 30", in the docs' order
	Problems []Problem
	More     int
	Broken   bool // a syntax error: allowing it would change nothing
}

// Inspect reads a project file as the hook would (root: the directory a
// symlink must stay inside) and says what it would set. The error is why
// the file cannot be read at all.
func Inspect(path, root string) (Inspection, error) {
	b, err := readBounded(path, root, MaxProjectBytes)
	if err != nil {
		return Inspection{}, err
	}
	var ps problems
	in := Inspection{Content: b}
	set, ok := parse(b, path, true, &ps)
	in.Broken = !ok
	cfg := engine.DefaultConfig()
	apply(&cfg, set, true, path, &ps)
	for _, l := range Limits {
		if _, ok := set[l.Key]; ok {
			in.Sets = append(in.Sets, l.Key+" = "+strconv.FormatInt(l.get(&cfg), 10))
		}
	}
	in.Problems, in.More = ps.sorted(), ps.more
	return in, nil
}

// apply sets what a file said on cfg, each threshold held to its range.
func apply(cfg *engine.Config, set map[string]setting, project bool, file string, ps *problems) {
	for _, l := range Limits {
		s, ok := set[l.Key]
		if !ok {
			continue
		}
		v, why := l.clamp(s.n, project)
		if why != "" {
			ps.add(Problem{File: file, Line: s.line, Msg: why})
		}
		l.set(cfg, v)
	}
	if project {
		return // a project file never names a command (parse refused those keys)
	}
	if s, ok := set["unattended"]; ok {
		cfg.Unattended = s.s
	}
	// Whether the held-back checkpoints are told to the agent: 0 (never)
	// up to a number of calls no session reaches; nonsense is 0.
	for key, dst := range map[string]*int{"unverified_tell": &cfg.UnverifiedTell, "explore_tell": &cfg.ExploreTell,
		"empty_search_tell": &cfg.EmptySearchTell, "rerun_tell": &cfg.RerunTell, "same_failure_tell": &cfg.SameFailureTell} {
		if s, ok := set[key]; ok {
			*dst = int(min(max(s.n, 0), 100_000))
		}
	}
	if s, ok := set["unverified_tell_since"]; ok {
		cfg.UnverifiedTellSince = s.s
	}
	for key, dst := range map[string]*bool{"fix_in_test_tell": &cfg.FixInTestTell, "commit_tell": &cfg.CommitTell, "reported_tell": &cfg.ReportedTell, "finish_checks": &cfg.FinishChecks} {
		if s, ok := set[key]; ok {
			*dst = s.n == 1
		}
	}
	if s, ok := set["checks"]; ok {
		cfg.Checks = s.list
	}
	if s, ok := set["read_only"]; ok {
		cfg.ReadOnly = s.list
	}
	applyBudget(&cfg.Budget, set, file, ps)
	for _, t := range []struct {
		key string
		dst *int64
	}{{"snapshots.max_store_bytes", &cfg.Snapshots.MaxStoreBytes}, {"snapshots.min_free_bytes", &cfg.Snapshots.MinFreeBytes},
		{"snapshots.keep_runs", &cfg.Snapshots.KeepRuns}, {"snapshots.keep_days", &cfg.Snapshots.KeepDays}, {"snapshots.max_file_bytes", &cfg.Snapshots.MaxFileBytes}} {
		if s, ok := set[t.key]; ok {
			if s.n < 1 {
				ps.add(Problem{File: file, Line: s.line, Msg: fmt.Sprintf("%s = %d is not a usable value: the default is used", t.key, s.n)})
				continue
			}
			*t.dst = s.n
		}
	}
}

// maxBudget bounds the integer budgets: past it a budget never fires, which
// is what a user asking for that much means.
const maxBudget = 1 << 40

// applyBudget takes [budget] from the user's file: each limit on its own,
// a non-positive one meaning the class default.
func applyBudget(b *engine.BudgetConfig, set map[string]setting, file string, ps *problems) {
	if s, ok := set["budget.class"]; ok {
		b.Class = s.s
	}
	if s, ok := set["budget.mode"]; ok {
		b.Mode = s.s
	}
	if s, ok := set["budget.auto_rollback"]; ok {
		b.AutoRollback = s.n == 1
	}
	for _, t := range []struct {
		key string
		dst *int64
	}{{"budget.wall_clock_seconds", &b.WallSeconds}, {"budget.tool_calls", &b.ToolCalls}, {"budget.tokens", &b.Tokens}} {
		s, ok := set[t.key]
		if !ok {
			continue
		}
		v := min(s.n, maxBudget)
		if v < 1 {
			ps.add(Problem{File: file, Line: s.line, Msg: fmt.Sprintf("%s = %d is not a usable limit: the class default is used", t.key, s.n)})
			continue
		}
		*t.dst = v
	}
	if s, ok := set["budget.cost_usd"]; ok {
		b.CostUSD = s.f
	}
}
