// Package hookbridge holds one adapter per agent hook protocol: it decodes
// the agent's payload into the common engine.Event and encodes the engine's
// signals into that agent's output contract.
//
// Invariants:
//   - Decoding is tolerant: unknown fields are ignored, missing ones stay
//     unknown (nil), and nothing from the payload is used as a path without
//     the caller sanitizing it.
//   - No file contents, tool output or prompt text leave this package: only
//     metadata, fingerprints and redacted previews.
//   - Encoders write exactly one JSON object or nothing; they never emit a
//     permission decision or a block.
package hookbridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"cully/engine"
	"cully/jsonlite"
)

// Env is what an adapter may know besides the payload: the clock reading,
// the host's environment variables and a file stat (injected so tests and
// replays control them).
type Env struct {
	Now    time.Time
	Getenv func(string) string
	Stat   func(string) (fs.FileInfo, error)
	Config *engine.Config
	Quiet  bool // CULLY_GUARD=off
}

// ErrEmpty is returned for an empty payload.
var ErrEmpty = errors.New("empty payload")

// parseExitCode reads Claude Code's "Exit code N" error prefix; it returns
// the code, the text after that first line, and whether the prefix was there.
func parseExitCode(msg string) (int, string, bool) {
	const prefix = "Exit code "
	if !strings.HasPrefix(msg, prefix) {
		return 0, msg, false
	}
	rest := msg[len(prefix):]
	end := strings.IndexByte(rest, '\n')
	line := rest
	if end >= 0 {
		line, rest = rest[:end], rest[end+1:]
	} else {
		rest = ""
	}
	n, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		return 0, msg, false
	}
	return n, rest, true
}

// DecodeClaude turns one Claude Code hook payload into an Event.
func DecodeClaude(raw []byte, env Env) (*engine.Event, error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return nil, ErrEmpty
	}
	p, err := jsonlite.ParseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("decode Claude Code payload: %w", err)
	}
	hook := p.Str("hook_event_name")
	if hook == "" {
		return nil, errors.New("decode Claude Code payload: no hook_event_name")
	}
	ev := &engine.Event{
		V:         engine.SchemaVersion,
		Time:      env.Now.UTC(),
		Agent:     "claude",
		Session:   p.Str("session_id"),
		Hook:      hook,
		Subagent:  p.Str("agent_id"),
		Cwd:       p.Str("cwd"),
		Tool:      p.Str("tool_name"),
		ToolUseID: p.Str("tool_use_id"),
		Quiet:     env.Quiet,
	}
	if ev.Session == "" {
		ev.Session = env.getenv("CLAUDE_CODE_SESSION_ID")
	}
	switch env.getenv("CLAUDE_CODE_SESSION_ATTENDED") {
	case "0":
		f := false
		ev.Attended = &f
	case "1":
		t := true
		ev.Attended = &t
	}
	switch hook {
	case "SessionStart":
		ev.Kind, ev.Source = engine.KindSessionStart, p.Str("source")
	case "SessionEnd":
		ev.Kind, ev.Source = engine.KindSessionEnd, p.Str("reason")
	case "UserPromptSubmit":
		ev.Kind = engine.KindPrompt
	case "PreToolUse":
		ev.Kind = engine.KindPreTool
	case "PostToolUse", "PostToolUseFailure":
		ev.Kind = engine.KindPostTool
	case "PostToolBatch":
		ev.Kind = engine.KindBatch
	case "PreCompact":
		ev.Kind, ev.Source = engine.KindCompact, p.Str("trigger")
	case "Stop", "StopFailure":
		ev.Kind = engine.KindStop
	case "SubagentStart":
		ev.Kind, ev.Source = engine.KindSubagent, "start"
	case "SubagentStop":
		ev.Kind, ev.Source = engine.KindSubagent, "stop"
	case "Notification":
		ev.Kind = engine.KindNotify
	default:
		ev.Kind = engine.KindOther
	}
	switch ev.Kind {
	case engine.KindPreTool, engine.KindPostTool:
		decodeTool(ev, p, env)
	case engine.KindBatch:
		ev.Rejected = decodeRejected(p, env)
	}
	return ev, nil
}

// rejectedMark starts the batch's tool_response of a call the client
// refused in validation, before any PreToolUse/PostToolUse hook: such a
// call shows up nowhere else (protocol notes §2; capture 028).
const rejectedMark = "<tool_use_error>"

