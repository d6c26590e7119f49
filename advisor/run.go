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

// MaxQueued is how many requests may wait for a worker slot when every
// slot is taken; a request that finds the queue full too is skipped as
// busy. The queue is bounded so that a burst of sessions cannot pile up
// processes that each hold a stale prompt.
const MaxQueued = 4

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
	// Research is the tool-gap research attempt's outcome, or why none was
	// made ("" when the evidence shows no gap to research); Gap names it.
	Research string
	Gap      string
	Prompt   int   // the prompt's size in bytes
	Err      error // the worker's failure, when it failed
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
	st, err := r.Home.ReadState(r.Session, nil)
	if err != nil {
		return res, fmt.Errorf("%w %q: %v", ErrNoSession, r.Session, err)
	}
	ev := Gather(st)
	prompt := Prompt(Preamble, st, ev)
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
	slot, waited := acquireSlot(files, queueWait(r.Workers))
	if slot == nil {
		return skip(ledger.Verdict{Reason: ledger.ReasonBusy}, "skipped")
	}
	defer slot.Unlock()
	if waited > 0 {
		// The session went on while this request waited: decide and ask on
		// what it holds now, at the time it is now.
		r.Now = r.Now.Add(waited)
		if st, err = r.Home.ReadState(r.Session, nil); err != nil {
			return res, fmt.Errorf("%w %q: %v", ErrNoSession, r.Session, err)
		}
		ev = Gather(st)
		prompt = Prompt(Preamble, st, ev)
		res.Prompt = len(prompt)
	}

	discover := false
	var gap *Gap // the tool gap to research, when one may be
	if r.Auto {
		gaps := Gaps(st)
		var v, dv, rv ledger.Verdict
		uerr := files.Update(func(b *ledger.Budget, rerr error) (bool, []ledger.Entry) {
			if rerr != nil {
				v = ledger.Verdict{Reason: ledger.ReasonUnreadable}
				res.Err = rerr
				return false, nil
			}
			v = ledger.Decide(b, r.Session, r.Now, ev.Hash, r.Discovery)
			if v.Accept && r.Discovery {
				dv = ledger.Discover(b, r.Session, st.Agent, r.Now)
				gap, rv = pickGap(b, r.Session, st.Agent, r.Now, gaps)
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
			_ = files.Append(skippedPhase(r, mode, dv, Prompt(DiscoveryPreamble, st, ev), ev.Hash))
		}
		if gap != nil {
			res.Gap = gap.Name
			if !rv.Accept {
				res.Research = rv.Reason
				_ = files.Append(skippedPhase(r, mode, rv, Prompt(ResearchPreamble(*gap), st, ev), gap.Hash))
				gap = nil
			}
		}
	}

	var notes []Note
	var perr []error
	if discover {
		f, outcome, err := r.phase(files, st, mode, "discovery", "discovery", Prompt(DiscoveryPreamble, st, ev), ev.Hash)
		res.Discovery = outcome
		perr = append(perr, err)
		if outcome == OutcomeOK {
			notes = append(notes, Note{"public research notes (discovery)", f.Notes})
		}
	}
	if gap != nil {
		f, outcome, err := r.phase(files, st, mode, "research", "tool-gap research "+gap.Name, Prompt(ResearchPreamble(*gap), st, ev), gap.Hash)
		res.Research = outcome
		perr = append(perr, err)
		if outcome == OutcomeOK {
			notes = append(notes, Note{"tool-gap research notes (" + gap.Name + ")", f.Notes})
		}
	}
	if len(notes) > 0 {
		prompt = Prompt(Preamble, st, ev, notes...)
		res.Prompt = len(prompt)
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
	return res, errors.Join(append(perr, lerr, r.journal(st, mode, res.Advice, note))...)
}

// pickGap decides tool-gap research for the first due gap not yet
// researched (ledger.Research): the gap and its verdict, or nil when every
// gap was researched already.
func pickGap(b *ledger.Budget, key, agent string, now time.Time, gaps []Gap) (*Gap, ledger.Verdict) {
	for i := range gaps {
		v := ledger.Research(b, key, agent, gaps[i].Hash, now)
		if v.Reason == ledger.ReasonResearched {
			continue
		}
		return &gaps[i], v
	}
	return nil, ledger.Verdict{}
}

// skippedPhase is the ledger's line for a discovery or research attempt
// the budget refused, with the prompt it would have sent.
func skippedPhase(r Request, mode string, v ledger.Verdict, prompt, hash string) ledger.Entry {
	e := ledger.Entry{Time: r.Now.UTC(), Session: r.Session, Kind: "skipped", Reason: v.Reason, Mode: mode,
		PromptBytes: len(prompt), Tokens: ledger.Tokens(len(prompt)), Hash: hash}
	if !v.Until.IsZero() {
		u := v.Until
		e.Until = &u
	}
	return e
}

// phase runs a discovery or research attempt (kind) on the discovery
// command under discovery's deadline, its process group killed past it.
// Its answer must report one to three searches (SearchOutcome); the count
// goes into the ledger and the journal event that records the attempt
// (label names it there).
func (r Request) phase(files ledger.Files, st *engine.State, mode, kind, label, prompt, hash string) (Findings, string, error) {
	out, outcome, _ := Run(r.Workers.Discovery, prompt, ledger.DiscoveryDeadline)
	var f Findings
	var n *int
	note := label + ": " + outcome
	if outcome == OutcomeOK {
		f = ParseFindings(out)
		c := f.Searches
		n = &c
		outcome = SearchOutcome(c)
		note = fmt.Sprintf("%s: %s (%d search(es) reported, %d–%d allowed)", label, outcome, c, ledger.MinSearches, ledger.MaxSearches)
	}
	lerr := files.Append(ledger.Entry{Time: r.Now.UTC(), Session: r.Session, Kind: kind, Mode: mode,
		PromptBytes: len(prompt), Tokens: ledger.Tokens(len(prompt)), Outcome: outcome, Hash: hash, Searches: n})
	return f, outcome, errors.Join(lerr, r.journal(st, mode, "", note))
}

// queueWait is how long a queued request waits for a slot: a running
// worker frees its slot within its deadline (killed then), and a little.
func queueWait(w config.Workers) time.Duration {
	return time.Duration(w.DeadlineSeconds())*time.Second + 5*time.Second
}

// acquireSlot takes one of the MaxWorkers slots at once if one is free.
// Otherwise it takes one of MaxQueued queue tickets and waits for a slot,
// at most wait; with every ticket taken it gives up at once. It returns
// the slot (nil when none) and how long it waited.
func acquireSlot(files ledger.Files, wait time.Duration) (*store.Lock, time.Duration) {
	try := func() *store.Lock {
		for i := 0; i < MaxWorkers; i++ {
			if l, err := store.Acquire(files.SlotLock(i), time.Millisecond); err == nil {
				return l
			}
		}
		return nil
	}
	if l := try(); l != nil {
		return l, 0
	}
	var ticket *store.Lock
	for i := 0; i < MaxQueued && ticket == nil; i++ {
		ticket, _ = store.Acquire(files.QueueLock(i), time.Millisecond)
	}
	if ticket == nil {
		return nil, 0
	}
	defer ticket.Unlock()
	start := time.Now()
	for time.Since(start) < wait {
		time.Sleep(100 * time.Millisecond)
		if l := try(); l != nil {
			return l, time.Since(start)
		}
	}
	return nil, time.Since(start)
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
