package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cully/hookbridge"
	"cully/hookbridge/agents"
	"cully/install"
	"cully/installrun"
	"cully/store"
)

// `cully doctor --fire` runs every installed hook command the way its host
// does (the host's shell, the variables it adds, the entry's own
// environment, the session's folder as the working directory) with a
// synthetic session-start payload, and checks three things: the command
// exits as the host expects, a record of the call lands in a journal under
// the agent's name, and the answer parses under the host's contract. For
// Codex it also asks whether Codex trusts the entries, since it silently
// runs none it does not.
//
// Where the record goes: a journal in a scratch state dir (CULLY_HOME set
// to a new private folder for the call), read, then removed with the
// folder. The user's journal is append-only and written by live hooks
// under its lock: a record cannot be taken back out of it safely, and one
// left there, even marked, would be a session every reader (status, the
// panel, export, replay) would have to learn to skip. The state dir's own
// health is doctor's other checks; the fire proves the command, the
// binary, the adapter and the answer. A command that sets CULLY_HOME
// itself sends its record elsewhere, and the fire says none landed.

// fireWait is how long a fired hook may take: hosts give cully's entries
// 5 s, and a hook that needs more is broken for them.
const fireWait = 10 * time.Second

// fireSession is the synthetic session's id: no host makes one like it.
const fireSession = "cully-doctor-fire"

// fireHost is how one host runs a hook command for its session-start event.
type fireHost struct {
	event string
	// shell is the program and arguments the command line is given to.
	shell func(getenv func(string) string) []string
	// vars are the variables the host adds to the hook's environment.
	vars func(cwd string) []string
	// payload is the host's session-start payload for cwd.
	payload func(cwd string) map[string]any
	// keys are the top-level keys an answer may have under the host's
	// contract (nil: any JSON object), and whether a hookSpecificOutput
	// must name the event.
	keys  []string
	named bool
}

// answerKeys are the keys of Claude Code's and Codex's hook answers (Codex
// rejects any other: its schemas have additionalProperties false).
var answerKeys = []string{"continue", "stopReason", "suppressOutput", "systemMessage", "decision", "reason", "hookSpecificOutput"}

func fireSh(func(string) string) []string { return []string{"/bin/sh", "-c"} }

func fireBash(func(string) string) []string {
	if p, err := exec.LookPath("bash"); err == nil {
		return []string{p, "-c"}
	}
	return []string{"/bin/sh", "-c"}
}

// codexShell is the shell Codex 0.171 runs hook commands through: the
// user's login shell when it is bash, zsh or sh, else bash, zsh or
// /bin/sh, the first there is (see hookbridge/codex's hookShellTakesEnv).
func codexShell(getenv func(string) string) []string {
	for _, s := range install.UserShells(getenv) {
		if n := install.ShellName(s); n == "bash" || n == "zsh" || n == "sh" {
			return []string{s, "-c"}
		}
	}
	for _, n := range []string{"bash", "zsh"} {
		if p, err := exec.LookPath(n); err == nil {
			return []string{p, "-c"}
		}
	}
	return []string{"/bin/sh", "-c"}
}

var fireHosts = map[string]fireHost{
	"claude": {event: "SessionStart", shell: fireSh, keys: answerKeys, named: true,
		vars: func(cwd string) []string { return []string{"CLAUDE_PROJECT_DIR=" + cwd} },
		payload: func(cwd string) map[string]any {
			return map[string]any{"session_id": fireSession, "transcript_path": "", "cwd": cwd, "hook_event_name": "SessionStart", "source": "startup"}
		}},
	"codex": {event: "SessionStart", shell: codexShell, keys: answerKeys, named: true,
		vars: func(string) []string { return nil },
		payload: func(cwd string) map[string]any {
			return map[string]any{"session_id": fireSession, "transcript_path": nil, "cwd": cwd, "hook_event_name": "SessionStart", "model": "", "permission_mode": "default", "source": "startup"}
		}},
	"gemini": {event: "SessionStart", shell: fireBash, keys: answerKeys, named: true,
		vars: func(cwd string) []string {
			return []string{"GEMINI_PROJECT_DIR=" + cwd, "GEMINI_CWD=" + cwd, "GEMINI_SESSION_ID=" + fireSession, "CLAUDE_PROJECT_DIR=" + cwd}
		},
		payload: func(cwd string) map[string]any {
			return map[string]any{"session_id": fireSession, "transcript_path": "", "cwd": cwd, "hook_event_name": "SessionStart", "timestamp": time.Now().UTC().Format(time.RFC3339), "source": "startup"}
		}},
	"copilot": {event: "sessionStart", shell: fireBash,
		vars: func(string) []string { return nil },
		payload: func(cwd string) map[string]any {
			return map[string]any{"sessionId": fireSession, "timestamp": time.Now().UnixMilli(), "cwd": cwd, "source": "new"}
		}},
	"cursor": {event: "sessionStart", shell: fireSh,
		vars: func(string) []string { return nil },
		payload: func(cwd string) map[string]any {
			return map[string]any{"hook_event_name": "sessionStart", "conversation_id": fireSession, "generation_id": fireSession, "workspace_roots": []string{cwd}}
		}},
	// opencode runs cully's plugin, which spawns the command with
	// --agent opencode through a shell (Node's shell: true).
	"opencode": {event: "session.created", shell: fireSh,
		vars: func(cwd string) []string { return []string{install.HookEnv, "OPENCODE_PROJECT_DIR=" + cwd} },
		payload: func(cwd string) map[string]any {
			return map[string]any{"hook_event_name": "session.created", "cwd": cwd, "session_id": fireSession}
		}},
}

