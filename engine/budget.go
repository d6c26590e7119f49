package engine

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Run budgets (seed 001): wall clock, tool calls, tokens and cost per run,
// with the seed's defaults per task class, the user's own limits
// (Config.Budget) honoured one by one, and `cully resume` doubling a budget
// the run exceeded. The reducer judges them before each tool call, from
// the event's time, the run's calls and the host's own figures (HostUsage),
// and tells the agent once per limit per run: a budget warning within 10%
// of a limit, the limit exceeded, summary-only past 80% of the tokens; and
// the runaway rules of the seed (runaway.go). A figure the host does not
// give is unknown, and its budget never fires.

// TaskClass is the size of a run's task, which sets its default budgets.
type TaskClass string

// The seed's task classes.
const (
	ClassStandard  TaskClass = "standard"
	ClassMultiFile TaskClass = "multi-file"
	ClassFullRepo  TaskClass = "full-repo"
)

// The evidence that sets a run's class when the user set none: the
// distinct files it modified. The class only grows as the run edits more.
const (
	multiFileFiles = 3  // a change and its test are a standard task; a third file makes it a multi-file change
	fullRepoFiles  = 20 // past twenty files a run is working across the repository
)

// Resource is one budgeted quantity.
type Resource string

// The budgeted resources, in the order status shows them.
const (
	ResWallClock Resource = "wall_clock" // seconds since the run's start
	ResToolCalls Resource = "tool_calls" // finished tool calls in the run
	ResTokens    Resource = "tokens"     // the host's input + output tokens since the run's start
	ResCost      Resource = "cost_usd"   // the host's own cost figure since the run's start
)

// Resources lists the budgeted resources.
func Resources() []Resource { return append([]Resource(nil), resources[:]...) }

// resources are the budgeted resources, in the budget table's order.
var resources = [...]Resource{ResWallClock, ResToolCalls, ResTokens, ResCost}

// Thresholds, as fractions written as tenths so the boundaries are exact.
const (
	warnTenths    = 9 // seed 001: within 10% of any limit, a budget warning before the next tool call
	summaryTenths = 8 // seed 001: past 80% of the token budget, summary-only
	maxAlerts     = 24
	maxRunFiles   = fullRepoFiles // distinct files a run remembers: enough to tell its class
	maxVerified   = 8             // distinct checks after an edit that count as progress: the few a project has
)

// BudgetConfig holds the user's own limits ([budget] in the user config; a
// project file can never set them). Zero means the class default (and for
// cost, which has no default, no budget).
type BudgetConfig struct {
	// Class fixes the task class ("standard", "multi-file", "full-repo");
	// empty: decided from the files the run modified.
	Class       string  `toml:"class" json:"class,omitempty"`
	WallSeconds int64   `toml:"wall_clock_seconds" json:"wall_clock_seconds,omitempty"`
	ToolCalls   int64   `toml:"tool_calls" json:"tool_calls,omitempty"`
	Tokens      int64   `toml:"tokens" json:"tokens,omitempty"`
	CostUSD     float64 `toml:"cost_usd" json:"cost_usd,omitempty"`
	// Mode is what an exceeded budget or a runaway told to the agent does:
	// "advise" tells it; "enforce" also halts the run (the host refuses
	// every later tool call until `cully resume`); "" (auto): enforce when
	// nobody watches the session (headless, print mode), advise otherwise.
	Mode string `toml:"mode" json:"mode,omitempty"`
	// AutoRollback turns the rollback trigger on: a check worse than at the
	// run's start is told to the agent as a suggestion (advise), or, in
	// enforce mode, the run is rolled back to its last good snapshot.
	AutoRollback bool `toml:"auto_rollback" json:"auto_rollback,omitempty"`
}

// Budget modes.
const (
	ModeAdvise  = "advise"
	ModeEnforce = "enforce"
)

// ValidMode reports whether s names a budget mode ("" is auto).
func ValidMode(s string) bool { return s == "" || s == ModeAdvise || s == ModeEnforce }

// enforces reports whether alerts halt the run for this session.
func (b BudgetConfig) enforces(attended bool) bool {
	return b.Mode == ModeEnforce || b.Mode == "" && !attended
}

