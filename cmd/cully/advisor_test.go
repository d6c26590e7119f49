package main

import (
	"encoding/json"
	"fmt"
	"os"

	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cully/advisor"
	"cully/ledger"
	"cully/store"
)

// advisorEnv is testEnv with a user config naming worker as the advisor.
func advisorEnv(t *testing.T, worker string, extra string) map[string]string {
	t.Helper()
	env := testEnv(t)
	dir := filepath.Dir(env["HOME"])
	w := filepath.Join(dir, "worker.sh")
	if err := os.WriteFile(w, []byte(worker), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("[advisor]\ncommand = [%q]\n%s", w, extra)), 0o600)
	env["CULLY_CONFIG"] = cfg
	env["CULLY_NOW"] = "2026-11-30T12:00:00Z"
	env["WORK"] = dir
	return env
}

// failLoop records a session whose command failed three times alike: a
// failure-loop checkpoint opens on the third. The hooks here start no
// advisor of their own.
func failLoop(t *testing.T, env map[string]string, bin string) {
	t.Helper()
	for i, ev := range []string{"UserPromptSubmit", "PostToolUseFailure", "PostToolUseFailure", "PostToolUseFailure"} {
		p := fmt.Sprintf(`{"session_id":"s1","hook_event_name":%q,"cwd":"/w","prompt":"fix","tool_name":"Bash","tool_input":{"command":"make all"},"tool_use_id":"t%d","error":"Exit code 1\nboom"}`, ev, i)
		var args []string
		if bin == "cully" {
			args = []string{"hook"}
		}
		if r := runBin(t, bin, env, []byte(p), args...); r.code != 0 {
			t.Fatalf("hook: %+v", r)
		}
	}
}

func ledgerEntries(t *testing.T, home string) []ledger.Entry {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(home, "advisor", "ledger.jsonl"))
	var es []ledger.Entry
	for _, ln := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if ln == "" {
			continue
		}
		var e ledger.Entry
		if err := json.Unmarshal([]byte(ln), &e); err != nil {
			t.Fatalf("ledger line %q: %v", ln, err)
		}
		es = append(es, e)
	}
	return es
}

// 16 processes racing for one session's budget, at one instant and then
// each at its own minute of one hour: never more accepted than the budget
// allows, and every process's decision is in the ledger.
func TestAdvisorBudgetUnderRace(t *testing.T) {
	t.Parallel()
	env := advisorEnv(t, "#!/bin/sh\ncat >/dev/null\necho \"$CULLY_NOW\" >> \"$WORK/calls.log\"\necho advice\n", "")
	env["CULLY_ADVISOR_WORKER"] = "1"
	failLoop(t, env, "cully")
	race := func(nowFor func(i int) string) {
		var wg sync.WaitGroup
		for i := 0; i < 16; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				e := map[string]string{}
				for k, v := range env {
					e[k] = v
				}
				e["CULLY_NOW"] = nowFor(i)
				if r := cully(t, e, nil, "advise", "--auto", "--session", "s1"); r.code != 0 {
					t.Errorf("advise: %+v", r)
				}
			}(i)
		}
		wg.Wait()
	}
	race(func(int) string { return "2026-11-30T12:00:00Z" })
	if es := ledgerEntries(t, env["CULLY_HOME"]); len(es) != 16 {
		t.Fatalf("%d ledger entries for 16 processes", len(es))
	}
	calls, _ := os.ReadFile(filepath.Join(env["WORK"], "calls.log"))
	if n := strings.Count(string(calls), "\n"); n != 1 {
		t.Fatalf("16 racing requests at one instant ran the worker %d times, want 1", n)
	}
	// Then new evidence each, at distinct minutes: the hour allows 5 more
	// at most, each at least 2 minutes after the last.
	for round := 0; round < 3; round++ {
		failLoopTask(t, env, round)
		race(func(i int) string {
			return time.Date(2026, 11, 30, 12, 3+round*20+i, 0, 0, time.UTC).Format(time.RFC3339)
		})
	}
	b, err := os.ReadFile(filepath.Join(env["CULLY_HOME"], "advisor", "budget.json"))
	if err != nil {
		t.Fatal(err)
	}
	var bd ledger.Budget
	if err := json.Unmarshal(b, &bd); err != nil {
		t.Fatal(err)
	}
	acc := bd.Sessions["s1"].Accepted
	if len(acc) > ledger.MaxPerHour {
		t.Fatalf("%d accepted in the hour: %v", len(acc), acc)
	}
	for i := 1; i < len(acc); i++ {
		if acc[i]-acc[i-1] < int64(ledger.Spacing/time.Second) {
			t.Fatalf("accepted %ds apart: %v", acc[i]-acc[i-1], acc)
		}
	}
	calls, _ = os.ReadFile(filepath.Join(env["WORK"], "calls.log"))
	if n := strings.Count(string(calls), "\n"); n != len(acc) || n < 2 {
		t.Fatalf("worker ran %d times for %d accepted", n, len(acc))
	}
}

func failLoopTask(t *testing.T, env map[string]string, round int) {
	t.Helper()
	for i, ev := range []string{"UserPromptSubmit", "PostToolUseFailure", "PostToolUseFailure", "PostToolUseFailure"} {
		p := fmt.Sprintf(`{"session_id":"s1","hook_event_name":%q,"cwd":"/w","prompt":"next","tool_name":"Bash","tool_input":{"command":"make r%d"},"tool_use_id":"r%d-%d","error":"Exit code 1\nboom"}`, ev, round, round, i)
		runBin(t, "cully", env, []byte(p), "hook")
	}
}

