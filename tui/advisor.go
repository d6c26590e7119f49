package tui

import (
	"fmt"
	"strings"
	"time"

	"cully/ledger"
)

// The advisor in the panel: its standing as `cully status` reports it
// (advisor.StatusOf), the latest advice, and the impact ledger's totals as
// `cully ledger` sums them. The panel decides nothing of the budget.

// adviceShown is how many lines of unseen advice the list shows; the
// details hold it whole.
const adviceShown = 3

// advisorOffLine says how to turn the advisor on, in the room there is:
// nothing below 44 columns.
func advisorOffLine(w int) string {
	switch {
	case w >= 80:
		return "Advisor off · `cully advisor setup` proposes a command (docs/advisor.md)"
	case w >= 44:
		return "Advisor off · cully advisor setup"
	}
	return ""
}

// advisorWord is the standing in a word, styled: deferred needs the user
// (the accounting or the clock is wrong).
func (m Model) advisorWord(state string) string {
	s := m.styles
	switch state {
	case "ready":
		return s.Good.Render("ready")
	case "deferred":
		return s.Accent.Render("deferred")
	}
	return s.Dim.Render(clean(state))
}

// ledgerLine is the ledger's totals in a line.
func ledgerLine(t ledger.Totals, w int) string {
	if w < 44 {
		return fmt.Sprintf("%d skipped (~%s) · %d spent", t.Skipped, kilo(int64(t.AvoidedTokens)), t.Spent)
	}
	return fmt.Sprintf("skipped %d · ~%s tokens avoided (estimated) · spent %d", t.Skipped, kilo(int64(t.AvoidedTokens)), t.Spent)
}

// advisorStatusLine is the standing's row: why and until when, or what is
// left of the hour.
func (m Model) advisorStatusLine(w int) string {
	a := m.sess[m.follow].adv.Status
	left := ""
	if b := a.Budget; b != nil {
		left = fmt.Sprintf("%d of %d left this hour", b.Left, ledger.MaxPerHour)
		if w < 44 {
			left = fmt.Sprintf("%d/%d left", b.Left, ledger.MaxPerHour)
		}
	}
	switch a.State {
	case "waiting": // the head says until when
		if left == "" {
			return "waiting for the next slot"
		}
		return left
	case "deferred":
		return clean(a.Why)
	}
	if left == "" {
		return "ready"
	}
	if a.Discovery == "on" && w >= 56 {
		left += " · discovery on"
	}
	if n := len(a.Gaps); n > 0 && w >= 72 {
		left += fmt.Sprintf(" · %d tool gap(s)", n)
	}
	return left
}

// advisorLines is the advisor's section: its head with the standing in a
// word, a row of why or what is left, unseen advice in the accent colour,
// and the ledger's totals. With no advisor command, one dim line.
func (m Model) advisorLines(w, lvl int) []string {
	s := m.styles
	ss := m.sess[m.follow]
	a := ss.adv
	if !a.configured() {
		if l := advisorOffLine(w); l != "" && lvl < lvlNoBudget {
			return []string{s.Dim.Render(cut(l, w))}
		}
		return nil
	}
	st := a.Status
	counts := m.advisorWord(st.State)
	if st.Until != nil && (st.State == "waiting" || st.State == "deferred") {
		counts += s.Dim.Render(" until " + clock(m.now, *st.Until))
	}
	sel := m.sel == "a:advisor"
	adv := st.Pending
	unseen := adv != nil && !adv.Told
	out := []string{m.sectionHead(w, "Advisor", counts)}
	if lvl >= lvlNoGuards && !sel && !unseen {
		return out
	}
	status := m.advisorStatusLine(w)
	rows := 0
	row := func(parts []part) string {
		rows++
		return m.titleLine(w, sel && rows == 1, parts)
	}
	if lvl < lvlNoGuards || sel {
		st := s.Dim.Render
		if a.Status.State == "deferred" {
			st = s.Text.Render
		}
		out = append(out, row([]part{{status, st}}))
	}
	if adv != nil {
		at := agoShort(m.now, unixTime(adv.At))
		if unseen {
			out = append(out, row([]part{{"✦ advice", s.Accent.Render}, {" · " + at + " · not told yet", s.Dim.Render}}))
			if lvl < lvlShortOpen {
				lines := wrapIndent(clean(adv.Text), w, 4)
				if len(lines) > adviceShown {
					last := strings.TrimSpace(lines[adviceShown-1])
					if width(last) > w-6 {
						last = cutNoTail(last, w-6)
					}
					lines = append(lines[:adviceShown-1:adviceShown-1], "    "+last+" …")
				}
				out = append(out, styleLines(s.Text, lines)...)
			}
		} else if lvl < lvlNoGuards {
			out = append(out, row([]part{{"advice · " + at + " · told to the agent", s.Dim.Render}}))
		}
	}
	if a.Entries > 0 && lvl < lvlNoBudget {
		out = append(out, row([]part{{ledgerLine(a.Totals, w), s.Dim.Render}}))
	}
	return out
}

