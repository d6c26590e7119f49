package main

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
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"cully/hookrun"
	"cully/install"
	"cully/jsonlite"
	"cully/store"
)

type daemonOpts struct{ listen string }

// daemonFile records the running daemon (address, process) for doctor and
// for people; daemonLock keeps it to one per state dir.
const (
	daemonFile = "daemon.json"
	daemonLock = "daemon.lock"
)

// maxHTTPPayload bounds a request body: the hook's own payload bound, and
// a little.
const maxHTTPPayload = 16<<20 + 1

// daemon serves Claude Code's http hooks on loopback: each POST to
// /hook/AGENT is one hook call, run in this process exactly as cully-hook
// runs it (hookrun.Run), the answer in the response. It saves the host a
// process start per hook event; what it cannot do is docs/performance.md's
// measurement: when it is not running, an http hook fails open and the
// call goes unrecorded, which is why `cully install` keeps command hooks.
func (a *app) daemon(o daemonOpts) error {
	h, err := a.home()
	if err != nil {
		return err
	}
	if err := h.Ensure(); err != nil {
		return stateDirError(h, err)
	}
	host, _, err := net.SplitHostPort(o.listen)
	if err != nil {
		return fail(codeUsage, errUsage, "--listen %q: want HOST:PORT on loopback, e.g. 127.0.0.1:4781", o.listen)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fail(codeUsage, errUsage, "--listen %q: the daemon listens on loopback only (127.0.0.1, ::1 or localhost): hook payloads are this machine's", o.listen)
	}
	lk, err := store.Acquire(filepath.Join(h.Dir, daemonLock), 10*time.Millisecond)
	if err != nil {
		b, _ := os.ReadFile(filepath.Join(h.Dir, daemonFile))
		return fail(codeLocked, err, "another cully daemon runs for %s: %s", h.Dir, bytes.TrimSpace(b))
	}
	defer lk.Unlock()
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fail(codeFailed, err, "cannot listen on %s: %s", o.listen, plain(err))
	}
	info, _ := json.Marshal(map[string]any{"addr": ln.Addr().String(), "pid": os.Getpid(), "started": time.Now().UTC().Format(time.RFC3339)})
	if err := install.WriteAtomic(filepath.Join(h.Dir, daemonFile), append(info, '\n'), 0o600); err != nil {
		ln.Close()
		return fail(codeStateDir, err, "cannot write %s: %s", daemonFile, plain(err))
	}
	defer os.Remove(filepath.Join(h.Dir, daemonFile))

	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("POST /hook/{agent}", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxHTTPPayload))
		if err != nil {
			http.Error(w, "read payload", http.StatusBadRequest)
			return
		}
		var out bytes.Buffer
		hookrun.Run(hookrun.IO{Stdin: bytes.NewReader(body), Stdout: &out, Stderr: io.Discard,
			Getenv: requestEnv(a.getenv, body), Detach: hookrun.Detach}, r.PathValue("agent"))
		w.Header().Set("Content-Type", "application/json")
		if out.Len() == 0 {
			out.WriteString("{}")
		}
		_, _ = w.Write(out.Bytes())
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	fmt.Fprintf(termSafe{a.stderr}, "cully daemon: serving hooks on http://%s/hook/claude (state dir %s)\n", ln.Addr(), h.Dir)
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fail(codeFailed, err, "cully daemon: %s", plain(err))
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
