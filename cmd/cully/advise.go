package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"cully/advisor"
	"cully/engine"
	"cully/ledger"
	"cully/store"
)

type adviseOpts struct {
	which
	auto bool
}

// advisorRequest reads the workers from the user's config: the advisor runs
// only with a command, discovery only with its command and
// CULLY_DISCOVERY not off.
func (a *app) advisorRequest(h store.Home, id string, auto bool) (advisor.Request, error) {
	now, err := a.now()
	if err != nil {
		return advisor.Request{}, err
	}
	ld := a.loadConfig()
	return advisor.Request{
		Home: h, Session: id, Auto: auto, Now: now, Workers: ld.Workers, Config: ld.Config,
		Discovery: len(ld.Workers.Discovery) > 0 && a.getenv("CULLY_DISCOVERY") != "off",
	}, nil
}

func (a *app) advise(o adviseOpts) error {
	h, err := a.home()
	if err != nil {
		return err
	}
	var id string
	if o.auto && o.session != "" {
		// The hook's own request names its session, from wherever the
		// agent works: it asks no one.
		id, err = a.session(h, o.session)
	} else {
		var p picked
		p, err = a.sessionFor(h, o.which, changes)
		id = p.id
	}
	if err != nil {
		return err
	}
	req, err := a.advisorRequest(h, id, o.auto)
	if err != nil {
		return err
	}
	res, err := advisor.Advise(req)
	if err != nil {
		return err
	}
	w := termSafe{a.stdout}
	switch {
	case res.Off:
		fmt.Fprintf(w, "advisor off: no [advisor] command in %s (`cully advisor setup` proposes one; docs/advisor.md)\n", a.env().ConfigPath())
	case !res.Sent:
		fmt.Fprintf(w, "advisor skipped: %s%s\n", res.Verdict.Reason, until(res.Verdict.Until))
	case res.Outcome == advisor.OutcomeOK:
		fmt.Fprintf(w, "advice: %s\n", res.Advice)
	default:
		fmt.Fprintf(w, "advisor %s: %v\n", res.Outcome, res.Err)
	}
	if res.Sent && res.Discovery != "" {
		fmt.Fprintf(w, "discovery: %s\n", res.Discovery)
	}
	if res.Sent && res.Gap != "" {
		fmt.Fprintf(w, "tool-gap research %s: %s\n", res.Gap, res.Research)
	}
	return nil
}

func until(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return " until " + t.UTC().Format(time.RFC3339)
}

// advisorReport is the "advisor" member of `cully status --json`.
type advisorReport = advisor.Status

func (a *app) advisorStatus(h store.Home, st *engine.State, now time.Time) advisorReport {
	return advisor.StatusOf(h, st, a.loadConfig().Workers, a.getenv("CULLY_DISCOVERY") == "off", now, plain)
}

func printAdvisor(w io.Writer, r advisorReport) {
	fmt.Fprintf(w, "advisor  %s", r.State)
	if r.Why != "" {
		fmt.Fprintf(w, ": %s", r.Why)
	}
	if b := r.Budget; b != nil {
		fmt.Fprintf(w, " · %d request(s) left this hour · next slot %s", b.Left, b.NextSlot.Format(time.RFC3339))
		if !b.Cooldown.IsZero() {
			fmt.Fprintf(w, " · discovery cooldown until %s", b.Cooldown.Format(time.RFC3339))
		}
		if !b.ResearchCooldown.IsZero() {
			fmt.Fprintf(w, " · research cooldown until %s", b.ResearchCooldown.Format(time.RFC3339))
		}
	}
	fmt.Fprintf(w, " · discovery %s\n", r.Discovery)
	for _, g := range r.Gaps {
		done := "not researched yet"
		switch {
		case g.Researched:
			done = "researched"
		case r.Research != "on":
			done = "research " + r.Research
		}
		fmt.Fprintf(w, "  tool gap %s (%s): %s\n", g.Name, done, g.Evidence)
	}
	if r.Pending != nil {
		told := "not yet told to the agent"
		if r.Pending.Told {
			told = "told to the agent"
		}
		fmt.Fprintf(w, "  advice (%s): %s\n", told, r.Pending.Text)
	}
}

type ledgerOpts struct {
	json    bool
	session string
}

// ledgerReport is `cully ledger --json`.
type ledgerReport struct {
	Schema   int            `json:"schema_version"`
	Estimate string         `json:"estimate"` // how every token figure here is made
	Entries  []ledger.Entry `json:"entries"`
	Corrupt  int            `json:"corrupt_lines"`
	Totals   ledgerTotals   `json:"totals"`
	Nudges   nudgeTotals    `json:"nudges"`
	// Heeded is what the nudges changed: per kind, how often the agent's
	// next ledger.HeededWindow calls did what it suggested.
	Heeded []ledger.HeededRate `json:"heeded"`
	// Sessions is what the nudges cost each session told one, re-sends
	// included, and as a share of the host's input tokens where known.
	Sessions []ledger.SessionCost `json:"sessions"`
	// Session is the one --session named, when it did.
	Session  string   `json:"session,omitempty"`
	NotBuilt []string `json:"not_built"`
}

