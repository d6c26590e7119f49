//go:build unix

package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"cully/engine"
	"cully/store"
)

// Hooks SIGKILLed at random moments, while others run, while `cully status
// --rebuild` runs (and is killed too), and while state files are damaged
// under them so that recovery runs (and is killed too): once one more hook
// call per session has run, every session's state is exactly the replay of
// the journal, as encoding/json sees both. The rebuilds and the damage
// stop halfway (each heals a drifted state: a rebuild, or the replay a
// damaged state gets), so that what the later kills leave behind is
// repaired by the hooks themselves or not at all.
func TestKilledHooksNeverLeaveStateBehindTheJournal(t *testing.T) {
	t.Parallel()
	// 6 × 20 calls by default, 6 × 120 with CULLY_LONG_TESTS=1 (CI).
	workers, calls := 6, 20
	if longTests() {
		calls = 120
	}
	env := testEnv(t)
	env["CLAUDE_PROJECT_DIR"] = env["PWD"] // no project config: the replay below uses the defaults
	home := store.Home{Dir: env["CULLY_HOME"]}
	files, _ := filepath.Glob(filepath.Join(fixtures, "capture-sequence", "*.json"))
	if len(files) == 0 {
		t.Fatal("no captured payloads")
	}
	sessions := []string{"kill-a", "kill-b", "kill-c", "kill-d"}
	payload := func(rng *rand.Rand, session string) []byte {
		raw, _ := os.ReadFile(files[rng.IntN(len(files))])
		return bytes.ReplaceAll(raw, []byte(capturedSession), []byte(session))
	}
	hookEnv := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + env["HOME"]}
	for k, v := range env {
		hookEnv = append(hookEnv, k+"="+v)
	}
	// run starts a binary and, when killAfter is set, SIGKILLs it then. It
	// reports whether the kill ended the process.
	run := func(stdin []byte, killAfter time.Duration, name string, args ...string) bool {
		cmd := exec.Command(name, args...)
		cmd.Env, cmd.Dir, cmd.Stdin = hookEnv, env["PWD"], bytes.NewReader(stdin)
		if err := cmd.Start(); err != nil {
			t.Error(err)
			return false
		}
		if killAfter > 0 {
			timer := time.AfterFunc(killAfter, func() { _ = cmd.Process.Kill() })
			defer timer.Stop()
		}
		err := cmd.Wait()
		if killAfter == 0 && err != nil {
			t.Errorf("%s %v: %v", name, args, err)
		}
		return err != nil
	}
	// How long a hook call takes right now (the median of the last calls
	// that were not killed, under the same load), and a rebuild, so kills
	// land inside them rather than before or after.
	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	var mu sync.Mutex
	recent := []time.Duration{}
	timed := func(fn func()) {
		start := time.Now()
		fn()
		mu.Lock()
		recent = append(recent, time.Since(start))
		if len(recent) > 32 {
			recent = recent[1:]
		}
		mu.Unlock()
	}
	hookTime := func() time.Duration {
		mu.Lock()
		defer mu.Unlock()
		s := append([]time.Duration(nil), recent...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		return s[len(s)/2]
	}
	for range 5 {
		timed(func() { run(payload(rng, sessions[0]), 0, "cully-hook") })
	}
	start := time.Now()
	run(nil, 0, "cully", "status", "--rebuild")
	rebuildTime := time.Since(start)
	stop := make(chan struct{})
	var half sync.WaitGroup
	half.Add(workers)

	var killed, landed, rebuilds, damaged atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
			for i := range calls {
				if i == calls/2 {
					half.Done()
				}
				p := payload(rng, sessions[rng.IntN(len(sessions))])
				if rng.IntN(2) == 0 {
					timed(func() { run(p, 0, "cully-hook") })
					continue
				}
				// The store's work is at the end of a call: aim there.
				d := hookTime()
				killed.Add(1)
				if run(p, d*2/5+time.Duration(rng.Int64N(int64(d*3/5))), "cully-hook") {
					landed.Add(1)
				}
			}
		}()
	}
	go func() { half.Wait(); close(stop) }()
	var side sync.WaitGroup
	side.Add(3)
	var reads, torn atomic.Int64
	var tornErr atomic.Value
	end := make(chan struct{})
	go func() { // once the damage stops, every state read at any moment (under the readers' shared lock) is whole
		defer side.Done()
		<-stop
		for {
			select {
			case <-end:
				return
			default:
			}
			time.Sleep(100 * time.Microsecond) // leave the hooks the CPU
			_, err := home.ReadState(sessions[rand.IntN(len(sessions))], nil)
			reads.Add(1)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				torn.Add(1)
				tornErr.Store(err)
			}
		}
	}()
	go func() { // rebuilds, a third of them killed
		defer side.Done()
		rng := rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))
		for {
			select {
			case <-stop:
				return
			default:
			}
			var after time.Duration
			if rng.IntN(3) == 0 {
				after = time.Duration(rng.Int64N(int64(rebuildTime)) + 1)
			}
			run(nil, after, "cully", "status", "--rebuild")
			rebuilds.Add(1)
		}
	}()
	go func() { // damage a state now and then: readers fall back to the state before it, the next call recovers it
		defer side.Done()
		rng := rand.New(rand.NewPCG(8, uint64(time.Now().UnixNano())))
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Duration(2+rng.IntN(10)) * time.Millisecond):
			}
			if damageNewest(home.StatePath(sessions[rng.IntN(len(sessions))])) {
				damaged.Add(1)
			}
		}
	}()
	wg.Wait()
	close(end)
	side.Wait()
	if n := torn.Load(); n > 0 {
		t.Errorf("%d of %d reads found a state half-written: %v", n, reads.Load(), tornErr.Load())
	}

	cfg := engine.DefaultConfig()
	replay := func() (map[string]*engine.State, store.ReadStats) {
		want := map[string]*engine.State{}
		st, err := home.ReadAll(func(ev *engine.Event) error {
			if want[ev.Session] == nil {
				want[ev.Session] = engine.NewState(ev.Session)
			}
			engine.Apply(want[ev.Session], ev, &cfg)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return want, st
	}
	marked, behind := 0, 0
	want, _ := replay()
	for _, s := range sessions {
		if home.InFlight(s) {
			marked++
		}
		if got, err := home.ReadState(s, nil); err != nil || want[s] != nil && got.Events != want[s].Events {
			behind++
		}
	}
	t.Logf("%d hook calls, %d SIGKILLs aimed (%d ended a process), %d rebuilds (a third killed), %d states damaged; before the last calls, %d of %d sessions were marked mid-record and %d behind the journal",
		workers*calls, killed.Load(), landed.Load(), rebuilds.Load(), damaged.Load(), marked, len(sessions), behind)

	// One more call per session, not killed.
	for _, s := range sessions {
		run(payload(rng, s), 0, "cully-hook")
	}
	want, st := replay()
	t.Logf("journal: %d records, %d corrupt (writes cut by a kill), %d torn", st.Lines, st.Corrupt, st.Torn)
	for _, s := range sessions {
		got, err := home.ReadState(s, nil)
		if err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want[s])
		if !bytes.Equal(gj, wj) {
			t.Errorf("%s: the state (%d events) is not the journal's replay (%d events):\n got %s\nwant %s", s, got.Events, want[s].Events, gj, wj)
		}
		if home.InFlight(s) {
			t.Errorf("%s: still marked mid-record after a whole call", s)
		}
	}
	if t.Failed() {
		b, _ := os.ReadFile(home.ErrorsLog())
		fmt.Fprintf(os.Stderr, "errors.log:\n%s\n", b)
	}
}

