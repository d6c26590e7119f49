package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cully/hookbridge"
	"cully/install"
)

const userSettings = `{
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "hooks": {
        "BeforeTool": [
            {"matcher": "write_file", "hooks": [{"type": "command", "command": "./lint.sh"}]}
        ]
    }
}
`

func target(t *testing.T, dir string) hookbridge.Target {
	t.Helper()
	tg, err := Agent{}.Target(hookbridge.ScopeUser, hookbridge.Place{Getenv: func(k string) string {
		if k == "HOME" {
			return dir
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// Install adds one cully group per event and keeps the user's bytes;
// again, it changes nothing; with a new command, only the command; and
// uninstall gives back the user's file byte for byte.
func TestInstallRoundTrip(t *testing.T) {
	tg := target(t, t.TempDir())
	a := Agent{}
	p, err := a.Install(tg, []byte(userSettings), hookbridge.InstallOptions{HookCommand: "/opt/cully-hook"})
	if err != nil || !p.Changed {
		t.Fatalf("install: %v %+v", err, p)
	}
	var s struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Name, Type, Command string
				Timeout             int
				Env                 map[string]string
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(p.After, &s); err != nil {
		t.Fatal(err)
	}
	for _, ev := range Events {
		g := s.Hooks[ev]
		last := g[len(g)-1].Hooks
		if len(last) != 1 || last[0].Command != "/opt/cully-hook --agent gemini" || last[0].Name != "cully" || last[0].Type != "command" || last[0].Timeout != HookTimeout || last[0].Env[install.HookEnvName] != install.HookEnvValue {
			t.Errorf("%s: %+v", ev, g)
		}
	}
	if len(s.Hooks["BeforeTool"]) != 2 || s.Hooks["BeforeTool"][0].Hooks[0].Command != "./lint.sh" {
		t.Errorf("the user's own hook changed: %+v", s.Hooks["BeforeTool"])
	}
	if _, ok := s.Hooks["PreCompress"]; ok {
		t.Error("PreCompress is wired: it fires every turn and says nothing")
	}
	if !strings.Contains(string(p.After), `"security": {"auth": {"selectedType": "gemini-api-key"}},`) {
		t.Errorf("the user's layout changed:\n%s", p.After)
	}
	again, err := a.Install(tg, p.After, hookbridge.InstallOptions{HookCommand: "/opt/cully-hook"})
	if err != nil || again.Changed {
		t.Errorf("a second install changed the file: %v", err)
	}
	moved, err := a.Install(tg, p.After, hookbridge.InstallOptions{HookCommand: "/usr/local/bin/cully-hook"})
	if err != nil || !moved.Changed || strings.Count(string(moved.After), "/usr/local/bin/cully-hook --agent gemini") != len(Events) || strings.Contains(string(moved.After), "/opt/cully-hook") {
		t.Errorf("a new command: %v\n%s", err, moved.After)
	}
	un, err := a.Uninstall(tg, moved.After)
	if err != nil || string(un.After) != userSettings {
		t.Errorf("uninstall did not give the file back: %v\n%s", err, un.After)
	}
	fresh, _ := a.Install(tg, nil, hookbridge.InstallOptions{HookCommand: "cully-hook"})
	if un, _ := a.Uninstall(tg, fresh.After); strings.TrimSpace(string(un.After)) != "{}" {
		t.Errorf("uninstall of a file install created leaves %s", un.After)
	}
}

// What install cannot take over it refuses or reports.
func TestInstallRefusesAndNotes(t *testing.T) {
	tg := target(t, t.TempDir())
	a := Agent{}
	for _, bad := range []string{`{"hooks": []}`, `{"hooks": {"AfterTool": {}}}`, `{ // comment
}`, `[1]`} {
		if _, err := a.Install(tg, []byte(bad), hookbridge.InstallOptions{HookCommand: "cully-hook"}); err == nil {
			t.Errorf("installed into %s", bad)
		}
	}
	p, err := a.Install(tg, []byte(`{"hooksConfig": {"enabled": false}}`), hookbridge.InstallOptions{HookCommand: "cully-hook", StatusLineCommand: "cully statusline"})
	if err != nil || !strings.Contains(strings.Join(p.Notes, "\n"), "hooksConfig.enabled is false") || !strings.Contains(strings.Join(p.Notes, "\n"), "no status-line") {
		t.Errorf("notes: %v %q", err, p.Notes)
	}
	if _, err := a.Target(hookbridge.ScopeProject, hookbridge.Place{Getenv: func(string) string { return "/h" }, Project: "/p"}); err == nil || !strings.Contains(err.Error(), "--shared") {
		t.Errorf("--scope project: %v", err)
	}
}

// Targets: the user's ~/.gemini (or $GEMINI_CLI_HOME/.gemini) with the
// skill in ~/.agents/skills; a repository's committed .gemini/settings.json.
func TestTargets(t *testing.T) {
	env := map[string]string{"HOME": "/home/dev"}
	at := hookbridge.Place{Getenv: func(k string) string { return env[k] }, Project: "/home/dev/project"}
	u, _ := Agent{}.Target(hookbridge.ScopeUser, at)
	if u.Settings != "/home/dev/.gemini/settings.json" || u.Skill != "/home/dev/.agents/skills/cully/SKILL.md" || u.Ignore != "" {
		t.Errorf("user: %+v", u)
	}
	sh, _ := Agent{}.Target(hookbridge.ScopeShared, at)
	if sh.Settings != "/home/dev/project/.gemini/settings.json" || sh.Skill != "/home/dev/project/.agents/skills/cully/SKILL.md" {
		t.Errorf("shared: %+v", sh)
	}
	env["GEMINI_CLI_HOME"] = "/alt"
	if u, _ := (Agent{}).Target(hookbridge.ScopeUser, at); u.Settings != "/alt/.gemini/settings.json" || u.Skill != "/alt/.agents/skills/cully/SKILL.md" {
		t.Errorf("GEMINI_CLI_HOME: %+v", u)
	}
}

// Folder trust, as Gemini CLI 0.61 decides it: the longest covering rule
// wins, TRUST_PARENT covers the rule's parent, comments are allowed, and
// with folder trust off every folder is trusted.
func TestTrust(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "work", "project")
	os.MkdirAll(proj, 0o755)
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	at := hookbridge.Place{Getenv: func(k string) string { return map[string]string{"HOME": home}[k] }, Project: proj}
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(home, ".gemini", name), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	notes := func() string { return strings.Join(trustNotes(home, at), "\n") }
	if n := notes(); !strings.Contains(n, "is not trusted yet") {
		t.Errorf("no trust file: %q", n)
	}
	write("trustedFolders.json", "{\n  // mine\n  \""+filepath.Join(home, "work")+"\": \"TRUST_FOLDER\"\n}")
	if n := notes(); n != "" {
		t.Errorf("a trusted parent folder: %q", n)
	}
	write("trustedFolders.json", `{"`+filepath.Join(home, "work")+`": "TRUST_FOLDER", "`+proj+`": "DO_NOT_TRUST"}`)
	if n := notes(); !strings.Contains(n, "marks "+proj+" as not trusted") {
		t.Errorf("the longest rule decides: %q", n)
	}
	write("trustedFolders.json", `{"`+filepath.Join(proj, "x")+`": "TRUST_PARENT"}`)
	if n := notes(); n != "" {
		t.Errorf("TRUST_PARENT: %q", n)
	}
	write("trustedFolders.json", `{"`+filepath.Join(home, "other")+`": "TRUST_FOLDER"}`)
	write("settings.json", `{"security": {"folderTrust": {"enabled": false}}} // off`)
	if n := notes(); n != "" {
		t.Errorf("folder trust off: %q", n)
	}
	write("settings.json", `{}`)
	write("trustedFolders.json", `{bad`)
	if n := notes(); !strings.Contains(n, "cannot be read") {
		t.Errorf("a broken trust file: %q", n)
	}
	if s := string(stripComments([]byte(`{"a": "// not a comment", /* x */ "b": 1} // end`))); s != `{"a": "// not a comment",         "b": 1}       ` {
		t.Errorf("stripComments: %q", s)
	}
}