type ledgerTotals = ledger.Totals

type nudgeTotals struct {
	Count  int `json:"count"`
	Tokens int `json:"tokens_estimated"`
	Resent int `json:"resent_tokens_estimated"` // their text again in each later request of its session
}

func (a *app) ledger(o ledgerOpts) error {
	h, err := a.home()
	if err != nil {
		return err
	}
	if err := checkHome(h); err != nil {
		return err
	}
	session := ""
	if o.session != "" {
		if session, err = a.session(h, o.session); err != nil {
			return err
		}
	}
	es, bad, err := ledger.Files{Home: h}.Entries()
	if err != nil {
		return fail(codeJournal, err, "cannot read the impact ledger: %s", plain(err))
	}
	if session != "" {
		es = slices.DeleteFunc(es, func(e ledger.Entry) bool { return e.Session != session })
	}
	rep := ledgerReport{Schema: jsonSchema, Estimate: ledger.Estimate, Entries: es, Corrupt: bad, Session: session,
		NotBuilt: []string{"savings in tokens from heeded nudges (the rates say what changed, not what it saved)"}}
	if rep.Entries == nil {
		rep.Entries = []ledger.Entry{}
	}
	rep.Totals = ledger.Sum(es)
	heeded, costs := ledger.NewHeeded(), ledger.NewCosts()
	_, _ = h.ReadAll(func(ev *engine.Event) error {
		if session != "" && ev.Session != session {
			return nil
		}
		heeded.Add(ev)
		costs.Add(ev)
		return nil
	})
	rep.Heeded = heeded.Rates()
	costs.AddEntries(es)
	rep.Sessions = costs.Sessions()
	for _, c := range rep.Sessions {
		rep.Nudges.Count += c.Nudges
		rep.Nudges.Tokens += c.Tokens
		rep.Nudges.Resent += c.Resent
	}
	if rep.Sessions == nil {
		rep.Sessions = []ledger.SessionCost{}
	}
	if o.json {
		enc := json.NewEncoder(jsonSafe{a.stdout})
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	w := termSafe{a.stdout}
	t := rep.Totals
	if session != "" {
		fmt.Fprintf(w, "impact ledger of session %s (token figures %s)\n", session, ledger.Estimate)
	} else {
		fmt.Fprintf(w, "impact ledger (token figures %s)\n", ledger.Estimate)
	}
	fmt.Fprintf(w, "skipped  %d analyses · ~%d prompt tokens avoided\n", t.Skipped, t.AvoidedTokens)
	fmt.Fprintf(w, "spent    %d requests · ~%d prompt tokens sent\n", t.Spent, t.SpentTokens)
	fmt.Fprintf(w, "net      ~%d tokens avoided\n", t.NetTokens)
	fmt.Fprintf(w, "nudges   %d told to agents · ~%d tokens of their context, ~%d more re-sent in later requests\n", rep.Nudges.Count, rep.Nudges.Tokens, rep.Nudges.Resent)
	for _, c := range rep.Sessions[:min(10, len(rep.Sessions))] { // the costliest
		share := "the host reports no input tokens"
		if c.Share != nil {
			share = fmt.Sprintf("%.2f%% of the host's %d input tokens", *c.Share*100, *c.HostInputTokens)
		}
		fmt.Fprintf(w, "  %-8s %-7s %d nudge(s) · ~%d told · ~%d re-sent in %d later requests · %s\n",
			shortID(c.Session), c.Agent, c.Nudges, c.Tokens, c.Resent, c.Requests, share)
		if c.AvoidedTokens > 0 || c.SpentTokens > 0 {
			adv := fmt.Sprintf("           advisor: ~%d prompt tokens avoided, ~%d spent", c.AvoidedTokens, c.SpentTokens)
			if c.AvoidedShare != nil || c.SpentShare != nil {
				pct := func(p *float64) float64 {
					if p == nil {
						return 0
					}
					return *p * 100
				}
				adv += fmt.Sprintf(" (%.2f%% and %.2f%% of the host's input tokens)", pct(c.AvoidedShare), pct(c.SpentShare))
			}
			fmt.Fprintln(w, adv)
		}
	}
	for _, e := range lastN(es, 20) {
		what := e.Reason
		if what == "" {
			what = e.Outcome
		}
		fmt.Fprintf(w, "  %s %-8s %-9s %-22s ~%d tokens%s\n", e.Time.UTC().Format(time.RFC3339), shortID(e.Session), e.Kind, what, e.Tokens, untilPtr(e.Until))
	}
	for _, r := range rep.Heeded {
		open := ""
		if r.Open > 0 {
			open = fmt.Sprintf(" (%d more too recent to judge)", r.Open)
		}
		fmt.Fprintf(w, "heeded   %-16s %d of %d in the next %d calls: %s%s\n", r.Reason, r.Heeded, r.Told, ledger.HeededWindow, r.Means, open)
	}
	fmt.Fprintln(w, "not built yet: token savings from heeded nudges")
	return nil
}

func untilPtr(t *time.Time) string {
	if t == nil {
		return ""
	}
	return until(*t)
}
