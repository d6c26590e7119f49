package engine

// Config holds every rule threshold. The zero value is not useful: start from
// DefaultConfig. A project-local file may tune the numbers but never names a
// command to run: nothing here is ever executed.
type Config struct {
	// ExploreReads read/search calls without an edit or a check raise the
	// exploring checkpoint (default 20: well past the reads a focused change
	// needs before it acts).
	ExploreReads int `toml:"explore_reads" json:"explore_reads"`
	// UnverifiedEdits edits without a successful check raise the
	// unverified-edits checkpoint (default 12: a dozen unchecked edits is more
	// than one coherent change).
	UnverifiedEdits int `toml:"unverified_edits" json:"unverified_edits"`
	// UnverifiedTell: the unverified-edits checkpoint is told to the agent
	// only after this many edits with no check of any outcome (0: never;
	// it shows in status and the panel). See docs/rules.md.
	UnverifiedTell int `toml:"unverified_tell" json:"unverified_tell"`
	// UnverifiedTellSince is what restarts the count UnverifiedTell is
	// judged on: "check" (any check, passing or not: the default, since an
	// agent whose build fails is verifying) or "pass" (only a successful
	// check: seed 000's "12 edits without a successful check").
	UnverifiedTellSince string `toml:"unverified_tell_since" json:"unverified_tell_since,omitempty"`
	// ExploreTell: the exploring checkpoint is told to the agent only after
	// this many reads since an edit or check (0: never).
	ExploreTell int `toml:"explore_tell" json:"explore_tell"`
	// EmptySearchTell, RerunTell, SameFailureTell: the empty-search,
	// rerun-passing and same-failure checkpoints are told to the agent
	// only once their count (searches that found nothing, passes in a row,
	// failures with one error) reaches this (0: never; shown in status and
	// the panel until blind labels decide).
	EmptySearchTell int `toml:"empty_search_tell" json:"empty_search_tell,omitempty"`
	RerunTell       int `toml:"rerun_tell" json:"rerun_tell,omitempty"`
	SameFailureTell int `toml:"same_failure_tell" json:"same_failure_tell,omitempty"`
	// FixInTestTell, CommitTell, ReportedTell: whether the fix-in-test,
	// unchecked-commit and reported-command checkpoints are told to the
	// agent (false, the default: shown in status and the panel only, until
	// blind labels of their corpus firings decide).
	FixInTestTell bool `toml:"fix_in_test_tell" json:"fix_in_test_tell,omitempty"`
	CommitTell    bool `toml:"commit_tell" json:"commit_tell,omitempty"`
	ReportedTell  bool `toml:"reported_tell" json:"reported_tell,omitempty"`
	// FinishChecks raises the turn-end checkpoints (finish-unchecked,
	// finish-failing; shown in status and the panel, never told) at every
	// turn end over unchecked or failing code. Without it they are raised
	// only where the closing message claims a passing check (claim.go):
	// blind labels found 2 of 13 of the unconditional firings on the
	// corpus worth a look.
	FinishChecks bool `toml:"finish_checks" json:"finish_checks,omitempty"`
	// LoopFailures identical failures of one command, with no success between,
	// make an active failure loop (default 3: twice can be bad luck, three
	// times the same error is a loop).
	LoopFailures int `toml:"loop_failures" json:"loop_failures"`
	// BlindRetryFailures failed runs in a row, with nothing changed since, make
	// the next identical run a blind retry (default 2: the third attempt is the
	// one to stop; at most 4, the failures a command remembers).
	BlindRetryFailures int `toml:"blind_retry_failures" json:"blind_retry_failures"`
	// IdleTurns turns in a row that end with no tool call and the same
	// closing message (or each saying the agent is paused, blocked, waiting
	// or done) make an idle loop (default 3: rule_idleloop.go says why).
	IdleTurns int `toml:"idle_turns" json:"idle_turns"`
	// LargeReadBytes: a whole-file read above this size is warned (default
	// 256 KiB: tens of thousands of tokens at once).
	LargeReadBytes int64 `toml:"large_read_bytes" json:"large_read_bytes"`
	// RereadMinBytes: files smaller than this are cheap to re-read and never
	// warned (default 4 KiB: about a thousand tokens).
	RereadMinBytes int64 `toml:"reread_min_bytes" json:"reread_min_bytes"`
	// Unattended is what a checkpoint asks of an agent nobody is watching:
	// "continue" (summarise, then go on) or "stop" (summarise, then end the turn).
	Unattended string `toml:"unattended" json:"unattended"`
	// Checks are extra command prefixes that count as checks, e.g. "./scripts/verify".
	// They are matched, never run.
	Checks []string `toml:"checks" json:"checks,omitempty"`
	// ReadOnly are extra command names that only read.
	ReadOnly []string `toml:"read_only" json:"read_only,omitempty"`
	// Budget holds the user's run budgets ([budget], user config only):
	// zero values take the seed's defaults per task class (budget.go).
	Budget BudgetConfig `toml:"budget" json:"budget"`
	// Snapshots bounds run control's snapshot store ([snapshots], user
	// config only): zero values take the defaults sized to the disk
	// (docs/run-control.md).
	Snapshots SnapshotConfig `toml:"snapshots" json:"snapshots"`
}