// ValidClass reports whether s names a task class.
func ValidClass(s string) bool {
	switch TaskClass(s) {
	case ClassStandard, ClassMultiFile, ClassFullRepo:
		return true
	}
	return false
}

// DefaultLimit is the seed's default for a resource in a class; 0: none
// (the seed names no cost).
func DefaultLimit(r Resource, c TaskClass) float64 {
	switch r {
	case ResWallClock: // seed 001: 300 s standard, 900 s multi-file refactors, 1800 s full-repo operations
		switch c {
		case ClassMultiFile:
			return 900
		case ClassFullRepo:
			return 1800
		}
		return 300
	case ResTokens: // seed 001: 50,000 standard, 150,000 complex
		if c == ClassStandard {
			return 50_000
		}
		return 150_000
	case ResToolCalls: // seed 001: 30 standard, 100 complex multi-step
		if c == ClassStandard {
			return 30
		}
		return 100
	}
	return 0
}

// ArmedLimit is the cap an unattended run (headless, print mode, `codex
// exec`, a goal or autopilot mode) gets for a resource when the user set
// none: far above what healthy tasks take, so that only a runaway reaches
// it. Set from the development corpus (`go run ./bench/budgets CORPUS`:
// 749 runs): tool calls p99 173, largest 276 → 500; wall clock p99 3.0 h
// → 6 h (the largest, 21 h, is an interactive session left open);
// tokens p99 438k, largest 705k → 2M. Each is about 3× the 99th
// percentile and above every run seen; a reported runaway took 3,673
// steps over 14.7 hours. An attended run gets no cap it did not ask for.
// 0: none (cost: the corpus holds too few cost figures to say).
func ArmedLimit(r Resource) float64 {
	switch r {
	case ResToolCalls:
		return armedCalls
	case ResWallClock:
		return armedSeconds
	case ResTokens:
		return armedTokens
	}
	return 0
}

// The armed caps (ArmedLimit).
const (
	armedCalls   = 500
	armedSeconds = 6 * 3600
	armedTokens  = 2_000_000
)

// RunBudget is what the run keeps for its budgets.
type RunBudget struct {
	// Files are the distinct files the run modified (fingerprints), up to
	// maxRunFiles, for its class.
	Files []string `json:"files,omitempty"`
	// LastMod is the run's call count at its last file modification; 0:
	// none yet.
	LastMod int `json:"last_mod,omitempty"`
	// LastProgress is the run's call count at its last progress: a file
	// modification, or a check run for the first time since one (a test
	// and a lint pass after an edit verify it); 0: none yet. Verified are
	// the checks (fingerprints) run since the last modification.
	LastProgress int      `json:"last_progress,omitempty"`
	Verified     []string `json:"verified,omitempty"`
	// Stall counts the calls since the last progress that could have made
	// some: waiting on a background task or a subagent, keeping the task
	// list, asking the user are not work left undone.
	Stall int `json:"stall,omitempty"`
	// The host's cumulative figures when the run first saw them: what the
	// run used is the difference. Nil: not seen yet in this run.
	TokBase  *int64   `json:"tok_base,omitempty"`
	CostBase *float64 `json:"cost_base,omitempty"`
	// Doubled counts, per resource, how often `cully resume` doubled it.
	Doubled []Doubling `json:"doubled,omitempty"`
	// Plan is the agent's own plan as its last plan or todo call showed it.
	Plan *PlanProgress `json:"plan,omitempty"`
	// Alerts are the budget warnings and runaways raised in the run,
	// oldest first; each key once.
	Alerts []BudgetAlert `json:"alerts,omitempty"`
}

// Doubling is one resource's doublings by `cully resume`.
type Doubling struct {
	Res Resource `json:"res"`
	N   int      `json:"n"`
}

// PlanProgress is the agent's plan as its plan or todo tool showed it
// (Claude Code's TodoWrite): items done of the total.
type PlanProgress struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

// Alert kinds.
const (
	AlertWarning  = "budget-warning"  // within 10% of a limit
	AlertExceeded = "budget-exceeded" // at or past a limit
	AlertSummary  = "summary-only"    // past 80% of the token budget
	AlertRunaway  = "runaway"         // one of the seed's runaway rules
	// AlertRollback: a check reports more failures than at the run's
	// start (seed 001's rollback triggers): suggest, or roll back.
	AlertRollback = "rollback-suggested"
)