// fireChecks fires every installed hook command here: each scope that
// wires cully, and the plugin a host runs cully as.
func (a *app) fireChecks(at hookbridge.Place) []check {
	cwd := at.Project
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	var cs []check
	fired := 0
	for _, ag := range agents.All() {
		in, ok := ag.(hookbridge.Installer)
		host, known := fireHosts[ag.Name()]
		if !ok || !known {
			continue
		}
		found, _ := wiring(in, at)
		for _, w := range found {
			cmd, env, dir, err := entryOf(in.Name(), w.t.Settings, host.event, w.cmd)
			where := fmt.Sprintf("fire: %s (%s, %s)", in.Title(), w.t.Scope, w.t.Settings)
			fix := "cully install" + installrun.AgentFlags(in) + w.t.Scope.Flags() + " (it writes this cully's command)"
			if err != nil {
				cs = append(cs, check{What: where + ": " + err.Error(), Fix: fix})
				continue
			}
			if dir == "" {
				dir = cwd
			}
			fired++
			cs = append(cs, a.fire(in, host, where, fix, cmd, env, dir))
			if tr, ok := in.(hookbridge.Truster); ok {
				cs = append(cs, trustFire(in, tr, w.t)...)
			}
		}
		if p, ok := installrun.PluginInstall(in, at); ok {
			cmd := pluginHookCommand(in.Name())
			if cmd == "" {
				continue
			}
			fired++
			where := fmt.Sprintf("fire: %s (its plugin, %s)", in.Title(), p.Where)
			cs = append(cs, a.fire(in, host, where, "put cully-hook on PATH, where the plugin runs it (CGO_ENABLED=0 go install ./cmd/cully-hook)", cmd, nil, cwd))
		}
	}
	if fired == 0 {
		cs = append(cs, check{What: "fire: no installed hook command to fire (cully is installed for no agent here)", Fix: "cully install"})
	}
	return cs
}

// fire runs one hook command as host does and judges what happened.
func (a *app) fire(in hookbridge.Installer, host fireHost, where, fix, cmd string, entryEnv []string, dir string) check {
	scratch, err := os.MkdirTemp("", "cully-fire-")
	if err != nil {
		return check{What: where + ": no scratch state dir: " + err.Error()}
	}
	defer os.RemoveAll(scratch)
	payload, _ := json.Marshal(host.payload(dir))
	ctx, cancel := context.WithTimeout(context.Background(), fireWait)
	defer cancel()
	argv := append(host.shell(a.getenv), cmd)
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	c.Dir = dir
	c.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "CULLY_HOME=") || strings.HasPrefix(kv, "CULLY_SNAPSHOTS=") || strings.HasPrefix(kv, "CULLY_DISCOVERY=")
	}), "CULLY_HOME="+scratch, "CULLY_SNAPSHOTS=off", "CULLY_DISCOVERY=off")
	c.Env = append(append(c.Env, host.vars(dir)...), entryEnv...)
	c.Stdin = bytes.NewReader(payload)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	run := c.Run()
	ran := fmt.Sprintf("`%s %q` in %s", strings.Join(argv[:len(argv)-1], " "), cmd, dir)
	switch {
	case ctx.Err() != nil:
		return check{What: fmt.Sprintf("%s: %s did not answer within %v", where, ran, fireWait), Fix: fix}
	case run != nil:
		return check{What: fmt.Sprintf("%s: %s failed (%v)%s", where, ran, run, fireFirstLine(errb.String())), Fix: fix}
	}
	rec, err := fireRecord(scratch)
	switch {
	case err != nil:
		why := ""
		if b, _ := os.ReadFile(filepath.Join(scratch, "errors.log")); len(b) > 0 {
			why = fireFirstLine(string(b))
		}
		return check{What: fmt.Sprintf("%s: %s ran, but %v%s", where, ran, err, why), Fix: fix}
	case rec.Agent != in.Name():
		return check{What: fmt.Sprintf("%s: %s ran, but cully recorded the call as %s's, not %s's: the command does not name the agent", where, ran, rec.Agent, in.Title()), Fix: fix}
	}
	if err := host.judge(out.Bytes()); err != nil {
		return check{What: fmt.Sprintf("%s: %s ran and was recorded, but its answer %v", where, ran, err), Fix: fix}
	}
	return check{OK: true, What: fmt.Sprintf("%s: %s ran, its record landed (%s, %s), its answer parses under %s's contract", where, ran, rec.Agent, rec.Hook, in.Title())}
}

