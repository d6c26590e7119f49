package tui

import (
	"fmt"
	"strings"

	"cully/engine"
)

// Glyphs of the activity list (the ? overlay's legend explains them).
const (
	glyphRead    = "R"
	glyphEdit    = "E"
	glyphPassed  = "✓"
	glyphFailed  = "✗"
	glyphUnknown = "?"
	glyphRun     = "$"
	glyphPoll    = "…"
	glyphAsk     = "↩"
	glyphOther   = "·"
	glyphPrompt  = "»"
	glyphStop    = "■"
	glyphCompact = "↺"
	glyphSession = "○"
	glyphRollbk  = "↶"
	glyphPause   = "‖"
	glyphResume  = "▸"
)

// legend pairs each glyph with what it means, for the ? overlay.
var legend = [][2]string{
	{glyphRead, "read or search (Read, Grep, cat, git log…)"},
	{glyphEdit, "edit (Edit, Write, sed -i, > file…)"},
	{glyphPassed, "check passed (tests, build, lint)"},
	{glyphFailed, "check failed, or a call the host refused"},
	{glyphUnknown, "check whose outcome is unknown"},
	{glyphRun, "other shell command"},
	{glyphPoll, "poll or wait (sleep, tail -f, BashOutput)"},
	{glyphAsk, "the user answered the agent"},
	{glyphOther, "other tool (subagents, task lists)"},
	{glyphPrompt, "your prompt: a new task"},
	{glyphStop, "the agent finished its turn"},
	{glyphCompact, "the agent's context was compacted"},
	{glyphSession, "session started or ended"},
	{glyphRollbk, "you rolled the run's files back (cully rollback)"},
	{glyphPause, "you paused the run (cully stop), or resumed it"},
}

// activityRow is one line of the activity list: how long ago, what kind
// of call, the tool, the command (shell) or the target (file tools), and
// the outcome when it was not plainly a success.
type activityRow struct {
	ev *engine.Event
	m  *Model
}

func (r activityRow) Render(w int) string { return r.Lines(w)[0] }