// BudgetAlert is one warning or runaway raised in a run.
type BudgetAlert struct {
	Kind string `json:"kind"` // Alert*
	// Key is its dedup key: the resource and the limit for a budget alert
	// (a doubled limit warns again), the rule and its occasion for a
	// runaway.
	Key  string `json:"key"`
	At   int64  `json:"at"` // Unix seconds
	Text string `json:"text"`
	Told bool   `json:"told,omitempty"` // the agent was told
}

// BudgetFigure is one resource's standing in a run.
type BudgetFigure struct {
	Res   Resource
	Used  float64
	Known bool    // false: the host gave no figure
	Limit float64 // 0: no budget
	// Default is the seed's default for the run's class (0: none), for
	// the budget table's "recommended" column.
	Default float64
}

// Class is the run's task class: the user's, else from the files it
// modified.
func (r *Run) Class(cfg *Config) TaskClass {
	if ValidClass(cfg.Budget.Class) {
		return TaskClass(cfg.Budget.Class)
	}
	switch n := len(r.Budget.Files); {
	case n >= fullRepoFiles:
		return ClassFullRepo
	case n >= multiFileFiles:
		return ClassMultiFile
	}
	return ClassStandard
}

func (r *Run) doublings(res Resource) int {
	for _, d := range r.Budget.Doubled {
		if d.Res == res {
			return d.N
		}
	}
	return 0
}

// Limit is the run's budget for res: the user's limit, else, for a run
// nobody watches (attended false), the armed cap (ArmedLimit), doubled
// once per resume that raised it; 0: none. The seed's class defaults are
// a recommendation (the policy file's, status's), never a limit: on real
// sessions they were passed by ordinary, approved tasks.
func (r *Run) Limit(res Resource, cfg *Config, attended bool) float64 {
	var l float64
	b := cfg.Budget
	switch {
	case res == ResWallClock && b.WallSeconds > 0:
		l = float64(b.WallSeconds)
	case res == ResToolCalls && b.ToolCalls > 0:
		l = float64(b.ToolCalls)
	case res == ResTokens && b.Tokens > 0:
		l = float64(b.Tokens)
	case res == ResCost && b.CostUSD > 0:
		l = b.CostUSD
	case !attended:
		l = ArmedLimit(res)
	}
	for range r.doublings(res) {
		l *= 2
	}
	return l
}

// Figures are the run's budgets as of now: what each resource used, and
// its limit.
func (s *State) Figures(now time.Time, cfg *Config) []BudgetFigure {
	var buf figureBuf
	return append([]BudgetFigure(nil), s.figures(now, cfg, &buf)...)
}

// figureBuf holds one of each resource's figure.
type figureBuf [len(resources)]BudgetFigure

// figures is Figures into buf: the rules ask before every call, and
// a slice of the caller's array stays on its stack, where each slice made
// for them was a heap allocation (a fresh 192-byte span and two page
// faults in a hook process).
func (s *State) figures(now time.Time, cfg *Config, buf *figureBuf) []BudgetFigure {
	r := s.Run
	if r == nil {
		return nil
	}
	out := buf[:0]
	for _, res := range resources {
		f := BudgetFigure{Res: res, Limit: r.Limit(res, cfg, s.attended()), Default: DefaultLimit(res, r.Class(cfg))}
		switch res {
		case ResWallClock:
			f.Used, f.Known = max(now.Sub(r.Started).Seconds(), 0), true
		case ResToolCalls:
			f.Used, f.Known = float64(r.Calls), true
		case ResTokens:
			if t, ok := hostTokens(s.Usage); ok && r.Budget.TokBase != nil {
				f.Used, f.Known = float64(t-*r.Budget.TokBase), true
			}
		case ResCost:
			if u := s.Usage; u != nil && u.CostUSD != nil && r.Budget.CostBase != nil {
				f.Used, f.Known = *u.CostUSD-*r.Budget.CostBase, true
			}
		}
		out = append(out, f)
	}
	return out
}

// hostTokens is the session's token count as the token budget counts it:
// the input the host did not read from its prompt cache, the input it
// wrote to the cache, and the output, each once. Cache reads (the context
// re-sent every request, most of a long session) are shown apart and not
// counted: they are cheap and would make every long task look over
// budget. Unknown unless the host gave its input and output figures.
func hostTokens(u *HostUsage) (int64, bool) { return HostTokens(u) }

