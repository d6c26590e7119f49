package export

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"cully/engine"
)

type logSink struct {
	mu  sync.Mutex
	got []sdklog.Record
}

func (s *logSink) Export(_ context.Context, rs []sdklog.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range rs {
		s.got = append(s.got, r.Clone())
	}
	return nil
}
func (s *logSink) Shutdown(context.Context) error   { return nil }
func (s *logSink) ForceFlush(context.Context) error { return nil }

func attr(kvs []attribute.KeyValue, key string) string {
	for _, kv := range kvs {
		if string(kv.Key) == key {
			return kv.Value.String()
		}
	}
	return ""
}

// The mapping: a task span per task (ended at its stop, and joined, not
// duplicated, by a record of the same task after it), a span per call
// inside it from pre to post, failures marked, signals as span events and
// WARN records, a post without its pre still a span, calls left open
// ended as unfinished, and the host's trace joined from TRACEPARENT.
func TestMapping(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	sink := &logSink{}
	lp := sdklog.NewLoggerProvider(sdklog.WithProcessor(sdklog.NewSimpleProcessor(sink)))
	x := New(lp.Logger("cully"), tp.Tracer("cully"))
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	exit1 := 1
	evs := []*engine.Event{
		{Session: "s", Agent: "claude", Kind: engine.KindPrompt, Task: 1, PromptID: "p1", Time: at(0)},
		{Session: "s", Agent: "claude", Kind: engine.KindPreTool, Task: 1, Tool: "Bash", ToolUseID: "t1", PromptID: "p1", Time: at(1)},
		{Session: "s", Agent: "claude", Kind: engine.KindPostTool, Task: 1, Tool: "Bash", ToolUseID: "t1", Outcome: engine.OutcomeFailed, Exit: &exit1, Time: at(2),
			Signals: []engine.Signal{{Kind: engine.SignalCheckpoint, Reason: "failure-loop", ID: "c1", Evidence: "make failed 3 times"}}},
		{Session: "s", Agent: "claude", Kind: engine.KindPostTool, Task: 1, Tool: "Read", ToolUseID: "t2", Outcome: engine.OutcomeOK, Time: at(3)}, // no pre
		{Session: "s", Agent: "claude", Kind: engine.KindPreTool, Task: 1, Tool: "Read", ToolUseID: "t3", Time: at(4)},                             // never ends
		{Session: "s", Agent: "claude", Kind: engine.KindStop, Task: 1, Time: at(5)},
		{Session: "s", Agent: "claude", Kind: engine.KindSessionEnd, Task: 1, Time: at(6)},
		{Session: "h", Agent: "claude", Kind: engine.KindPrompt, Task: 1, Time: at(7), TraceParent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
	}
	for _, ev := range evs {
		x.Add(ev)
	}
	x.Close(at(9))
	byName := map[string][]sdktrace.ReadOnlySpan{}
	for _, s := range sr.Ended() {
		byName[s.Name()] = append(byName[s.Name()], s)
	}
	if n := len(byName["task 1"]); n != 2 {
		t.Fatalf("%d task spans, want 2 (one per session): %v", n, byName)
	}
	var task, traced sdktrace.ReadOnlySpan
	for _, s := range byName["task 1"] {
		if attr(s.Attributes(), "session.id") == "s" {
			task = s
		} else {
			traced = s
		}
	}
	if !task.EndTime().Equal(at(5)) || attr(task.Attributes(), "prompt.id") != "p1" {
		t.Errorf("task span ends %v (want the stop's time) with prompt.id %q", task.EndTime(), attr(task.Attributes(), "prompt.id"))
	}
	if traced.SpanContext().TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || traced.Parent().SpanID().String() != "00f067aa0ba902b7" {
		t.Errorf("traced task: trace %s parent %s", traced.SpanContext().TraceID(), traced.Parent().SpanID())
	}
	bash := byName["tool Bash"]
	if len(bash) != 1 || bash[0].Parent().SpanID() != task.SpanContext().SpanID() || bash[0].Status().Code != codes.Error ||
		!bash[0].StartTime().Equal(at(1)) || !bash[0].EndTime().Equal(at(2)) || attr(bash[0].Attributes(), "process.exit.code") != "1" {
		t.Fatalf("Bash call span: %+v", bash)
	}
	if ev := bash[0].Events(); len(ev) != 1 || ev[0].Name != "cully.checkpoint" || attr(ev[0].Attributes, "cully.reason") != "failure-loop" {
		t.Errorf("Bash call events %+v", ev)
	}
	reads := byName["tool Read"]
	if len(reads) != 2 {
		t.Fatalf("%d Read spans, want 2", len(reads))
	}
	for _, r := range reads {
		switch attr(r.Attributes(), "gen_ai.tool.call.id") {
		case "t2":
			if r.Status().Code != codes.Ok || !r.StartTime().Equal(r.EndTime()) {
				t.Errorf("post without pre: %v %v-%v", r.Status(), r.StartTime(), r.EndTime())
			}
		case "t3":
			if attr(r.Attributes(), "cully.unfinished") != "true" || !r.EndTime().Equal(at(5)) {
				t.Errorf("unfinished call: %v ends %v", r.Attributes(), r.EndTime())
			}
		}
	}
	// Log records: one per record, one more per signal, on their spans.
	if len(sink.got) != len(evs)+1 {
		t.Fatalf("%d log records, want %d", len(sink.got), len(evs)+1)
	}
	warn := 0
	for _, r := range sink.got {
		if r.EventName() == "cully.signal.checkpoint" {
			warn++
			if r.SeverityText() != "WARN" || r.Body().AsString() != "make failed 3 times" || r.SpanID() != bash[0].SpanContext().SpanID() {
				t.Errorf("checkpoint record: %s %q on span %s", r.SeverityText(), r.Body().AsString(), r.SpanID())
			}
		}
	}
	if warn != 1 {
		t.Errorf("%d checkpoint records", warn)
	}
}
