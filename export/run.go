package export

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploggrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"cully/engine"
	"cully/store"
)

// Options are `cully export`'s.
type Options struct {
	From    string // "saved" (where it last stopped; the first time, the end, or with Once the start), "start" or "end"
	Once    bool   // send what the journal holds now, then return
	Version string // cully's, for the resource
	Getenv  func(string) string
	Stdout  io.Writer // the closing count
	Stderr  io.Writer // where it sends, and failed sends it retries
}

// ErrUsage marks a wrong flag or variable value.
var ErrUsage = errors.New("usage")

// cursorName is the export's place in the journal (store cursors).
const cursorName = "otlp-export"

// flushEvery bounds how many records the export holds before it waits for
// the collector to take them: the SDK's queues drop what overflows them.
const flushEvery = 256

// Run follows the journal and sends it as OTLP log records and spans,
// configured by the standard OTEL_EXPORTER_OTLP_* variables, until ctx ends
// (or, with Once, once the journal is sent). Its place in the journal is
// kept after every delivered batch, so a restart sends on from there: at
// least once, a batch cut short by a crash is sent again.
func Run(ctx context.Context, h store.Home, o Options) error {
	if o.From == "" {
		o.From = "saved"
	}
	if o.From != "saved" && o.From != "start" && o.From != "end" {
		return fmt.Errorf("%w: --from %q: saved, start or end", ErrUsage, o.From)
	}
	if o.From == "end" && o.Once {
		return fmt.Errorf("%w: --from end --once would send nothing: --from end skips what the journal holds, and --once stops there (drop --once to follow, or --from to send what it holds)", ErrUsage)
	}
	lp, tp, endpoint, err := providers(ctx, o)
	if err != nil {
		return err
	}
	// The SDK would log each failed export itself; the flushes below
	// report them, once, in cully's words.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {}))
	x := New(lp.Logger("cully"), tp.Tracer("cully"))
	shutdown := func() error {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return errors.Join(tp.Shutdown(sctx), lp.Shutdown(sctx))
	}
	cur, saved, err := h.LoadCursor(cursorName)
	if err != nil {
		return err
	}
	// The first export (no place saved) follows from now on, as a
	// collector taking over from a fresh install would want; a first
	// --once sends what the journal holds, which is what it was run for.
	switch {
	case o.From == "start" || !saved && o.Once:
		cur = store.Cursor{}
	case o.From == "end" || !saved:
		if cur, err = h.EndCursor(); err != nil {
			return fmt.Errorf("read the journal: %w", err)
		}
	}
	fmt.Fprintf(o.Stderr, "cully export: to %s, from %s\n", endpoint, fromWhat(o.From, saved, o.Once))
	from := cur

	sent := 0
	flush := func() error {
		if err := errors.Join(tp.ForceFlush(ctx), lp.ForceFlush(ctx)); err != nil {
			return fmt.Errorf("send to %s: %w", endpoint, err)
		}
		return nil
	}
	drain := func() error {
		n := 0
		next, _, err := h.ReadSince(cur, func(ev *engine.Event) error {
			x.Add(ev)
			if n++; n%flushEvery == 0 {
				return flush()
			}
			return nil
		})
		if err != nil {
			return err
		}
		if n > 0 {
			if err := flush(); err != nil {
				return err
			}
		}
		sent += n
		cur = next
		return h.SaveCursor(cursorName, cur)
	}
	if err := drain(); err != nil {
		if o.Once {
			_ = shutdown()
			return err
		}
		fmt.Fprintf(o.Stderr, "cully export: %v (retrying)\n", err) // following: the collector may come up
	}
	if o.Once {
		x.Close(time.Now())
		if err := shutdown(); err != nil {
			return fmt.Errorf("send to %s: %w", endpoint, err)
		}
		if sent == 0 {
			return nothingSent(h, from, endpoint, o.Stdout)
		}
		fmt.Fprintf(o.Stdout, "exported %d record(s) to %s\n", sent, endpoint)
		return nil
	}

	// Follow: wake on the state dir's changes (a burst of appends is one
	// read), and every few seconds in any case, which also retries a send
	// that failed.
	var events <-chan fsnotify.Event
	if w, err := fsnotify.NewWatcher(); err == nil {
		defer w.Close()
		if w.Add(h.Dir) == nil {
			events = w.Events
		}
	}
	tick := time.NewTicker(3 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			x.Close(time.Now())
			err := shutdown()
			fmt.Fprintf(o.Stdout, "exported %d record(s) to %s\n", sent, endpoint)
			return err
		case ev := <-events:
			if !strings.Contains(ev.Name, "journal") {
				continue
			}
			time.Sleep(50 * time.Millisecond)
		case <-tick.C:
		}
		if err := drain(); err != nil {
			fmt.Fprintf(o.Stderr, "cully export: %v (retrying)\n", err)
		}
	}
}

func fromWhat(from string, saved, once bool) string {
	switch {
	case from == "start":
		return "the journal's start"
	case from == "saved" && !saved && once:
		return "the journal's start (the first export here)"
	case from == "end" || !saved:
		return "now on"
	}
	return "where it last stopped"
}

// ErrNoJournal is a --once export with no journal to send: the state dir
// holds none, most often because CULLY_HOME is not the hook's.
var ErrNoJournal = errors.New("no journal")

