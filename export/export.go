// Package export turns cully's journal into OpenTelemetry: every record a
// log record, every tool call a span (from its pre-tool record to its
// post-tool one) inside a span for its task, and what cully raised or said
// (checkpoints, guard warnings, nudges, budget and run-control signals) as
// log records of their own and as events on the call's span. It is fed
// records in journal order and hands them to the OpenTelemetry SDK's
// providers; `cully export` wires it to the journal and the OTLP exporters.
// It never runs in the hook.
//
// Keys are the host's ids, under OpenTelemetry's names where one exists:
// session.id, prompt.id, gen_ai.tool.call.id (the tool_use_id),
// gen_ai.tool.name, gen_ai.agent.id (a subagent); cully's own under cully.*.
// A task span joins the host's trace when the record carries the trace
// context the host gave the hook (TRACEPARENT).
package export

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	otellog "go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"cully/engine"
)

// Exporter maps records to log records and spans. Not safe for concurrent use.
type Exporter struct {
	logger otellog.Logger
	tracer trace.Tracer
	tasks  map[string]*task       // per session: the task span now open
	calls  map[callKey]trace.Span // tool calls whose post-tool record has not come
	repos  map[string]string      // cwd → repository name
}

type task struct {
	n     int
	ctx   context.Context
	span  trace.Span
	ended bool // its stop came: later records of the task (a session end) still join it
}

type callKey struct{ session, id string }

// New returns an exporter that emits through the given logger and tracer.
func New(logger otellog.Logger, tracer trace.Tracer) *Exporter {
	return &Exporter{logger: logger, tracer: tracer, tasks: map[string]*task{}, calls: map[callKey]trace.Span{}, repos: map[string]string{}}
}

// Add exports one record.
func (x *Exporter) Add(ev *engine.Event) {
	if ev.Session == "" {
		return
	}
	ctx := x.taskCtx(ev)
	switch ev.Kind {
	case engine.KindPreTool:
		if ev.ToolUseID != "" {
			k := callKey{ev.Session, ev.ToolUseID}
			sp := x.calls[k] // a pre-tool record read again (a send that failed is read anew): the first span stands
			if sp == nil {
				_, sp = x.tracer.Start(ctx, "tool "+ev.Tool, trace.WithTimestamp(ev.Time), trace.WithSpanKind(trace.SpanKindInternal),
					trace.WithAttributes(x.attrs(ev)...))
				x.calls[k] = sp
			}
			ctx = trace.ContextWithSpan(ctx, sp)
		}
	case engine.KindPostTool:
		k := callKey{ev.Session, ev.ToolUseID}
		sp := x.calls[k]
		if sp == nil || ev.ToolUseID == "" { // no pre-tool record (a host without one, or the export started after it)
			_, sp = x.tracer.Start(ctx, "tool "+ev.Tool, trace.WithTimestamp(ev.Time), trace.WithAttributes(x.attrs(ev)...))
		} else {
			sp.SetAttributes(x.attrs(ev)...)
		}
		delete(x.calls, k)
		switch ev.Outcome {
		case engine.OutcomeFailed:
			sp.SetStatus(codes.Error, "the tool call failed")
		case engine.OutcomeOK:
			sp.SetStatus(codes.Ok, "")
		}
		ctx = trace.ContextWithSpan(ctx, sp)
		x.signalEvents(sp, ev)
		x.emit(ctx, ev)
		sp.End(trace.WithTimestamp(ev.Time))
		return
	}
	if sp := trace.SpanFromContext(ctx); sp.IsRecording() {
		x.signalEvents(sp, ev)
	}
	x.emit(ctx, ev)
	switch ev.Kind {
	case engine.KindStop, engine.KindSessionEnd:
		x.endTask(ev.Session, ev.Time, false)
	}
}

// Close ends every span still open (calls and tasks whose end was not
// recorded), at the given time, marked unfinished.
func (x *Exporter) Close(at time.Time) {
	for s := range x.tasks {
		x.endTask(s, at, true)
	}
	clear(x.tasks)
}

// taskCtx is the context of the record's task span, started at the task's
// first record seen (its prompt, or whatever the export saw first).
func (x *Exporter) taskCtx(ev *engine.Event) context.Context {
	t := x.tasks[ev.Session]
	if t != nil && t.n == ev.Task {
		return t.ctx
	}
	if t != nil && !t.ended {
		x.endTask(ev.Session, ev.Time, false)
	}
	parent := context.Background()
	if ev.TraceParent != "" {
		parent = propagation.TraceContext{}.Extract(parent, propagation.MapCarrier{"traceparent": ev.TraceParent})
	}
	attrs := []attribute.KeyValue{attribute.String("session.id", ev.Session), attribute.String("cully.agent", ev.Agent), attribute.Int("cully.task", ev.Task)}
	if ev.PromptID != "" {
		attrs = append(attrs, attribute.String("prompt.id", ev.PromptID))
	}
	if r := x.repo(ev.Cwd); r != "" {
		attrs = append(attrs, attribute.String("vcs.repository.name", r))
	}
	ctx, sp := x.tracer.Start(parent, fmt.Sprintf("task %d", ev.Task), trace.WithTimestamp(ev.Time), trace.WithAttributes(attrs...))
	t = &task{n: ev.Task, ctx: ctx, span: sp}
	x.tasks[ev.Session] = t
	return ctx
}