// A worker that outlives its deadline is killed with the children it
// started, and the run is recorded as a timeout.
func TestAdvisorWorkerKilledAtDeadline(t *testing.T) {
	t.Parallel()
	env := advisorEnv(t, "#!/bin/sh\nsleep 300 &\necho $! > \"$WORK/child.pid\"\nsleep 300\n", "deadline_seconds = 1\n")
	env["CULLY_ADVISOR_WORKER"] = "1"
	failLoop(t, env, "cully")
	start := time.Now()
	r := cully(t, env, nil, "advise", "--session", "s1", "--yes") // the session works in /w, not here
	if r.code != 0 || !strings.Contains(r.stdout, "advisor timeout") || time.Since(start) > 30*time.Second {
		t.Fatalf("advise: %+v after %v", r, time.Since(start))
	}
	b, err := os.ReadFile(filepath.Join(env["WORK"], "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	// Killed with its group: gone, or a zombie waiting for init to reap it.
	if err := syscall.Kill(pid, 0); err == nil {
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if f := strings.Fields(string(stat)); len(f) < 3 || f[2] != "Z" {
			t.Fatalf("the worker's child %d outlived the deadline (%s)", pid, stat)
		}
	}
	es := ledgerEntries(t, env["CULLY_HOME"])
	if len(es) != 1 || es[0].Kind != "spent" || es[0].Outcome != "timeout" || es[0].Mode != "explicit" {
		t.Fatalf("ledger %+v", es)
	}
	var found bool
	for _, ev := range journal(t, env["CULLY_HOME"]) {
		found = found || ev.Kind == "advice" && ev.Note == "timeout" && ev.Source == "explicit"
	}
	if !found {
		t.Fatal("no advice event recording the timeout")
	}
}

// The lean hook starts the automatic request in the background when a
// checkpoint opens, and returns without waiting for it; the advice then
// reaches the agent in a later nudge.
func TestHookStartsTheAdvisorDetached(t *testing.T) {
	t.Parallel()
	env := advisorEnv(t, "#!/bin/sh\ncat > \"$WORK/prompt.txt\"\necho \"$CULLY_NOW\" >> \"$WORK/calls.log\"\necho 'read the make error first'\n", "")
	failLoop(t, env, "cully-hook")
	// Wait for the detached process to record its result: a condition
	// with a generous deadline, not a sleep.
	deadline := time.Now().Add(30 * time.Second)
	for {
		es := ledgerEntries(t, env["CULLY_HOME"])
		if len(es) > 0 {
			if es[0].Kind != "spent" || es[0].Mode != "auto" || es[0].Outcome != "ok" {
				t.Fatalf("ledger %+v", es)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the hook started no advisor (no ledger entry in 30s)")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var advised bool
	for !advised {
		for _, ev := range journal(t, env["CULLY_HOME"]) {
			advised = advised || ev.Kind == "advice" && ev.Advice != ""
		}
		if time.Now().After(deadline) {
			t.Fatal("no advice event")
		}
		time.Sleep(20 * time.Millisecond)
	}
	prompt, _ := os.ReadFile(filepath.Join(env["WORK"], "prompt.txt"))
	if !strings.Contains(string(prompt), "checkpoint failure-loop: `make all` failed 3 times") || strings.Contains(string(prompt), "boom") {
		t.Fatalf("prompt:\n%s", prompt)
	}
	pre := `{"session_id":"s1","hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Read","tool_input":{"file_path":"/w/x"},"tool_use_id":"r1"}`
	if r := runBin(t, "cully-hook", env, []byte(pre)); !strings.Contains(r.stdout, "read the make error first") {
		t.Fatalf("the next nudge lacks the advice: %+v", r)
	}
}

// With every worker slot taken, a request waits in the bounded queue and
// runs when a slot frees; with the queue full too, it is skipped as busy
// at once. (The slots and tickets are held here as the running workers'
// and queued requests' processes would hold them.)
func TestAdvisorQueue(t *testing.T) {
	t.Parallel()
	env := advisorEnv(t, "#!/bin/sh\ncat >/dev/null\necho queued advice\n", "deadline_seconds = 30\n")
	env["CULLY_ADVISOR_WORKER"] = "1"
	failLoop(t, env, "cully")
	files := ledger.Files{Home: store.Home{Dir: env["CULLY_HOME"]}}
	if err := files.Ensure(); err != nil {
		t.Fatal(err)
	}
	hold := func(path string) *store.Lock {
		l, err := store.Acquire(path, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	var slots []*store.Lock
	for i := 0; i < advisor.MaxWorkers; i++ {
		slots = append(slots, hold(files.SlotLock(i)))
	}
	var tickets []*store.Lock
	for i := 0; i < advisor.MaxQueued; i++ {
		tickets = append(tickets, hold(files.QueueLock(i)))
	}
	start := time.Now()
	if r := cully(t, env, nil, "advise", "--session", "s1", "--yes"); r.code != 0 || !strings.Contains(r.stdout, "advisor skipped: busy") {
		t.Fatalf("queue full: %+v", r)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a full queue kept the request %v: it should give up at once", d)
	}
	for _, l := range tickets {
		l.Unlock()
	}
	const busyFor = 700 * time.Millisecond
	go func() {
		time.Sleep(busyFor)
		slots[0].Unlock()
	}()
	start = time.Now()
	r := cully(t, env, nil, "advise", "--session", "s1", "--yes")
	if r.code != 0 || !strings.Contains(r.stdout, "advice: queued advice") {
		t.Fatalf("queued request: %+v", r)
	}
	if d := time.Since(start); d < busyFor {
		t.Errorf("the request ran after %v, before the slot was freed (%v)", d, busyFor)
	}
	slots[1].Unlock()
}