// advisorDetail is the advisor in full: its standing and why, the budget,
// the advice whole, and the ledger's totals.
func (m Model) advisorDetail(w int) []string {
	s, now := m.styles, m.now
	a := m.sess[m.follow].adv
	st := a.Status
	out := []string{m.sectionHead(w, "Advisor", m.advisorWord(st.State)), s.Dim.Render(cut(m.closeHint(), w)), ""}
	state := clean(st.State)
	if st.Why != "" {
		state += ": " + clean(st.Why)
	}
	stStyle := s.Text.Render
	if st.State == "deferred" {
		stStyle = s.Accent.Render
	}
	fs := []field{{"state", state, stStyle}}
	if st.Until != nil {
		fs = append(fs, field{"until", clock(now, *st.Until), nil})
	}
	if b := st.Budget; b != nil {
		fs = append(fs, field{"budget", fmt.Sprintf("%d of %d automatic requests left this hour · next slot %s", b.Left, ledger.MaxPerHour, slot(now, b.NextSlot)), nil})
		if !b.LastAccept.IsZero() {
			fs = append(fs, field{"last sent", when(now, b.LastAccept), nil})
		}
	}
	disc := clean(st.Discovery)
	if b := st.Budget; b != nil && !b.Cooldown.IsZero() {
		disc += " · cooldown until " + clock(now, b.Cooldown)
	}
	fs = append(fs, field{"discovery", disc, nil})
	res := clean(st.Research)
	if b := st.Budget; b != nil && !b.ResearchCooldown.IsZero() {
		res += " · cooldown until " + clock(now, b.ResearchCooldown)
	}
	if res != "" {
		fs = append(fs, field{"research", res, nil})
	}
	for _, g := range st.Gaps {
		done := "not researched yet"
		switch {
		case g.Researched:
			done = "researched"
		case st.Research != "on":
			done = "no research (discovery " + clean(st.Research) + ")"
		}
		fs = append(fs, field{"tool gap", clean(g.Name) + " · " + done + " · " + clean(g.Evidence), nil})
	}
	if adv := st.Pending; adv != nil {
		told := "not yet: it is told once, before the agent's next tool call"
		if adv.Told {
			told = "yes"
		}
		fs = append(fs, field{"advice", when(now, unixTime(adv.At)), nil}, field{"agent told", told, nil})
	}
	out = append(out, m.fields(w, fs)...)
	if adv := st.Pending; adv != nil {
		out = append(out, "", s.Dim.Render("the advice:"))
		for _, l := range cleanText(adv.Text) {
			for _, wl := range wrap(l, w-2) {
				out = append(out, s.Quote.Render("│ ")+s.Text.Render(wl))
			}
		}
	}
	t := a.Totals
	out = append(out, "", m.sectionHead(w, "Impact ledger", s.Dim.Render("every session")))
	switch {
	case a.Err != "":
		out = append(out, styleLines(s.Dim, wrapIndent("cannot read it: "+clean(a.Err), w, 2))...)
	case a.Entries == 0:
		out = append(out, styleLines(s.Dim, wrapIndent("nothing recorded yet: an analysis skipped or a request sent adds a line", w, 2))...)
	default:
		out = append(out, m.fields(w, []field{
			{"skipped", fmt.Sprintf("%d analyses · ~%d prompt tokens avoided", t.Skipped, t.AvoidedTokens), nil},
			{"spent", fmt.Sprintf("%d requests · ~%d prompt tokens sent", t.Spent, t.SpentTokens), nil},
			{"net", fmt.Sprintf("~%d tokens avoided", t.NetTokens), nil},
		})...)
		out = append(out, styleLines(s.Dim, wrapIndent("token figures "+ledger.Estimate+"; cully ledger lists the entries", w, 2))...)
	}
	return out
}

// slot is when the next request could go: "now" once it could.
func slot(now, t time.Time) string {
	if !t.After(now) {
		return "now"
	}
	return clock(now, t)
}
