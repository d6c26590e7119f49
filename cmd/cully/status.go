package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"cully/engine"
	"cully/store"
	"cully/tui"
	"cully/usage"
)

// healthWindow is how much of the live journal `status` scans for corrupt
// and torn lines: enough to cover any recent damage, small enough that
// status stays instant on a journal of any size (--rebuild scans it all).
const healthWindow = 8 << 20

// jsonSchema is the version of every --json document cully prints
// (docs/json.md): a field's meaning never changes within a version.
const jsonSchema = 1

// statusReport is `cully status --json`: numbers as numbers, null where the
// host gave no figure, times in RFC 3339 UTC, durations in seconds.
type statusReport struct {
	Schema       int                 `json:"schema_version"`
	Session      string              `json:"session"`
	Agent        *string             `json:"agent"`
	Project      *string             `json:"project"`      // the project's name: the git work tree of Directory, else its base name
	Directory    *string             `json:"directory"`    // the session's working directory, as the agent last gave it
	ProjectRoot  *string             `json:"project_root"` // where the session works (its run's work tree, else the git top level of Directory); null: unknown
	ThisFolder   bool                `json:"this_folder"`  // ProjectRoot holds the folder status ran in (false: no session works there, this is the latest)
	Task         int                 `json:"task"`
	State        string              `json:"state"`
	Need         engine.Need         `json:"need"`
	NeedCause    engine.Cause        `json:"need_cause"`
	Started      *time.Time          `json:"started"`
	LastActivity *time.Time          `json:"last_activity"`
	Ended        bool                `json:"ended"`
	Attended     *bool               `json:"attended"`
	Counts       engine.Counts       `json:"counts"`
	CheckEpoch   int                 `json:"check_epoch"`
	Checkpoints  []engine.Checkpoint `json:"checkpoints"`
	Warnings     []engine.Warning    `json:"guard_warnings"`
	Budget       budgetReport        `json:"budget"`
	Run          *runReport          `json:"run"`
	Journal      journalReport       `json:"journal"`
	ClockSkews   int                 `json:"clock_skews"`
	Errors       int                 `json:"errors_logged"`
	Recording    recordingReport     `json:"recording"`
	Config       configReport        `json:"config"`
	Advisor      advisorReport       `json:"advisor"`
}

// budgetReport holds the run's figures; a nil pointer is a figure the host
// did not expose (null in JSON, "unknown" in text).
type budgetReport struct {
	WallClockSeconds float64  `json:"wall_clock_seconds"`
	ToolCalls        int      `json:"tool_calls"`
	Tokens           *int64   `json:"tokens"`            // counted: uncached input + cache writes + output
	CacheReadTokens  *int64   `json:"cache_read_tokens"` // apart, not counted
	CostUSD          *float64 `json:"cost_usd"`
	ContextTokens    *int64   `json:"context_tokens"`
	ContextWindow    *int64   `json:"context_window"`
	// From the host's own record of the session, where no status line
	// gave the cost (recordFigures): the table's price of its tokens, an
	// estimate, with the table's date; the models the table cannot price;
	// the host's rate limits where its record carries them (Codex).
	CostEstimateUSD *float64          `json:"cost_usd_estimate"`
	PricesAsOf      *string           `json:"prices_as_of"`
	UnpricedModels  []string          `json:"unpriced_models"`
	RateLimits      []usage.RateLimit `json:"rate_limits"`
}

type journalReport struct {
	store.ReadStats
	Scanned string `json:"scanned"` // "whole" or "tail": how much of the journal the figures cover
}

type statusOpts struct {
	which
	json    bool
	rebuild bool
	short   bool
}

