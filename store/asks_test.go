package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func testHome(t *testing.T) Home {
	t.Helper()
	h := Home{Dir: filepath.Join(t.TempDir(), "state")}
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	return h
}

// Any bytes round-trip, a hostile session id's NUL and newlines included.
func TestAskRoundTrip(t *testing.T) {
	for _, a := range []SnapshotAsk{
		{Session: "s1", Run: "r1", Task: 2, Reason: "calls", Calls: 10, Dir: "/home/dev/project", At: time.Date(2026, 11, 30, 12, 0, 1, 5, time.UTC)},
		{Session: "a\x00b\nc:3:", Run: "", Task: 0, Reason: "", Calls: 0, Dir: "/tmp/x\ny:\n12:z"},
		{Session: strings.Repeat("é", 1000), Run: "r", Task: -1, Reason: "baseline", Calls: 1 << 30, Dir: strings.Repeat("/d", 5000)},
	} {
		got, err := decodeAsk(encodeAsk(a))
		if err != nil || got != a {
			t.Errorf("round trip of %q:\n got %+v, %v", a.Session, got, err)
		}
	}
}

// A file its writer has not finished never decodes as an ask: every cut
// of one is partial, and Claim waits for the rest.
func TestAskCutShortIsPartial(t *testing.T) {
	b := encodeAsk(SnapshotAsk{Session: "s1", Run: "r1", Task: 1, Reason: "time", Calls: 7, Dir: "/p", At: time.Unix(1, 2)})
	for n := 0; n < len(b); n++ {
		if _, err := decodeAsk(b[:n]); !errors.Is(err, errPartialAsk) {
			t.Fatalf("the first %d bytes %q: %v, want a partial ask", n, b[:n], err)
		}
	}
	for _, bad := range []string{"hello\n", askMagic + "x:s\n", askMagic + "2:abc\n", string(b) + "more"} {
		if _, err := decodeAsk([]byte(bad)); err == nil || errors.Is(err, errPartialAsk) {
			t.Errorf("%q: %v, want it refused", bad, err)
		}
	}
}

// The probe sees a server (any process holding the lock) and nothing
// else; one rename decides between a server's claim and a hook's
// withdrawal.
func TestAskProbeClaimWithdraw(t *testing.T) {
	h := testHome(t)
	a := SnapshotAsk{Session: "s1", Run: "r1", Reason: "calls", Calls: 10, Dir: "/p"}
	name, err := h.Ask(a)
	if err != nil {
		t.Fatal(err)
	}
	if live, err := h.Served(); err != nil || live {
		t.Fatalf("no server yet: served %v, %v", live, err)
	}
	lk, err := h.ServeLock(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if live, err := h.Served(); err != nil || !live {
		t.Fatalf("a server holds the lock: served %v, %v", live, err)
	}
	if ns, err := h.Asks(); err != nil || len(ns) != 1 || ns[0] != name {
		t.Fatalf("queue: %v %v", ns, err)
	}
	got, err := h.Claim(name)
	if err != nil || got != a {
		t.Fatalf("claim: %+v %v", got, err)
	}
	if ok, err := h.Withdraw(name); ok || err != nil {
		t.Fatalf("withdrawing a claimed ask: %v %v", ok, err)
	}
	if ns, _ := h.Asks(); len(ns) != 0 {
		t.Fatalf("a claimed ask is still queued: %v", ns)
	}
	if err := h.Done(name); err != nil {
		t.Fatal(err)
	}
	lk.Unlock()
	if live, _ := h.Served(); live {
		t.Fatal("served after the server let go")
	}

	name, _ = h.Ask(a)
	if ok, err := h.Withdraw(name); !ok || err != nil {
		t.Fatalf("withdraw: %v %v", ok, err)
	}
	if _, err := h.Claim(name); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("claiming a withdrawn ask: %v", err)
	}
}

// A server that died with an ask claimed leaves it to the next one.
func TestAskReclaim(t *testing.T) {
	h := testHome(t)
	name, _ := h.Ask(SnapshotAsk{Session: "s1", Run: "r1", Dir: "/p"})
	if _, err := h.Claim(name); err != nil {
		t.Fatal(err)
	}
	if err := h.Reclaim(); err != nil {
		t.Fatal(err)
	}
	if ns, _ := h.Asks(); len(ns) != 1 || ns[0] != name {
		t.Fatalf("after reclaim: %v", ns)
	}
}

// An ask whose writer died before writing it is dropped with an error
// after a moment, not taken and not left to block the queue.
func TestAskLeftEmpty(t *testing.T) {
	h := testHome(t)
	if err := h.asksReady(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(h.AsksDir(), "1-2-0.ask")
	if err := os.WriteFile(p, []byte(askMagic+"2:s"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Claim("1-2-0.ask"); err == nil || !strings.Contains(err.Error(), "not whole") {
		t.Fatalf("claim of a torn ask: %v", err)
	}
	if es, _ := os.ReadDir(h.AsksDir()); len(es) != 0 {
		t.Fatalf("left behind: %v", es)
	}
}

// The queue is held to the state dir's trust checks: a planted link is
// refused, nothing is written through it.
func TestAskRefusesALinkedQueue(t *testing.T) {
	h := testHome(t)
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, h.AsksDir()); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Ask(SnapshotAsk{Session: "s1"}); !errors.Is(err, ErrUnsafe) {
		t.Fatalf("ask into a linked queue: %v", err)
	}
	if es, _ := os.ReadDir(elsewhere); len(es) != 0 {
		t.Fatalf("written through the link: %v", es)
	}
}

// BenchmarkAsk is the hook's part of a snapshot when a server is running:
// the ask written and the lock probed (and, here, the ask taken back, so
// the queue stays empty).
func BenchmarkAsk(b *testing.B) {
	h := Home{Dir: filepath.Join(b.TempDir(), "state")}
	if err := h.Ensure(); err != nil {
		b.Fatal(err)
	}
	lk, err := h.ServeLock(time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer lk.Unlock()
	a := SnapshotAsk{Session: "0e9b095a-15ce-4954-9bab-4ee72ac1d24e", Run: "99ff97e5-22ec-8297-84a2-81deba2a2647", Task: 3, Reason: "calls", Calls: 40, Dir: "/home/dev/project", At: time.Now()}
	for b.Loop() {
		name, err := h.Ask(a)
		if err != nil {
			b.Fatal(err)
		}
		if live, err := h.Served(); err != nil || !live {
			b.Fatal("no server", err)
		}
		h.Withdraw(name)
	}
}
