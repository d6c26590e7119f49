package agents

import (
	"strings"
	"testing"

	"cully/hookbridge"
)

func TestLookup(t *testing.T) {
	for name, want := range map[string]string{"": "claude", "claude": "claude", "codex": "codex"} {
		a, err := Lookup(name)
		if err != nil || a.Name() != want {
			t.Errorf("Lookup(%q) = %v, %v", name, a, err)
		}
	}
	for _, name := range []string{"gemini", "opencode", "copilot", "cursor"} {
		if a, err := Lookup(name); err != nil || a.Name() != name {
			t.Errorf("Lookup(%q) = %v, %v", name, a, err)
		}
	}
	if _, err := Lookup("vim"); err == nil || !strings.Contains(err.Error(), "unknown agent") {
		t.Errorf("an unknown agent says so: %v", err)
	}
}

// Every adapter has a unique name and a title.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range All() {
		if a.Name() == "" || a.Title() == "" || seen[a.Name()] {
			t.Errorf("adapter %T: name %q title %q (duplicate: %v)", a, a.Name(), a.Title(), seen[a.Name()])
		}
		seen[a.Name()] = true
		if _, ok := a.(hookbridge.Installer); !ok {
			t.Errorf("%s: every adapter today installs itself", a.Name())
		}
	}
}

// A Claude Code entry that GitHub Copilot CLI runs is Copilot CLI's call;
// Claude Code's own, and any call without that environment, stay Claude
// Code's.
func TestForCall(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"", nil, "claude"},
		{"claude", map[string]string{"COPILOT_CLI": "1"}, "copilot"},
		{"claude", map[string]string{"COPILOT_CLI": "1", "CLAUDECODE": "1"}, "claude"},
		{"copilot", map[string]string{"COPILOT_CLI": "1"}, "copilot"},
		{"cursor", map[string]string{"COPILOT_CLI": "1"}, "cursor"},
	} {
		a, err := ForCall(c.name, func(k string) string { return c.env[k] })
		if err != nil || a.Name() != c.want {
			t.Errorf("ForCall(%q, %v) = %v, %v; want %s", c.name, c.env, a, err, c.want)
		}
	}
	if _, err := ForCall("vim", func(string) string { return "" }); err == nil {
		t.Error("an unknown agent is still an error")
	}
}

// Every host refuses a halted run's calls through its own hook contract.
func TestEveryAgentHalts(t *testing.T) {
	for _, a := range All() {
		if _, ok := HalterFor(a); !ok {
			t.Errorf("%s cannot refuse a halted run's call", a.Name())
		}
	}
}

// A call refused alone (summary-only) is each host's pre-tool refusal,
// which never ends the agent's loop: Claude Code's deny without
// "continue": false, every other host's EncodeHalt answer (none of their
// pre-tool refusals ends anything); other events get the plain answer.
func TestEncodeRefuseEndsNothing(t *testing.T) {
	const reason, nudge = "cully: summary-only: this edit is refused.", "cully: a note"
	pre := map[string][]string{
		"claude": {"PreToolUse"}, "codex": {"PreToolUse"}, "gemini": {"BeforeTool"}, "opencode": {"tool.execute.before"},
		"copilot": {"preToolUse", "PreToolUse"}, "cursor": {"preToolUse", "beforeShellExecution", "beforeMCPExecution"},
	}
	for _, a := range All() {
		h, _ := HalterFor(a)
		events := pre[a.Name()]
		if len(events) == 0 {
			t.Fatalf("%s: no pre-tool event listed here", a.Name())
		}
		for _, ev := range events {
			got := string(h.EncodeRefuse(ev, reason, nudge))
			if !strings.Contains(got, `"deny"`) && !strings.Contains(got, `"block"`) || strings.Contains(got, `"continue"`) {
				t.Errorf("%s %s: %s, want a refusal that ends nothing", a.Name(), ev, got)
			}
			if a.Name() != "claude" && got != string(h.EncodeHalt(ev, reason, nudge)) {
				t.Errorf("%s %s: %s differs from the halt's refusal", a.Name(), ev, got)
			}
		}
		for _, ev := range []string{"PostToolUse", "Stop", "AfterTool", "session.idle", "postToolUse", "stop"} {
			if got, plain := string(h.EncodeRefuse(ev, reason, nudge)), string(a.Encode(ev, nudge)); got != plain {
				t.Errorf("%s %s: %s, want the plain answer %s", a.Name(), ev, got, plain)
			}
		}
	}
}
