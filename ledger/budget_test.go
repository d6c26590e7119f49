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

// Tool-gap research is under discovery's rules (one attempt per hour per
// session and agent, counted when it starts) and runs once per gap.
func TestResearch(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name        string
		prior       func(b *Budget)
		key, agent  string
		hash        string
		at          time.Duration
		wantAccept  bool
		wantReason  string
		wantUntil   time.Time
		researchedH string // a hash Researched must report afterwards
	}{
		{name: "a first gap", key: "s", agent: "claude", hash: "g1", wantAccept: true, researchedH: "g1"},
		{name: "the same gap later", prior: func(b *Budget) { Research(b, "s", "claude", "g1", t0) }, key: "s", agent: "claude", hash: "g1", at: 3 * time.Hour, wantReason: ReasonResearched},
		{name: "another gap within the hour", prior: func(b *Budget) { Research(b, "s", "claude", "g1", t0) }, key: "s", agent: "claude", hash: "g2", at: 59 * time.Minute, wantReason: ReasonResearchCooldown, wantUntil: t0.Add(time.Hour)},
		{name: "another gap after the hour", prior: func(b *Budget) { Research(b, "s", "claude", "g1", t0) }, key: "s", agent: "claude", hash: "g2", at: time.Hour, wantAccept: true, researchedH: "g1"},
		{name: "another agent", prior: func(b *Budget) { Research(b, "s", "claude", "g1", t0) }, key: "s", agent: "codex", hash: "g2", at: time.Minute, wantAccept: true},
		{name: "another session", prior: func(b *Budget) { Research(b, "s", "claude", "g1", t0) }, key: "s2", agent: "claude", hash: "g1", at: time.Minute, wantAccept: true},
		{name: "discovery's cooldown is its own", prior: func(b *Budget) { Discover(b, "s", "claude", t0) }, key: "s", agent: "claude", hash: "g1", at: time.Minute, wantAccept: true},
		{name: "clock backwards", prior: func(b *Budget) { Research(b, "s", "claude", "g1", t0.Add(time.Hour)) }, key: "s", agent: "claude", hash: "g2", at: 0, wantReason: ReasonClock, wantUntil: t0.Add(time.Hour)},
	} {
		b := &Budget{}
		if c.prior != nil {
			c.prior(b)
		}
		v := Research(b, c.key, c.agent, c.hash, t0.Add(c.at))
		if v.Accept != c.wantAccept || v.Reason != c.wantReason || !v.Until.Equal(c.wantUntil) {
			t.Errorf("%s: %+v, want accept %v reason %q until %v", c.name, v, c.wantAccept, c.wantReason, c.wantUntil)
		}
		if c.researchedH != "" && !Researched(b, c.key, c.researchedH) {
			t.Errorf("%s: %s not researched", c.name, c.researchedH)
		}
		if c.wantAccept {
			if st := StatusOf(b, c.key, c.agent, t0.Add(c.at)); !st.ResearchCooldown.Equal(t0.Add(c.at).Add(time.Hour)) {
				t.Errorf("%s: status cooldown %v", c.name, st.ResearchCooldown)
			}
		}
	}
	// The gaps remembered are bounded: the oldest goes first.
	b := &Budget{}
	for i := 0; i <= maxResearched; i++ {
		Research(b, "s", "claude", "g"+string(rune('a'+i)), t0.Add(time.Duration(i)*time.Hour))
	}
	if Researched(b, "s", "ga") || !Researched(b, "s", "gb") || len(b.Sessions["s"].Researched) != maxResearched {
		t.Errorf("researched %v", b.Sessions["s"].Researched)
	}
}

func TestSumCountsSearches(t *testing.T) {
	two, five, zero := 2, 5, 0
	got := Sum([]Entry{
		{Kind: "discovery", Tokens: 10, Outcome: "ok", Searches: &two},
		{Kind: "research", Tokens: 20, Outcome: OutcomeTooManySearches, Searches: &five},
		{Kind: "discovery", Tokens: 30, Outcome: OutcomeNoSearches, Searches: &zero},
		{Kind: "discovery", Tokens: 40, Outcome: "timeout"},
		{Kind: "skipped", Tokens: 7},
	})
	want := Totals{Skipped: 1, AvoidedTokens: 7, Spent: 4, SpentTokens: 100, NetTokens: -93, Searches: 7, Refused: 2}
	if got != want {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}