// nothingSent says plainly why a --once export sent nothing (from is where
// it read from): nothing new since the last export is no failure; no
// journal at all is, since then nothing was ever there to send.
func nothingSent(h store.Home, from store.Cursor, endpoint string, w io.Writer) error {
	files, _ := h.JournalFiles()
	if len(files) == 0 {
		return fmt.Errorf("%w in %s: no hook call has been recorded there, so nothing was sent to %s (is CULLY_HOME the hook's state dir? `cully doctor` says where the hook writes)", ErrNoJournal, h.Dir, endpoint)
	}
	if from == (store.Cursor{}) {
		fmt.Fprintf(w, "exported 0 records to %s: the journal holds none yet\n", endpoint)
		return nil
	}
	fmt.Fprintf(w, "exported 0 records to %s: nothing new in the journal since the last export (--from start sends it all again)\n", endpoint)
	return nil
}

// providers builds the log and trace providers from the standard
// variables: OTEL_EXPORTER_OTLP_PROTOCOL (or the per-signal
// OTEL_EXPORTER_OTLP_{LOGS,TRACES}_PROTOCOL) picks grpc or http/protobuf
// (the default); the exporters read the endpoint, headers, TLS and timeout
// variables themselves; OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
// change the resource.
func providers(ctx context.Context, o Options) (*sdklog.LoggerProvider, *sdktrace.TracerProvider, string, error) {
	proto := func(signal string) (string, error) {
		key := "OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL"
		p := o.Getenv(key)
		if p == "" {
			key = "OTEL_EXPORTER_OTLP_PROTOCOL"
			p = o.Getenv(key)
		}
		switch p {
		case "", "http/protobuf":
			return "http/protobuf", nil
		case "grpc":
			return "grpc", nil
		}
		return "", fmt.Errorf("%w: %s=%q: cully export sends grpc or http/protobuf", ErrUsage, key, p)
	}
	lproto, err := proto("LOGS")
	if err != nil {
		return nil, nil, "", err
	}
	tproto, err := proto("TRACES")
	if err != nil {
		return nil, nil, "", err
	}
	// With no endpoint or TLS variable, the endpoint is the local
	// collector the specification names, http://localhost:4318 (gRPC:
	// 4317), in plain text; the Go exporters' own default is TLS to it,
	// which a local collector refuses.
	plain := func(signal string) bool {
		for _, v := range []string{"ENDPOINT", "INSECURE", "CERTIFICATE"} {
			if o.Getenv("OTEL_EXPORTER_OTLP_"+v) != "" || o.Getenv("OTEL_EXPORTER_OTLP_"+signal+"_"+v) != "" {
				return false
			}
		}
		return true
	}
	var lexp sdklog.Exporter
	switch {
	case lproto == "grpc" && plain("LOGS"):
		lexp, err = otlploggrpc.New(ctx, otlploggrpc.WithInsecure())
	case lproto == "grpc":
		lexp, err = otlploggrpc.New(ctx)
	case plain("LOGS"):
		lexp, err = otlploghttp.New(ctx, otlploghttp.WithInsecure())
	default:
		lexp, err = otlploghttp.New(ctx)
	}
	if err != nil {
		return nil, nil, "", fmt.Errorf("OTLP logs exporter: %w", err)
	}
	var texp sdktrace.SpanExporter
	switch {
	case tproto == "grpc" && plain("TRACES"):
		texp, err = otlptracegrpc.New(ctx, otlptracegrpc.WithInsecure())
	case tproto == "grpc":
		texp, err = otlptracegrpc.New(ctx)
	case plain("TRACES"):
		texp, err = otlptracehttp.New(ctx, otlptracehttp.WithInsecure())
	default:
		texp, err = otlptracehttp.New(ctx)
	}
	if err != nil {
		return nil, nil, "", fmt.Errorf("OTLP trace exporter: %w", err)
	}
	res, err := fleetResource(ctx, o)
	if err != nil {
		return nil, nil, "", fmt.Errorf("%w: OpenTelemetry resource: %v", ErrUsage, err)
	}
	lp := sdklog.NewLoggerProvider(sdklog.WithResource(res), sdklog.WithProcessor(sdklog.NewBatchProcessor(lexp)))
	tp := sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithBatcher(texp, sdktrace.WithBlocking()))
	endpoint := o.Getenv("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT")
	if endpoint == "" {
		endpoint = o.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
	}
	if endpoint == "" {
		endpoint = map[string]string{"grpc": "http://localhost:4317", "http/protobuf": "http://localhost:4318"}[lproto]
	}
	return lp, tp, endpoint + " (" + lproto + ")", nil
}

// fleetResource is what a fleet groups by: the service, its version, the
// host and the user; the variables override and add.
func fleetResource(ctx context.Context, o Options) (*resource.Resource, error) {
	attrs := []attribute.KeyValue{attribute.String("service.name", "cully"), attribute.String("service.version", o.Version)}
	if host, err := os.Hostname(); err == nil {
		attrs = append(attrs, attribute.String("host.name", host))
	}
	name := o.Getenv("USER")
	if u, err := user.Current(); err == nil && name == "" {
		name = u.Username
	}
	if name != "" {
		attrs = append(attrs, attribute.String("user.name", name))
	}
	return resource.New(ctx, resource.WithAttributes(attrs...), resource.WithFromEnv(), resource.WithTelemetrySDK())
}