// A hook killed at random moments while it rebuilds a damaged state from
// the journal never leaves the session without a state, nor behind: the
// next call's state is the journal's replay. The journal holds enough of
// another session's records that the rebuild takes a while to kill.
func TestKilledRecoveryNeverLosesTheSession(t *testing.T) {
	t.Parallel()
	rounds := 12
	if testing.Short() {
		rounds = 4
	}
	env := testEnv(t)
	env["CLAUDE_PROJECT_DIR"] = env["PWD"]
	home := store.Home{Dir: env["CULLY_HOME"]}
	var filler [][]byte
	for i := range 20000 {
		filler = append(filler, store.AppendEvent(nil, &engine.Event{V: 1, Time: time.Unix(1_700_000_000+int64(i), 0).UTC(), Agent: "claude",
			Session: "filler", Kind: engine.KindPostTool, Tool: "Read", Class: engine.ClassRead, Target: fmt.Sprintf("f%d.go", i), Outcome: engine.OutcomeOK}))
	}
	if err := home.Append(filler...); err != nil {
		t.Fatal(err)
	}
	raw := bytes.ReplaceAll(fixture(t, "005-PreToolUse-Read.json"), []byte(capturedSession), []byte("victim"))
	hookEnv := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + env["HOME"]}
	for k, v := range env {
		hookEnv = append(hookEnv, k+"="+v)
	}
	hook := func(killAfter time.Duration) (time.Duration, bool) {
		cmd := exec.Command("cully-hook")
		cmd.Env, cmd.Dir, cmd.Stdin = hookEnv, env["PWD"], bytes.NewReader(raw)
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if killAfter > 0 {
			timer := time.AfterFunc(killAfter, func() { _ = cmd.Process.Kill() })
			defer timer.Stop()
		}
		err := cmd.Wait()
		return time.Since(start), err != nil
	}
	damage := func() {
		if err := os.WriteFile(home.StatePath("victim"), []byte(fmt.Sprintf(`{"v":%d,"session":"victim","started":"`, engine.StateVersion)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	hook(0)
	var took time.Duration // a whole recovery, to aim at: the quickest of three
	for i := range 3 {
		damage()
		if d, _ := hook(0); i == 0 || d < took {
			took = d
		}
	}
	rng := rand.New(rand.NewPCG(3, uint64(time.Now().UnixNano())))
	cfg := engine.DefaultConfig()
	landed := 0
	for range rounds {
		damage()
		if _, killed := hook(took/5 + time.Duration(rng.Int64N(int64(took*4/5)))); killed {
			landed++
		}
		if _, err := os.Lstat(home.StatePath("victim")); err != nil {
			t.Fatalf("a killed recovery left the session without a state: %v", err)
		}
		hook(0)
		// Every victim record is in the state: count them cheaply here,
		// compare whole states at the end.
		b, _ := os.ReadFile(home.Journal())
		records := bytes.Count(b, []byte(`"session":"victim"`))
		got, err := home.ReadState("victim", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.Events != records {
			t.Fatalf("after a killed recovery, the state holds %d events of the journal's %d", got.Events, records)
		}
	}
	want := engine.NewState("victim")
	b, _ := os.ReadFile(home.Journal())
	for _, line := range bytes.Split(b, []byte("\n")) {
		var ev engine.Event
		if bytes.Contains(line, []byte(`"session":"victim"`)) && json.Unmarshal(line, &ev) == nil {
			engine.Apply(want, &ev, &cfg)
		}
	}
	got, err := home.ReadState("victim", nil)
	if err != nil {
		t.Fatal(err)
	}
	if gj, wj := mustJSON(got), mustJSON(want); !bytes.Equal(gj, wj) {
		t.Errorf("the state is not the journal's replay:\n got %s\nwant %s", gj, wj)
	}
	t.Logf("%d recoveries of %v each, %d of them ended by SIGKILL", rounds, took.Round(time.Millisecond), landed)
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// damageNewest overwrites the middle of a state file's newest body, under
// the file's lock as a writer holds it (the layout of store/statefile.go:
// header slots at 16 and 64, each sequence, offset and length, little
// endian). It reports whether it damaged anything.
func damageNewest(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX) != nil {
		return false
	}
	var head [128]byte
	if n, _ := f.ReadAt(head[:], 0); n < len(head) {
		return false
	}
	var seq, off, n uint64
	for _, at := range []int{16, 64} {
		if s := binary.LittleEndian.Uint64(head[at:]); s > seq {
			seq, off, n = s, binary.LittleEndian.Uint64(head[at+8:]), binary.LittleEndian.Uint64(head[at+16:])
		}
	}
	if n < 8 {
		return false
	}
	_, err = f.WriteAt([]byte("\x00garbage"), int64(off+n/2))
	return err == nil
}

// A state file whose newest body is damaged after its hook returned is
// read by `cully status` as the body before it, caught up from the journal:
// the last call shows at once, not only after the session's next call has
// repaired the file (that older body lacks it).
func TestStatusCatchesUpADamagedState(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	env["CLAUDE_PROJECT_DIR"] = env["PWD"]
	for i := 0; i < 3; i++ {
		call := fmt.Sprintf(`"session_id":"s1","cwd":%q,"tool_name":"Read","tool_input":{"file_path":%q},"tool_use_id":"r%d"`,
			env["PWD"], filepath.Join(env["PWD"], fmt.Sprintf("f%d.go", i)), i)
		for _, p := range []string{`{` + call + `,"hook_event_name":"PreToolUse"}`, `{` + call + `,"hook_event_name":"PostToolUse","tool_response":{}}`} {
			if r := runBin(t, "cully-hook", env, []byte(p)); r.code != 0 || r.stderr != "" {
				t.Fatalf("cully-hook: %+v", r)
			}
		}
	}
	home := store.Home{Dir: env["CULLY_HOME"]}
	if !damageNewest(home.StatePath("s1")) {
		t.Fatal("no state body to damage")
	}
	r := cully(t, env, nil, "status", "--session", "s1")
	if r.code != 0 || !strings.Contains(r.stdout, "calls    3: read 3") {
		t.Errorf("status after the newest body was damaged:\n%s%s", r.stdout, r.stderr)
	}
}
