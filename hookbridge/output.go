package hookbridge

import (
	"bytes"

	"cully/checkout"
	"cully/engine"
	"cully/jsonlite"
)

// OutputWindow bounds what the hook reads of a check's output: its first
// and last 8 KiB. Runners print their verdict in their last lines, or fail
// early in the first; reading no more keeps the hook's cost flat however
// much a test run printed (checkout.Read over 16 KiB takes about 85 µs).
const OutputWindow = 8 << 10

// rawWindow is how much of a JSON-escaped string is unquoted for one
// window: escapes can double a text's size.
const rawWindow = 2 * OutputWindow

// OutputEdges returns the head and tail windows of a call's output, from
// the raw JSON string values that hold it (stdout then stderr, or an error
// text), without unquoting more of a long string than its two ends.
func OutputEdges(raws ...[]byte) (head, tail []byte) {
	var whole []byte
	var heads, tails [][]byte
	long := false
	for _, raw := range raws {
		if len(raw) < 2 || raw[0] != '"' {
			continue
		}
		if len(raw) <= 2*rawWindow {
			s, ok := jsonlite.Unquote(raw)
			if ok {
				whole = append(whole, s...)
				whole = append(whole, '\n')
			}
			continue
		}
		long = true
		h, t := unquoteEdges(raw)
		heads, tails = append(heads, h), append(tails, t)
	}
	if !long {
		return checkout.Split(bytes.TrimRight(whole, "\n"), OutputWindow)
	}
	// A long output: the short parts go with the window they border.
	head = append(append([]byte{}, whole...), bytes.Join(heads, []byte("\n"))...)
	tail = bytes.Join(tails, []byte("\n"))
	if len(head) > OutputWindow {
		head = head[:OutputWindow]
	}
	if len(tail) > OutputWindow {
		tail = tail[len(tail)-OutputWindow:]
	}
	return head, tail
}

// unquoteEdges unquotes the two ends of a long JSON string: the head up to
// a point outside any escape, the tail from the first escaped newline on
// (a line start, where no escape can be cut in half).
func unquoteEdges(raw []byte) (head, tail []byte) {
	h := raw[:rawWindow]
	if i := bytes.LastIndexByte(h[len(h)-8:], '\\'); i >= 0 { // do not cut an escape
		h = h[:len(h)-8+i]
	}
	if s, ok := jsonlite.Unquote(append(append([]byte{}, h...), '"')); ok {
		head = []byte(s)
	}
	t := raw[len(raw)-rawWindow:]
	if i := bytes.Index(t, []byte(`\n`)); i >= 0 && (i == 0 || t[i-1] != '\\') {
		if s, ok := jsonlite.Unquote(append([]byte{'"'}, t[i+2:]...)); ok {
			tail = []byte(s)
		}
	}
	return head, tail
}

// CheckFromOutput reads a check's outcome and counts from its output (the
// runner's own words), for calls whose exit status the host did not give or
// a pipe or a chain hid. ok: the output settled the outcome.
func CheckFromOutput(command string, head, tail []byte) (engine.Outcome, *engine.TestCounts, bool) {
	r := checkout.Read(command, head, tail)
	var tc *engine.TestCounts
	if r.Runner != "" && (r.Counted || r.Passed+r.Failed+r.Errors+r.Skipped > 0) {
		tc = &engine.TestCounts{Runner: r.Runner, Passed: r.Passed, Failed: r.Failed, Errors: r.Errors, Skipped: r.Skipped, Counted: r.Counted}
	}
	switch r.Outcome {
	case checkout.Pass:
		return engine.OutcomeOK, tc, true
	case checkout.Fail:
		return engine.OutcomeFailed, tc, true
	}
	return engine.OutcomeUnknown, tc, false
}

// TakeOutputOutcome gives the event the outcome its output stated
// (CheckFromOutput), noted "from-output"; a failure's signatures come from
// the output's text, its tail when that differs from its head.
func TakeOutputOutcome(ev *engine.Event, outcome engine.Outcome, head, tail []byte) {
	ev.Outcome, ev.Note = outcome, "from-output"
	if outcome == engine.OutcomeFailed {
		text := string(head)
		if len(tail) > 0 && string(tail) != text {
			text = string(tail)
		}
		ev.FailSig = engine.FailureSignature(nil, text)
		ev.ErrSig = engine.ErrorSignature(text)
	}
}
