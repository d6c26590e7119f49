package plugin

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cully/hookbridge"
	"cully/hookbridge/opencode"
	"cully/install"
)

// harness drives the installed plugin under Node with a fake opencode
// plugin API: it calls each hook as opencode 1.18 does (input, output
// objects the hook may change) and prints what the plugin left in them.
const harness = `
import { CullyPlugin } from "./cully.js"
const hooks = await CullyPlugin({ directory: "/w/project/sub", worktree: "/w/project" })
const before = { args: { command: "ls /nope" } }
await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_1", callID: "call_1" }, before)
const after = { title: "ls", output: "ls: /nope: No such file", metadata: { exit: 2, output: "dup", truncated: false } }
await hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_1", callID: "call_1", args: before.args }, after)
const read = { title: "r", output: "text", metadata: {} }
await hooks["tool.execute.after"]({ tool: "read", sessionID: "ses_1", callID: "call_2", args: { filePath: "a.txt" } }, read)
const part = { type: "tool", tool: "read", callID: "call_3", sessionID: "ses_1", state: { status: "error", input: { filePath: "gone.txt" }, error: "File not found: gone.txt" } }
await hooks.event({ event: { type: "message.part.updated", properties: { part } } })
await hooks.event({ event: { type: "message.part.updated", properties: { part } } })
await hooks.event({ event: { type: "session.created", properties: { info: { id: "ses_1" } } } })
await hooks.event({ event: { type: "session.created", properties: { info: { id: "ses_2", parentID: "ses_1" } } } })
await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_1" } } })
await hooks.event({ event: { type: "file.edited", properties: { file: "x" } } })
await hooks["chat.message"]({ sessionID: "ses_1" }, { message: {}, parts: [] })
console.log(JSON.stringify({ before, after: after.output, read: read.output }))
`

// fakeHook records each payload it gets and answers with context for the
// events named in $ANSWER_FOR (any other output for $GARBAGE).
const fakeHook = `#!/bin/sh
n=$(ls "$LOG" | wc -l)
cat > "$LOG/$n.json"
echo "$* $OPENCODE_PROJECT_DIR GOMAXPROCS=$GOMAXPROCS" > "$LOG/$n.args"
if [ -n "$GARBAGE" ]; then echo "not json"; exit 1; fi
grep -q '"hook_event_name":"tool.execute.after"' "$LOG/$n.json" && grep -q '"tool_name":"bash"' "$LOG/$n.json" && echo '{"context":"cully: a nudge"}'
exit 0
`

