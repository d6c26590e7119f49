package copilot

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cully/hookbridge"
	"cully/install"
)

// A user's own hook file in .github/hooks, with an entry of its own that
// cully must leave as it is, byte for byte.
const userHooks = `{
    "version": 1,
    "hooks": {
        "preToolUse": [
            {"type": "command", "bash": "./scripts/guard.sh", "timeoutSec": 10}
        ],
        "sessionEnd": [ {"type": "command", "bash": "echo bye >> log"} ]
    }
}
`

// A settings.local.json with settings that are not hooks.
const userSettings = `{
  "model": "gpt-5.5",
  "trustedFolders": ["/home/dev/project"]
}
`

func target(t *testing.T, scope hookbridge.Scope) hookbridge.Target {
	t.Helper()
	tg, err := agent.Target(scope, hookbridge.Place{Getenv: func(k string) string { return map[string]string{"HOME": "/home/dev"}[k] }, Project: "/home/dev/project"})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func roundTrip(t *testing.T, tg hookbridge.Target, start string) (installed, after []byte) {
	t.Helper()
	dir := t.TempDir()
	tg.Settings = filepath.Join(dir, filepath.Base(tg.Settings))
	var before []byte
	if start != "" {
		before = []byte(start)
		os.WriteFile(tg.Settings, before, 0o640)
	}
	o := hookbridge.InstallOptions{HookCommand: "/opt/bin/cully-hook"}
	p, err := agent.Install(tg, before, o)
	if err != nil {
		t.Fatal(err)
	}
	bk := install.Backups{Dir: filepath.Join(dir, "backups")}
	if _, _, err := install.Apply(p, bk, "20260101T000000"); err != nil {
		t.Fatal(err)
	}
	installed, _ = os.ReadFile(tg.Settings)
	if p2, err := agent.Install(tg, installed, o); err != nil || p2.Changed {
		t.Fatalf("second install changed something: %v\n%s", err, install.Diff("s", installed, p2.After))
	}
	u, err := agent.Uninstall(tg, installed)
	if err != nil {
		t.Fatal(err)
	}
	after = u.After
	return installed, after
}

// entries reads cully's entries back as Copilot CLI would.
func entries(t *testing.T, b []byte) map[string][]map[string]any {
	t.Helper()
	var f struct {
		Version int                         `json:"version"`
		Hooks   map[string][]map[string]any `json:"hooks"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return f.Hooks
}

func TestInstallUninstallRoundTripIsByteExact(t *testing.T) {
	for _, c := range []struct {
		scope hookbridge.Scope
		start string
	}{{hookbridge.ScopeShared, userHooks}, {hookbridge.ScopeProject, userSettings}, {hookbridge.ScopeUser, userHooks}} {
		installed, after := roundTrip(t, target(t, c.scope), c.start)
		if string(after) != c.start {
			t.Errorf("%s: round trip changed the file:\n%s", c.scope, install.Diff("f", []byte(c.start), after))
		}
		hooks := entries(t, installed)
		for _, ev := range Events {
			var ours []map[string]any
			for _, h := range hooks[ev] {
				if install.IsCullyCommand(h["bash"].(string)) {
					ours = append(ours, h)
				}
			}
			if len(ours) != 1 {
				t.Fatalf("%s: %d entries of cully's for %s:\n%s", c.scope, len(ours), ev, installed)
			}
			h := ours[0]
			env, _ := h["env"].(map[string]any)
			if h["type"] != "command" || h["bash"] != "/opt/bin/cully-hook --agent copilot || true" || env[EventVar] != ev || env[install.HookEnvName] != install.HookEnvValue || h["timeoutSec"] != float64(HookTimeout) {
				t.Errorf("%s: entry for %s: %v", c.scope, ev, h)
			}
		}
		s := string(installed)
		for _, keep := range []string{`"./scripts/guard.sh"`, `echo bye >> log`, `"gpt-5.5"`} {
			if strings.Contains(c.start, keep) && !strings.Contains(s, keep) {
				t.Errorf("%s: lost %s", c.scope, keep)
			}
		}
		if hasVersion := strings.Contains(s, `"version"`); hasVersion != (c.scope != hookbridge.ScopeProject) {
			t.Errorf("%s: a hook file has a version, a settings file none:\n%s", c.scope, s)
		}
	}
}

// A file install created holds nothing of anyone's once uninstalled, so
// that uninstall can remove it.
func TestUninstallOfCreatedFileLeavesNothing(t *testing.T) {
	for _, scope := range []hookbridge.Scope{hookbridge.ScopeUser, hookbridge.ScopeProject} {
		_, after := roundTrip(t, target(t, scope), "")
		if !install.EmptyObject(after) {
			t.Errorf("%s: %s", scope, after)
		}
	}
}

// An entry of an older cully (another path, no event name, a duplicate)
// is rewritten in place, and its duplicate goes; a file of another version
// or shape is left for the user.
func TestInstallRewritesOursOnly(t *testing.T) {
	old := `{"version": 1, "hooks": {"preToolUse": [
  {"type": "command", "bash": "/old/cully-hook --agent copilot", "timeoutSec": 30},
  {"type": "command", "bash": "/old/cully-hook --agent copilot"},
  {"type": "command", "bash": "other"}]}}`
	tg := target(t, hookbridge.ScopeShared)
	p, err := agent.Install(tg, []byte(old), hookbridge.InstallOptions{HookCommand: "cully-hook"})
	if err != nil {
		t.Fatal(err)
	}
	pre := entries(t, p.After)["preToolUse"]
	if len(pre) != 2 || pre[0]["bash"] != "cully-hook --agent copilot || true" || pre[0]["timeoutSec"] != float64(HookTimeout) || pre[1]["bash"] != "other" {
		t.Errorf("%s", p.After)
	}
	for _, bad := range []string{`{"version": 2, "hooks": {}}`, `{"version": 1, "hooks": []}`, `{"version": 1, "hooks": {"preToolUse": {}}}`, `[1]`, `{"version": 1,`} {
		if _, err := agent.Install(tg, []byte(bad), hookbridge.InstallOptions{HookCommand: "cully-hook"}); err == nil {
			t.Errorf("%s: want an error, not a rewrite", bad)
		}
	}
}

func TestTargets(t *testing.T) {
	for scope, want := range map[hookbridge.Scope][3]string{
		hookbridge.ScopeUser:    {"/home/dev/.copilot/hooks/cully.json", "/home/dev/.copilot/skills/cully/SKILL.md", ""},
		hookbridge.ScopeProject: {"/home/dev/project/.github/copilot/settings.local.json", "/home/dev/project/.github/skills/cully/SKILL.md", "/.github/copilot/settings.local.json"},
		hookbridge.ScopeShared:  {"/home/dev/project/.github/hooks/cully.json", "/home/dev/project/.github/skills/cully/SKILL.md", ""},
	} {
		tg := target(t, scope)
		if got := [3]string{tg.Settings, tg.Skill, tg.Ignore}; got != want {
			t.Errorf("%s: %v, want %v", scope, got, want)
		}
		if scope != hookbridge.ScopeUser && projectRoot(tg) != "/home/dev/project" {
			t.Errorf("%s: project root %s", scope, projectRoot(tg))
		}
	}
	tg, _ := agent.Target(hookbridge.ScopeUser, hookbridge.Place{Getenv: func(k string) string { return map[string]string{"HOME": "/h", "COPILOT_HOME": "/c"}[k] }})
	if tg.Settings != "/c/hooks/cully.json" {
		t.Errorf("COPILOT_HOME: %s", tg.Settings)
	}
	if _, err := agent.Target(hookbridge.ScopeProject, hookbridge.Place{Getenv: func(string) string { return "" }}); err == nil {
		t.Error("a project scope needs a project")
	}
}

func TestDoctor(t *testing.T) {
	dir := t.TempDir()
	hook := filepath.Join(dir, "cully-hook")
	os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o755)
	project := filepath.Join(dir, "project")
	tg, _ := agent.Target(hookbridge.ScopeShared, hookbridge.Place{Project: project})
	if w := agent.Doctor(tg, "skill"); len(w.Checks) != 0 || w.Command != "" {
		t.Errorf("no file, nothing to check: %+v", w)
	}
	p, _ := agent.Install(tg, nil, hookbridge.InstallOptions{HookCommand: hook})
	os.MkdirAll(filepath.Dir(tg.Settings), 0o755)
	os.WriteFile(tg.Settings, p.After, 0o644)
	os.MkdirAll(filepath.Dir(tg.Skill), 0o755)
	os.WriteFile(tg.Skill, []byte("skill"), 0o644)
	w := agent.Doctor(tg, "skill")
	text := checks(w)
	if w.Command != hook+" --agent copilot || true" || strings.Contains(text, "FAIL") || !strings.Contains(text, "names a path of this machine") || !strings.Contains(text, "trusted") {
		t.Errorf("installed with a machine path in the shared file:\n%s", text)
	}
	// Claude Code's hooks in the repository wire cully too: recorded twice.
	os.MkdirAll(filepath.Join(project, ".claude"), 0o755)
	os.WriteFile(filepath.Join(project, ".claude", "settings.local.json"), []byte(`{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"/x/cully-hook"}]}]}}`), 0o644)
	if text := checks(agent.Doctor(tg, "skill")); !strings.Contains(text, "recorded twice") {
		t.Errorf("Claude Code's hooks in the repository are not reported:\n%s", text)
	}
	// An entry that lost its event name cannot be decoded: a failure.
	os.WriteFile(tg.Settings, []byte(strings.ReplaceAll(string(p.After), EventVar, "OTHER")), 0o644)
	if text := checks(agent.Doctor(tg, "skill")); !strings.Contains(text, "FAIL") || !strings.Contains(text, "does not name its event") {
		t.Errorf("entries without the event name:\n%s", text)
	}
	os.Remove(hook)
	if text := checks(agent.Doctor(tg, "other")); !strings.Contains(text, "does not run") || !strings.Contains(text, "differs") {
		t.Errorf("a removed binary and an edited skill:\n%s", text)
	}
}

func checks(w hookbridge.Wiring) string {
	var b strings.Builder
	for _, c := range w.Checks {
		mark := "ok"
		switch {
		case c.Warn:
			mark = "note"
		case !c.OK:
			mark = "FAIL"
		}
		b.WriteString(mark + " " + c.What + "\n")
	}
	return b.String()
}

// An install by an earlier cully, with entries on the events it no longer
// uses: doctor notes them (no failure), install takes out cully's and keeps
// the user's own entry on the same event.
func TestRetiredEvents(t *testing.T) {
	dir := t.TempDir()
	hook := filepath.Join(dir, "cully-hook")
	os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o755)
	tg, _ := agent.Target(hookbridge.ScopeUser, hookbridge.Place{Getenv: func(k string) string { return map[string]string{"HOME": filepath.Join(dir, "home")}[k] }})
	p, err := agent.Install(tg, nil, hookbridge.InstallOptions{HookCommand: hook})
	if err != nil {
		t.Fatal(err)
	}
	root, _ := install.ParseSettings(tg.Settings, p.After)
	hooks := root.Get("hooks")
	for _, ev := range Retired { // what the earlier cully wrote for them
		h := install.Object()
		h.Set("type", install.Scalar("command"))
		setEntry(h, command(hook), ev)
		list := []*install.Node{h}
		if ev == "errorOccurred" {
			u := install.Object()
			u.Set("type", install.Scalar("command"))
			u.Set("bash", install.Scalar("./notify.sh"))
			list = append(list, u)
		}
		hooks.Set(ev, &install.Node{Kind: 'a', Items: list})
	}
	old := root.Encode()
	os.MkdirAll(filepath.Dir(tg.Settings), 0o755)
	os.WriteFile(tg.Settings, old, 0o644)
	os.MkdirAll(filepath.Dir(tg.Skill), 0o755)
	os.WriteFile(tg.Skill, []byte("skill"), 0o644)
	text := checks(agent.Doctor(tg, "skill"))
	if strings.Contains(text, "FAIL") || !strings.Contains(text, "note GitHub Copilot CLI") || !strings.Contains(text, "can be updated") || !strings.Contains(text, "subagentStop, errorOccurred") {
		t.Errorf("an earlier install's retired entries:\n%s", text)
	}
	p, err = agent.Install(tg, old, hookbridge.InstallOptions{HookCommand: hook})
	if err != nil {
		t.Fatal(err)
	}
	got := entries(t, p.After)
	if _, ok := got["subagentStop"]; ok || !p.Changed {
		t.Errorf("subagentStop kept (changed %v):\n%s", p.Changed, p.After)
	}
	if e := got["errorOccurred"]; len(e) != 1 || e[0]["bash"] != "./notify.sh" {
		t.Errorf("errorOccurred: the user's entry alone should stay: %v", e)
	}
	for _, ev := range Events {
		if len(got[ev]) != 1 {
			t.Errorf("%s: %v", ev, got[ev])
		}
	}
	os.WriteFile(tg.Settings, p.After, 0o644)
	if text := checks(agent.Doctor(tg, "skill")); strings.Contains(text, "can be updated") || strings.Contains(text, "FAIL") {
		t.Errorf("after install:\n%s", text)
	}
}