// fireRecord is the synthetic call's record in the scratch journal.
type fireRec struct {
	Agent   string `json:"agent"`
	Session string `json:"session"`
	Hook    string `json:"hook"`
}

func fireRecord(dir string) (fireRec, error) {
	f, err := os.Open(store.Home{Dir: dir}.Journal())
	if errors.Is(err, os.ErrNotExist) {
		return fireRec{}, errors.New("no record reached the journal")
	}
	if err != nil {
		return fireRec{}, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r fireRec
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Session == fireSession {
			return r, nil
		}
	}
	return fireRec{}, errors.New("no record of the call reached the journal")
}

// judge checks an answer under the host's contract: nothing, or one JSON
// object with only the keys the host takes.
func (h fireHost) judge(out []byte) error {
	out = bytes.TrimSpace(out)
	if len(out) == 0 {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(out, &m); err != nil {
		return fmt.Errorf("is not one JSON object (%v): %.200q", err, out)
	}
	for k := range m {
		if h.keys != nil && !slices.Contains(h.keys, k) {
			return fmt.Errorf("has a key the host does not take: %q", k)
		}
	}
	if hs, ok := m["hookSpecificOutput"]; ok && h.named {
		var s struct {
			HookEventName string `json:"hookEventName"`
		}
		if json.Unmarshal(hs, &s) != nil || s.HookEventName != h.event {
			return fmt.Errorf("has a hookSpecificOutput for %q, not %s", s.HookEventName, h.event)
		}
	}
	return nil
}

// entryOf reads cully's entry for event in a settings file: its command
// line, the environment the entry sets, and its working directory when it
// names one (Copilot CLI's cwd, from the project root). opencode's is the
// command its plugin runs.
func entryOf(agent, settings, event, wired string) (cmd string, env []string, dir string, err error) {
	if agent == "opencode" {
		return wired + " --agent opencode", nil, "", nil
	}
	b, err := os.ReadFile(settings)
	if err != nil {
		return "", nil, "", err
	}
	var root struct {
		Hooks map[string][]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(b, &root); err != nil {
		return "", nil, "", fmt.Errorf("cannot read the entries: %v", err)
	}
	type entry struct {
		Command string            `json:"command"`
		Bash    string            `json:"bash"`
		Cwd     string            `json:"cwd"`
		Env     map[string]string `json:"env"`
		Hooks   []json.RawMessage `json:"hooks"`
	}
	var walk func([]json.RawMessage) (entry, bool)
	walk = func(items []json.RawMessage) (entry, bool) {
		for _, raw := range items {
			var e entry
			if json.Unmarshal(raw, &e) != nil {
				continue
			}
			if e.Command == "" {
				e.Command = e.Bash
			}
			if install.IsCullyCommand(e.Command) {
				return e, true
			}
			if found, ok := walk(e.Hooks); ok {
				return found, true
			}
		}
		return entry{}, false
	}
	e, ok := walk(root.Hooks[event])
	if !ok {
		return "", nil, "", fmt.Errorf("no entry of cully's for %s, the event the fire sends", event)
	}
	for k, v := range e.Env {
		env = append(env, k+"="+v)
	}
	slices.Sort(env)
	if e.Cwd != "" {
		dir = e.Cwd
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(settings))), dir) // .github/hooks/x.json: the repository
		}
	}
	return e.Command, env, dir, nil
}

// trustFire says whether Codex would run the entries it just fired: an
// entry it does not trust it skips without a word, so a fired command that
// works is not yet a hook that fires. It asks what doctor's own lines
// asked (trustChecks), once.
func trustFire(in hookbridge.Installer, tr hookbridge.Truster, t hookbridge.Target) []check {
	var cs []check
	for _, c := range trustChecks(tr, t) {
		if !c.OK && !c.Warn {
			cs = append(cs, check{What: "fire: the command works, but " + in.Title() + " will not run it: " + c.What, Fix: c.Fix})
		}
	}
	return cs
}

// trusted holds each target's trust checks for this run of doctor:
// asking Codex starts its app server, and doctor's lines and the fire's
// ask the same.
var trusted = map[string][]hookbridge.Check{}

func trustChecks(tr hookbridge.Truster, t hookbridge.Target) []hookbridge.Check {
	key := tr.Name() + "\x00" + string(t.Scope) + "\x00" + t.Settings
	cs, ok := trusted[key]
	if !ok {
		cs = tr.TrustChecks(t)
		trusted[key] = cs
	}
	return cs
}

// fireFirstLine is a process's first line of output, for a message.
func fireFirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return ""
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return ": " + s
}
