package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os/exec"
	"runtime"
	"time"

	"cully/engine"
	"cully/hookbridge"
)

// thenDeadline bounds the user's own status line run after cully's
// (--then): Claude Code redraws the status line often, and a command that
// hangs must not leave one process behind per redraw.
const thenDeadline = 10 * time.Second

// statuslineCmd is Claude Code's status-line command: it prints one line of
// cully state and records the host's own cost and context figures (only
// when they changed), so budgets use the host's numbers first. then, when
// set, is the user's own status-line command (ccusage, ccstatusline…): run
// after, with the same input, its output printed below cully's line. It
// never fails the status line: on any error it prints a short marker.
func (a *app) statuslineCmd(agent, then string) error {
	raw, err := io.ReadAll(io.LimitReader(a.stdin, 1<<20))
	line := "cully ?"
	if err == nil {
		line, err = a.statusline(agent, raw)
		if err != nil {
			line = "cully ?"
		}
	}
	if _, cerr := a.now(); cerr != nil {
		err = errors.Join(err, cerr) // a bad CULLY_NOW is logged; the line still shows
	}
	if err != nil {
		h, _ := a.home()
		if h.Dir != "" {
			_ = h.Ensure()
			_ = h.LogError("statusline", err, nil)
		}
	}
	fmt.Fprintln(a.stdout, line)
	if then != "" {
		if err := a.runThen(then, raw); err != nil {
			if h, herr := a.home(); herr == nil && h.Ensure() == nil {
				_ = h.LogError("statusline --then", err, nil)
			}
		}
	}
	return nil
}

// runThen runs the user's status-line command through the shell, as
// Claude Code runs it, with the status JSON on its stdin, and copies its
// output (what it printed before a failure or the deadline too).
func (a *app) runThen(command string, raw []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), thenDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, "cmd", "/C", command)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(raw), a.stdout, a.stderr
	cmd.WaitDelay = time.Second // a child it left holding the output does not hold the line
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("no answer within %s", thenDeadline)
		}
		return err // not the command's text: it may hold a secret, and errors.log keeps none
	}
	return nil
}

func (a *app) statusline(agent string, raw []byte) (string, error) {
	sl, err := adapter[hookbridge.StatusLiner](agent, "serve the status line of")
	if err != nil {
		return "", err
	}
	session, u, err := sl.StatusLine(raw)
	if err != nil {
		return "", err
	}
	if session == "" {
		return "cully · no session", nil
	}
	h, err := a.home()
	if err != nil {
		return "", err
	}
	st, err := h.ReadState(session, nil)
	if errors.Is(err, fs.ErrNotExist) {
		// No hook call has made this session yet (or no state dir): the
		// status line makes none, since a session of nothing but the host's
		// figures would be listed with no call in it. They are recorded at
		// the first refresh after the session's first hook call.
		return formatStatusline(engine.NewState(session), u, a.getenv("NO_COLOR") == ""), nil
	}
	if err != nil {
		st = engine.NewState(session)
	}
	if !st.Usage.Equal(u) {
		ev := &engine.Event{Agent: sl.Name(), Session: session, Kind: engine.KindHostUsage, Hook: "statusline", Usage: u}
		if _, err := a.record(h, ev); err != nil {
			return "", err
		}
		if st2, err := h.ReadState(session, nil); err == nil {
			st = st2
		}
	}
	return formatStatusline(st, u, a.getenv("NO_COLOR") == ""), nil
}

func formatStatusline(st *engine.State, u *engine.HostUsage, color bool) string {
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return "\x1b[" + code + "m" + s + "\x1b[0m"
	}
	var head string
	if r := st.Run; r != nil && (r.Halted != nil || r.Paused != nil) {
		// Never "on track": the run waits for the user, and says how it goes on.
		switch {
		case r.Halted != nil && r.Halted.By == engine.HaltStop:
			head = paint("31", "cully ■ stopped · cully resume")
		case r.Halted != nil:
			head = paint("31", "cully ■ halted ("+engine.HaltCause(r.Halted)+") · "+engine.ResumeCommand(r.Halted))
		default:
			head = paint("33", "cully ■ paused · cully resume")
		}
	} else if open := st.OpenCheckpoints(); len(open) > 0 {
		c := open[len(open)-1]
		head = paint("33", fmt.Sprintf("cully ⚑ checkpoint %s %s", c.ID, c.Reason))
		if len(open) > 1 {
			head += fmt.Sprintf(" (+%d)", len(open)-1)
		}
	} else if st.Events == 0 {
		head = paint("2", "cully · waiting for the first hook call")
	} else {
		head = paint("32", "cully ✓ on track")
	}
	s := fmt.Sprintf("%s · %d calls", head, st.Counts.ToolCalls)
	if u.CostUSD != nil {
		s += " · " + engine.USD(*u.CostUSD)
	}
	if u.ContextTokens != nil && u.ContextWindow != nil && *u.ContextWindow > 0 && *u.ContextTokens >= 0 {
		// Capped: a host's absurd figure would print a 20-digit percentage.
		if pct := 100 * float64(*u.ContextTokens) / float64(*u.ContextWindow); pct > 999 {
			s += " · ctx >999%"
		} else {
			s += fmt.Sprintf(" · ctx %d%%", int(math.Round(pct)))
		}
	}
	return s
}
