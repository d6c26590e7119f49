package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"cully/engine"
	"cully/hookbridge"
	"cully/ledger"
)

// maxPayload bounds what the hook decodes. Real payloads are a few KiB; a
// Write of a large file can reach megabytes. Past this the hook records what
// the payload's head says and drains the rest, so the agent never sees a
// broken pipe.
const maxPayload = 16 << 20

// cmdHook handles one hook call. It never breaks the agent: whatever goes
// wrong, it exits 0, prints nothing or a valid answer, and records the error
// in errors.log (or, when even that is impossible, one line on stderr, which
// the agent does not show the model).
func cmdHook(a *app, args []string) error {
	fs := a.flags("hook")
	agent := fs.String("agent", "claude", "the agent protocol: claude, codex, gemini or cursor")
	fs.SetOutput(io.Discard) // the agent owns our streams
	if err := fs.Parse(args); err != nil {
		*agent = "claude"
	}
	h, herr := a.home()
	defer func() {
		if r := recover(); r != nil {
			a.hookFailed(h, fmt.Errorf("panic: %v\n%s", r, debug.Stack()), nil)
		}
	}()
	if herr != nil {
		a.hookFailed(h, herr, nil)
		return nil
	}
	out, ev, err := a.hook(h, *agent)
	if err != nil {
		a.hookFailed(h, err, ev)
	}
	if len(out) > 0 {
		_, _ = a.stdout.Write(out)
	}
	return nil
}

func (a *app) hook(h ledger.Home, agent string) ([]byte, *engine.Event, error) {
	if a.getenv("CULLY_FAULT") == "panic" { // fault injection for the never-break-the-agent tests
		panic("injected fault (CULLY_FAULT=panic)")
	}
	raw, total, err := readPayload(a.stdin, maxPayload)
	if err != nil {
		return nil, nil, fmt.Errorf("read payload: %w", err)
	}
	now, clockErr := a.now()
	project := a.projectDir()
	cfg, cfgErrs := a.config(project)
	env := hookbridge.Env{
		Now:    now,
		Getenv: a.getenv,
		Stat:   os.Stat,
		Config: &cfg,
		Quiet:  a.getenv("CULLY_GUARD") == "off",
	}
	var ev *engine.Event
	switch agent {
	case "claude", "":
		if total > maxPayload {
			ev = hookbridge.DecodeOversize("claude", raw, total, env)
			err = fmt.Errorf("payload of %d bytes is over the %d-byte limit: recorded from its head", total, maxPayload)
		} else {
			ev, err = hookbridge.DecodeClaude(raw, env)
		}
	default:
		return nil, nil, fmt.Errorf("agent %q is not supported yet (supported: claude)", agent)
	}
	if ev == nil {
		return nil, nil, err
	}
	// Errors that do not stop the record are logged beside it.
	for _, e := range append(cfgErrs, clockErr, err) {
		if e != nil {
			_ = h.Ensure()
			_ = h.LogError("hook", e, map[string]any{"session": ev.Session, "hook": ev.Hook})
		}
	}
	if ev.Session == "" {
		ev.Session = "unknown"
	}
	sigs, err := h.Record(ev, &cfg)
	if err != nil {
		return nil, ev, err
	}
	return hookbridge.EncodeClaude(ev.Hook, engine.Nudge(sigs)), ev, nil
}

// readPayload reads at most max bytes, drains the rest, and returns the
// total size seen.
func readPayload(r io.Reader, max int64) ([]byte, int64, error) {
	raw, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return raw, int64(len(raw)), err
	}
	total := int64(len(raw))
	if total > max {
		n, _ := io.Copy(io.Discard, r)
		total += n
		raw = raw[:max]
	}
	return raw, total, nil
}

// hookFailed records a hook failure. The event, when there is one, is kept
// in the record so nothing the agent did is lost.
func (a *app) hookFailed(h ledger.Home, err error, ev *engine.Event) {
	extra := map[string]any{}
	if ev != nil {
		if b, mErr := json.Marshal(ev); mErr == nil {
			extra["event"] = json.RawMessage(b)
		}
	}
	if h.Dir != "" {
		_ = h.Ensure()
		if h.LogError("hook", err, extra) == nil {
			return
		}
	}
	fmt.Fprintf(a.stderr, "cully hook: %v\n", err)
}