// HostTokens is hostTokens, for the readers that show the same figure.
func HostTokens(u *HostUsage) (int64, bool) {
	if u == nil || u.InputTokens == nil || u.OutputTokens == nil {
		return 0, false
	}
	n := *u.InputTokens + *u.OutputTokens
	if u.CacheWriteTokens != nil {
		n += *u.CacheWriteTokens
	}
	return n, true
}

// budgetUsage takes the host's figures into the run: the first ones the
// run sees are its base; a figure below the base (the host restarted its
// count) is a new base.
func (s *State) budgetUsage() {
	r := s.Run
	if r == nil {
		return
	}
	b := &r.Budget
	if t, ok := hostTokens(s.Usage); ok && (b.TokBase == nil || t < *b.TokBase) {
		b.TokBase = &t
	}
	if u := s.Usage; u != nil && u.CostUSD != nil && (b.CostBase == nil || *u.CostUSD < *b.CostBase) {
		c := *u.CostUSD
		b.CostBase = &c
	}
}

// budgetCall books what a finished call means for the budgets: a file
// modification, and the agent's plan.
func (r *Run) budgetCall(ev *Event) {
	b := &r.Budget
	if ev.Plan != nil {
		p := *ev.Plan
		b.Plan = &p
	}
	modified := ev.Class == ClassEdit && ev.Outcome != OutcomeFailed || ev.Changes && ev.Outcome != OutcomeFailed
	if !modified {
		if ev.Class == ClassCheck && b.LastMod > 0 && len(b.Verified) < maxVerified {
			if fp := Fingerprint("check", preview(ev)); !contains(b.Verified, fp) {
				b.Verified = append(b.Verified, fp)
				b.LastProgress, b.Stall = r.Calls, 0
				return
			}
		}
		switch ev.Class {
		case ClassPoll, ClassOther, ClassAsk:
		default:
			b.Stall++
		}
		return
	}
	b.LastMod, b.LastProgress, b.Verified, b.Stall = r.Calls, r.Calls, nil, 0
	for _, t := range append([]string{ev.Target}, ev.Files...) {
		if t == "" || len(b.Files) >= maxRunFiles {
			continue
		}
		if fp := Fingerprint("file", t); !contains(b.Files, fp) {
			b.Files = append(b.Files, fp)
		}
	}
}

// alert raises an alert once per key in the run; it reports whether it
// was new.
func (r *Run) alert(kind, key, text string, at int64, told bool) bool {
	for _, a := range r.Budget.Alerts {
		if a.Key == key {
			return false
		}
	}
	r.Budget.Alerts = append(r.Budget.Alerts, BudgetAlert{Kind: kind, Key: key, At: at, Text: text, Told: told})
	if len(r.Budget.Alerts) > maxAlerts {
		r.Budget.Alerts = r.Budget.Alerts[len(r.Budget.Alerts)-maxAlerts:]
	}
	return true
}

func (r *Run) alerted(key string) bool {
	for _, a := range r.Budget.Alerts {
		if a.Key == key {
			return true
		}
	}
	return false
}

