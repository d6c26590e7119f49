package hookrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"cully/config"
	"cully/engine"
	"cully/env"
	"cully/hookbridge"
	"cully/hookbridge/agents"
	"cully/jsonlite"
	"cully/store"
)

// maxPayload bounds what the hook decodes. Real payloads are a few KiB; a
// Write of a large file can reach megabytes. Past this the hook records what
// the payload's head says and drains the rest, so the agent never sees a
// broken pipe.
const maxPayload = 16 << 20

// maxConfigReport is how many config problems a hook call records (then one
// line counting the rest; `cully doctor` lists more).
const maxConfigReport = 5

// IO is what a hook call may touch: its streams and environment.
type IO struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// Detach, when set, starts `cully ARGS...` in dir as a process of its
	// own that outlives the hook (the background snapshot); the binaries
	// set it to Detach. Without it no snapshot is started.
	Detach func(dir string, args []string) error
	// Wait, when set, runs `cully ARGS...` in dir and waits for it, at
	// most the duration given (the marks around a call that may change
	// files); the binaries set it to Wait. Without it no mark is taken.
	Wait func(dir string, args []string, wait time.Duration) error
	// Exit, when set, ends the process with status 0: a binary's main sets
	// it, so that a stdin that never ends is given up on by a timer,
	// without a reader goroutine on every call (the hook records why
	// first). Without it, the payload is read in a goroutine that can be
	// abandoned.
	Exit func()
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
// the agent does not show the model). The caller exits 0. A call whose
// record did not reach the journal says so on stderr in any case (see
// hookFailed).
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
	agent, err := agents.ForCall(name, a.Getenv)
	if err != nil {
		return nil, nil, err
	}
	raw, total, err := a.readPayload(h, maxPayload)
	if err != nil {
		return nil, nil, fmt.Errorf("read payload: %w", err)
	}
	e := env.Env{Getenv: a.Getenv}
	now, clockErr := e.Now()
	_, lockErr := e.LockWait() // the wait itself is already h's
	// The configuration comes from its cache (a stat of each config file and
	// one small read), parsed again only when a file changed — and at each
	// session start, below.
	project := e.ProjectDir(agent.ProjectVars()...)
	src := e.ConfigSources(project)
	src.StateDirOK = func() bool { // asked only when a config file exists: Record checks the dir anyway
		err := h.Check()
		return err == nil || errors.Is(err, fs.ErrNotExist)
	}
	ld, parsed, cacheErr := config.Cached(src, false)
	cfg := ld.Config
	benv := hookbridge.Env{
		Now:    now,
		Getenv: a.Getenv,
		Stat:   os.Stat,
		Open:   hookbridge.OpenRegular,
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
	if ev == nil && err != nil && emptyObject(raw) {
		// `echo '{}' | cully-hook`, the troubleshooting tip that checks the
		// command runs: no host's call (a host whose events come as {}
		// decodes them above), so nothing to record, answer or log.
		return nil, nil, nil
	}
	if ev == nil {
		return nil, nil, err
	}
	if ev.Kind == engine.KindSessionStart && !parsed {
		ld, parsed, cacheErr = config.Cached(src, true) // a session starts from the files as they are
		cfg = ld.Config
	}
	// Errors that do not stop the record are logged beside it. The config's
	// problems are reported when its files were parsed: at a session start,
	// or when one changed (then once, as the cache is rewritten) — at most a
	// few lines, however many mistakes a file holds.
	var cfgErrs []error
	if parsed && (ev.Kind == engine.KindSessionStart || cacheErr == nil) {
		cfgErrs = ld.Report(maxConfigReport)
		if cacheErr != nil && !errors.Is(cacheErr, config.ErrNoStateDir) {
			cfgErrs = append(cfgErrs, cacheErr)
		}
	}
	for i, e := range append(cfgErrs, clockErr, lockErr, err) {
		if e != nil {
			op := "hook"
			if i < len(cfgErrs) {
				op = "config"
			}
			logCall(h, op, e, ev)
		}
	}
	// What this call knows beyond the payload, set again after an adapter's
	// Complete: Codex's decodes the payload anew once its rollout gives the
	// call's exit code, and replaced the event whole, so CULLY_SNAPSHOTS=off
	// and the host's trace were lost on every Codex call it completed.
	trace, noSnaps := hookbridge.TraceParent(a.Getenv("TRACEPARENT")), !e.Snapshots()
	pane := hookbridge.TmuxPane(a.Getenv("TMUX_PANE")) // tmux sets it in the agent's shell; its hooks inherit it
	stamp := func(ev *engine.Event) {
		if ev.Session == "" {
			ev.Session = "unknown"
		}
		ev.TraceParent = trace // the host's trace, when it passes one
		ev.NoSnapshots = noSnaps
		if ev.Kind == engine.KindSessionStart || ev.Kind == engine.KindPrompt {
			ev.Pane = pane // where the agent runs, for the panel's g
		}
	}
	stamp(ev)
	var complete func(*engine.Event, *engine.State)
	if c, ok := agents.CompleterFor(agent); ok && total <= maxPayload {
		complete = func(ev *engine.Event, st *engine.State) { c.Complete(raw, benv, ev, st); stamp(ev) }
	}
	var st *engine.State // the session's state, which the rules then update in place
	if len(ld.Workers.Advisor) > 0 {
		inner := complete
		complete = func(ev *engine.Event, s *engine.State) {
			st = s
			if inner != nil {
				inner(ev, s)
			}
		}
	}
	rec, err := h.RecordCall(ev, &cfg, complete)
	if err != nil {
		var lost *store.NotRecordedError
		if errors.Is(err, store.ErrUnsafe) && !errors.As(err, &lost) {
			return refusedAnswer(agent, ev, err, e.NoticeDir()), ev, err
		}
		return nil, ev, err
	}
	sigs := rec.Signals
	notice, given := "", func() {}
	switch {
	case rec.Pending && h.NoticeDue(ev.Session):
		notice, given = blockedNotice(h), func() { h.NoticeGiven(ev.Session) } // once a session, until the backlog is folded
	case rec.Unlocked && h.SessionNoticeDue(ev.Session):
		notice, given = heldNotice(h, ev.Session), func() { h.SessionNoticeGiven(ev.Session) } // once, until the state is caught up
	}
	a.mark(h, ev, sigs, project)
	a.startSnapshot(h, ev, sigs, project, &cfg)
	a.startRollback(h, ev, sigs, project)
	if st != nil && a.Getenv(workerEnv) == "" && adviseDue(ev, sigs, st, len(ld.Workers.Discovery) > 0 && a.Getenv("CULLY_DISCOVERY") != "off") {
		if err := startAdvisor(ev.Session); err != nil {
			logCall(h, "advisor", err, ev)
		}
	}
	if reason := engine.Halt(sigs); reason != "" {
		if h, ok := agents.HalterFor(agent); ok {
			if !engine.HaltEnds(sigs) { // this call alone is refused: the agent goes on
				return h.EncodeRefuse(ev.Hook, reason, engine.Nudge(sigs)), ev, nil
			}
			return h.EncodeHalt(ev.Hook, reason, engine.Nudge(sigs)), ev, nil
		}
		// A host that cannot refuse a call is told why it should stop.
		return agent.Encode(ev.Hook, strings.TrimSpace(reason+"\n"+engine.Nudge(sigs))), ev, nil
	}
	out := agent.Encode(ev.Hook, strings.TrimSpace(engine.Nudge(sigs)+"\n\n"+notice))
	if notice != "" && len(out) > 0 {
		given()
	}
	return out, ev, nil
}

