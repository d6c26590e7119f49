package codex

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cully/engine"
	"cully/hookbridge"
)

// Complete: the hook reads each call's outcome on from the rollout as it
// grows, bounded per call.

// The hook reads each call's outcome from the rollout as it grew in the
// real run: the failing command exit 3, the read exit 0; and the token
// counts of the model's responses up to then.
func TestCompleteFromTheGrowingRollout(t *testing.T) {
	evs := replayRun(t, "inject", nil)
	posts := map[string]*engine.Event{}
	var last *engine.HostUsage
	for _, ev := range evs {
		if ev.Kind == engine.KindPostTool {
			posts[ev.ToolUseID] = ev
		}
		if ev.Usage != nil {
			last = ev.Usage
		}
		if ev.Transcript == nil && ev.Hook != "SessionStart" {
			t.Errorf("%s: no transcript position", ev.Hook)
		}
	}
	fail, read := posts["call_fail_1"], posts["call_read_3"]
	if fail == nil || fail.Outcome != engine.OutcomeFailed || fail.Exit == nil || *fail.Exit != 3 || fail.FailSig == "" || fail.ErrSig == "" {
		t.Errorf("failing command: %+v", fail)
	}
	if read == nil || read.Outcome != engine.OutcomeOK || read.Exit == nil || *read.Exit != 0 || read.Class != engine.ClassRead || read.Target != "cully-note.txt" {
		t.Errorf("read: %+v", read)
	}
	if fail.Transcript == nil || len(fail.Transcript.Exits) != 0 {
		t.Errorf("a claimed outcome stays pending: %+v", fail.Transcript)
	}
	// Four responses of 1000, 1100, 1200 and 1300 input tokens, 800 of the
	// 4600 read from the cache (Codex counts them in its input figure:
	// taken out); the hook at Stop has seen all of them.
	if last == nil || last.InputTokens == nil || *last.InputTokens != 3800 || *last.CacheReadTokens != 800 || *last.OutputTokens != 206 ||
		*last.ContextTokens != 1300 || *last.ContextWindow != 258400 || last.Model != "gpt-5.5" {
		t.Errorf("usage: %s", jsonOf(last))
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Two calls whose outcomes the rollout records before either's
// PostToolUse: the first hook reads both, claims its own and keeps the
// other's for its hook; a rollout that was rewritten is read anew; a line
// still being written is read once it ends.
func TestCompletePendingAndPartial(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.jsonl")
	done := func(id string, code int) string {
		return fmt.Sprintf(`{"timestamp":"t","type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":%q,"status":"failed","aggregated_output":"no","exit_code":%d}}}`+"\n", id, code)
	}
	write := func(s string, appendTo bool) {
		flag := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
		if appendTo {
			flag = os.O_CREATE | os.O_WRONLY | os.O_APPEND
		}
		f, err := os.OpenFile(path, flag, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	st := engine.NewState("s")
	cfg := engine.DefaultConfig()
	post := func(id string) *engine.Event {
		raw := []byte(fmt.Sprintf(`{"session_id":"s","transcript_path":%q,"cwd":"/p","hook_event_name":"PostToolUse","model":"m","tool_name":"Bash","tool_input":{"command":"make %s"},"tool_response":"boom\n","tool_use_id":%q}`, path, id, id))
		env := hookbridge.Env{Config: &cfg}
		ev, err := Agent{}.Decode(raw, env)
		if err != nil {
			t.Fatal(err)
		}
		Agent{}.Complete(raw, env, ev, st)
		engine.Apply(st, ev, &cfg)
		return ev
	}
	half := done("c3", 5)
	write(done("c1", 1)+done("c2", 2)+half[:20], false)
	if ev := post("c1"); ev.Exit == nil || *ev.Exit != 1 || len(ev.Transcript.Exits) != 1 || ev.Transcript.Exits[0].ID != "c2" {
		t.Fatalf("c1: exit %v, pending %s", ev.Exit, jsonOf(ev.Transcript))
	}
	if ev := post("c2"); ev.Exit == nil || *ev.Exit != 2 || len(ev.Transcript.Exits) != 0 {
		t.Fatalf("c2: exit %v, pending %s", ev.Exit, jsonOf(ev.Transcript))
	}
	if ev := post("c3"); ev.Exit != nil || ev.Outcome != engine.OutcomeUnknown {
		t.Fatalf("c3 is half written: exit %v", ev.Exit)
	}
	write(half[20:], true)
	post("c0") // another call's hook reads c3 once its line ends
	if ev := post("c3"); ev.Exit == nil || *ev.Exit != 5 {
		t.Fatalf("c3, once whole: exit %v, pos %s", ev.Exit, jsonOf(ev.Transcript))
	}
	write(done("c4", 4), false) // rewritten: shorter than what was read
	if ev := post("c4"); ev.Exit == nil || *ev.Exit != 4 {
		t.Fatalf("c4 in a rewritten rollout: exit %v, pos %s", ev.Exit, jsonOf(ev.Transcript))
	}
	// Outcomes never claimed are capped.
	var many strings.Builder
	for i := range 3 * maxExits {
		many.WriteString(done(fmt.Sprintf("x%d", i), 1))
	}
	write(many.String(), true)
	if ev := post("c0"); len(ev.Transcript.Exits) != maxExits || ev.Transcript.Exits[maxExits-1].ID != fmt.Sprintf("x%d", 3*maxExits-1) {
		t.Errorf("pending outcomes: %d kept, want the newest %d", len(ev.Transcript.Exits), maxExits)
	}
}

// However much was written since the last call, one call reads at most
// maxRead bytes: the newest, from the first whole line in them.
func TestCompleteReadIsBounded(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.jsonl")
	filler := `{"type":"response_item","payload":{"type":"function_call_output","output":"` + strings.Repeat("x", 1000) + `"}}` + "\n"
	var b strings.Builder
	b.WriteString(`{"type":"event_msg","payload":{"type":"item_completed","item":{"id":"old","status":"completed","exit_code":0}}}` + "\n")
	for b.Len() < 2*maxRead {
		b.WriteString(filler)
	}
	b.WriteString(`{"type":"event_msg","payload":{"type":"item_completed","item":{"id":"new","status":"completed","exit_code":0}}}` + "\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	pos := engine.TranscriptPos{}
	var u engine.HostUsage
	if !readRollout(path, &pos, &u, nil) {
		t.Fatal("nothing read")
	}
	if pos.Off != int64(b.Len()) || len(pos.Exits) != 1 || pos.Exits[0].ID != "new" {
		t.Errorf("read to %d of %d, exits %s: want the end, and only the newest outcome", pos.Off, b.Len(), jsonOf(pos.Exits))
	}
	if readRollout(path, &pos, &u, nil) {
		t.Error("nothing new, yet the position moved")
	}
	if readRollout(filepath.Join(dir, "missing"), &pos, &u, nil) || readRollout(dir, &pos, &u, nil) {
		t.Error("a missing rollout, or a folder, must read as nothing")
	}
}
