// Package daemon serves Claude Code's http hooks: each POST to /hook/AGENT
// is one hook call, run in this process exactly as cully-hook runs it
// (hookrun.Run), the answer in the response; GET /health answers ok. One
// per state dir (a lock). It saves the host a process start per hook
// event; what it cannot do is docs/performance.md's measurement: when it
// is not running, an http hook fails open and the call goes unrecorded,
// which is why `cully install` keeps command hooks. Linked only by
// cmd/cully-daemon: net/http would add its start-up to every cully.
//
// Who may call it (docs/security.md): by default it listens on a Unix
// socket in the state dir (0600, in a 0700 folder), and serves only
// connections whose process runs as the daemon's own user (the kernel's
// peer credentials). On loopback TCP, which Claude Code's http hooks need
// (they cannot reach a Unix socket), every request must carry the
// install's secret (token.go). Either way a request with an Origin (a web
// page), a Host other than the address bound (a DNS-rebound name) or a
// body that is not JSON is refused before the hook sees it (gate.go).
package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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

// The running daemon's record (address, process), its lock and its
// socket.
const (
	infoFile = "daemon.json"
	lockFile = "daemon.lock"
	sockFile = "daemon.sock"
)

// maxPayload bounds a request body: the hook's own payload bound, and a
// little.
const maxPayload = 16<<20 + 1

// Config is what Serve serves.
type Config struct {
	Home store.Home
	// Listen is "" for the Unix socket in the state dir (SocketPath), or
	// HOST:PORT on loopback, where every request must carry the secret.
	Listen string
	Getenv func(string) string
	Log    io.Writer
}

// SocketPath is the Unix socket the daemon listens on by default.
func SocketPath(h store.Home) string { return filepath.Join(h.Dir, sockFile) }

// Serve listens until ctx ends.
func Serve(ctx context.Context, c Config) error { return serve(ctx, c, os.Getuid()) }

// serve is Serve with the one user a Unix socket serves (its tests name
// another, to see a real peer refused).
func serve(ctx context.Context, c Config, uid int) error {
	g := &gate{tcp: c.Listen != ""}
	if g.tcp {
		if err := loopbackOnly(c.Listen); err != nil {
			return err
		}
	} else if !peerCheck {
		return fmt.Errorf("%w: this system does not say which user connects to a Unix socket: use --listen 127.0.0.1:PORT (each request then carries the secret)", ErrUsage)
	}
	h := c.Home
	if err := h.Ensure(); err != nil {
		return fmt.Errorf("state dir %s: %w", h.Dir, err)
	}
	lk, err := store.Acquire(filepath.Join(h.Dir, lockFile), 10*time.Millisecond)
	if err != nil {
		b, _ := os.ReadFile(filepath.Join(h.Dir, infoFile))
		return fmt.Errorf("%w for %s: %s", ErrLocked, h.Dir, bytes.TrimSpace(b))
	}
	defer lk.Unlock()
	var ln net.Listener
	if g.tcp {
		tok, err := Token(h)
		if err != nil {
			return err
		}
		g.token = tokenSum(tok)
		if ln, err = net.Listen("tcp", c.Listen); err != nil {
			return fmt.Errorf("cannot listen on %s: %w", c.Listen, err)
		}
		g.hosts = boundHosts(c.Listen, ln.Addr().String())
	} else if ln, err = listenUnix(SocketPath(h)); err != nil {
		return err
	}
	defer ln.Close()
	info, _ := json.Marshal(map[string]any{"addr": addrOf(ln), "pid": os.Getpid(), "started": time.Now().UTC().Format(time.RFC3339)})
	if err := install.WriteAtomic(filepath.Join(h.Dir, infoFile), append(info, '\n'), 0o600); err != nil {
		return fmt.Errorf("cannot write %s: %w", infoFile, err)
	}
	defer os.Remove(filepath.Join(h.Dir, infoFile))

	srv := &http.Server{Handler: handler(g, uid, c.Getenv, hookrun.Run, &refusals{log: c.Log}), ReadHeaderTimeout: 5 * time.Second, MaxHeaderBytes: 64 << 10}
	if !g.tcp {
		srv.ConnContext = peerContext
	}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if g.tcp {
		fmt.Fprintf(c.Log, "cully daemon: serving hooks on http://%s/hook/claude (state dir %s); each request carries \"Authorization: Bearer $%s\" (cully daemon --token prints it)\n", g.hosts[0], h.Dir, TokenEnv)
	} else {
		fmt.Fprintf(c.Log, "cully daemon: serving hooks on the Unix socket %s, POST /hook/claude, to your own user only (Claude Code's http hooks cannot reach a Unix socket: for them, --listen 127.0.0.1:4781)\n", SocketPath(h))
	}
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// loopbackOnly refuses a --listen that is not HOST:PORT on loopback.
func loopbackOnly(listen string) error {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("%w: --listen %q: want HOST:PORT on loopback, e.g. 127.0.0.1:4781", ErrUsage, listen)
	}
	if ip := net.ParseIP(host); !strings.EqualFold(host, "localhost") && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%w: --listen %q: the daemon listens on loopback only (127.0.0.1, ::1 or localhost): hook payloads are this machine's", ErrUsage, listen)
	}
	return nil
}

