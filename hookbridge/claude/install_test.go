package claude

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cully/hookbridge"
	"cully/install"
)

const userSettings = `{
  "permissions": {
    "allow": ["Bash(npm run lint)", "Read(~/.zshrc)"],
    "deny": ["Bash(curl:*)"]
  },
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo \"$(date) && x\" >> ~/log"}]}
    ],
    "Stop": []
  },
  "statusLine": {"type": "command", "command": "~/.claude/statusline.sh"},
  "zeta": 1, "alpha": {"nested": [1, 2.50, true, null]}
}
`

func roundTrip(t *testing.T, start string, status string) (installed, after []byte) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	var before []byte
	if start != "" {
		before = []byte(start)
		os.WriteFile(path, before, 0o640)
	}
	p, err := agent.Install(hookbridge.Target{Settings: path}, before, hookbridge.InstallOptions{HookCommand: "/opt/bin/cully-hook", StatusLineCommand: status})
	if err != nil {
		t.Fatal(err)
	}
	bk := install.Backups{Dir: filepath.Join(dir, "backups")}
	if _, _, err := install.Apply(p, bk, "20260101T000000"); err != nil {
		t.Fatal(err)
	}
	installed, _ = os.ReadFile(path)
	// A second install is a no-op.
	p2, err := agent.Install(hookbridge.Target{Settings: path}, installed, hookbridge.InstallOptions{HookCommand: "/opt/bin/cully-hook", StatusLineCommand: status})
	if err != nil || p2.Changed {
		t.Fatalf("second install changed something: %v\n%s", err, install.Diff("s", installed, p2.After))
	}
	u, err := agent.Uninstall(hookbridge.Target{Settings: path}, installed)
	if err != nil {
		t.Fatal(err)
	}
	bk.Restore(u)
	if _, _, err := install.Apply(u, bk, "20260101T000001"); err != nil {
		t.Fatal(err)
	}
	after, _ = os.ReadFile(path)
	if start != "" {
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
			t.Errorf("file mode changed to %v", fi.Mode().Perm())
		}
	}
	return installed, after
}

func TestInstallUninstallRoundTripIsByteExact(t *testing.T) {
	installed, after := roundTrip(t, userSettings, "/opt/bin/cully statusline")
	if string(after) != userSettings {
		t.Fatalf("round trip changed the file:\n%s", install.Diff("settings", []byte(userSettings), after))
	}
	s := string(installed)
	for _, ev := range Events {
		if !strings.Contains(s, `"`+ev+`"`) {
			t.Errorf("no entry for %s", ev)
		}
	}
	for _, keep := range []string{`"Bash(curl:*)"`, `"matcher": "Bash"`, `echo \"$(date) && x\" >> ~/log`, `~/.claude/statusline.sh`, `2.50`} {
		if !strings.Contains(s, keep) {
			t.Errorf("install lost %s", keep)
		}
	}
	if strings.Contains(s, "cully statusline") {
		t.Error("an existing status line must never be replaced")
	}
	if strings.Index(s, `"zeta"`) > strings.Index(s, `"alpha"`) {
		t.Error("key order must be kept")
	}
}

func TestInstallIntoMissingAndEmptyFiles(t *testing.T) {
	for name, start := range map[string]string{"missing": "", "empty object": "{}\n"} {
		t.Run(name, func(t *testing.T) {
			installed, after := roundTrip(t, start, "/opt/bin/cully statusline")
			if !strings.Contains(string(installed), `"command": "/opt/bin/cully statusline"`) {
				t.Error("with no status line, --statusline installs ours")
			}
			if start != "" && string(after) != start {
				t.Errorf("after uninstall:\n%s", after)
			}
			if start == "" && strings.TrimSpace(string(after)) != "{}" {
				t.Errorf("after uninstall of a created file: %s", after)
			}
		})
	}
}

func TestInstallUpdatesAStaleCommand(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	p, _ := agent.Install(hookbridge.Target{Settings: path}, nil, hookbridge.InstallOptions{HookCommand: "/old/cully-hook", StatusLineCommand: ""})
	p2, err := agent.Install(hookbridge.Target{Settings: path}, p.After, hookbridge.InstallOptions{HookCommand: "/new/cully-hook", StatusLineCommand: ""})
	if err != nil || !p2.Changed || strings.Contains(string(p2.After), "/old/") || strings.Count(string(p2.After), "/new/cully-hook") != len(Events) {
		t.Fatalf("stale command not updated once per event: %s", p2.After)
	}
}