// Lines is the row at width w: one line, but a failed call's command (or
// target) wraps under itself, whole, beside its outcome, where one line
// would cut it: what failed is what the user reads the list for.
func (r activityRow) Lines(w int) []string {
	s, ev, now := r.m.styles, r.ev, r.m.now
	lead := s.Dim.Render(padLeft(agoShort(now, ev.Time), 3)) + " "
	if w >= 100 {
		lead = s.Dim.Render(clock(now, ev.Time)+" "+padLeft(agoShort(now, ev.Time), 3)) + " "
	}
	tw := 5
	if w >= 100 {
		tw = 9
	}
	glyph, gs := glyphOther, s.Dim
	tool, what := clean(ev.Tool), ""
	outcome, os := "", s.Dim
	failed := false
	switch ev.Kind {
	case engine.KindPrompt:
		return []string{lead + s.Section.Render(glyphPrompt) + " " + s.Text.Render(cut(fmt.Sprintf("prompt · task %d begins", ev.Task), w-width(lead)-2))}
	case engine.KindStop:
		return []string{lead + s.Dim.Render(glyphStop+" "+cut("turn ended", w-width(lead)-2))}
	case engine.KindCompact:
		return []string{lead + s.Dim.Render(glyphCompact+" "+cut("context compacted", w-width(lead)-2))}
	case engine.KindSessionStart:
		t := "session started"
		if ev.Source != "" && ev.Source != "startup" {
			t += " (" + clean(ev.Source) + ")"
		}
		return []string{lead + s.Dim.Render(glyphSession+" "+cut(t, w-width(lead)-2))}
	case engine.KindSessionEnd:
		return []string{lead + s.Dim.Render(glyphSession+" "+cut("session ended", w-width(lead)-2))}
	case engine.KindRollback:
		step := 0
		if ev.Step != nil {
			step = *ev.Step
		}
		if ev.Outcome == engine.OutcomeFailed {
			return []string{lead + s.Bad.Render(glyphRollbk+" "+cut(fmt.Sprintf("rollback to step %d failed: nothing changed", step), w-width(lead)-2))}
		}
		t := fmt.Sprintf("rolled back to step %d · %d %s", step, ev.PathCount, plural(ev.PathCount, "file", "files"))
		if ev.PathCount == 1 && len(ev.Paths) == 1 {
			t += " · " + clean(ev.Paths[0])
		}
		return []string{lead + s.Section.Render(glyphRollbk) + " " + s.Text.Render(cut(t, w-width(lead)-2))}
	case engine.KindPause:
		return []string{lead + s.Bad.Render(glyphPause+" "+cut("run paused", w-width(lead)-2))}
	case engine.KindResume:
		return []string{lead + s.Dim.Render(glyphResume+" "+cut("run resumed", w-width(lead)-2))}
	case engine.KindBatch:
		rj := ev.Rejected[0]
		glyph, gs = glyphFailed, s.Bad
		tool, what = clean(rj.Tool), clean(rj.Target)
		outcome, os, failed = "refused by the host", s.Bad, true
		if len(ev.Rejected) > 1 {
			outcome += fmt.Sprintf(" (+%d)", len(ev.Rejected)-1)
		}
	default:
		switch ev.Class {
		case engine.ClassRead:
			glyph = glyphRead
		case engine.ClassEdit:
			glyph = glyphEdit
		case engine.ClassCheck:
			glyph, gs = glyphPassed, s.Good
		case engine.ClassRun:
			glyph = glyphRun
		case engine.ClassPoll:
			glyph = glyphPoll
		case engine.ClassAsk:
			glyph = glyphAsk
		}
		what = clean(ev.Cmd)
		if what == "" {
			what = clean(ev.Target)
		}
		switch ev.Outcome {
		case engine.OutcomeFailed:
			if ev.Class == engine.ClassCheck {
				glyph, gs = glyphFailed, s.Bad
			}
			outcome, os, failed = "failed", s.Bad, true
			if ev.Exit != nil {
				outcome = fmt.Sprintf("exit %d", *ev.Exit)
			}
		case engine.OutcomeUnknown:
			if ev.Class == engine.ClassCheck {
				glyph, gs = glyphUnknown, s.Dim
			}
			outcome = "outcome unknown"
			if ev.Note != "" {
				outcome = clean(ev.Note)
			}
		}
		if t := ev.Tests; t != nil && t.Counted && ev.Class == engine.ClassCheck {
			switch {
			case t.Failed+t.Errors > 0:
				outcome = fmt.Sprintf("%s · %d failed", outcome, t.Failed+t.Errors)
				if ev.Outcome != engine.OutcomeFailed {
					outcome = fmt.Sprintf("%d failed", t.Failed+t.Errors)
				}
			case outcome == "":
				outcome = fmt.Sprintf("%d passed", t.Passed)
				os = s.Good
			}
		}
	}
	line := lead + gs.Render(glyph) + " " + s.Text.Render(pad(tool, tw)) + " "
	room := w - width(line)
	if outcome != "" {
		ow := min(width(outcome), max(room/2, 8))
		outcome = cut(outcome, ow)
		wr := room - ow - 2
		if wr < 4 { // too narrow for both: the outcome wins
			return []string{line + os.Render(cut(outcome, room))}
		}
		if failed && width(what) > wr {
			// The head beside the outcome, the rest under it across the
			// outcome's column too.
			head := wrap(what, wr)[0]
			rest := strings.TrimLeft(strings.TrimPrefix(what, head), " ")
			if !strings.HasPrefix(what, head) {
				head, rest = cut(what, wr), "" // not a prefix: wrap changed it; cut as before
			}
			out := []string{line + s.Text.Render(pad(head, wr)) + "  " + os.Render(outcome)}
			indent := strings.Repeat(" ", width(line))
			if rest != "" {
				for _, p := range wrap(rest, room) {
					out = append(out, indent+s.Text.Render(p))
				}
			}
			return out
		}
		return []string{line + s.Text.Render(cut(what, wr)) + "  " + os.Render(outcome)}
	}
	return []string{line + s.Text.Render(cut(what, room))}
}