// The installed plugin, run by Node with a fake opencode: every hook and
// event it forwards reaches the hook as the payload the adapter decodes;
// the hook's answer is appended to the tool's output (and only there); a
// hook that fails or prints garbage changes nothing and throws nothing.
func TestOpencodePluginUnderNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the plugin runs under opencode's JavaScript runtime")
	}
	dir := t.TempDir()
	hook := filepath.Join(dir, "fake hook")
	if err := os.WriteFile(hook, []byte(fakeHook), 0o755); err != nil {
		t.Fatal(err)
	}
	tg := hookbridge.Target{Settings: filepath.Join(dir, "cully.js")}
	plan, err := opencode.Agent{}.Install(tg, nil, hookbridge.InstallOptions{HookCommand: "'" + hook + "'", Plugin: For("opencode")})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(tg.Settings, plan.After, 0o644)
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type":"module"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "harness.js"), []byte(harness), 0o644)
	run := func(garbage bool) (map[string]any, []map[string]any, []string) {
		log := t.TempDir()
		cmd := exec.Command(node, "harness.js")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LOG="+log)
		if garbage {
			cmd.Env = append(cmd.Env, "GARBAGE=1")
		}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node: %v\n%s", err, out)
		}
		var res map[string]any
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("harness printed %s", out)
		}
		var payloads []map[string]any
		var args []string
		for i := 0; ; i++ {
			b, err := os.ReadFile(filepath.Join(log, itoa(i*2)+".json"))
			if err != nil {
				break
			}
			var p map[string]any
			if err := json.Unmarshal(b, &p); err != nil {
				t.Fatalf("payload %d is not JSON: %s", i, b)
			}
			payloads = append(payloads, p)
			a, _ := os.ReadFile(filepath.Join(log, itoa(i*2)+".args"))
			args = append(args, strings.TrimSpace(string(a)))
		}
		return res, payloads, args
	}
	res, payloads, args := run(false)
	if res["after"] != "ls: /nope: No such file\n\ncully: a nudge" || res["read"] != "text" {
		t.Errorf("outputs after the plugin: %v", res)
	}
	var events []string
	for _, p := range payloads {
		events = append(events, p["hook_event_name"].(string))
	}
	want := "tool.execute.before tool.execute.after tool.execute.after tool.error session.created session.idle chat.message"
	if got := strings.Join(events, " "); got != want {
		t.Fatalf("events sent: %s\nwant:        %s", got, want)
	}
	if want := "--agent opencode /w/project " + install.HookEnv; args[0] != want {
		t.Errorf("hook run as %q, want --agent opencode with OPENCODE_PROJECT_DIR=/w/project and the hook's environment (%q)", args[0], want)
	}
	// Each payload decodes to what the rules need.
	kinds := []string{"pre_tool", "post_tool", "post_tool", "post_tool", "session_start", "stop", "prompt"}
	for i, p := range payloads {
		raw, _ := json.Marshal(p)
		ev, err := opencode.Agent{}.Decode(raw, hookbridge.Env{})
		if err != nil || string(ev.Kind) != kinds[i] || ev.Session != "ses_1" || ev.Cwd != "/w/project/sub" {
			t.Errorf("payload %d %s: %v %+v", i, raw, err, ev)
		}
	}
	post, _ := json.Marshal(payloads[1])
	ev, _ := opencode.Agent{}.Decode(post, hookbridge.Env{})
	if ev.Outcome != "failed" || ev.Exit == nil || *ev.Exit != 2 || ev.ToolUseID != "call_1" || ev.Cmd != "ls /nope" {
		t.Errorf("bash exit 2: %+v", ev)
	}
	if strings.Contains(string(post), "dup") {
		t.Errorf("the plugin sent bash's metadata copy of the output: %s", post)
	}
	thrown, _ := json.Marshal(payloads[3])
	if ev, _ := (opencode.Agent{}).Decode(thrown, hookbridge.Env{}); ev.Outcome != "failed" || ev.Target != "gone.txt" || ev.FailSig == "" {
		t.Errorf("a thrown read: %+v", ev)
	}
	res, payloads, _ = run(true)
	if res["after"] != "ls: /nope: No such file" || len(payloads) != 7 {
		t.Errorf("a failing hook changed the output or lost events: %v, %d payloads", res, len(payloads))
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// The plugin's version line is the one doctor looks for.
func TestOpencodePluginVersion(t *testing.T) {
	if !strings.Contains(Opencode, "\n"+opencode.PluginVersion+"\n") || !strings.Contains(Opencode, Placeholder) {
		t.Error("the plugin lacks the version line doctor checks, or the hook placeholder")
	}
}

// refuseHarness calls tool.execute.before once and prints whether the
// plugin threw, and with what message.
const refuseHarness = `
import { CullyPlugin } from "./cully.js"
const hooks = await CullyPlugin({ directory: "/w/project", worktree: "/w/project" })
let res = { threw: false }
try {
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_1", callID: "call_1" }, { args: { command: "touch x" } })
} catch (e) {
  res = { threw: true, message: e instanceof Error ? e.message : String(e) }
}
console.log(JSON.stringify(res))
`

// The installed plugin refuses a call (throws, opencode's way) exactly
// when the hook's answer says block, with the hook's text as the error's
// message; whatever else the hook does (context, an empty or non-text
// block, garbage, a failure, a hook that is not there) the call goes on.
func TestOpencodePluginRefusesOnBlockOnly(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the plugin runs under opencode's JavaScript runtime")
	}
	const reason = "cully halted this run (enforce mode) at 12:00: \"quoted\"\nEvery tool call is refused until the user runs `cully resume`."
	block, _ := json.Marshal(map[string]string{"block": reason})
	for _, c := range []struct {
		name, script string
		missing      bool
		threw        bool
	}{
		{name: "block", script: "printf '%s\\n' '" + string(block) + "'", threw: true},
		{name: "context", script: `echo '{"context":"cully: a note"}'`},
		{name: "empty block", script: `echo '{"block":""}'`},
		{name: "block not text", script: `echo '{"block":true}'`},
		{name: "garbage", script: `echo '{"block": "cut short'`},
		{name: "failed", script: "exit 3"},
		{name: "nothing", script: "exit 0"},
		{name: "missing hook", missing: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			hook := filepath.Join(dir, "hook")
			if !c.missing {
				if err := os.WriteFile(hook, []byte("#!/bin/sh\ncat >/dev/null\n"+c.script+"\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			tg := hookbridge.Target{Settings: filepath.Join(dir, "cully.js")}
			plan, err := opencode.Agent{}.Install(tg, nil, hookbridge.InstallOptions{HookCommand: "'" + hook + "'", Plugin: For("opencode")})
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(tg.Settings, plan.After, 0o644)
			os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type":"module"}`), 0o644)
			os.WriteFile(filepath.Join(dir, "harness.js"), []byte(refuseHarness), 0o644)
			cmd := exec.Command(node, "harness.js")
			cmd.Dir = dir
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("node: %v\n%s", err, out)
			}
			var res struct {
				Threw   bool
				Message string
			}
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatalf("harness printed %s", out)
			}
			if res.Threw != c.threw || c.threw && res.Message != reason {
				t.Errorf("threw %v with %q; want threw %v with the hook's reason", res.Threw, res.Message, c.threw)
			}
		})
	}
	// The adapter's answer is the one the plugin throws.
	if got, want := string(opencode.Agent{}.EncodeHalt("tool.execute.before", reason, "")), string(block)+"\n"; got != want {
		t.Errorf("EncodeHalt: %s, want %s", got, want)
	}
}