// heldNotice tells the agent, once, that its session's lock is held by
// another process, so its calls are recorded without it (store's
// unlocked.go).
func heldNotice(h store.Home, session string) string {
	return "cully: another process holds " + h.StatePath(session) +
		" (a `flock` left running?), so this session's calls are recorded without its lock (none lost), and its state is caught up once it ends. Tell the user; `cully doctor` names the process to end."
}

// blockedNotice tells the agent, once a session, that its calls wait in
// pending/ because someone holds the journal lock (store/pending.go):
// nothing is lost, but the panel and status fall behind until the holder
// ends, and the user is the one to end it.
func blockedNotice(h store.Home) string {
	return "cully: recording is blocked: another process holds " + h.JournalLock() +
		" (a `flock` left running?), so this session's calls wait in " + h.PendingDir() +
		" (none lost). Tell the user; `cully doctor` names the process to end."
}

// refusedAnswer tells the agent, once a session (noted in dir, outside the
// refused state dir), that cully records nothing because its state dir
// fails the trust checks, and the fix; nil once told, or when this event's
// answer carries no text (the next one that does tells it).
func refusedAnswer(agent hookbridge.Agent, ev *engine.Event, err error, dir string) []byte {
	if !store.RefusedNoticeDue(dir, ev.Session) {
		return nil
	}
	what, fix := store.Refusal(err)
	text := "cully: recording is off for this session: its state dir is refused (" + what + ")."
	if fix != "" {
		text += " Tell the user; the fix: " + fix
	}
	out := agent.Encode(ev.Hook, text)
	if len(out) > 0 {
		store.RefusedNoticeGiven(dir, ev.Session)
	}
	return out
}

