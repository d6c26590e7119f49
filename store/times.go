package store

import (
	"math"
	"time"

	"cully/engine"
)

// The times a record may carry. Every time the writer writes, every reader
// must parse back: encoding/json refuses to write or read a year outside
// 0–9999 (or a zone offset of a day or more), so a record holding one
// would be written by the hand encoder and then skipped as corrupt by
// every reader. A file's mtime is also compared as UnixNano by the rules,
// which only holds from 1677 to 2262, and an mtime before 1970 is a
// placeholder, not a time a file was written.
var (
	minTime  = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime  = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
	minMtime = time.Unix(0, 0)
	maxMtime = time.Unix(0, math.MaxInt64)
)

// Notes clampTimes leaves in a record it had to change.
const (
	noteMtime = "mtime-out-of-range" // the target's mtime was dropped
	noteClock = "clock-out-of-range" // the event's time was clamped
)

// clampTimes makes the event's times round-trip: an mtime outside
// 1970–2262 is dropped (the target's version is then unknown, as when the
// host gives no mtime), an event time outside what encoding/json can write
// is clamped to the nearest end of the range, in UTC. Either way the record
// says so in its note.
func clampTimes(ev *engine.Event) {
	if m := ev.Mtime; m != nil && (m.Before(minMtime) || m.After(maxMtime) || !jsonTime(*m)) {
		ev.Mtime = nil
		addNote(ev, noteMtime)
	}
	if !jsonTime(ev.Time) {
		t := ev.Time.UTC()
		switch {
		case t.Before(minTime):
			t = minTime
		case t.After(maxTime):
			t = maxTime
		}
		ev.Time = t
		addNote(ev, noteClock)
	}
}

// jsonTime reports whether encoding/json can write t (and so read it back):
// a four-digit year and a zone offset of whole minutes under a day, in
// t's own zone.
func jsonTime(t time.Time) bool {
	if y := t.Year(); y < 0 || y > 9999 {
		return false
	}
	_, off := t.Zone()
	return off%60 == 0 && off > -24*3600 && off < 24*3600
}

func addNote(ev *engine.Event, note string) {
	if ev.Note == "" {
		ev.Note = note
	} else {
		ev.Note += "," + note
	}
}
