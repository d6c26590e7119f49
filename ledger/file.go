package ledger

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"cully/jsonlite"
	"cully/store"
)

// Dir is the advisor's folder in the state dir.
const Dir = "advisor"

// maxBudgetFile bounds what is read of budget.json: 256 sessions of a
// full hour are a few tens of KiB.
const maxBudgetFile = 1 << 20

// budgetVersion is budget.json's schema.
const budgetVersion = 1

// Files is the advisor's folder of one state dir.
type Files struct {
	Home store.Home
}

func (f Files) dir() string        { return filepath.Join(f.Home.Dir, Dir) }
func (f Files) BudgetPath() string { return filepath.Join(f.dir(), "budget.json") }
func (f Files) lockPath() string   { return filepath.Join(f.dir(), "budget.lock") }
func (f Files) LedgerPath() string { return filepath.Join(f.dir(), "ledger.jsonl") }
func (f Files) RunLock(id string) string {
	return filepath.Join(f.dir(), "run-"+store.SafeName(id)+".lock")
}
func (f Files) SlotLock(i int) string { return filepath.Join(f.dir(), fmt.Sprintf("slot-%d.lock", i)) }

// QueueLock is the i-th ticket of the queue of requests waiting for a slot.
func (f Files) QueueLock(i int) string {
	return filepath.Join(f.dir(), fmt.Sprintf("queue-%d.lock", i))
}

// ErrUnreadable wraps why budget.json could not be read.
var ErrUnreadable = errors.New("advisor accounting unreadable")

// Ensure creates the folder, private to the user.
func (f Files) Ensure() error {
	if err := f.Home.Ensure(); err != nil {
		return err
	}
	if err := os.Mkdir(f.dir(), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create advisor dir: %w", err)
	}
	return nil
}

// Read loads budget.json without a lock (for status): a missing file is
// an empty budget; anything else that does not read is ErrUnreadable.
func (f Files) Read() (*Budget, error) {
	b, err := store.ReadSmallFile(f.BudgetPath(), maxBudgetFile)
	if errors.Is(err, fs.ErrNotExist) {
		return &Budget{V: budgetVersion}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	var bd Budget
	if err := json.Unmarshal(b, &bd); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUnreadable, f.BudgetPath(), jsonlite.Where(b, err))
	}
	if bd.V != budgetVersion {
		return nil, fmt.Errorf("%w: %s: version %d, this cully reads %d", ErrUnreadable, f.BudgetPath(), bd.V, budgetVersion)
	}
	return &bd, nil
}

// Update runs fn on the budget under the lock and writes it back by a
// rename if fn says it changed. An unreadable file is handed to fn as nil
// with the error, and never written: fn may only log. Entries fn returns
// are appended to the ledger under the same lock.
func (f Files) Update(fn func(b *Budget, err error) (changed bool, entries []Entry)) error {
	if err := f.Ensure(); err != nil {
		return err
	}
	wait := f.Home.LockWait
	if wait <= 0 {
		wait = store.DefaultLockWait
	}
	lk, err := store.Acquire(f.lockPath(), wait)
	if err != nil {
		return err
	}
	defer lk.Unlock()
	b, rerr := f.Read()
	changed, entries := fn(b, rerr)
	if changed && rerr == nil {
		if err := f.write(b); err != nil {
			return err
		}
	}
	return f.appendEntries(entries)
}

func (f Files) write(b *Budget) error {
	data, err := json.Marshal(b)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(f.dir(), ".budget-*.tmp")
	if err != nil {
		return fmt.Errorf("write budget: %w", err)
	}
	_, werr := tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), f.BudgetPath())
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write budget: %w", werr)
	}
	return nil
}

// Outcomes of a discovery or research attempt whose result was refused:
// it reported no search, or more than MaxSearches.
const (
	OutcomeNoSearches      = "no-searches"
	OutcomeTooManySearches = "too-many-searches"
)

// Estimate is how the ledger's token figures are made, said beside each.
const Estimate = "estimated: bytes/4"

// Tokens estimates the tokens of a text of n bytes: about four bytes a
// token for English prose and code, rounded up.
func Tokens(n int) int { return (n + 3) / 4 }

// Entry is one line of the impact ledger.
type Entry struct {
	Time    time.Time `json:"ts"`
	Session string    `json:"session"`
	// Kind: "skipped" (the budget said no), "deferred" (the accounting or
	// the clock could not be trusted), "spent" (a request sent),
	// "discovery" (a discovery attempt sent), "research" (a tool-gap
	// research attempt sent; Hash is the gap's).
	Kind   string     `json:"kind"`
	Reason string     `json:"reason,omitempty"`
	Until  *time.Time `json:"until,omitempty"`
	// Mode: "auto" or "explicit" (explicit requests are outside the budget).
	Mode        string `json:"mode,omitempty"`
	PromptBytes int    `json:"prompt_bytes"`
	Tokens      int    `json:"tokens"`
	Estimate    string `json:"estimate"`
	Outcome     string `json:"outcome,omitempty"` // spent: ok, failed, timeout; discovery and research also no-searches, too-many-searches
	Hash        string `json:"evidence_hash,omitempty"`
	// Searches is how many searches a discovery or research attempt
	// reported running (nil: it ended before reporting, or another kind).
	Searches *int `json:"searches,omitempty"`
}

func (f Files) appendEntries(es []Entry) error {
	if len(es) == 0 {
		return nil
	}
	var buf bytes.Buffer
	for _, e := range es {
		if e.Estimate == "" {
			e.Estimate = Estimate
		}
		b, err := json.Marshal(e)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	fh, err := os.OpenFile(f.LedgerPath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("append ledger: %w", err)
	}
	_, err = fh.Write(buf.Bytes())
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	return err
}

// Append adds entries to the ledger under the lock.
func (f Files) Append(es ...Entry) error {
	return f.Update(func(*Budget, error) (bool, []Entry) { return false, es })
}

// Entries reads the ledger; a corrupt line is skipped and counted.
func (f Files) Entries() ([]Entry, int, error) {
	fh, err := os.Open(f.LedgerPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer fh.Close()
	var out []Entry
	bad := 0
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var e Entry
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			bad++
			continue
		}
		out = append(out, e)
	}
	return out, bad, sc.Err()
}

// Totals sum the impact ledger, as `cully ledger` prints them.
type Totals struct {
	Skipped       int `json:"skipped"`
	AvoidedTokens int `json:"avoided_tokens_estimated"`
	Spent         int `json:"spent"`
	SpentTokens   int `json:"spent_tokens_estimated"`
	NetTokens     int `json:"net_tokens_estimated"` // avoided minus spent
	// Searches are those discovery and research attempts reported running;
	// Refused the attempts whose result was refused for reporting none or
	// more than MaxSearches.
	Searches int `json:"searches_reported"`
	Refused  int `json:"search_results_refused"`
}

// Sum totals entries: skipped and deferred analyses count as avoided,
// spent requests, discovery and research attempts as spent.
func Sum(es []Entry) Totals {
	var t Totals
	for _, e := range es {
		switch e.Kind {
		case "skipped", "deferred":
			t.Skipped++
			t.AvoidedTokens += e.Tokens
		case "spent", "discovery", "research":
			t.Spent++
			t.SpentTokens += e.Tokens
		}
		if e.Searches != nil {
			t.Searches += *e.Searches
		}
		if e.Outcome == OutcomeNoSearches || e.Outcome == OutcomeTooManySearches {
			t.Refused++
		}
	}
	t.NetTokens = t.AvoidedTokens - t.SpentTokens
	return t
}