// judgeBudgets raises, before a tool call, the budget alerts and runaways
// due as of ev: budget warnings, exceeded limits, summary-only, and the
// runaway rules. They wait, untold, for budgetNotes.
func (s *State) judgeBudgets(ev *Event, cfg *Config) {
	r := s.Run
	if r == nil {
		return
	}
	at := ev.Time.Unix()
	var buf figureBuf
	for _, f := range s.figures(ev.Time, cfg, &buf) {
		if !f.Known || f.Limit <= 0 {
			continue
		}
		whose := ""
		if !cfg.Budget.set(f.Res) {
			whose = " (cully's cap on a run nobody watches)"
		}
		lim := strconv.FormatFloat(f.Limit, 'f', -1, 64)
		exceeded := f.Used >= f.Limit
		// Each alert's text is formatted only when the alert is new: fmt's
		// code and printer, paged in on every call past a threshold, were
		// a hook process's cost for a text alert() then dropped.
		if skey := AlertSummary + ":" + lim; f.Res == ResTokens && f.Used*10 > f.Limit*summaryTenths && !r.alerted(skey) {
			r.alert(AlertSummary, skey, fmt.Sprintf(
				"cully budget: this run has used %s of its %s (%d%%, past 80%%): summary-only from here. Suggested: no new code; a progress report of what is done and what remains.",
				quantity(f.Res, f.Used), amount(f.Res, f.Limit), percent(f.Used, f.Limit)), at, false)
		}
		wkey, xkey := AlertWarning+":"+string(f.Res)+":"+lim, AlertExceeded+":"+string(f.Res)+":"+lim
		switch {
		case exceeded && !r.alerted(xkey):
			r.alert(AlertWarning, wkey, "", at, false) // the exceeded alert says more than the warning would
			r.alert(AlertExceeded, xkey, fmt.Sprintf(
				"cully budget: this run has used %s of its %s%s: the budget is reached. Suggested: end the turn with a summary of what is done and what remains; the user can double this budget with `cully resume --raise`.",
				quantity(f.Res, f.Used), amount(f.Res, f.Limit), whose), at, false)
		case !exceeded && f.Used*10 >= f.Limit*warnTenths && !r.alerted(wkey):
			r.alert(AlertWarning, wkey, fmt.Sprintf(
				"cully budget warning: this run has used %s of its %s (%d%%)%s. Suggested: finish the step at hand and summarise before starting another.",
				quantity(f.Res, f.Used), amount(f.Res, f.Limit), percent(f.Used, f.Limit), whose), at, false)
		}
	}
	s.judgeRunaway(ev, cfg)
}

// enforceAlerts halts the run, in enforce mode, at the first alert due
// that is told (tells) and stops work: a budget reached, a check made
// worse with auto_rollback on, and a runaway where the user chose
// enforce (an unattended run's auto mode halts at its budgets only). It runs before every
// call, the foreground agent's or a subagent's, whatever channel the
// host's answer has: the halt's refusal tells the agent why (HaltText),
// so the alert is told by it.
func (s *State) enforceAlerts(cfg *Config) {
	r := s.Run
	if r == nil || r.Halted != nil || !cfg.Budget.enforces(s.attended()) {
		return
	}
	for i := range r.Budget.Alerts {
		a := &r.Budget.Alerts[i]
		if a.Told || a.Text == "" || !s.tells(a.Key, cfg) {
			continue
		}
		switch a.Kind {
		case AlertRollback:
			// auto_rollback in enforce mode: the run halts (no call races
			// the rollback) and its files go back to the last good
			// snapshot, in the background.
			note := a.Text + fmt.Sprintf(" auto_rollback is on: cully rolls the run's files back to snapshot %d now; what was read of them since is out of date.", r.GoodStep)
			r.Halted = &RunNote{At: a.At, Note: note, By: HaltRollback}
			step := r.GoodStep
			s.rollbackTo = &step
		case AlertExceeded:
			r.Halted = &RunNote{At: a.At, Note: a.Text, By: HaltBudget}
		case AlertRunaway:
			if cfg.Budget.Mode != ModeEnforce { // a rule's judgement halts only where the user asked for it
				continue
			}
			r.Halted = &RunNote{At: a.At, Note: a.Text, By: HaltRunaway}
		default:
			continue
		}
		a.Told = true
		return
	}
}

// summaryOnly is the refusal of a call that would change files in a run
// past 80% of its token budget, in enforce mode (seed 001's summary-only,
// enforced): edits and commands not known to only read are refused;
// reads, checks and the final summary go on. "" when the call may run.
// It follows the figures: a budget doubled by `cully resume --raise` ends
// it.
func (s *State) summaryOnly(ev *Event, cfg *Config) string {
	r := s.Run
	if r == nil || ev.Class != ClassEdit && ev.Class != ClassRun || !cfg.Budget.enforces(s.attended()) {
		return ""
	}
	var buf figureBuf
	for _, f := range s.figures(ev.Time, cfg, &buf) {
		if f.Res != ResTokens || !f.Known || f.Limit <= 0 || f.Used*10 <= f.Limit*summaryTenths {
			continue
		}
		if !s.tells(AlertSummary+":"+strconv.FormatFloat(f.Limit, 'f', -1, 64), cfg) {
			return ""
		}
		return fmt.Sprintf("cully (enforce mode): this run has used %s of its %s (%d%%, past 80%%): summary-only. This call would change files and is refused; reads, checks and your final summary go on. The user can double the budget with `cully resume --raise`.",
			quantity(f.Res, f.Used), amount(f.Res, f.Limit), percent(f.Used, f.Limit))
	}
	return ""
}

