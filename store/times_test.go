package store

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cully/engine"
)

// Record reads the clock under the session lock: parallel calls of one
// session are recorded in time order, never as the clock going backwards.
func TestRecordTimeTakenUnderTheLock(t *testing.T) {
	cfg := engine.DefaultConfig()
	var tick atomic.Int64
	h := Home{Dir: t.TempDir(), Now: func() time.Time {
		return time.Unix(1_700_000_000, tick.Add(1)*1000)
	}}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 30; i++ {
				// The caller's time is stale by the time the lock is had.
				ev := testEvent("s", 0)
				ev.Time = time.Unix(1_700_000_000, tick.Add(1)*1000)
				time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
				if _, err := h.Record(ev, &cfg); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	st, err := h.ReadState("s", nil)
	if err != nil || st.Events != 240 || st.ClockSkews != 0 {
		t.Fatalf("events %d, clock skews %d, %v", st.Events, st.ClockSkews, err)
	}
}

// Whatever the file system or the clock says, every record the writer
// writes, every reader reads back; a time that would not round-trip is
// dropped (an mtime) or clamped (the event's time), and the record says so.
func TestOutOfRangeTimesRoundTrip(t *testing.T) {
	cfg := engine.DefaultConfig()
	h := Home{Dir: t.TempDir(), LockWait: testLockWait}
	cases := []struct {
		name  string
		mtime time.Time
		keep  bool
	}{
		{"year 10000", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{"year 2300", time.Date(2300, 6, 1, 0, 0, 0, 0, time.UTC), false},
		{"year 2446", time.Date(2446, 6, 1, 0, 0, 0, 0, time.UTC), false},
		{"year -1", time.Date(-1, 6, 1, 0, 0, 0, 0, time.UTC), false},
		{"1960", time.Date(1960, 6, 1, 0, 0, 0, 0, time.UTC), false},
		{"2026", time.Date(2026, 6, 1, 0, 0, 0, 0, time.FixedZone("x", 3600)), true},
	}
	for i, c := range cases {
		ev := testEvent("s", i)
		size := int64(10)
		ev.Size, ev.Mtime, ev.Note = &size, &c.mtime, "timeout"
		if _, err := h.Record(ev, &cfg); err != nil {
			t.Fatal(err)
		}
	}
	for _, clock := range []time.Time{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC)} {
		hc := h
		hc.Now = func() time.Time { return clock }
		if _, err := hc.Record(testEvent("s", 99), &cfg); err != nil {
			t.Fatal(err)
		}
	}
	var evs []*engine.Event
	st, err := h.ReadAll(func(ev *engine.Event) error { evs = append(evs, ev); return nil })
	if err != nil || st.Corrupt != 0 || len(evs) != len(cases)+2 {
		t.Fatalf("every record reads back: %+v, %d records, %v", st, len(evs), err)
	}
	for i, c := range cases {
		ev := evs[i]
		switch {
		case c.keep && (ev.Mtime == nil || !ev.Mtime.Equal(c.mtime) || ev.Note != "timeout"):
			t.Errorf("%s: a good mtime is kept: %v %q", c.name, ev.Mtime, ev.Note)
		case !c.keep && (ev.Mtime != nil || ev.Note != "timeout,"+noteMtime):
			t.Errorf("%s: mtime %v note %q", c.name, ev.Mtime, ev.Note)
		}
	}
	if a, b := evs[len(cases)], evs[len(cases)+1]; !a.Time.Equal(maxTime) || !b.Time.Equal(minTime) || a.Note != noteClock || b.Note != noteClock {
		t.Errorf("clocks out of range are clamped and noted: %v %q, %v %q", a.Time, a.Note, b.Time, b.Note)
	}
	if _, err := h.ReadState("s", nil); err != nil {
		t.Errorf("the state reads back too: %v", err)
	}
	assertNoDrift(t, h, &cfg)
}
