package ledger

import (
	"testing"
	"time"
)

func TestDecide(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	b := &Budget{}
	at := func(d time.Duration, hash string, refresh bool) Verdict {
		return Decide(b, "s", t0.Add(d), hash, refresh)
	}
	if v := at(0, "h0", false); !v.Accept || v.Left != 5 {
		t.Fatalf("first: %+v", v)
	}
	if v := at(time.Minute, "h1", false); v.Accept || v.Reason != ReasonSpacing || !v.Until.Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("spacing: %+v", v)
	}
	if v := at(3*time.Minute, "h0", false); v.Reason != ReasonIdentical || !v.Until.Equal(t0.Add(time.Hour)) {
		t.Fatalf("identical: %+v", v)
	}
	for i := 1; i < MaxPerHour; i++ {
		if v := at(time.Duration(i)*2*time.Minute, "h"+string(rune('0'+i)), false); !v.Accept {
			t.Fatalf("request %d: %+v", i, v)
		}
	}
	if v := at(30*time.Minute, "new", false); v.Reason != ReasonHourlyCap || !v.Until.Equal(t0.Add(time.Hour)) || v.Left != 0 {
		t.Fatalf("cap: %+v", v)
	}
	if v := Decide(b, "other", t0.Add(30*time.Minute), "new", false); !v.Accept {
		t.Fatalf("another session has its own budget: %+v", v)
	}
	if v := at(time.Hour, "new", false); !v.Accept {
		t.Fatalf("the first slot frees after the hour: %+v", v)
	}
	if v := at(50*time.Minute, "x", false); v.Reason != ReasonClock {
		t.Fatalf("clock backwards: %+v", v)
	}
	// Unchanged after the hour: only discovery refreshes it.
	if v := at(2*time.Hour+time.Minute, "new", false); v.Reason != ReasonUnchanged {
		t.Fatalf("unchanged without discovery: %+v", v)
	}
	if v := at(2*time.Hour+time.Minute, "new", true); !v.Accept || !v.Refresh {
		t.Fatalf("refresh with discovery: %+v", v)
	}
}

func TestDiscoverCooldown(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	b := &Budget{}
	if v := Discover(b, "s", "claude", t0); !v.Accept {
		t.Fatal(v)
	}
	if v := Discover(b, "s", "claude", t0.Add(59*time.Minute)); v.Reason != ReasonCooldown || !v.Until.Equal(t0.Add(time.Hour)) {
		t.Fatalf("%+v", v)
	}
	if v := Discover(b, "s", "codex", t0.Add(time.Minute)); !v.Accept {
		t.Fatalf("another agent: %+v", v)
	}
	if v := Discover(b, "s", "claude", t0.Add(time.Hour)); !v.Accept {
		t.Fatalf("after the hour: %+v", v)
	}
}