// stdinWait bounds how long the hook waits for more of its payload: a host
// writes the payload and closes stdin within microseconds, so a stdin that
// stays silent this long is broken, and the hook records why and lets the
// agent go, inside the host's hook timeout (5 s as cully installs it). The
// wait restarts whenever bytes arrive, so a slow but live host (or a
// machine too loaded to run the hook promptly) is not cut off.
// CULLY_STDIN_TIMEOUT (a Go duration) changes it.
const stdinWait = 4 * time.Second

// errSilent: stdin stayed silent for the whole wait.
var errSilent = errors.New("stdin stayed silent")

// readPayload reads at most max bytes, drains the rest, and returns the
// total size seen. It stops as soon as it holds one whole JSON object (a
// host that leaves stdin open costs nothing), and waits at most stdinWait
// for the payload to end.
func (a IO) readPayload(h store.Home, max int64) ([]byte, int64, error) {
	wait := stdinWait
	if v := a.Getenv("CULLY_STDIN_TIMEOUT"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			wait = d
		}
	}
	stalled := fmt.Errorf("%w for %v: no whole payload read", errSilent, wait)
	if a.Exit != nil {
		t := time.AfterFunc(wait, func() {
			a.hookFailed(h, stalled, nil)
			a.Exit()
		})
		defer t.Stop()
		return readAll(a.Stdin, max, func() { t.Reset(wait) })
	}
	r := a.Stdin
	type result struct {
		raw   []byte
		total int64
		err   error
	}
	done := make(chan result, 1)
	go func() {
		raw, total, err := readAll(r, max, nil)
		done <- result{raw, total, err}
	}()
	select {
	case res := <-done:
		return res.raw, res.total, res.err
	case <-time.After(wait):
		return nil, 0, stalled
	}
}

// readAll reads the payload; progress, when set, is called whenever bytes
// arrive.
func readAll(r io.Reader, max int64, progress func()) ([]byte, int64, error) {
	buf := make([]byte, 0, 16<<10)
	lr := io.LimitReader(r, max+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if n > 0 && progress != nil {
			progress()
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return buf, int64(len(buf)), err
		}
		if n > 0 && wholeObject(buf) {
			return buf, int64(len(buf)), nil
		}
	}
	total := int64(len(buf))
	if total > max {
		// The rest is read to its end (a host writing into a pipe must not
		// be left blocked on it), but not past drainMax: a stdin that never
		// ends (a host wired to /dev/zero) would keep the hook forever.
		n, _ := io.CopyBuffer(io.Discard, io.LimitReader(r, drainMax), make([]byte, 1<<20))
		total += n
		buf = buf[:max]
	}
	return buf, total, nil
}

