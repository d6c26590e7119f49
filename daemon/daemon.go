// Package daemon serves Claude Code's http hooks on loopback: each POST to
// /hook/AGENT is one hook call, run in this process exactly as cully-hook
// runs it (hookrun.Run), the answer in the response; GET /health answers
// ok. One per state dir (a lock). It saves the host a process start per
// hook event; what it cannot do is docs/performance.md's measurement: when
// it is not running, an http hook fails open and the call goes
// unrecorded, which is why `cully install` keeps command hooks. Linked only
// by cmd/cully-daemon: net/http would add its start-up to every cully.
package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"cully/hookrun"
	"cully/install"
	"cully/jsonlite"
	"cully/store"
)

// Errors a caller maps to an exit status.
var (
	ErrUsage  = errors.New("usage")
	ErrLocked = errors.New("another cully daemon runs")
)

// The running daemon's record (address, process), and its lock.
const (
	infoFile = "daemon.json"
	lockFile = "daemon.lock"
)

// maxPayload bounds a request body: the hook's own payload bound, and a
// little.
const maxPayload = 16<<20 + 1

// Serve listens on listen (loopback only) until ctx ends.
func Serve(ctx context.Context, h store.Home, listen string, getenv func(string) string, log io.Writer) error {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("%w: --listen %q: want HOST:PORT on loopback, e.g. 127.0.0.1:4781", ErrUsage, listen)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%w: --listen %q: the daemon listens on loopback only (127.0.0.1, ::1 or localhost): hook payloads are this machine's", ErrUsage, listen)
	}
	if err := h.Ensure(); err != nil {
		return fmt.Errorf("state dir %s: %w", h.Dir, err)
	}
	lk, err := store.Acquire(filepath.Join(h.Dir, lockFile), 10*time.Millisecond)
	if err != nil {
		b, _ := os.ReadFile(filepath.Join(h.Dir, infoFile))
		return fmt.Errorf("%w for %s: %s", ErrLocked, h.Dir, bytes.TrimSpace(b))
	}
	defer lk.Unlock()
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", listen, err)
	}
	info, _ := json.Marshal(map[string]any{"addr": ln.Addr().String(), "pid": os.Getpid(), "started": time.Now().UTC().Format(time.RFC3339)})
	if err := install.WriteAtomic(filepath.Join(h.Dir, infoFile), append(info, '\n'), 0o600); err != nil {
		ln.Close()
		return fmt.Errorf("cannot write %s: %w", infoFile, err)
	}
	defer os.Remove(filepath.Join(h.Dir, infoFile))

	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("POST /hook/{agent}", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxPayload))
		if err != nil {
			http.Error(w, "read payload", http.StatusBadRequest)
			return
		}
		var out bytes.Buffer
		hookrun.Run(hookrun.IO{Stdin: bytes.NewReader(body), Stdout: &out, Stderr: io.Discard,
			Getenv: requestEnv(getenv, body), Detach: hookrun.Detach, Wait: hookrun.Wait}, r.PathValue("agent"))
		w.Header().Set("Content-Type", "application/json")
		if out.Len() == 0 {
			out.WriteString("{}")
		}
		_, _ = w.Write(out.Bytes())
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	fmt.Fprintf(log, "cully daemon: serving hooks on http://%s/hook/claude (state dir %s)\n", ln.Addr(), h.Dir)
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// requestEnv is the daemon's environment for one call, with what a
// command hook would have had from the host and an http hook does not
// carry: the project directory, from the payload's cwd.
func requestEnv(getenv func(string) string, payload []byte) func(string) string {
	cwd := ""
	if p, err := jsonlite.ParseObject(payload); err == nil {
		cwd = p.Str("cwd")
	}
	return func(k string) string {
		if k == "CLAUDE_PROJECT_DIR" && cwd != "" {
			return cwd
		}
		return getenv(k)
	}
}
