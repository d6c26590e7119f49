package main

import (
	"fmt"
	"io"
	"time"

	"cully/store"
)

// recordingReport is `recording` in `cully status --json`: records that
// did not reach the journal (see store/recording.go for how they are
// counted on a full disk, and when the count clears).
type recordingReport struct {
	// State is "ok"; "failing" (records are being lost: failures with
	// none recorded since, or a full disk; or kept from the journal: calls
	// waiting in pending/ while another process holds the journal lock); "recovered" (records were
	// lost, and one reached the journal since: cleared once `cully status`
	// or `cully doctor` has shown it); "at_risk" (under 1 MiB free);
	// "unknown" (the counter cannot be read, or does not exist yet: the
	// next session's first call or `cully doctor` makes it).
	State       string     `json:"state"`
	NotRecorded int        `json:"not_recorded"`
	Since       *time.Time `json:"since"` // the first failure counted
	Last        *time.Time `json:"last"`  // the last one
	Kind        string     `json:"kind,omitempty"`
	Reason      string     `json:"reason,omitempty"`
	Message     string     `json:"message,omitempty"` // the line `cully status` prints
	Fix         string     `json:"fix,omitempty"`
	FreeBytes   *int64     `json:"free_bytes"` // space left on the state dir's disk; null when unknown
	// Waiting is how many calls wait in pending/ for the journal lock
	// (store/pending.go); Holder who holds it, when they block recording.
	Waiting int    `json:"waiting"`
	Holder  string `json:"holder,omitempty"`
	// Refused: the state dir fails its trust checks; nothing is recorded.
	Refused bool   `json:"refused,omitempty"`
	Error   string `json:"error,omitempty"`
	// cleared: this report is being shown to a person and recording works
	// again, so the count was reset (text only; see seenRecording).
	cleared bool
}

// buildRecordingReport reads the failure counter. The store.Recording is
// what was read, for clearing it once shown.
func buildRecordingReport(h store.Home) (recordingReport, store.Recording) {
	r, err := h.ReadRecording()
	rep := recordingReport{State: "ok", NotRecorded: r.NotRecorded, Kind: r.Kind, Reason: r.Reason,
		Waiting: r.Pending.Segments, Refused: r.Refused != ""}
	if r.Blocked() {
		rep.Holder = r.Holder
	}
	if r.FreeKnown {
		free := r.Free
		rep.FreeBytes = &free
	}
	switch {
	case err != nil:
		rep.State, rep.Error = "unknown", plain(err)
	case r.Failing():
		rep.State = "failing"
	case r.NotRecorded > 0:
		rep.State = "recovered"
	case r.Low():
		rep.State = "at_risk"
	case r.Missing:
		rep.State, rep.Error = "unknown", "no failure counter yet in "+h.Dir+" (the next session's first call, or `cully doctor`, makes it)"
	}
	if r.NotRecorded > 0 {
		first, last := r.First, r.Last
		rep.Since, rep.Last = &first, &last
	}
	if err == nil && r.Shown() {
		rep.Message, rep.Fix = r.Headline(stamp), r.Fix()
	}
	return rep, r
}

// red and reset colour a line on a terminal (stdoutColor).
const (
	red   = "\x1b[31m"
	reset = "\x1b[0m"
)

// stdoutColor reports whether stdout takes colour: a terminal, and no
// NO_COLOR.
func (a *app) stdoutColor() bool { return a.getenv("NO_COLOR") == "" && isTerminal(a.stdout) }

// stamp is a time as status and doctor print them.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// printRecording prints the report's line and its fix, first in `cully
// status`: every figure below it may be missing calls. It prints nothing
// when all is well.
func printRecording(w io.Writer, r recordingReport, color bool) {
	if r.Message == "" {
		return
	}
	if color && r.State == "failing" {
		fmt.Fprint(w, red)
		fmt.Fprint(termSafe{w}, r.Message)
		fmt.Fprintln(w, reset)
	} else {
		fmt.Fprintln(termSafe{w}, r.Message)
	}
	fmt.Fprintf(w, "         fix: %s\n", r.Fix)
	if r.cleared {
		fmt.Fprintln(w, "         (cleared now that you have seen it)")
	}
}

// seenRecording clears the failure count of a report about to be shown to
// a person, when a record reached the journal since the last failure
// (store.ClearRecording), and marks the report so that it says so.
func seenRecording(h store.Home, rep *recordingReport, r store.Recording) {
	if rep.Message == "" {
		return
	}
	if ok, _ := h.ClearRecording(r); ok {
		rep.cleared = true
	}
}
