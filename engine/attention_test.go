package engine

import (
	"testing"
	"time"
)

// What a session needs, from the events its state folded: the run's
// control first, then open checkpoints, then the call in flight and the
// turn. (hookrun's attention tests play the hosts' captured payloads.)
func TestAttention(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	cfg := DefaultConfig()
	type step struct {
		ev    Event
		after time.Duration // when the need is read, after the event
		need  Need
		cause Cause
	}
	pre := func(tool string, c Class, id string) Event {
		return Event{Kind: KindPreTool, Tool: tool, Class: c, ToolUseID: id}
	}
	post := func(tool string, c Class, id string) Event {
		return Event{Kind: KindPostTool, Tool: tool, Class: c, ToolUseID: id, Outcome: OutcomeOK}
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"a soft pause needs the user until a resume", []step{
			{Event{Kind: KindPrompt}, 0, NeedWorking, CauseTurn},
			{Event{Kind: KindPause, Source: PauseSoft, Note: "lunch"}, 0, NeedYou, CausePaused},
			{post("Read", ClassRead, "a"), time.Hour, NeedYou, CausePaused},
			{Event{Kind: KindResume, Source: ResumeKeep}, 0, NeedWorking, CauseTurn},
		}},
		{"cully stop is stopped; its refused call opens nothing", []step{
			{Event{Kind: KindPrompt}, 0, NeedWorking, CauseTurn},
			{Event{Kind: KindPause, Source: PauseHalt}, 0, NeedYou, CauseStopped},
			{pre("Edit", ClassEdit, "b"), 0, NeedYou, CauseStopped},
			{Event{Kind: KindResume, Source: ResumeKeep}, time.Hour, NeedIdle, CauseQuiet},
		}},
		{"a failed rollback needs the user", []step{
			{Event{Kind: KindPrompt}, 0, NeedWorking, CauseTurn},
			{Event{Kind: KindRollback, Outcome: OutcomeFailed, Note: "x.go: changed since"}, 0, NeedYou, CauseRollback},
		}},
		{"an edit open past 20s waits for the user; a search tool never", []step{
			{Event{Kind: KindPrompt}, 0, NeedWorking, CauseTurn},
			{pre("Edit", ClassEdit, "e"), 19 * time.Second, NeedWorking, CauseCall},
			{Event{Kind: KindOther}, 20 * time.Second, NeedYou, CauseWaiting},
			{post("Edit", ClassEdit, "e"), 0, NeedWorking, CauseTurn},
			{pre("TodoWrite", ClassOther, "f"), time.Hour, NeedWorking, CauseCall},
		}},
		{"a poll waits as long as it must", []step{
			{pre("BashOutput", ClassPoll, "p"), time.Hour, NeedWorking, CauseCall},
		}},
		{"an idle notification closes the call; a turn's end is the user's move", []step{
			{Event{Kind: KindPrompt}, 0, NeedWorking, CauseTurn},
			{pre("Bash", ClassRun, "g"), 0, NeedWorking, CauseCall},
			{Event{Kind: KindNotify, Source: NotifyElicit}, 0, NeedYou, CauseQuestion},
			{Event{Kind: KindNotify, Source: NotifyIdle}, 0, NeedWorking, CauseTurn},
			{Event{Kind: KindStop}, 0, NeedIdle, CauseTurnEnded},
			{Event{Kind: KindNotify, Source: NotifyPermission}, 0, NeedYou, CausePermission},
			{Event{Kind: KindPrompt}, 0, NeedWorking, CauseTurn},
		}},
		{"a subagent's stop does not end the turn", []step{
			{Event{Kind: KindPrompt}, 0, NeedWorking, CauseTurn},
			{Event{Kind: KindStop, Subagent: "s1"}, 0, NeedWorking, CauseTurn},
		}},
		{"a batch resolves every call of the message", []step{
			{pre("Read", ClassRead, "r1"), 0, NeedWorking, CauseCall},
			{Event{Kind: KindBatch}, time.Hour, NeedIdle, CauseQuiet},
		}},
		{"a session's end is idle whatever was open", []step{
			{pre("Bash", ClassCheck, "c"), 0, NeedWorking, CauseCall},
			{Event{Kind: KindSessionEnd}, 0, NeedIdle, CauseEnded},
			{Event{Kind: KindSessionStart, Source: "resume"}, 0, NeedIdle, CauseQuiet},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := NewState("s")
			at := t0
			for i, sp := range tc.steps {
				at = at.Add(time.Second)
				ev := sp.ev
				ev.Session, ev.Time, ev.Agent = "s", at, "claude"
				Apply(st, &ev, &cfg)
				if a := st.Attention(at.Add(sp.after), -1); a.Need != sp.need || a.Cause != sp.cause {
					t.Errorf("step %d (%s): %s (%s), want %s (%s)", i, sp.ev.Kind, a.Need, a.Cause, sp.need, sp.cause)
				}
			}
		})
	}
}

// Open checkpoints need the user, counted as the caller shows them (the
// panel's acknowledgment in its undo window is not open any more); the
// oldest is when it began.
func TestAttentionCheckpoints(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	st := NewState("s")
	st.Events = 3
	st.Checkpoints = []Checkpoint{{ID: "c1", Status: StatusAnswered, Raised: t0}, {ID: "c2", Status: StatusOpen, Raised: t0.Add(time.Minute)},
		{ID: "c3", Status: StatusOpen, Raised: t0.Add(2 * time.Minute)}}
	a := st.Attention(t0.Add(time.Hour), -1)
	if a.Need != NeedYou || a.Cause != CauseCheckpoint || a.Open != 2 || !a.Since.Equal(t0.Add(time.Minute)) {
		t.Errorf("got %+v", a)
	}
	if a := st.Attention(t0.Add(time.Hour), 0); a.Need != NeedIdle {
		t.Errorf("none shown open: got %+v", a)
	}
	// The seed's activity checkpoints are open, shown, but ask nothing.
	act := NewState("s")
	act.Events = 3
	act.Checkpoints = []Checkpoint{{ID: "c1", Reason: ReasonExploring, Status: StatusOpen, Raised: t0},
		{ID: "c2", Reason: ReasonUnverifiedEdits, Status: StatusOpen, Raised: t0}, {ID: "c4", Reason: ReasonRerun, Status: StatusOpen, Raised: t0}}
	if a := act.Attention(t0.Add(time.Hour), -1); a.Need == NeedYou {
		t.Errorf("activity alone: got %+v, want no need of the user", a)
	}
	act.Checkpoints = append(act.Checkpoints, Checkpoint{ID: "c3", Reason: ReasonFailureLoop, Status: StatusOpen, Raised: t0.Add(time.Minute)})
	if a := act.Attention(t0.Add(time.Hour), -1); a.Need != NeedYou || a.Open != 1 || !a.Since.Equal(t0.Add(time.Minute)) {
		t.Errorf("a failure loop beside activity: got %+v, want 1 open since it was raised", a)
	}
	st.Run = &Run{Paused: &RunNote{At: t0.Unix()}}
	if a := st.Attention(t0.Add(time.Hour), -1); a.Cause != CausePaused {
		t.Errorf("a paused run with open checkpoints: got %+v, want paused first", a)
	}
	if NeedYou.Rank() >= NeedWorking.Rank() || NeedWorking.Rank() >= NeedIdle.Rank() {
		t.Error("ranks out of order")
	}
}