// drainMax bounds what readAll reads past the payload's limit: four times
// the limit, more than any host writes, and read in 1 MiB reads (64 of
// them, a few milliseconds of /dev/zero).
const drainMax = 64 << 20

// wholeObject reports whether buf already holds one complete JSON object
// and nothing more is coming. It is asked only when buf ends in '}' (a
// large payload is not rescanned on every read), so that a host that keeps
// stdin open after the payload is answered without waiting for an end
// that never comes.
func wholeObject(buf []byte) bool {
	end := bytes.TrimRight(buf, " \t\r\n")
	if len(end) == 0 || end[len(end)-1] != '}' {
		return false
	}
	return jsonlite.Members(end, nil) == nil // validates without building the members' map Decode builds next
}

// logCall logs an error of a hook call beside its record. Not inlined on
// purpose: a map literal inlined into hook took a few hundred bytes of its
// stack frame (see GrowStack).
//
//go:noinline
func logCall(h store.Home, op string, err error, ev *engine.Event) {
	_ = h.Ensure()
	_ = h.LogError(op, err, map[string]any{"session": ev.Session, "hook": ev.Hook})
}

// hookFailed records a hook failure. The event, when there is one, is kept
// in the record so nothing the agent did is lost.
//
// A record that did not reach the journal (store.NotRecordedError: a full
// disk, a state dir gone read-only, a session's lock held too long; a held
// journal lock loses nothing, see store/pending.go) is also said on
// stderr, one line, whether or not errors.log took it: the disk that
// refused the journal usually refuses errors.log too, and the store's
// failure counter is for the next `cully status`, not for now. stdout
// stays the agent's answer alone. What hosts do with a hook's stderr when
// it exits 0: Claude Code shows it in verbose mode only; Gemini CLI
// ignores it, or (in versions whose hook runner reads stderr when stdout
// is empty) turns the plain text into a message for the user with no
// decision beyond "allow" (the line is never JSON, so never a decision of
// its own); opencode's plugin drops it. The other hosts' handling was not checked: wherever the line
// goes, the counter is what status, doctor and the panel read.
func (a IO) hookFailed(h store.Home, err error, ev *engine.Event) {
	extra := map[string]any{}
	if ev != nil {
		if b, mErr := json.Marshal(ev); mErr == nil {
			extra["event"] = json.RawMessage(b)
		}
	}
	var lost *store.NotRecordedError
	if errors.As(err, &lost) {
		if h.Dir != "" {
			_ = h.LogError("hook", err, extra)
		}
		a.stderrLine("recording failed, this call is not in cully's journal: " + lost.Reason + "; fix: " + lost.Fix)
		return
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
	// The last resort, when not even errors.log can be written: one short
	// line, which the host does not show the model.
	a.stderrLine(err.Error())
}

// stderrLine writes msg's first line to stderr, cut to maxStderr.
func (a IO) stderrLine(msg string) {
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if r := []rune(msg); len(r) > maxStderr {
		msg = string(r[:maxStderr-1]) + "…"
	}
	fmt.Fprintf(a.Stderr, "cully hook: %s\n", msg)
}

// maxStderr bounds the one line the hook may write to stderr.
const maxStderr = 200

// emptyObject reports whether raw is the JSON object {} (space around and
// inside it allowed).
func emptyObject(raw []byte) bool {
	b := bytes.TrimSpace(raw)
	return len(b) >= 2 && b[0] == '{' && b[len(b)-1] == '}' && len(bytes.TrimSpace(b[1:len(b)-1])) == 0
}