// SnapshotConfig is [snapshots]: the store's bounds. Zero is the default.
type SnapshotConfig struct {
	MaxStoreBytes int64 `toml:"max_store_bytes" json:"max_store_bytes,omitempty"` // a repository's store cap
	MinFreeBytes  int64 `toml:"min_free_bytes" json:"min_free_bytes,omitempty"`   // the disk's floor: snapshots pause under it
	KeepRuns      int64 `toml:"keep_runs" json:"keep_runs,omitempty"`             // runs of a repository always kept
	KeepDays      int64 `toml:"keep_days" json:"keep_days,omitempty"`             // and every run this recent
	MaxFileBytes  int64 `toml:"max_file_bytes" json:"max_file_bytes,omitempty"`   // a file larger is not captured
}

// What restarts the count unverified_tell is judged on.
const (
	TellSinceCheck = "check" // any check, whatever its outcome
	TellSincePass  = "pass"  // a successful check only (seed 000)
)

// DefaultConfig returns the documented thresholds (docs/rules.md).
func DefaultConfig() Config {
	return Config{
		ExploreReads:        20,
		UnverifiedEdits:     12,
		UnverifiedTell:      0, // shown, not told: docs/rules.md "Strength before nudging"
		UnverifiedTellSince: TellSinceCheck,
		ExploreTell:         0,
		LoopFailures:        3,
		IdleTurns:           3,
		BlindRetryFailures:  2,
		LargeReadBytes:      256 << 10,
		RereadMinBytes:      4 << 10,
		Unattended:          "continue",
	}
}

// Sanitize replaces nonsensical values with the defaults, so a bad config
// file degrades to the documented behaviour instead of silencing a rule.
func (c Config) Sanitize() Config {
	d := DefaultConfig()
	if c.ExploreReads < 1 {
		c.ExploreReads = d.ExploreReads
	}
	if c.UnverifiedEdits < 1 {
		c.UnverifiedEdits = d.UnverifiedEdits
	}
	if c.UnverifiedTell < 0 {
		c.UnverifiedTell = d.UnverifiedTell
	}
	if c.UnverifiedTellSince != TellSincePass {
		c.UnverifiedTellSince = TellSinceCheck
	}
	if c.ExploreTell < 0 {
		c.ExploreTell = d.ExploreTell
	}
	c.EmptySearchTell, c.RerunTell, c.SameFailureTell = max(c.EmptySearchTell, 0), max(c.RerunTell, 0), max(c.SameFailureTell, 0)
	if c.LoopFailures < 2 {
		c.LoopFailures = d.LoopFailures
	}
	if c.BlindRetryFailures < 1 {
		c.BlindRetryFailures = d.BlindRetryFailures
	}
	if c.BlindRetryFailures > maxFailChanges { // beyond what a command remembers, the guard could never fire
		c.BlindRetryFailures = maxFailChanges
	}
	if c.IdleTurns < 2 {
		c.IdleTurns = d.IdleTurns
	}
	if c.LargeReadBytes < 1 {
		c.LargeReadBytes = d.LargeReadBytes
	}
	if c.RereadMinBytes < 0 {
		c.RereadMinBytes = d.RereadMinBytes
	}
	if !ValidClass(c.Budget.Class) {
		c.Budget.Class = ""
	}
	c.Budget.WallSeconds, c.Budget.ToolCalls, c.Budget.Tokens = max(c.Budget.WallSeconds, 0), max(c.Budget.ToolCalls, 0), max(c.Budget.Tokens, 0)
	if !(c.Budget.CostUSD > 0) { // NaN and negatives too
		c.Budget.CostUSD = 0
	}
	sn := &c.Snapshots
	sn.MaxStoreBytes, sn.MinFreeBytes, sn.KeepRuns, sn.KeepDays, sn.MaxFileBytes = max(sn.MaxStoreBytes, 0), max(sn.MinFreeBytes, 0), max(sn.KeepRuns, 0), max(sn.KeepDays, 0), max(sn.MaxFileBytes, 0)
	if c.Unattended != "stop" {
		c.Unattended = "continue"
	}
	return c
}