// boundHosts are the Host values a request may carry: the name given to
// --listen and the address bound, each with the port bound (which --listen
// may have left to the system with port 0). The first is the one to show.
func boundHosts(listen, bound string) []string {
	host, _, _ := net.SplitHostPort(listen)
	_, port, _ := net.SplitHostPort(bound)
	hosts := []string{strings.ToLower(net.JoinHostPort(host, port))}
	if b := strings.ToLower(bound); b != hosts[0] {
		hosts = append(hosts, b)
	}
	return hosts
}

// listenUnix listens on the state dir's socket, private to the user. A
// socket left by a daemon that did not stop cleanly is replaced (the lock
// says none runs); anything else under that name is refused.
func listenUnix(path string) (net.Listener, error) {
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode().Type() != fs.ModeSocket {
			return nil, fmt.Errorf("%s exists and is not a socket: refusing to replace it", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("cannot remove the stale socket %s: %w", path, err)
		}
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		if len(path) > 100 { // the system's limit is 104 to 108 bytes
			return nil, fmt.Errorf("cannot listen on %s: %w (a socket's path is at most about 100 bytes: a shorter CULLY_HOME, or --listen 127.0.0.1:PORT)", path, err)
		}
		return nil, fmt.Errorf("cannot listen on %s: %w", path, err)
	}
	// The state dir (0700) keeps everyone else out while the mode is set.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("cannot make %s private: %w", path, err)
	}
	return ln, nil
}

func addrOf(ln net.Listener) string {
	if ln.Addr().Network() == "unix" {
		return "unix:" + ln.Addr().String()
	}
	return ln.Addr().String()
}

// peerKey carries a Unix connection's peer user (or why it is unknown) in
// each of its requests' context.
type peerKey struct{}

type peer struct {
	uid int
	err error
}

func peerContext(ctx context.Context, c net.Conn) context.Context {
	p := peer{uid: -1, err: errors.New("not a Unix socket connection")}
	if uc, ok := c.(*net.UnixConn); ok {
		p.uid, p.err = peerUID(uc)
	}
	return context.WithValue(ctx, peerKey{}, p)
}

// runFunc runs one hook call (hookrun.Run).
type runFunc func(hookrun.IO, string)

// handler is the daemon's HTTP surface: the gate, then the routes. uid is
// the only user served over a Unix socket.
func handler(g *gate, uid int, getenv func(string) string, run runFunc, rl *refusals) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("POST /hook/{agent}", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxPayload))
		if err != nil {
			http.Error(w, "read payload", http.StatusBadRequest)
			return
		}
		var out bytes.Buffer
		run(hookrun.IO{Stdin: bytes.NewReader(body), Stdout: &out, Stderr: io.Discard,
			Getenv: requestEnv(getenv, body), Detach: hookrun.Detach, Wait: hookrun.Wait}, r.PathValue("agent"))
		w.Header().Set("Content-Type", "application/json")
		if out.Len() == 0 {
			out.WriteString("{}")
		}
		_, _ = w.Write(out.Bytes())
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.tcp {
			p, ok := r.Context().Value(peerKey{}).(peer)
			switch {
			case !ok || p.err != nil:
				why := "no peer credentials"
				if ok {
					why = p.err.Error()
				}
				rl.refuse(w, &refusal{http.StatusForbidden, "cannot tell which user connected: " + why})
				return
			case p.uid != uid:
				rl.refuse(w, &refusal{http.StatusForbidden, "the connecting process runs as uid " + strconv.Itoa(p.uid) + "; this daemon serves uid " + strconv.Itoa(uid) + " only"})
				return
			}
		}
		if rf := g.check(r); rf != nil {
			rl.refuse(w, rf)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// refusals answers refused requests and says so in the daemon's log: at
// most one line a second, with how many were refused since the last line,
// so a page hammering the port cannot fill the log.
type refusals struct {
	log    io.Writer
	mu     sync.Mutex
	last   time.Time
	silent int
}

func (rl *refusals) refuse(w http.ResponseWriter, rf *refusal) {
	http.Error(w, "cully daemon: refused: "+rf.why, rf.status)
	if rl == nil || rl.log == nil {
		return
	}
	rl.mu.Lock()
	defer rl.mu.Unlock()
	now := time.Now()
	if !rl.last.IsZero() && now.Sub(rl.last) < time.Second {
		rl.silent++
		return
	}
	more := ""
	if rl.silent > 0 {
		more = fmt.Sprintf(" (and %d more refused since the last line)", rl.silent)
	}
	fmt.Fprintf(rl.log, "cully daemon: refused a request: %s%s\n", rf.why, more)
	rl.last, rl.silent = now, 0
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
