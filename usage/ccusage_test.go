package usage_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"cully/hookbridge"
	"cully/hookbridge/claude"
	"cully/hookbridge/codex"
	"cully/hookbridge/gemini"
	"cully/usage"
)

// The fixtures in testdata are synthetic sessions shaped as each host
// writes them (a Claude Code transcript with a subagent's, streamed
// content blocks, a resumed message written again and a 1-hour cache
// write; a Codex rollout whose model changes between turns, whose totals
// are written twice and which carries rate limits; a Gemini CLI log whose
// replies are rewritten, with cached input and thoughts). The expected
// figures are ccusage's, 20.0.24 from npm, on the same files
// (bench/ccusage.sh installs that version):
//
//	CLAUDE_CONFIG_DIR=usage/testdata/claude ccusage session --json --offline
//	CODEX_HOME=usage/testdata/codex ccusage codex session --json --offline
//	HOME=usage/testdata/gemini ccusage gemini session --json --offline
//
// (the totals; the Gemini output figure is ccusage's outputTokens plus the
// thoughts it prices as output but does not count there: 338 + 716).
var ccusage = []struct {
	agent                      hookbridge.UsageReader
	session, env, dir          string
	input, output, write, read int64
	cost                       float64
}{
	{claude.Agent{}, "7d3f6c1e-2b4a-4c8e-9f10-3a5b6c7d8e9f", "CLAUDE_CONFIG_DIR", "claude", 1240, 1363, 20902, 136820, 0.1473035},
	{codex.Agent{}, "019ad2f4-8c1e-7b20-a3d4-5e6f7a8b9c0d", "CODEX_HOME", "codex", 15812, 2372, 0, 57728, 0.14608510000000002},
	{gemini.Agent{}, "c41e9a07-3b5d-4f2a-8e61-0d9b7c5a3f12", "HOME", "gemini", 15558, 338 + 716, 0, 27648, 0.0411288},
}

func TestAgreesWithCcusage(t *testing.T) {
	for _, tc := range ccusage {
		t.Run(tc.agent.Name(), func(t *testing.T) {
			dir, _ := filepath.Abs(filepath.Join("testdata", tc.dir))
			getenv := func(k string) string {
				if k == tc.env {
					return dir
				}
				return ""
			}
			files := tc.agent.UsageFiles(tc.session, "", getenv)
			if len(files) == 0 {
				t.Fatalf("no record found for %s under %s", tc.session, dir)
			}
			var c usage.Cache
			if !hookbridge.ReadUsage(tc.agent, &c, files) {
				t.Fatal("nothing read")
			}
			f := usage.Merge(nil, &c)
			got := [4]int64{*f.Input, *f.Output, *f.CacheWrite, *f.CacheRead}
			if want := [4]int64{tc.input, tc.output, tc.write, tc.read}; got != want {
				t.Errorf("tokens (input, output, cache writes, cache reads) %v, ccusage %v", got, want)
			}
			if f.CostUSD == nil || !f.Estimated {
				t.Fatalf("no estimate: %+v", f)
			}
			t.Logf("cost $%.7f, ccusage $%.7f", *f.CostUSD, tc.cost)
			if d := math.Abs(*f.CostUSD-tc.cost) / tc.cost; d > 0.01 {
				t.Errorf("cost $%.6f, ccusage $%.6f: %.2f%% apart", *f.CostUSD, tc.cost, 100*d)
			}
			if hookbridge.ReadUsage(tc.agent, &c, files) {
				t.Error("a second read with nothing new changed the cache")
			}
		})
	}
}

// Read in parts, as the panel reads a record that is being written (a
// cut anywhere, mid-line included), the figures are those of one read.
func TestReadInParts(t *testing.T) {
	for _, tc := range ccusage {
		t.Run(tc.agent.Name(), func(t *testing.T) {
			dir, _ := filepath.Abs(filepath.Join("testdata", tc.dir))
			getenv := func(k string) string {
				if k == tc.env {
					return dir
				}
				return ""
			}
			src := tc.agent.UsageFiles(tc.session, "", getenv)
			var whole usage.Cache
			hookbridge.ReadUsage(tc.agent, &whole, src)
			want := usage.Merge(nil, &whole)
			data := make([][]byte, len(src))
			tmp := t.TempDir()
			dst := make([]string, len(src))
			for i, p := range src {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				data[i] = b
				dst[i] = filepath.Join(tmp, filepath.Base(p))
				if err := os.WriteFile(dst[i], nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var c usage.Cache
			for _, cut := range []int{1, 3, 5, 7, 8} { // eighths of each file
				for i := range dst {
					if err := os.WriteFile(dst[i], data[i][:len(data[i])*cut/8], 0o600); err != nil {
						t.Fatal(err)
					}
				}
				hookbridge.ReadUsage(tc.agent, &c, dst)
			}
			got := usage.Merge(nil, &c)
			if *got.Input != *want.Input || *got.Output != *want.Output || *got.CacheRead != *want.CacheRead || *got.CacheWrite != *want.CacheWrite || *got.CostUSD != *want.CostUSD {
				t.Errorf("in parts %+v, whole %+v", got, want)
			}
			if *got.Context != *want.Context || got.Model != want.Model {
				t.Errorf("context %d %s, whole %d %s", *got.Context, got.Model, *want.Context, want.Model)
			}
		})
	}
}