func TestUninstallKeepsUserEditsAndForeignHooks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	p, _ := agent.Install(hookbridge.Target{Settings: path}, []byte(userSettings), hookbridge.InstallOptions{HookCommand: "/opt/bin/cully-hook", StatusLineCommand: ""})
	edited := strings.Replace(string(p.After), `"zeta": 1`, `"zeta": 2`, 1)
	u, err := agent.Uninstall(hookbridge.Target{Settings: path}, []byte(edited))
	if err != nil {
		t.Fatal(err)
	}
	out := string(u.After)
	if strings.Contains(out, "cully-hook") || !strings.Contains(out, `"zeta": 2`) || !strings.Contains(out, `"matcher": "Bash"`) {
		t.Fatalf("uninstall result:\n%s", out)
	}
}

func TestRefusesBrokenSettings(t *testing.T) {
	for _, bad := range []string{`{"hooks": `, `[1,2]`, `{"hooks": []}`, `{"hooks": {"PreToolUse": {}}}`} {
		if _, err := agent.Install(hookbridge.Target{Settings: "s.json"}, []byte(bad), hookbridge.InstallOptions{HookCommand: "/x/cully-hook", StatusLineCommand: ""}); err == nil {
			t.Errorf("install into %q should be refused", bad)
		}
	}
}

var agent Agent

func TestTargets(t *testing.T) {
	at := hookbridge.Place{Getenv: func(k string) string { return map[string]string{"HOME": "/home/dev"}[k] }, Project: "/src/app"}
	for scope, want := range map[hookbridge.Scope][3]string{
		hookbridge.ScopeUser:    {"/home/dev/.claude/settings.json", "/home/dev/.claude/skills/cully/SKILL.md", ""},
		hookbridge.ScopeProject: {"/src/app/.claude/settings.local.json", "/src/app/.claude/skills/cully/SKILL.md", "/.claude/settings.local.json"},
		hookbridge.ScopeShared:  {"/src/app/.claude/settings.json", "/src/app/.claude/skills/cully/SKILL.md", ""},
	} {
		tg, err := agent.Target(scope, at)
		if err != nil {
			t.Fatal(err)
		}
		if got := [3]string{tg.Settings, tg.Skill, tg.Ignore}; got != want {
			t.Errorf("%s: %v, want %v", scope, got, want)
		}
	}
	if _, err := agent.Target(hookbridge.ScopeProject, hookbridge.Place{}); err == nil {
		t.Error("a project scope needs a project")
	}
}

// With no backup to fall back on, install then uninstall gives back a
// hand-formatted file byte for byte: each side touches only cully's bytes.
func TestRoundTripWithoutBackups(t *testing.T) {
	src := "{\n    \"permissions\" : {\n        \"allow\" : [ \"Bash(go test ./...)\" ]\n    },\n    \"hooks\" : {\n        \"PreToolUse\" : [\n            { \"matcher\" : \"Bash\", \"hooks\" : [ { \"type\" : \"command\", \"command\" : \"~/audit.sh\" } ] }\n        ]\n    }\n}\n"
	tg := hookbridge.Target{Settings: filepath.Join(t.TempDir(), "settings.json")}
	p, err := agent.Install(tg, []byte(src), hookbridge.InstallOptions{HookCommand: "/opt/bin/cully-hook", StatusLineCommand: "/opt/bin/cully statusline"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(p.After), "{\n    \"permissions\" : {\n        \"allow\" : [ \"Bash(go test ./...)\" ]\n    },\n    \"hooks\" : {\n        \"PreToolUse\" : [\n            { \"matcher\" : \"Bash\", \"hooks\" : [ { \"type\" : \"command\", \"command\" : \"~/audit.sh\" } ] },\n            {\n                \"hooks\" : [\n") {
		t.Fatalf("install changed the user's bytes or layout:\n%s", p.After)
	}
	u, err := agent.Uninstall(tg, p.After)
	if err != nil {
		t.Fatal(err)
	}
	if string(u.After) != src {
		t.Fatalf("uninstall:\n%s", install.Diff("settings", []byte(src), u.After))
	}
}