// budgetNotes is what the budgets tell the foreground agent, on an event
// whose answer reaches it: each alert not told yet, once — but only for a
// budget the user set (Tells). An alert nobody is told stays untold:
// status and the panel show it, and `told` never claims it reached the
// agent.
func (s *State) budgetNotes(ev *Event, cfg *Config) []string {
	r := s.Run
	if r == nil || ev.Subagent != "" {
		return nil
	}
	var lines []string
	for i := range r.Budget.Alerts {
		if a := &r.Budget.Alerts[i]; !a.Told && a.Text != "" && s.tells(a.Key, cfg) {
			a.Told = true
			lines = append(lines, a.Text)
		}
	}
	return lines
}

// What halted a run (RunNote.By).
const (
	HaltStop     = "stop"     // the user ran `cully stop`
	HaltBudget   = "budget"   // enforce mode: a budget was reached
	HaltRunaway  = "runaway"  // enforce mode: a runaway rule
	HaltSnapshot = "snapshot" // enforce mode: a recovery snapshot failed
	HaltRollback = "rollback" // enforce mode with auto_rollback: the run's files go back
)

// How `cully stop` and `cully resume` say what they do (Event.Source of
// their KindPause and KindResume events).
const (
	PauseHalt   = "halt"  // cully stop: the run is halted, every call refused
	PauseSoft   = "soft"  // cully stop --soft (and every pause recorded before): the agent is told, never refused
	ResumeKeep  = "keep"  // cully resume without --raise: no budget changes
	ResumeRaise = "raise" // cully resume --raise: the budgets the run reached are doubled (seed 001: 2×)
)

// HaltCause is what halted a run, in a few words: "cully stop",
// "enforce mode: a budget".
func HaltCause(h *RunNote) string {
	switch h.By {
	case HaltStop:
		return "cully stop"
	case HaltBudget:
		return "enforce mode: a budget"
	case HaltRunaway:
		return "enforce mode: a runaway"
	case HaltSnapshot:
		return "enforce mode: a failed snapshot"
	case HaltRollback:
		return "enforce mode: auto_rollback"
	}
	return "enforce mode"
}

// ResumeCommand is how the user lets a halted run go on.
func ResumeCommand(h *RunNote) string {
	switch h.By {
	case HaltStop:
		return "cully resume"
	case HaltBudget:
		return "cully resume --raise --reason TEXT"
	}
	return "cully resume --reason TEXT"
}

// HaltText is what a halted run's refused tool call says, to the agent
// and the user: why, and how the user lets it go on.
func HaltText(h *RunNote) string {
	switch h.By {
	case HaltStop:
		return "cully: the user stopped this run with `cully stop` at " + clock(h.At) +
			". Every tool call is refused until they run `cully resume`. End the turn now with a short summary of what is done and what remains."
	case HaltBudget:
		return "cully halted this run (enforce mode) at " + clock(h.At) + ": " + strings.TrimPrefix(h.Note, "cully budget: ") +
			" Every tool call is refused until the user runs `" + ResumeCommand(h) + "` (which doubles the budget)."
	}
	return "cully halted this run (enforce mode) at " + clock(h.At) + ": " + strings.TrimPrefix(h.Note, "cully budget: ") +
		" Every tool call is refused until the user runs `" + ResumeCommand(h) + "`."
}

// set reports whether the user set a budget for res.
func (b BudgetConfig) set(res Resource) bool {
	switch res {
	case ResWallClock:
		return b.WallSeconds > 0
	case ResToolCalls:
		return b.ToolCalls > 0
	case ResTokens:
		return b.Tokens > 0
	case ResCost:
		return b.CostUSD > 0
	}
	return false
}

// Any reports whether the user set a budget of their own.
func (b BudgetConfig) Any() bool {
	return b.WallSeconds > 0 || b.ToolCalls > 0 || b.Tokens > 0 || b.CostUSD > 0
}

