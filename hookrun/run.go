package hookrun

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"cully/engine"
	"cully/env"
	"cully/hookbridge"
	"cully/hookbridge/agents"
	"cully/store"
)

// maxPayload bounds what the hook decodes. Real payloads are a few KiB; a
// Write of a large file can reach megabytes. Past this the hook records what
// the payload's head says and drains the rest, so the agent never sees a
// broken pipe.
const maxPayload = 16 << 20

// IO is what a hook call may touch: its streams and environment.
type IO struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
}

// Agent picks the protocol from the hook's arguments (`--agent NAME` or
// `--agent=NAME`); unknown flags are ignored, never fatal: the agent owns
// our streams and must not see a usage message.
func Agent(args []string) string {
	for i, a := range args {
		switch {
		case (a == "--agent" || a == "-agent") && i+1 < len(args):
			return args[i+1]
		case strings.HasPrefix(a, "--agent="):
			return strings.TrimPrefix(a, "--agent=")
		case strings.HasPrefix(a, "-agent="):
			return strings.TrimPrefix(a, "-agent=")
		}
	}
	return agents.Default
}

// Run handles one hook call. It never breaks the agent: whatever goes
// wrong, it prints nothing or a valid answer and records the error in
// errors.log (or, when even that is impossible, one line on stderr, which
// the agent does not show the model). The caller exits 0.
func Run(a IO, agent string) {
	h, herr := env.Env{Getenv: a.Getenv}.Home()
	defer func() {
		if r := recover(); r != nil {
			a.hookFailed(h, fmt.Errorf("panic: %v\n%s", r, debug.Stack()), nil)
		}
	}()
	if herr != nil {
		a.hookFailed(h, herr, nil)
		return
	}
	out, ev, err := a.hook(h, agent)
	if err != nil {
		a.hookFailed(h, err, ev)
	}
	if len(out) > 0 {
		_, _ = a.Stdout.Write(out)
	}
}

func (a IO) hook(h store.Home, name string) ([]byte, *engine.Event, error) {
	if a.Getenv("CULLY_FAULT") == "panic" { // fault injection for the never-break-the-agent tests
		panic("injected fault (CULLY_FAULT=panic)")
	}
	agent, err := agents.Lookup(name)
	if err != nil {
		return nil, nil, err
	}
	raw, total, err := readPayload(a.Stdin, maxPayload)
	if err != nil {
		return nil, nil, fmt.Errorf("read payload: %w", err)
	}
	e := env.Env{Getenv: a.Getenv}
	now, clockErr := e.Now()
	cfg, cfgErrs := e.Config(e.ProjectDir(agent.ProjectVars()...))
	benv := hookbridge.Env{
		Now:    now,
		Getenv: a.Getenv,
		Stat:   os.Stat,
		Config: &cfg,
		Quiet:  e.Quiet(),
	}
	var ev *engine.Event
	if total > maxPayload {
		ev = agent.DecodeHead(raw, total, benv)
		err = fmt.Errorf("payload of %d bytes is over the %d-byte limit: recorded from its head", total, maxPayload)
	} else {
		ev, err = agent.Decode(raw, benv)
	}
	if ev == nil {
		return nil, nil, err
	}
	// Errors that do not stop the record are logged beside it. A bad config
	// file is reported once per session start and prompt, not on every tool
	// call, so one mistake does not flood errors.log.
	if ev.Kind != engine.KindSessionStart && ev.Kind != engine.KindPrompt {
		cfgErrs = nil
	}
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
	return agent.Encode(ev.Hook, engine.Nudge(sigs)), ev, nil
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
func (a IO) hookFailed(h store.Home, err error, ev *engine.Event) {
	extra := map[string]any{}
	if ev != nil {
		if b, mErr := json.Marshal(ev); mErr == nil {
			extra["event"] = json.RawMessage(b)
		}
	}
	if h.Dir != "" {
		_ = h.Ensure()
		lerr := h.LogError("hook", err, extra)
		if lerr == nil {
			return
		}
		if lerr.Error() != err.Error() { // say why errors.log could not take it (a refused state dir says so once)
			fmt.Fprintf(a.Stderr, "cully hook: %v (not logged: %v)\n", err, lerr)
			return
		}
	}
	fmt.Fprintf(a.Stderr, "cully hook: %v\n", err)
}
