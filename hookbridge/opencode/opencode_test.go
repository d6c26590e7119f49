package opencode

import (
	"encoding/json"
	"strings"
	"testing"

	"cully/engine"
	"cully/hookbridge"
)

func decode(t *testing.T, p map[string]any) *engine.Event {
	t.Helper()
	raw, _ := json.Marshal(p)
	ev, err := Agent{}.Decode(raw, hookbridge.Env{})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// The plugin's payloads decode to what the rules need; tool events are
// deferred, a bash run without an exit status is unknown, and a thrown
// tool is a failure.
func TestDecode(t *testing.T) {
	base := func(hook, tool string, in map[string]any) map[string]any {
		return map[string]any{"hook_event_name": hook, "session_id": "ses_1", "cwd": "/w/p", "tool_name": tool, "tool_use_id": "c1", "tool_input": in}
	}
	ok := base("tool.execute.after", "bash", map[string]any{"command": "go test ./..."})
	ok["tool_response"] = map[string]any{"output": "ok  \tcully/x\t0.1s\n", "metadata": map[string]any{"exit": 0}}
	if ev := decode(t, ok); ev.Class != engine.ClassCheck || ev.Outcome != engine.OutcomeOK || *ev.Exit != 0 || !ev.Defer || ev.ToolUseID != "c1" {
		t.Errorf("go test ok: %+v", ev)
	}
	killed := base("tool.execute.after", "bash", map[string]any{"command": "sleep 999"})
	killed["tool_response"] = map[string]any{"output": "", "metadata": map[string]any{"exit": nil}}
	if ev := decode(t, killed); ev.Outcome != engine.OutcomeUnknown || ev.Exit != nil {
		t.Errorf("no exit status: %+v", ev)
	}
	if ev := decode(t, base("tool.execute.before", "read", map[string]any{"filePath": "/w/p/a.go", "offset": 10})); ev.Kind != engine.KindPreTool || ev.Target != "a.go" || !ev.Ranged || !ev.Bounded || !ev.Defer {
		t.Errorf("ranged read: %+v", ev)
	}
	if ev := decode(t, base("tool.execute.after", "list", map[string]any{"path": "/w/p/src"})); ev.Class != engine.ClassRead || ev.Target != "src" || ev.Outcome != engine.OutcomeOK {
		t.Errorf("list: %+v", ev)
	}
	if ev := decode(t, base("tool.execute.after", "edit", map[string]any{"filePath": "b.go", "oldString": "x", "newString": "y"})); ev.Class != engine.ClassEdit || ev.Target != "b.go" {
		t.Errorf("edit: %+v", ev)
	}
	thrown := base("tool.error", "edit", map[string]any{"filePath": "b.go"})
	thrown["error"] = "oldString not found in content"
	if ev := decode(t, thrown); ev.Kind != engine.KindPostTool || ev.Outcome != engine.OutcomeFailed || ev.FailSig == "" {
		t.Errorf("thrown: %+v", ev)
	}
	for hook, kind := range map[string]engine.Kind{"chat.message": engine.KindPrompt, "session.created": engine.KindSessionStart,
		"session.idle": engine.KindStop, "session.compacted": engine.KindCompact, "session.deleted": engine.KindSessionEnd, "file.edited": engine.KindOther} {
		if ev := decode(t, map[string]any{"hook_event_name": hook, "session_id": "ses_1"}); ev.Kind != kind || ev.Defer {
			t.Errorf("%s: %+v", hook, ev)
		}
	}
	if _, err := (Agent{}).Decode([]byte(`{"session_id":"s"}`), hookbridge.Env{}); err == nil {
		t.Error("no event name, no error")
	}
}

// Only tool.execute.after's answer reaches the model: {"context": …},
// which the plugin appends to the tool's output.
func TestEncode(t *testing.T) {
	if got := string(Agent{}.Encode("tool.execute.after", "cully: x")); got != "{\"context\":\"cully: x\"}\n" {
		t.Errorf("after: %q", got)
	}
	for _, h := range []string{"tool.execute.before", "tool.error", "chat.message", "session.idle"} {
		if b := (Agent{}).Encode(h, "cully: x"); b != nil {
			t.Errorf("%s answered %s", h, b)
		}
	}
	if (Agent{}).Encode("tool.execute.after", "") != nil {
		t.Error("an empty nudge answered")
	}
}

const pluginText = pluginMark + "\n" + PluginVersion + "\nconst HOOK = " + placeholder + "\n"

// Install writes the plugin with the hook's command, never over a file
// that is not cully's; uninstall removes only cully's.
func TestInstallPlugin(t *testing.T) {
	tg := hookbridge.Target{Settings: "/x/plugins/cully.js"}
	o := hookbridge.InstallOptions{HookCommand: "/opt/my cully/cully-hook", Plugin: pluginText}
	p, err := Agent{}.Install(tg, nil, o)
	if err != nil || !p.Changed || hookOf(p.After) != o.HookCommand {
		t.Fatalf("install: %v %q", err, p.After)
	}
	if again, _ := (Agent{}).Install(tg, p.After, o); again.Changed {
		t.Error("a second install changed the plugin")
	}
	if _, err := (Agent{}).Install(tg, []byte("export const Mine = async () => ({})\n"), o); err == nil || !strings.Contains(err.Error(), "not cully's") {
		t.Errorf("installed over a foreign plugin: %v", err)
	}
	if _, err := (Agent{}).Install(tg, nil, hookbridge.InstallOptions{HookCommand: "cully-hook"}); err == nil {
		t.Error("installed without the plugin text")
	}
	if un, _ := (Agent{}).Uninstall(tg, p.After); !un.Remove || !un.Changed {
		t.Errorf("uninstall: %+v", un)
	}
	if un, _ := (Agent{}).Uninstall(tg, []byte("mine")); un.Remove || un.Changed || len(un.Notes) != 1 {
		t.Errorf("uninstall of a foreign file: %+v", un)
	}
}

// Targets: the user's plugins folder, this machine's own plugin in a
// project (ignored by git), and the committed one.
func TestTargets(t *testing.T) {
	at := hookbridge.Place{Getenv: func(k string) string { return map[string]string{"HOME": "/home/dev"}[k] }, Project: "/home/dev/p"}
	u, _ := Agent{}.Target(hookbridge.ScopeUser, at)
	p, _ := Agent{}.Target(hookbridge.ScopeProject, at)
	s, _ := Agent{}.Target(hookbridge.ScopeShared, at)
	if u.Settings != "/home/dev/.config/opencode/plugins/cully.js" || u.Skill != "/home/dev/.config/opencode/skills/cully/SKILL.md" ||
		p.Settings != "/home/dev/p/.opencode/plugins/cully-local.js" || p.Ignore != "/.opencode/plugins/cully-local.js" ||
		s.Settings != "/home/dev/p/.opencode/plugins/cully.js" || s.Ignore != "" {
		t.Errorf("targets: %+v %+v %+v", u, p, s)
	}
}

// A halted run: tool.execute.before answers block, with the reason and
// the nudge after it (the plugin throws it); every other event gets the
// plain answer: nothing else the plugin sees can stop opencode.
func TestEncodeHalt(t *testing.T) {
	const reason = "cully halted this run (enforce mode) at 12:00: the budget is exceeded."
	if got := string(Agent{}.EncodeHalt(evBefore, reason, "cully: x")); got != `{"block":"cully halted this run (enforce mode) at 12:00: the budget is exceeded.\ncully: x"}`+"\n" {
		t.Errorf("before: %q", got)
	}
	if got := string(Agent{}.EncodeHalt(evBefore, reason, "")); got != `{"block":"cully halted this run (enforce mode) at 12:00: the budget is exceeded."}`+"\n" {
		t.Errorf("before, no nudge: %q", got)
	}
	for _, h := range []string{evAfter, evToolError, evMessage, evCreated, evIdle, evCompacted, evDeleted} {
		if got, plain := string(Agent{}.EncodeHalt(h, reason, "cully: x")), string(Agent{}.Encode(h, "cully: x")); got != plain {
			t.Errorf("%s: %q, want the plain answer %q", h, got, plain)
		}
	}
}