// tells reports whether an alert is told to the agent (and, in enforce
// mode, halts the run): a budget's, since every limit a run has is one
// the user set or the armed cap of a run nobody watches; a rollback
// trigger's when auto_rollback is on; a runaway's or summary-only's once
// the user set any budget, or in a run nobody watches. The rest are
// shown (status, the panel), never said.
func (s *State) tells(key string, cfg *Config) bool {
	switch {
	case strings.HasPrefix(key, AlertRollback+":"):
		return cfg.Budget.AutoRollback
	case strings.HasPrefix(key, AlertWarning+":"), strings.HasPrefix(key, AlertExceeded+":"):
		return true
	case strings.HasPrefix(key, runawayKeyStart+RunawayStalled+":"):
		// Shown, never told: blind labels of its 83 corpus firings found 9
		// worth a look (reading before a planned edit, polling a long
		// check, wrapping up after green tests were most of the rest).
		return false
	}
	return cfg.Budget.Any() || !s.attended()
}

// Raisable are the budgets `cully resume --raise` doubles as of at: each
// the run has reached, and the token budget past the 80% of summary-only.
func (s *State) Raisable(at time.Time, cfg *Config) []Resource {
	var out []Resource
	var buf figureBuf
	for _, f := range s.figures(at, cfg, &buf) {
		if raisable(f) {
			out = append(out, f.Res)
		}
	}
	return out
}

// raisable: the figure's budget is reached, or past summary-only's 80%.
func raisable(f BudgetFigure) bool {
	return f.Known && f.Limit > 0 && (f.Used >= f.Limit || f.Res == ResTokens && f.Used*10 > f.Limit*summaryTenths)
}

// resumeBudgets doubles the budgets a resume raises (Raisable), as of at:
// the seed's answer to a false positive (legitimate, repetitive work).
// Each is doubled once, or as often as it takes to be above what the run
// has used (a run stopped overnight is past twice its wall clock): a
// raise never leaves a budget that halts the next call again.
func (s *State) resumeBudgets(at time.Time, cfg *Config) []Resource {
	r := s.Run
	var raised []Resource
	var buf figureBuf
	for _, f := range s.figures(at, cfg, &buf) {
		if !raisable(f) {
			continue
		}
		raised = append(raised, f.Res)
		n := 1
		for l := f.Limit * 2; n < 20 && (l <= f.Used || f.Res == ResTokens && f.Used*10 > l*summaryTenths); l *= 2 {
			n++
		}
		found := false
		for i := range r.Budget.Doubled {
			if r.Budget.Doubled[i].Res == f.Res {
				r.Budget.Doubled[i].N += n
				found = true
			}
		}
		if !found {
			r.Budget.Doubled = append(r.Budget.Doubled, Doubling{Res: f.Res, N: n})
		}
	}
	return raised
}

// quantity renders a resource's figure without its unit: "27", "45,120",
// "4m30s", "$1.23".
func quantity(r Resource, v float64) string {
	switch r {
	case ResWallClock:
		return (time.Duration(v) * time.Second).String()
	case ResToolCalls, ResTokens:
		return Thousands(int64(v))
	}
	return USD(v)
}

// amount renders a resource's quantity for a nudge: "27 tool calls",
// "4 min 30 s of wall clock", "45,120 tokens", "$1.23 of cost".
func amount(r Resource, v float64) string {
	switch r {
	case ResWallClock:
		return (time.Duration(v) * time.Second).String() + " of wall clock"
	case ResToolCalls:
		return Thousands(int64(v)) + " tool calls"
	case ResTokens:
		return Thousands(int64(v)) + " tokens"
	}
	return USD(v) + " of cost"
}

func percent(used, limit float64) int { return int(used * 100 / limit) }

// maxUSD bounds the dollar figures shown: a host that reports 1e308 made
// every line holding its cost 309 digits wide. No session costs a million
// dollars.
const maxUSD = 1e6

// USD renders a dollar figure, "$1.23"; an absurd one (a million or more,
// infinite) as "$1000000+", and one that is no figure (NaN, negative) as
// "$?".
func USD(v float64) string {
	switch {
	case v != v || v < 0:
		return "$?"
	case v >= maxUSD:
		return "$1000000+"
	}
	return fmt.Sprintf("$%.2f", v)
}

// Thousands renders 45120 as "45,120" (the budgets' and the policy's figures).
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
