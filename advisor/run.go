package advisor

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"cully/config"
	"cully/engine"
	"cully/ledger"
	"cully/store"
)

// MaxWorkers is how many workers run at once, whatever the sessions: the
// machine runs the agents too, and each worker may be a whole agent CLI.
const MaxWorkers = 2

// Request is one advisor evaluation.
type Request struct {
	Home    store.Home
	Session string
	Auto    bool // an automatic request, under the budget; else explicit (rescue), outside it
	Now     time.Time
	Workers config.Workers
	Config  engine.Config
	// Discovery: a discovery command is set and CULLY_DISCOVERY is not off.
	Discovery bool
}

// Result is what became of it.
type Result struct {
	Off       bool // no advisor command: nothing ran, nothing counted
	Verdict   ledger.Verdict
	Sent      bool   // the worker was run
	Outcome   string // the worker's outcome when sent
	Advice    string
	Discovery string // the discovery attempt's outcome, or why none was made
	Prompt    int    // the prompt's size in bytes
	Err       error  // the worker's failure, when it failed
}

// ErrNoSession: the session has no recorded state to advise on.
var ErrNoSession = errors.New("no such session")

// Advise evaluates a session: for an automatic request, the budget first.
func Advise(r Request) (Result, error) {
	var res Result
	if len(r.Workers.Advisor) == 0 {
		res.Off = true
		return res, nil
	}
	st, err := r.Home.LoadState(r.Session)
	if err != nil {
		return res, fmt.Errorf("%w %q: %v", ErrNoSession, r.Session, err)
	}
	ev := Gather(st)
	prompt := Prompt(Preamble, st, ev, "")
	res.Prompt = len(prompt)
	mode := "explicit"
	if r.Auto {
		mode = "auto"
	}
	files := ledger.Files{Home: r.Home}
	if err := files.Ensure(); err != nil {
		return res, err
	}
	skip := func(v ledger.Verdict, kind string) (Result, error) {
		res.Verdict = v
		e := ledger.Entry{Time: r.Now.UTC(), Session: r.Session, Kind: kind, Reason: v.Reason, Mode: mode,
			PromptBytes: len(prompt), Tokens: ledger.Tokens(len(prompt)), Hash: ev.Hash}
		if !v.Until.IsZero() {
			u := v.Until
			e.Until = &u
		}
		lerr := files.Append(e)
		return res, errors.Join(lerr, r.journal(st, mode, "", "skipped: "+v.Reason))
	}

	// One worker per session, and a few at once.
	run, err := store.Acquire(files.RunLock(r.Session), time.Millisecond)
	if err != nil {
		return skip(ledger.Verdict{Reason: ledger.ReasonBusy}, "skipped")
	}
	defer run.Unlock()
	var slot *store.Lock
	for i := 0; i < MaxWorkers && slot == nil; i++ {
		slot, _ = store.Acquire(files.SlotLock(i), time.Millisecond)
	}
	if slot == nil {
		return skip(ledger.Verdict{Reason: ledger.ReasonBusy}, "skipped")
	}
	defer slot.Unlock()

	discover := false
	if r.Auto {
		var v, dv ledger.Verdict
		uerr := files.Update(func(b *ledger.Budget, rerr error) (bool, []ledger.Entry) {
			if rerr != nil {
				v = ledger.Verdict{Reason: ledger.ReasonUnreadable}
				res.Err = rerr
				return false, nil
			}
			v = ledger.Decide(b, r.Session, r.Now, ev.Hash, r.Discovery)
			if v.Accept && r.Discovery {
				dv = ledger.Discover(b, r.Session, st.Agent, r.Now)
			}
			return v.Accept, nil
		})
		if uerr != nil {
			return res, uerr
		}
		switch {
		case v.Reason == ledger.ReasonUnreadable || v.Reason == ledger.ReasonClock:
			return skip(v, "deferred")
		case !v.Accept:
			return skip(v, "skipped")
		}
		res.Verdict = v
		discover = dv.Accept
		if r.Discovery && !dv.Accept {
			res.Discovery = dv.Reason
			dp := Prompt(DiscoveryPreamble, st, ev, "")
			e := ledger.Entry{Time: r.Now.UTC(), Session: r.Session, Kind: "skipped", Reason: dv.Reason, Mode: mode,
				PromptBytes: len(dp), Tokens: ledger.Tokens(len(dp)), Hash: ev.Hash}
			if !dv.Until.IsZero() {
				u := dv.Until
				e.Until = &u
			}
			_ = files.Append(e)
		}
	}

	var notes string
	if discover {
		dp := Prompt(DiscoveryPreamble, st, ev, "")
		out, outcome, _ := Run(r.Workers.Discovery, dp, ledger.DiscoveryDeadline)
		res.Discovery = outcome
		_ = files.Append(ledger.Entry{Time: r.Now.UTC(), Session: r.Session, Kind: "discovery", Mode: mode,
			PromptBytes: len(dp), Tokens: ledger.Tokens(len(dp)), Outcome: outcome, Hash: ev.Hash})
		if outcome == OutcomeOK {
			notes = tidyLines(out)
			prompt = Prompt(Preamble, st, ev, notes)
			res.Prompt = len(prompt)
		}
	}

	out, outcome, werr := Run(r.Workers.Advisor, prompt, time.Duration(r.Workers.DeadlineSeconds())*time.Second)
	res.Sent, res.Outcome, res.Err = true, outcome, werr
	if outcome == OutcomeOK {
		res.Advice = Tidy(out)
	}
	lerr := files.Append(ledger.Entry{Time: r.Now.UTC(), Session: r.Session, Kind: "spent", Mode: mode,
		PromptBytes: len(prompt), Tokens: ledger.Tokens(len(prompt)), Outcome: outcome, Hash: ev.Hash})
	note := ""
	if outcome != OutcomeOK {
		note = outcome
	}
	return res, errors.Join(lerr, r.journal(st, mode, res.Advice, note))
}

// journal records the run as an advice event, through the reducer.
func (r Request) journal(st *engine.State, mode, advice, note string) error {
	ev := &engine.Event{V: engine.SchemaVersion, Time: r.Now.UTC(), Agent: st.Agent, Session: r.Session,
		Kind: engine.KindAdvice, Hook: "cully advise", Source: mode, Advice: advice, Note: note}
	_, err := r.Home.Record(ev, &r.Config)
	return err
}

// tidyLines redacts discovery's findings line by line, bounded.
func tidyLines(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = Tidy(l); l != "" && len(out) < 8 {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
