package main

import (
	"fmt"
	"strings"

	"cully/engine"
	"cully/tui"
)

// statusShort prints every live session's need in one line of plain text,
// for a terminal's title or tmux's status bar: "cully: 1 needs you
// (paused) · 2 working · 3 idle". Live is what the panel lists: active in
// the last tui.LiveWindow. Each session's need comes from its saved state
// (engine.State.Attention), never from the journal. A failure prints
// "cully: ?" (a status bar shows stdout) and says why on stderr.
func (a *app) statusShort() error {
	line, err := a.shortLine()
	if err != nil {
		fmt.Fprintln(a.stdout, "cully: ?")
		return err
	}
	fmt.Fprintln(a.stdout, line)
	return nil
}

func (a *app) shortLine() (string, error) {
	h, err := a.home()
	if err != nil {
		return "", err
	}
	now, err := a.now()
	if err != nil {
		return "", err
	}
	ss, err := h.Sessions()
	if err != nil {
		return "", stateDirError(h, err)
	}
	rules := a.config()
	var needs []engine.Attention
	for _, si := range ss {
		if si.LastSeen.IsZero() || now.Sub(si.LastSeen) >= tui.LiveWindow {
			continue
		}
		st, err := h.ReadState(si.ID, &rules)
		if err != nil {
			continue // gone since it was listed, or unreadable: `cully status --session` says why
		}
		needs = append(needs, st.Attention(now, -1))
	}
	return shortSummary(needs), nil
}

// shortSummary counts the needs, those that need the user first, and
// names the cause when one session needs them.
func shortSummary(needs []engine.Attention) string {
	if len(needs) == 0 {
		return "cully: no live session"
	}
	var n [3]int
	var cause engine.Cause
	for _, a := range needs {
		n[a.Need.Rank()]++
		if a.Need == engine.NeedYou {
			cause = a.Cause
		}
	}
	var parts []string
	if n[0] > 0 {
		p := fmt.Sprintf("%d needs you", n[0])
		if n[0] == 1 {
			p += " (" + shortCause(cause) + ")"
		}
		parts = append(parts, p)
	}
	if n[1] > 0 {
		parts = append(parts, fmt.Sprintf("%d working", n[1]))
	}
	if n[2] > 0 {
		parts = append(parts, fmt.Sprintf("%d idle", n[2]))
	}
	return "cully: " + strings.Join(parts, " · ")
}

func shortCause(c engine.Cause) string {
	switch c {
	case engine.CauseRollback:
		return "rollback failed"
	case engine.CauseWaiting:
		return "a call waits"
	}
	return string(c)
}
