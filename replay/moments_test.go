package replay

import (
	"strings"
	"testing"
	"time"
)

// A moment is caught by a fitting signal from the call before it to three
// calls after (the third's result and a turn's end after it included); a signal of another kind, or further away, does not catch
// it; a moment whose session the replay lacks is not found.
func TestJudgeMoments(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	at := func(i int) *time.Time { x := t0.Add(time.Duration(i) * time.Minute); return &x }
	half := func(i int) *time.Time { x := at(i).Add(30 * time.Second); return &x }
	var calls []time.Time
	for i := 0; i < 20; i++ {
		calls = append(calls, *at(i))
	}
	rs := Session{Session: "s1", calls: calls, Findings: []Finding{
		{Kind: "checkpoint", Reason: "failure-loop", Time: at(6)},        // call 7
		{Kind: "checkpoint", Reason: "exploring", Time: at(15)},          // call 16
		{Kind: "alert", Reason: "runaway:no-modification", Time: at(16)}, // call 17
		{Kind: "checkpoint", Reason: "unchecked-commit", Time: half(11)}, // call 12's result
		{Kind: "checkpoint", Reason: "finish-unchecked", Time: half(19)}, // the turn's end after the last call
	}}
	ms, err := parseMoments(strings.NewReader("# a comment\nmoment\tsession\tcall\tts\tkind\twhy\n"+
		"m1\ts1\t5\t"+at(4).Format(time.RFC3339Nano)+"\tloop\tx\n"+ // calls 4–8: caught
		"m2\ts1\t5\t"+at(4).Format(time.RFC3339Nano)+"\twrong-fix\tx\n"+ // a signal near, none fitting
		"m3\ts1\t1\t"+at(0).Format(time.RFC3339Nano)+"\tloop\tx\n"+ // calls 1–4: the loop signal is later
		"m4\ts1\t15\t\texplore\tx\n"+ // by number: calls 14–18
		"m5\ts9\t3\t\tloop\tx\n"+
		"m6\ts1\t9\t\tunverified\tx\n"+ // calls 8–12, the result of 12 included
		"m7\ts1\t8\t\tunverified\tx\n"+ // calls 7–11: call 12's result is later
		"m8\ts1\t19\t\tunverified\tx\n"), "moments.tsv") // near the end: up to the session's end
	if err != nil {
		t.Fatal(err)
	}
	r := JudgeMoments(ms, []Session{rs})
	caught := map[string]bool{}
	for _, it := range r.Items {
		caught[it.Moment] = it.Caught
	}
	if !caught["m1"] || caught["m2"] || caught["m3"] || !caught["m4"] || caught["m5"] || !caught["m6"] || caught["m7"] || !caught["m8"] {
		t.Fatalf("caught %v", caught)
	}
	if r.Moments != 8 || r.Caught != 4 || r.NotFound != 1 || r.ByKind["loop"].Caught != 1 || r.ByKind["loop"].Moments != 3 {
		t.Fatalf("report %+v", r)
	}
	if _, err := parseMoments(strings.NewReader("moment\tsession\tkind\n"), "bad.tsv"); err == nil || !strings.Contains(err.Error(), `bad.tsv:1: the header has no "call" column`) {
		t.Fatalf("a header without call: %v", err)
	}
}
