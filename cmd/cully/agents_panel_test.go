package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cully/engine"
)

// One journal, one panel: sessions of Claude Code, GitHub Copilot CLI and
// Cursor, each sent through the real cully-hook binary as its host sends
// them (Copilot CLI's entry names its event in the environment), land in
// one state dir; the panel in a real terminal lists the three side by
// side, each with its agent and its project, and status says the same.
func TestPanelShowsSessionsOfThreeAgentsInTmux(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	env["CULLY_CONFIG"] = filepath.Join(env["PWD"], "none.toml")
	delete(env, "CLAUDE_PROJECT_DIR")
	projects := map[string]string{}
	for _, name := range []string{"webapp", "cli-tool", "site"} {
		dir := filepath.Join(env["PWD"], "src", name)
		if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
		projects[name] = dir
	}
	pane := newTmux(t, 110, 40, map[string]string{"CULLY_HOME": env["CULLY_HOME"], "HOME": env["HOME"], "CULLY_CONFIG": env["CULLY_CONFIG"]}, "panel")
	pane.waitFor("waiting for the first hook call", 20*time.Second)

	hook := func(agentEnv map[string]string, payload string, args ...string) string {
		t.Helper()
		e := map[string]string{}
		for k, v := range env {
			e[k] = v
		}
		for k, v := range agentEnv {
			e[k] = v
		}
		r := runBin(t, "cully-hook", e, []byte(payload), args...)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("cully-hook %v: %+v", args, r)
		}
		return r.stdout
	}

	// Claude Code, in webapp: a prompt and two reads.
	web := projects["webapp"]
	claude := map[string]string{"CLAUDE_PROJECT_DIR": web}
	hook(claude, `{"session_id":"claude-s1","cwd":"`+web+`","hook_event_name":"UserPromptSubmit","prompt":"go"}`)
	for i := 0; i < 2; i++ {
		call := fmt.Sprintf(`"session_id":"claude-s1","cwd":%q,"tool_name":"Read","tool_input":{"file_path":%q},"tool_use_id":"r%d"`, web, filepath.Join(web, "main.go"), i)
		hook(claude, `{`+call+`,"hook_event_name":"PreToolUse"}`)
		hook(claude, `{`+call+`,"hook_event_name":"PostToolUse","tool_response":{}}`)
	}

	// GitHub Copilot CLI, in cli-tool: its camelCase payloads, as captured.
	cli := projects["cli-tool"]
	copilot := func(event, payload string) string {
		return hook(map[string]string{"CULLY_HOOK_EVENT": event, "COPILOT_PROJECT_DIR": cli, "COPILOT_CLI": "1"}, payload, "--agent", "copilot")
	}
	copilot("sessionStart", `{"sessionId":"copilot-s1","timestamp":1796126978595,"cwd":"`+cli+`","source":"new","initialPrompt":"fix the build"}`)
	copilot("userPromptSubmitted", `{"sessionId":"copilot-s1","timestamp":1796126978627,"cwd":"`+cli+`","prompt":"fix the build"}`)
	args := `"toolName":"bash","toolArgs":{"command":"go build ./...","description":"build"}`
	for i := 0; i < 3; i++ {
		copilot("preToolUse", `{"sessionId":"copilot-s1","timestamp":1796126978700,"cwd":"`+cli+`",`+args+`}`)
		copilot("postToolUse", `{"sessionId":"copilot-s1","timestamp":1796126978800,"cwd":"`+cli+`",`+args+`,"toolResult":{"resultType":"success","textResultForLlm":"main.go:3:1: syntax error\n<shellId: 0 completed with exit code 1>"}}`)
	}

	// Cursor, in site: a shell command, whose outcome stays unknown.
	site := projects["site"]
	common := `"conversation_id":"cursor-c1","generation_id":"g1","workspace_roots":["` + site + `"],"user_email":"dev@example.com"`
	cursor := func(payload string) { hook(nil, payload, "--agent", "cursor") }
	cursor(`{"hook_event_name":"beforeSubmitPrompt",` + common + `,"prompt":"deploy"}`)
	cursor(`{"hook_event_name":"beforeShellExecution",` + common + `,"command":"npm run build","cwd":"` + site + `"}`)
	cursor(`{"hook_event_name":"afterShellExecution",` + common + `,"command":"npm run build","cwd":"` + site + `","output":"built","duration":900}`)

	// The panel lists the three sessions, each row with its agent and project.
	deadline := time.Now().Add(5 * time.Second)
	want := map[string]string{"webapp": "claude", "cli-tool": "copilot", "site": "cursor"}
	for {
		screen := pane.screen()
		missing := ""
		for project, agent := range want {
			if !rowWith(screen, project, agent) {
				missing = project + " (" + agent + ")"
			}
		}
		if missing == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the panel lists no row for %s:\n%s", missing, screen)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// No hook call gave up (a hook that does keeps its reason here).
	if b, err := os.ReadFile(filepath.Join(env["CULLY_HOME"], "errors.log")); err == nil {
		t.Errorf("errors.log:\n%s", b)
	}
	// Copilot CLI's build failed three times the same way (exit 1, read
	// from its result): a failure loop, in its state and open in its row.
	st := cully(t, env, nil, "status", "--session", "copilot-s1")
	if !strings.Contains(st.stdout, "calls    3: ") || !strings.Contains(st.stdout, "checkpoints 1 open of 1") {
		t.Errorf("the Copilot CLI session's state lacks its three failed builds:\n%s%s", st.stdout, st.stderr)
	}
	for screen := pane.screen(); !rowWith(screen, "cli-tool", "1 open"); screen = pane.screen() {
		if time.Now().After(deadline) {
			t.Errorf("the Copilot CLI session shows no open checkpoint:\n%s", screen)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("the panel:\n%s", pane.screen())

	// Status agrees, session by session.
	for id, w := range map[string][2]string{"claude-s1": {"claude", "webapp"}, "copilot-s1": {"copilot", "cli-tool"}, "cursor-c1": {"cursor", "site"}} {
		r := cully(t, env, nil, "status", "--session", id)
		if r.code != 0 || !strings.Contains(r.stdout, "session  "+id+" ("+w[0]+")") || !strings.Contains(r.stdout, "project  "+w[1]+" · ") {
			t.Errorf("status --session %s:\n%s%s", id, r.stdout, r.stderr)
		}
	}
	// One journal holds them all, each record with its agent.
	agents := map[string]string{}
	copilotCalls := 0
	for _, ev := range journal(t, env["CULLY_HOME"]) {
		agents[ev.Session] = ev.Agent
		if ev.Session == "copilot-s1" && ev.Kind == engine.KindPostTool {
			copilotCalls++
		}
		if strings.Contains(ev.Cwd, "example.com") {
			t.Errorf("an address reached the journal: %+v", ev)
		}
	}
	if agents["claude-s1"] != "claude" || agents["copilot-s1"] != "copilot" || agents["cursor-c1"] != "cursor" {
		t.Errorf("journal agents: %v", agents)
	}
	if copilotCalls != 3 {
		t.Errorf("the journal holds %d of the Copilot CLI session's 3 finished calls", copilotCalls)
	}
	pane.send("q")
}

// rowWith reports whether one line of the screen names both the project
// and the agent.
func rowWith(screen, project, agent string) bool {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, project) && strings.Contains(l, agent) {
			return true
		}
	}
	return false
}
