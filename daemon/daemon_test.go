package daemon

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"cully/hookrun"
	"cully/store"
)

const testToken = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

func tcpGate() *gate {
	return &gate{tcp: true, hosts: []string{"127.0.0.1:4781"}, token: tokenSum(testToken)}
}

// Every forgery the issue names is refused before the hook runs, with the
// status that says why; the real hook entry's request passes.
func TestGate(t *testing.T) {
	good := func() *http.Request {
		r := httptest.NewRequest("POST", "http://127.0.0.1:4781/hook/claude", strings.NewReader(`{}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Authorization", "Bearer "+testToken)
		return r
	}
	cases := []struct {
		name   string
		edit   func(r *http.Request)
		unix   bool
		status int // 0: passes
	}{
		{"the hook entry's request", func(*http.Request) {}, false, 0},
		{"charset parameter", func(r *http.Request) { r.Header.Set("Content-Type", "application/json; charset=utf-8") }, false, 0},
		{"scheme in lower case", func(r *http.Request) { r.Header.Set("Authorization", "bearer "+testToken) }, false, 0},
		{"no secret (another local user's curl)", func(r *http.Request) { r.Header.Del("Authorization") }, false, 401},
		{"wrong secret", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+strings.Repeat("B", 43)) }, false, 401},
		{"secret's prefix", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+testToken[:42]) }, false, 401},
		{"secret with more after it", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+testToken+"x") }, false, 401},
		{"secret without the scheme", func(r *http.Request) { r.Header.Set("Authorization", testToken) }, false, 401},
		{"secret as Basic", func(r *http.Request) { r.Header.Set("Authorization", "Basic "+testToken) }, false, 401},
		{"empty bearer", func(r *http.Request) { r.Header.Set("Authorization", "Bearer ") }, false, 401},
		{"two Authorization headers", func(r *http.Request) { r.Header.Add("Authorization", "Bearer x") }, false, 401},
		{"a web page (Origin) with the secret", func(r *http.Request) { r.Header.Set("Origin", "http://127.0.0.1:4781") }, false, 403},
		{"an empty Origin", func(r *http.Request) { r.Header["Origin"] = []string{""} }, false, 403},
		{"Origin null", func(r *http.Request) { r.Header.Set("Origin", "null") }, false, 403},
		{"a browser's fetch metadata, no Origin", func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "same-site") }, false, 403},
		{"a DNS-rebound Host", func(r *http.Request) { r.Host = "attacker.example:4781" }, false, 403},
		{"localhost when 127.0.0.1 was bound", func(r *http.Request) { r.Host = "localhost:4781" }, false, 403},
		{"another port", func(r *http.Request) { r.Host = "127.0.0.1:80" }, false, 403},
		{"no port", func(r *http.Request) { r.Host = "127.0.0.1" }, false, 403},
		{"no Host", func(r *http.Request) { r.Host = "" }, false, 403},
		{"text/plain (a page's simple request)", func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") }, false, 415},
		{"form post", func(r *http.Request) { r.Header.Set("Content-Type", "application/x-www-form-urlencoded") }, false, 415},
		{"no Content-Type", func(r *http.Request) { r.Header.Del("Content-Type") }, false, 415},
		{"two Content-Types", func(r *http.Request) { r.Header.Add("Content-Type", "text/plain") }, false, 415},
		{"JSON-looking parameter", func(r *http.Request) { r.Header.Set("Content-Type", "text/plain; x=application/json") }, false, 415},
		{"unix: no secret needed", func(r *http.Request) { r.Header.Del("Authorization"); r.Host = "localhost" }, true, 0},
		{"unix: Origin still refused", func(r *http.Request) { r.Header.Set("Origin", "http://x") }, true, 403},
		{"unix: text/plain still refused", func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") }, true, 415},
	}
	for _, c := range cases {
		r := good()
		c.edit(r)
		g := tcpGate()
		g.tcp = !c.unix
		rf := g.check(r)
		switch {
		case c.status == 0 && rf != nil:
			t.Errorf("%s: refused (%d %s)", c.name, rf.status, rf.why)
		case c.status != 0 && rf == nil:
			t.Errorf("%s: passed, want %d", c.name, c.status)
		case c.status != 0 && rf.status != c.status:
			t.Errorf("%s: %d %s, want %d", c.name, rf.status, rf.why, c.status)
		}
	}
	// GET /health needs the secret over TCP too, and no Content-Type.
	r := httptest.NewRequest("GET", "http://127.0.0.1:4781/health", nil)
	if rf := tcpGate().check(r); rf == nil || rf.status != 401 {
		t.Errorf("health without the secret: %+v", rf)
	}
	r.Header.Set("Authorization", "Bearer "+testToken)
	if rf := tcpGate().check(r); rf != nil {
		t.Errorf("health with the secret: %+v", rf)
	}
}

// The hosts a request may name: the --listen name and the bound address,
// each with the port bound.
func TestBoundHosts(t *testing.T) {
	for _, c := range []struct {
		listen, bound string
		want          []string
	}{
		{"127.0.0.1:4781", "127.0.0.1:4781", []string{"127.0.0.1:4781"}},
		{"127.0.0.1:0", "127.0.0.1:39001", []string{"127.0.0.1:39001"}},
		{"LocalHost:4781", "127.0.0.1:4781", []string{"localhost:4781", "127.0.0.1:4781"}},
		{"[::1]:4781", "[::1]:4781", []string{"[::1]:4781"}},
	} {
		if got := boundHosts(c.listen, c.bound); strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("boundHosts(%s, %s) = %v, want %v", c.listen, c.bound, got, c.want)
		}
	}
}

// The secret is made once (0600, 256 random bits), the same for every
// reader, even two first uses at once; a file others may read, a planted
// symlink or a file cully did not write is refused, never replaced.
func TestToken(t *testing.T) {
	h := store.Home{Dir: filepath.Join(t.TempDir(), "state")}
	var wg sync.WaitGroup
	toks := make([]string, 8)
	errs := make([]error, 8)
	for i := range toks {
		wg.Add(1)
		go func() { defer wg.Done(); toks[i], errs[i] = Token(h) }()
	}
	wg.Wait()
	for i := range toks {
		if errs[i] != nil || toks[i] != toks[0] || len(toks[0]) != 43 {
			t.Fatalf("first uses disagree: %q %v, %q", toks[i], errs[i], toks[0])
		}
	}
	fi, err := os.Lstat(TokenPath(h))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi.Mode(), err)
	}
	if again, err := Token(h); err != nil || again != toks[0] {
		t.Fatalf("second use: %q %v", again, err)
	}
	other, err := Token(store.Home{Dir: filepath.Join(t.TempDir(), "state")})
	if err != nil || other == toks[0] {
		t.Fatalf("another install has the same secret: %q %v", other, err)
	}
	if ents, _ := os.ReadDir(h.Dir); len(ents) != 2 { // the token and sessions/: nothing left aside
		t.Errorf("state dir holds %d entries", len(ents))
	}

	os.Chmod(TokenPath(h), 0o644)
	if _, err := Token(h); err == nil || !strings.Contains(err.Error(), "lets others read") {
		t.Errorf("0644 token: %v", err)
	}
	os.WriteFile(TokenPath(h), []byte("hunter2\n"), 0o600)
	os.Chmod(TokenPath(h), 0o600)
	if _, err := Token(h); err == nil || !strings.Contains(err.Error(), "not a secret cully wrote") {
		t.Errorf("foreign token: %v", err)
	}
	os.Remove(TokenPath(h))
	target := filepath.Join(t.TempDir(), "elsewhere")
	os.WriteFile(target, []byte(testToken+"\n"), 0o600)
	os.Symlink(target, TokenPath(h))
	if _, err := Token(h); err == nil {
		t.Errorf("a symlinked token was read")
	}
}

// A real connection over the Unix socket from a process of another user
// is refused by the kernel's word on who connected: the daemon is told to
// serve another uid than this test's, and this test's requests are
// refused; served its own, they pass.
func TestPeerRefused(t *testing.T) {
	if !peerCheck {
		t.Skip("this system gives no peer credentials: the daemon refuses to serve a Unix socket here")
	}
	for _, c := range []struct {
		uid    int
		status int
	}{{os.Getuid() + 1, 403}, {os.Getuid(), 200}} {
		dir, err := os.MkdirTemp("", "cd") // short: a socket path is at most 104 bytes on some systems
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		h := store.Home{Dir: filepath.Join(dir, "s")}
		ctx, cancel := context.WithCancel(context.Background())
		var log bytes.Buffer
		done := make(chan error, 1)
		go func() {
			done <- serve(ctx, Config{Home: h, Getenv: func(string) string { return "" }, Log: &syncWriter{w: &log}}, c.uid)
		}()
		cl := unixClient(SocketPath(h))
		var resp *http.Response
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if resp, err = cl.Get("http://localhost/health"); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no answer on the socket: %v", err)
			}
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("serving uid %d, a request as uid %d: %d %s", c.uid, os.Getuid(), resp.StatusCode, b)
		}
		if c.status == 403 && !strings.Contains(string(b), "runs as uid") {
			t.Errorf("refusal does not say why: %s", b)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(SocketPath(h)); err == nil {
			t.Errorf("socket left behind after a clean stop")
		}
	}
}

// A stale socket (a daemon killed) is replaced; a file under the socket's
// name is not.
func TestListenUnix(t *testing.T) {
	dir, err := os.MkdirTemp("", "cd")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, sockFile)
	ln, err := listenUnix(p)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if ln, err = listenUnix(p); err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	if fi, _ := os.Lstat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v", fi.Mode())
	}
	ln.Close()
	os.WriteFile(p, []byte("mine"), 0o600)
	if _, err := listenUnix(p); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Errorf("a file under the socket's name: %v", err)
	}
}

func unixClient(path string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}}}
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// FuzzRequest sends arbitrary bytes as an HTTP request through the
// daemon's whole handler (the gate, the routes, the body read and the
// payload's cwd): nothing panics, and a request reaches the hook only if
// it carries no Origin, names the bound Host, carries the secret (over
// TCP) and a JSON body, and then the hook sees exactly its body.
func FuzzRequest(f *testing.F) {
	for _, s := range []string{
		"POST /hook/claude HTTP/1.1\r\nHost: 127.0.0.1:4781\r\nAuthorization: Bearer " + testToken + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
		"POST /hook/claude HTTP/1.1\r\nHost: 127.0.0.1:4781\r\nAuthorization: Bearer " + testToken + "\r\nContent-Type: application/json\r\nContent-Length: 28\r\n\r\n{\"cwd\":\"/w\",\"session_id\":1}",
		"POST /hook/claude HTTP/1.1\r\nHost: 127.0.0.1:4781\r\nOrigin: http://evil\r\nAuthorization: Bearer " + testToken + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
		"POST /hook/claude HTTP/1.1\r\nHost: rebound.example:4781\r\nAuthorization: Bearer " + testToken + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
		"POST /hook/claude HTTP/1.1\r\nHost: 127.0.0.1:4781\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}",
		"POST /hook/claude HTTP/1.1\r\nHost: 127.0.0.1:4781\r\nAuthorization: Bearer " + testToken + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
		"POST http://127.0.0.1:4781/hook/claude HTTP/1.1\r\nHost: 127.0.0.1:4781\r\nAuthorization: Bearer " + testToken + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
		"GET /health HTTP/1.1\r\nHost: 127.0.0.1:4781\r\nAuthorization: Bearer " + testToken + "\r\n\r\n",
		"POST /hook/../hook/claude HTTP/1.0\r\nAuthorization: Bearer " + testToken + "\r\nContent-Type: application/json\r\n\r\n{}",
	} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, raw []byte, tcp bool) {
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(raw)))
		if err != nil {
			return
		}
		// What the request says, read before the handler consumes it.
		origin := len(req.Header.Values("Origin")) > 0
		host := strings.ToLower(req.Host)
		auth := req.Header.Values("Authorization")
		ct := req.Header.Values("Content-Type")
		body, _ := io.ReadAll(io.LimitReader(req.Body, maxPayload))
		req.Body = io.NopCloser(bytes.NewReader(body))

		g := tcpGate()
		g.tcp = tcp
		var called bool
		var seen []byte
		var agent string
		run := func(a hookrun.IO, ag string) {
			called, agent = true, ag
			seen, _ = io.ReadAll(a.Stdin)
			a.Getenv("CLAUDE_PROJECT_DIR")
		}
		req = req.WithContext(context.WithValue(req.Context(), peerKey{}, peer{uid: 7}))
		w := httptest.NewRecorder()
		handler(g, 7, func(string) string { return "" }, run, nil).ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("answered %d", w.Code)
		}
		if !called {
			return
		}
		switch {
		case origin:
			t.Fatalf("a request with an Origin reached the hook")
		case tcp && host != "127.0.0.1:4781":
			t.Fatalf("Host %q reached the hook", host)
		case tcp && (len(auth) != 1 || !strings.Contains(auth[0], testToken)):
			t.Fatalf("Authorization %q reached the hook", auth)
		case len(ct) != 1 || !strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct[0])), "application/json"):
			t.Fatalf("Content-Type %q reached the hook", ct)
		case req.Method != http.MethodPost || agent == "" || strings.Contains(agent, "/"):
			t.Fatalf("%s %q reached the hook as agent %q", req.Method, req.URL.Path, agent)
		case !bytes.Equal(seen, body):
			t.Fatalf("the hook saw %q, the request carried %q", seen, body)
		case w.Code != 200 || w.Header().Get("Content-Type") != "application/json":
			t.Fatalf("a served call answered %d %q", w.Code, w.Header().Get("Content-Type"))
		}
	})
}

// BenchmarkGate is what the checks add to each hook call over TCP.
func BenchmarkGate(b *testing.B) {
	r := httptest.NewRequest("POST", "http://127.0.0.1:4781/hook/claude", strings.NewReader(`{}`))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Authorization", "Bearer "+testToken)
	g := tcpGate()
	for b.Loop() {
		if g.check(r) != nil {
			b.Fatal("refused")
		}
	}
}

// A state dir too deep for a socket's path says what to do.
func TestSocketPathTooLong(t *testing.T) {
	p := filepath.Join(t.TempDir(), strings.Repeat("d", 100), sockFile)
	os.MkdirAll(filepath.Dir(p), 0o700)
	if _, err := listenUnix(p); err == nil || !strings.Contains(err.Error(), "shorter CULLY_HOME") {
		t.Errorf("%d-byte socket path: %v", len(p), err)
	}
}