func (a *app) status(o statusOpts) error {
	asJSON, rebuild := &o.json, &o.rebuild
	h, err := a.home()
	if err != nil {
		return err
	}
	if err := checkHome(h); err != nil {
		return err
	}
	var jr journalReport
	if *rebuild {
		// Every session the journal holds, as the help says; with
		// --session, that one only: a session the state dir lost under
		// the name given, the start of a recorded one under its id.
		only := ""
		if o.session != "" {
			only = o.session
			if p, err := a.sessionFor(h, o.which, reads); err == nil {
				only = p.id
			}
		}
		cfg := a.config()
		st, err := h.Rebuild(only, &cfg)
		if err != nil {
			return fail(codeJournal, err, "cannot rebuild from the journal: %s", plain(err))
		}
		jr = journalReport{ReadStats: st, Scanned: "whole"}
	}
	p, err := a.sessionFor(h, o.which, reads)
	id := p.id
	var none errNoSession
	if errors.As(err, &none) && !*asJSON {
		// Nothing to report yet but the configuration: its problems are
		// worth knowing before the first session, not after it. And calls
		// that could not be recorded: they may be why there is no session.
		w := termSafe{a.stdout}
		rec, seen := buildRecordingReport(h)
		seenRecording(h, &rec, seen)
		printRecording(a.stdout, rec, a.stdoutColor())
		if len(none.wired) > 0 {
			fmt.Fprintln(w, none.Error())
		}
		printConfig(w, buildConfigReport(a.loadConfig()))
		if len(none.wired) > 0 {
			return nil
		}
	}
	if err != nil {
		return err
	}
	rules := a.config()
	st, err := h.ReadState(id, &rules)
	if errors.Is(err, os.ErrNotExist) { // gone since it was found
		return unknownSession(h, id, nil)
	}
	if err != nil {
		return fail(codeState, err, "cannot read session %s: %s (run `cully status --rebuild` to rebuild it from the journal)", shortID(id), plain(err))
	}
	if !*rebuild {
		stats, whole, err := h.ScanTail(healthWindow, func(*engine.Event) error { return nil })
		if err != nil {
			return fail(codeJournal, err, "cannot read the journal: %s (`cully doctor` checks it)", plain(err))
		}
		jr = journalReport{ReadStats: stats, Scanned: "tail"}
		if whole {
			jr.Scanned = "whole"
		}
	}
	now, _ := a.now()
	rep := buildReport(st, jr, now)
	addFigures(&rep.Budget, st.Usage, recordFigures(h, st, a.getenv, now))
	rep.ProjectRoot, rep.ThisFolder = p.ref().Root, p.mine
	cfg := a.config()
	rep.Run = buildRunReport(h, st, now, &cfg)
	rep.Errors = countLines(h)
	rep.Config = buildConfigReport(a.loadConfig())
	rep.Advisor = a.advisorStatus(h, st, now)
	var seen store.Recording
	rep.Recording, seen = buildRecordingReport(h)
	if *asJSON { // a script's read: the count stays until a person has seen it
		enc := json.NewEncoder(jsonSafe{a.stdout})
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	seenRecording(h, &rep.Recording, seen)
	printRecording(a.stdout, rep.Recording, a.stdoutColor())
	printReport(termSafe{a.stdout}, rep, now, p.elsewhere())
	return nil
}

func buildReport(st *engine.State, jr journalReport, now time.Time) statusReport {
	r := statusReport{
		Schema: jsonSchema, Session: st.Session, Task: st.Task, State: st.OnTrack(),
		Ended: st.Ended, Attended: st.Attended,
		Counts: st.Counts, CheckEpoch: st.CheckEpoch, Checkpoints: st.Checkpoints, Warnings: st.Warnings,
		Journal: jr, ClockSkews: st.ClockSkews,
	}
	a := st.Attention(now, -1)
	r.Need, r.NeedCause = a.Need, a.Cause
	if st.Agent != "" {
		r.Agent = &st.Agent
	}
	if st.Cwd != "" {
		dir, name := st.Cwd, tui.FindProject(st.Cwd).Name
		r.Directory, r.Project = &dir, &name
	}
	if !st.Started.IsZero() {
		r.Started = &st.Started
	}
	if !st.LastSeen.IsZero() {
		r.LastActivity = &st.LastSeen
	}
	if r.Counts.ByClass == nil {
		r.Counts.ByClass = map[engine.Class]int{}
	}
	if r.Checkpoints == nil {
		r.Checkpoints = []engine.Checkpoint{}
	}
	if r.Warnings == nil {
		r.Warnings = []engine.Warning{}
	}
	r.Budget = budgetReport{WallClockSeconds: st.LastSeen.Sub(st.Started).Round(time.Second).Seconds(), ToolCalls: st.Counts.ToolCalls}
	if u := st.Usage; u != nil {
		r.Budget.CostUSD = u.CostUSD
		if n, ok := engine.HostTokens(u); ok {
			r.Budget.Tokens = &n
		}
		r.Budget.CacheReadTokens = u.CacheReadTokens
		r.Budget.ContextTokens, r.Budget.ContextWindow = u.ContextTokens, u.ContextWindow
	}
	return r
}

// addFigures fills what the host's own record of the session holds where
// the host's reported figures leave a gap: the tokens and the context
// measured there, the cost as an estimate beside the reported one.
func addFigures(b *budgetReport, host *engine.HostUsage, rec *usage.Cache) {
	b.UnpricedModels, b.RateLimits = []string{}, []usage.RateLimit{}
	if rec == nil {
		return
	}
	f := usage.Merge(host, rec)
	if b.Tokens == nil {
		if n, ok := f.Tokens(); ok {
			b.Tokens, b.CacheReadTokens = &n, f.CacheRead
		}
	}
	if b.ContextTokens == nil {
		b.ContextTokens = f.Context
	}
	if b.ContextWindow == nil {
		b.ContextWindow = f.Window
	}
	if b.CostUSD == nil && f.Estimated {
		asOf := f.PricesAsOf
		b.CostEstimateUSD, b.PricesAsOf = f.CostUSD, &asOf
	}
	if f.Unpriced != nil {
		b.UnpricedModels = f.Unpriced
	}
	if f.Limits != nil {
		b.RateLimits = f.Limits
	}
}

// orUnknown prints a figure the host may not have given.
func orUnknown[T any](v *T, format string) string {
	if v == nil {
		return "unknown"
	}
	return fmt.Sprintf(format, *v)
}

// costFigure is the session's cost to four places, capped as engine.USD
// caps it (a host's 1e308 is no 309-digit line).
func costFigure(v *float64) string {
	if v == nil {
		return "unknown"
	}
	if usd := engine.USD(*v); usd == "$?" || strings.HasSuffix(usd, "+") {
		return usd
	}
	return fmt.Sprintf("$%.4f", *v)
}

// printReport prints status in text; note, when not "", says the session
// is not this folder's (picked.elsewhere). The recording line comes
// before it, printed by the caller (printRecording, in colour on a
// terminal).
func printReport(w io.Writer, r statusReport, now time.Time, note string) {
	if note != "" {
		fmt.Fprintf(w, "note     %s\n", note)
	}
	fmt.Fprintf(w, "session  %s (%s) · task %d · %s · %s\n", r.Session, orUnknown(r.Agent, "%s"), r.Task, r.State, needText(r.Need, r.NeedCause))
	if r.Project != nil {
		fmt.Fprintf(w, "project  %s · %s\n", *r.Project, *r.Directory)
	}
	ended := ""
	if r.Ended {
		ended = " · session ended"
	}
	last := "never"
	if r.LastActivity != nil {
		last = r.LastActivity.UTC().Format(time.RFC3339) + " (" + since(now, *r.LastActivity) + ")"
	}
	fmt.Fprintf(w, "activity last %s%s\n", last, ended)
	c := r.Counts
	fmt.Fprintf(w, "calls    %d: read %d · edit %d · check %d · run %d · poll %d · other %d\n", c.ToolCalls,
		c.ByClass[engine.ClassRead], c.ByClass[engine.ClassEdit], c.ByClass[engine.ClassCheck], c.ByClass[engine.ClassRun], c.ByClass[engine.ClassPoll], c.ByClass[engine.ClassOther])
	fmt.Fprintf(w, "outcomes %d failed · %d unknown · checks %d ok / %d failed / %d unknown · %d distinct files read\n",
		c.Failures, c.UnknownOut, c.ChecksOK, c.ChecksFailed, c.ChecksUnknown, c.FilesRead)
	open := 0
	for _, cp := range r.Checkpoints {
		if cp.Status == engine.StatusOpen {
			open++
		}
	}
	fmt.Fprintf(w, "checkpoints %d open of %d\n", open, len(r.Checkpoints))
	for _, cp := range r.Checkpoints {
		told := ""
		if cp.Nudged {
			told = ", agent told"
		}
		fmt.Fprintf(w, "  %-4s %-12s %-16s task %d: %s%s\n", cp.ID, cp.Status, cp.Reason, cp.Task, cp.Evidence, told)
	}
	fmt.Fprintf(w, "guards   %d warning(s)\n", len(r.Warnings))
	for _, g := range lastN(r.Warnings, 5) {
		fmt.Fprintf(w, "  %-16s task %d: %s\n", g.Reason, g.Task, g.Evidence)
	}
	b := r.Budget
	cache := ""
	if b.CacheReadTokens != nil {
		cache = fmt.Sprintf(" (+%d cache reads, not counted)", *b.CacheReadTokens)
	}
	fmt.Fprintf(w, "budget   wall %s · calls %d · tokens %s%s · cost %s · context %s\n", time.Duration(b.WallClockSeconds*float64(time.Second)),
		b.ToolCalls, orUnknown(b.Tokens, "%d"), cache, budgetCost(b), contextFigure(b))
	if len(b.RateLimits) > 0 {
		fmt.Fprintf(w, "limits   %s\n", rateLimits(b.RateLimits, now))
	}
	printRun(w, r.Run, now)
	j := r.Journal
	fmt.Fprintf(w, "journal  %d records · %d corrupt · %d torn (%s scanned)", j.Lines, j.Corrupt, j.Torn, j.Scanned)
	if r.Errors > 0 {
		fmt.Fprintf(w, " · %d hook errors logged", r.Errors)
	}
	if r.ClockSkews > 0 {
		fmt.Fprintf(w, " · clock went backwards %d time(s)", r.ClockSkews)
	}
	fmt.Fprintln(w)
	printAdvisor(w, r.Advisor)
	printConfig(w, r.Config)
}

// needText is the session's need in status's words: "needs you
// (paused)", "working", "idle (turn ended)".
func needText(n engine.Need, c engine.Cause) string {
	switch {
	case n == "":
		return ""
	case n == engine.NeedYou:
		return string(n) + " (" + shortCause(c) + ")"
	case c == engine.CauseEnded || c == engine.CauseTurnEnded:
		return string(n) + " (" + string(c) + ")"
	}
	return string(n)
}

// budgetCost is the host's cost, else the estimate from its record, said
// to be one, else why there is none.
func budgetCost(b budgetReport) string {
	switch {
	case b.CostUSD != nil:
		return costFigure(b.CostUSD)
	case b.CostEstimateUSD != nil:
		return "~" + costFigure(b.CostEstimateUSD) + " (estimate: prices as of " + *b.PricesAsOf + ")"
	case len(b.UnpricedModels) > 0:
		return "unknown (no price for " + strings.Join(b.UnpricedModels, ", ") + ")"
	}
	return "unknown"
}

// contextFigure is the context's size, and its share of the window where
// known.
func contextFigure(b budgetReport) string {
	if b.ContextTokens != nil && b.ContextWindow != nil && *b.ContextWindow > 0 {
		return fmt.Sprintf("%d of %d (%.0f%%)", *b.ContextTokens, *b.ContextWindow, 100*float64(*b.ContextTokens)/float64(*b.ContextWindow))
	}
	return orUnknown(b.ContextTokens, "%d")
}

// rateLimits says each rate-limit window's use and when it starts over.
func rateLimits(ls []usage.RateLimit, now time.Time) string {
	parts := make([]string, 0, len(ls))
	for _, l := range ls {
		s := fmt.Sprintf("%s %.0f%% used", l.Window(), l.UsedPercent)
		if l.ResetsAt > 0 {
			at := time.Unix(l.ResetsAt, 0).UTC()
			s += ", resets " + at.Format(time.RFC3339)
			if d := at.Sub(now); d > 0 {
				s += " (in " + d.Round(time.Minute).String() + ")"
			}
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " · ")
}

func lastN[T any](s []T, n int) []T {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func since(now, t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	d := now.Sub(t)
	switch {
	case d < 0:
		return "in the future: clock skew"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// countLines counts errors.log's records (read as the store reads every
// file of the state dir: never through a symlink, never from a FIFO).
func countLines(h store.Home) int {
	b, err := h.ReadErrorsLog()
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\n")
}