// decodeRejected finds the batch's calls that no tool hook saw.
func decodeRejected(p jsonlite.Object, env Env) []engine.Rejected {
	var out []engine.Rejected
	for _, raw := range p.Items("tool_calls") {
		call := jsonlite.AsObject(raw)
		resp, ok := jsonlite.Unquote(call["tool_response"])
		if !ok || !strings.HasPrefix(resp, rejectedMark) {
			continue
		}
		msg := strings.TrimSuffix(strings.TrimPrefix(resp, rejectedMark), "</tool_use_error>")
		sub := jsonlite.Object{"tool_name": call["tool_name"], "tool_input": call["tool_input"], "cwd": p["cwd"]}
		ev := &engine.Event{Tool: call.Str("tool_name"), Kind: engine.KindPreTool}
		decodeTool(ev, sub, Env{Getenv: env.Getenv, Config: env.Config}) // no stat: nothing ran
		out = append(out, engine.Rejected{Tool: ev.Tool, Class: ev.Class, Target: ev.Target, FP: ev.CmdFP,
			Sig: engine.FailureSignature(nil, msg)})
	}
	return out
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// decodeTool fills class, target, command and outcome of a tool event.
func decodeTool(ev *engine.Event, p jsonlite.Object, env Env) {
	in := p.Sub("tool_input") // tolerant: a shape we do not know leaves fields empty
	cwd := p.Str("cwd")
	cfg := env.Config
	if cfg == nil {
		d := engine.DefaultConfig()
		cfg = &d
	}
	projectDir := env.getenv("CLAUDE_PROJECT_DIR")
	if projectDir == "" {
		projectDir = cwd
	}
	ev.Class = engine.ClassifyTool(ev.Tool)
	var absTarget string
	var shell engine.Shell
	isShell := engine.IsShellTool(ev.Tool)
	background := in.Bool("run_in_background")
	switch {
	case isShell:
		command := in.Str("command")
		shell = engine.ClassifyShell(command, cfg)
		ev.Class = shell.Class
		ev.Changes = shell.Changes
		norm := engine.NormalizeCommand(Redact(command))
		ev.Cmd = truncate(norm, previewRunes)
		if norm != "" {
			ev.CmdFP = engine.Fingerprint(norm)
		}
		if background && ev.Class != engine.ClassPoll {
			ev.Note = "background"
		}
		if shell.Target != "" {
			absTarget = absPath(shell.Target, cwd)
			ev.Ranged = shell.Ranged
		}
	default:
		path := in.Str("file_path")
		if path == "" {
			path = in.Str("notebook_path")
		}
		if path == "" && ev.Class == engine.ClassRead && strings.EqualFold(ev.Tool, "LS") {
			path = in.Str("path")
		}
		if path != "" {
			absTarget = absPath(path, cwd)
		}
		ev.Ranged = in.Present("offset") || in.Present("limit") || in.Present("pages")
	}
	if absTarget != "" {
		ev.Target = relPath(absTarget, projectDir)
		if !isShell && (ev.Class == engine.ClassRead || ev.Class == engine.ClassEdit) {
			// The same tool failing on the same file is "the same command"
			// for the retry rules (a missing file read again and again).
			ev.CmdFP = engine.Fingerprint("tool:"+ev.Tool, ev.Target)
		}
		if env.Stat != nil && (ev.Class == engine.ClassRead || ev.Class == engine.ClassEdit) {
			if fi, err := env.Stat(absTarget); err == nil && fi.Mode().IsRegular() {
				size, mt := fi.Size(), fi.ModTime().UTC()
				ev.Size, ev.Mtime = &size, &mt
			}
		}
	}
	if ev.Kind != engine.KindPostTool {
		return
	}
	// Outcome: PostToolUse means success, PostToolUseFailure a failure, with
	// the exit code parsed from the error text where the host put it.
	if ev.Hook == "PostToolUse" {
		ev.Outcome = engine.OutcomeOK
		if isShell {
			resp := p.Sub("tool_response")
			switch {
			case resp.Bool("interrupted"):
				ev.Outcome, ev.Note = engine.OutcomeUnknown, "interrupted"
			case resp.Str("backgroundTaskId") != "" || background:
				ev.Outcome, ev.Note = engine.OutcomeUnknown, "background"
			default:
				zero := 0
				ev.Exit = &zero
			}
		}
	} else {
		ev.Outcome = engine.OutcomeFailed
		msg := errorText(p["error"])
		code, body, ok := parseExitCode(msg)
		if ok {
			ev.Exit = &code
		}
		switch {
		case p.Bool("is_interrupt"):
			ev.Outcome, ev.Note = engine.OutcomeUnknown, "interrupted"
		case strings.Contains(body, "Command timed out"):
			ev.Note = "timeout"
		}
		if ev.Outcome == engine.OutcomeFailed {
			ev.FailSig = engine.FailureSignature(ev.Exit, body)
		}
	}
	// A check whose status is hidden behind a pipe or ';' proves nothing.
	if ev.Class == engine.ClassCheck && shell.Masked && ev.Outcome == engine.OutcomeOK {
		ev.Outcome, ev.Note = engine.OutcomeUnknown, "masked"
	}
}

func errorText(raw []byte) string {
	if s, ok := jsonlite.Unquote(raw); ok {
		return s
	}
	return string(raw)
}

func absPath(p, cwd string) string {
	if strings.HasPrefix(p, "~/") {
		return p // not expanded: the host's HOME is not ours to guess
	}
	if !filepath.IsAbs(p) && cwd != "" {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// relPath makes a path project-relative when it lies inside the project.
func relPath(abs, project string) string {
	if project == "" || !filepath.IsAbs(abs) {
		return abs
	}
	rel, err := filepath.Rel(project, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return abs
	}
	return rel
}

// claudeAnswer is the PreToolUse/PostToolUse answer shape that reaches the
// model: hookSpecificOutput.additionalContext (protocol notes, section 4).
type claudeAnswer struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// contextEvent reports whether additionalContext on a Claude Code event
// reaches the model (protocol notes, section 4).
func contextEvent(hookEvent string) bool {
	switch hookEvent {
	case "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "UserPromptSubmit", "SessionStart":
		return true
	}
	return false
}

// EncodeClaude returns the answer for a hook event: one JSON object carrying
// the nudge as additional context, or nothing. It never sets a permission
// decision, never blocks and never stops the agent.
func EncodeClaude(hookEvent string, nudge string) []byte {
	if nudge == "" || !contextEvent(hookEvent) {
		return nil
	}
	var a claudeAnswer
	a.HookSpecificOutput.HookEventName = hookEvent
	a.HookSpecificOutput.AdditionalContext = nudge
	b, _ := json.Marshal(a)
	return append(b, '\n')
}