// endTask ends a session's task span and its calls still open.
func (x *Exporter) endTask(session string, at time.Time, unfinished bool) {
	for k, sp := range x.calls {
		if k.session == session {
			sp.SetAttributes(attribute.Bool("cully.unfinished", true))
			sp.End(trace.WithTimestamp(at))
			delete(x.calls, k)
		}
	}
	if t := x.tasks[session]; t != nil && !t.ended {
		if unfinished {
			t.span.SetAttributes(attribute.Bool("cully.unfinished", true))
		}
		t.span.End(trace.WithTimestamp(at))
		t.ended = true
	}
}

// attrs are a record's attributes, on its log record and its call's span.
func (x *Exporter) attrs(ev *engine.Event) []attribute.KeyValue {
	a := []attribute.KeyValue{
		attribute.String("session.id", ev.Session),
		attribute.String("cully.agent", ev.Agent),
		attribute.String("cully.kind", string(ev.Kind)),
		attribute.Int("cully.task", ev.Task),
	}
	add := func(k, v string) {
		if v != "" {
			a = append(a, attribute.String(k, v))
		}
	}
	add("cully.hook", ev.Hook)
	add("prompt.id", ev.PromptID)
	add("gen_ai.tool.call.id", ev.ToolUseID)
	add("gen_ai.tool.name", ev.Tool)
	add("gen_ai.agent.id", ev.Subagent)
	add("cully.class", string(ev.Class))
	add("cully.target", ev.Target)
	add("cully.command", ev.Cmd)
	add("cully.outcome", string(ev.Outcome))
	add("cully.note", ev.Note)
	add("cully.source", ev.Source)
	add("cully.run", ev.Run)
	add("vcs.repository.name", x.repo(ev.Cwd))
	if ev.Exit != nil {
		a = append(a, attribute.Int("process.exit.code", *ev.Exit))
	}
	if ev.Usage != nil {
		if u := ev.Usage.InputTokens; u != nil {
			a = append(a, attribute.Int64("gen_ai.usage.input_tokens", *u))
		}
		if u := ev.Usage.OutputTokens; u != nil {
			a = append(a, attribute.Int64("gen_ai.usage.output_tokens", *u))
		}
		if u := ev.Usage.CostUSD; u != nil {
			a = append(a, attribute.Float64("cully.cost_usd", *u))
		}
	}
	return a
}

// emit writes the record's log record, then one for each signal on it.
func (x *Exporter) emit(ctx context.Context, ev *engine.Event) {
	var r otellog.Record
	r.SetTimestamp(ev.Time)
	r.SetObservedTimestamp(time.Now())
	r.SetEventName("cully." + string(ev.Kind))
	r.SetSeverity(otellog.SeverityInfo)
	r.SetSeverityText("INFO")
	body := string(ev.Kind)
	if ev.Tool != "" {
		body += " " + ev.Tool
	}
	if ev.Cmd != "" {
		body += ": " + ev.Cmd
	} else if ev.Target != "" {
		body += ": " + ev.Target
	}
	r.SetBody(attribute.StringValue(body))
	r.AddAttributes(x.attrs(ev)...)
	x.logger.Emit(ctx, r)
	for _, s := range ev.Signals {
		var sr otellog.Record
		sr.SetTimestamp(ev.Time)
		sr.SetObservedTimestamp(time.Now())
		sr.SetEventName("cully.signal." + string(s.Kind))
		sev, text := signalSeverity(s)
		sr.SetSeverity(sev)
		sr.SetSeverityText(text)
		sr.SetBody(attribute.StringValue(signalBody(s)))
		sr.AddAttributes(append(x.attrs(ev), signalAttrs(s)...)...)
		x.logger.Emit(ctx, sr)
	}
}

// signalEvents puts the record's signals on a span as events.
func (x *Exporter) signalEvents(sp trace.Span, ev *engine.Event) {
	for _, s := range ev.Signals {
		sp.AddEvent("cully."+string(s.Kind), trace.WithTimestamp(ev.Time), trace.WithAttributes(append(signalAttrs(s), attribute.String("cully.text", signalBody(s)))...))
	}
}

func signalAttrs(s engine.Signal) []attribute.KeyValue {
	a := []attribute.KeyValue{attribute.String("cully.signal", string(s.Kind))}
	if s.Reason != "" {
		a = append(a, attribute.String("cully.reason", string(s.Reason)))
	}
	if s.ID != "" {
		a = append(a, attribute.String("cully.signal.id", s.ID))
	}
	return a
}

func signalBody(s engine.Signal) string {
	if s.Text != "" {
		return s.Text
	}
	if s.Evidence != "" {
		return s.Evidence
	}
	return string(s.Kind) + " " + string(s.Reason)
}

// signalSeverity: what needs a person (a checkpoint, a warning, a nudge
// told, a budget or run-control alarm) is WARN; the rest INFO.
func signalSeverity(s engine.Signal) (otellog.Severity, string) {
	switch s.Kind {
	case engine.SignalCheckpoint, engine.SignalGuard, engine.SignalNudge:
		return otellog.SeverityWarn, "WARN"
	case engine.SignalAck, engine.SignalSnapshot:
		return otellog.SeverityInfo, "INFO"
	}
	return otellog.SeverityWarn, "WARN"
}

// repo is the name of the repository a working directory is in (its git
// top level's folder name), or the folder's own name when it is in none.
func (x *Exporter) repo(cwd string) string {
	if cwd == "" {
		return ""
	}
	if r, ok := x.repos[cwd]; ok {
		return r
	}
	r := filepath.Base(cwd)
	for d := cwd; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			r = filepath.Base(d)
			break
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	x.repos[cwd] = r
	return r
}
