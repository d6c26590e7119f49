package store

import (
	"os"
	"sync"
	"testing"

	"cully/usage"
)

// Readers of the same session's record at once (the panel and `cully
// status`) each see what the other left: every update counts once.
func TestUpdateUsageConcurrent(t *testing.T) {
	h := testHome(t)
	const n = 20
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := h.UpdateUsage("s1", func(c *usage.Cache) bool {
				c.Tally.AddTokens("m", usage.Tokens{Output: 1})
				return true
			}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	c, err := h.UpdateUsage("s1", func(*usage.Cache) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Tally.Models["m"].Output; got != n {
		t.Errorf("counted %d of %d updates", got, n)
	}
}

// A cache that cannot be decoded starts over (the record is there to read
// again); nothing is written when the reader changed nothing.
func TestUpdateUsageBadCache(t *testing.T) {
	h := testHome(t)
	if err := h.Ensure(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(h.UsageDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.usagePath("s1"), []byte("{torn"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := h.UpdateUsage("s1", func(c *usage.Cache) bool { return false })
	if err != nil || len(c.Files) != 0 || c.Tally.Models != nil {
		t.Fatalf("%+v, %v", c, err)
	}
	if b, _ := os.ReadFile(h.usagePath("s1")); string(b) != "{torn" {
		t.Errorf("rewritten with no change: %q", b)
	}
	if _, err := h.UpdateUsage("s1", func(c *usage.Cache) bool { c.Files = []usage.File{{Path: "x", Off: 9}}; return true }); err != nil {
		t.Fatal(err)
	}
	c, _ = h.UpdateUsage("s1", func(*usage.Cache) bool { return false })
	if len(c.Files) != 1 || c.Files[0].Off != 9 {
		t.Errorf("kept %+v", c)
	}
}
