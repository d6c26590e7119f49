package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a buffer a running process writes while a test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startDaemon runs argv (cully daemon …) with env and waits until health
// answers (whatever it answers) through client at url with the headers
// given; the returned func stops it.
func startDaemon(t *testing.T, env map[string]string, argv []string, client *http.Client, url string, hdr map[string]string) (stop func(), stderr *syncBuffer) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var errb syncBuffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop = func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		req, _ := http.NewRequest("GET", url+"/health", nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		if r, err := client.Do(req); err == nil {
			r.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			stop()
			t.Fatalf("no health answer: %s", errb.String())
		}
	}
	return stop, &errb
}

func unixClient(sock string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}}
}

// post sends one request; host, when set, replaces the URL's Host header.
func post(t *testing.T, c *http.Client, url, host string, hdr map[string]string, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	r, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return r.StatusCode, string(b)
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

var jsonCT = map[string]string{"Content-Type": "application/json"}

// cully daemon answers hook calls on its Unix socket exactly as cully-hook
// answers them on stdin (the same record, the same answer), one per state
// dir, and refuses to listen anywhere but loopback.
func TestDaemon(t *testing.T) {
	env := testEnv(t)
	sock := filepath.Join(env["CULLY_HOME"], "daemon.sock")
	c := unixClient(sock)
	stop, _ := startDaemon(t, env, []string{"cully", "daemon"}, c, "http://localhost", nil)
	defer stop()
	if fi, err := os.Lstat(sock); err != nil || fi.Mode().Perm() != 0o600 || fi.Mode().Type() != os.ModeSocket {
		t.Fatalf("socket: %v %v", fi.Mode(), err)
	}
	// A command failing twice, then the same command again: the blind-retry
	// guard speaks in the pre-tool answer. Every answer equals cully-hook's
	// for the same calls in a state dir of its own.
	payloads := []string{
		`{"session_id":"d1","hook_event_name":"UserPromptSubmit","prompt":"fix","cwd":"/w"}`,
		`{"session_id":"d1","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"make x"},"tool_use_id":"t1","error":"Exit code 2\nmake: *** [x] Error 1","cwd":"/w"}`,
		`{"session_id":"d1","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"make x"},"tool_use_id":"t2","error":"Exit code 2\nmake: *** [x] Error 1","cwd":"/w"}`,
		`{"session_id":"d1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"make x"},"tool_use_id":"t3","cwd":"/w"}`,
	}
	hookEnv := testEnv(t)
	for k, v := range env {
		if k != "CULLY_HOME" && k != "PWD" {
			hookEnv[k] = v
		}
	}
	hookEnv["CLAUDE_PROJECT_DIR"] = "/w" // as the daemon takes it from the payload's cwd
	var last string
	for _, p := range payloads {
		code, got := post(t, c, "http://localhost/hook/claude", "", jsonCT, p)
		got = strings.TrimSpace(got)
		want := strings.TrimSpace(runBin(t, "cully-hook", hookEnv, []byte(p)).stdout)
		if want == "" {
			want = "{}"
		}
		if code != 200 || got != want {
			t.Errorf("daemon answered %d %s, cully-hook %s", code, got, want)
		}
		last = got
	}
	if !strings.Contains(last, "failed on its last 2 runs") {
		t.Errorf("no blind-retry warning in the pre-tool answer: %s", last)
	}
	// On the socket too: a web page's request and a body that is not JSON
	// are refused, and nothing is recorded.
	if code, _ := post(t, c, "http://localhost/hook/claude", "", map[string]string{"Content-Type": "application/json", "Origin": "http://x"}, payloads[0]); code != 403 {
		t.Errorf("Origin on the socket: %d", code)
	}
	if code, _ := post(t, c, "http://localhost/hook/claude", "", map[string]string{"Content-Type": "text/plain"}, payloads[0]); code != 415 {
		t.Errorf("text/plain on the socket: %d", code)
	}
	evs := journal(t, env["CULLY_HOME"])
	if len(evs) != 4 || evs[0].Session != "d1" || evs[3].ToolUseID != "t3" {
		t.Fatalf("journal: %d records %+v", len(evs), evs)
	}
	// One daemon per state dir; loopback only.
	if r := cully(t, env, nil, "daemon", "--listen", "127.0.0.1:0"); r.code != 1 || !strings.Contains(r.stderr, "another cully daemon runs") {
		t.Errorf("second daemon: %+v", r)
	}
	if r := cully(t, env, nil, "daemon", "--listen", "0.0.0.0:4781"); r.code != 2 || !strings.Contains(r.stderr, "loopback only") {
		t.Errorf("non-loopback listen: %+v", r)
	}
}

// Over loopback TCP every request carries the install's secret
// (`cully daemon --token`, 0600 in the state dir); every forgery the
// issue names is refused and records nothing: no secret, a wrong one, a
// web page's request (Origin), a DNS-rebound Host, text/plain.
func TestDaemonTCP(t *testing.T) {
	env := testEnv(t)
	r := cully(t, env, nil, "daemon", "--token")
	tok := strings.TrimSpace(r.stdout)
	if r.code != 0 || len(tok) != 43 {
		t.Fatalf("daemon --token: %+v", r)
	}
	if again := cully(t, env, nil, "daemon", "--token"); strings.TrimSpace(again.stdout) != tok {
		t.Fatalf("the secret changed between uses: %q, %q", tok, again.stdout)
	}
	if fi, err := os.Lstat(filepath.Join(env["CULLY_HOME"], "daemon.token")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi.Mode(), err)
	}
	addr := freeAddr(t)
	url := "http://" + addr
	auth := map[string]string{"Authorization": "Bearer " + tok}
	stop, errb := startDaemon(t, env, []string{"cully", "daemon", "--listen", addr}, http.DefaultClient, url, auth)
	defer stop()

	payload := `{"session_id":"t1","hook_event_name":"UserPromptSubmit","prompt":"fix","cwd":"/w"}`
	with := func(kv ...string) map[string]string {
		h := map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + tok}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(h, kv[i])
			} else {
				h[kv[i]] = kv[i+1]
			}
		}
		return h
	}
	for _, c := range []struct {
		name   string
		host   string
		hdr    map[string]string
		status int
	}{
		{"no secret (another local user's curl)", "", with("Authorization", ""), 401},
		{"a wrong secret", "", with("Authorization", "Bearer "+strings.Repeat("x", 43)), 401},
		{"the secret without its scheme", "", with("Authorization", tok), 401},
		{"a web page posting text/plain", "", with("Authorization", "", "Content-Type", "text/plain", "Origin", "http://evil.example"), 403},
		{"a web page, even with the secret", "", with("Origin", "http://evil.example"), 403},
		{"a DNS-rebound host name", "rebound.example:" + addr[strings.LastIndex(addr, ":")+1:], with(), 403},
		{"localhost when 127.0.0.1 was bound", "localhost:" + addr[strings.LastIndex(addr, ":")+1:], with(), 403},
		{"text/plain with the secret", "", with("Content-Type", "text/plain"), 415},
		{"a form with the secret", "", with("Content-Type", "application/x-www-form-urlencoded"), 415},
	} {
		code, body := post(t, http.DefaultClient, url+"/hook/claude", c.host, c.hdr, payload)
		if code != c.status || !strings.Contains(body, "refused") {
			t.Errorf("%s: %d %s, want %d", c.name, code, body, c.status)
		}
	}
	if evs := journal(t, env["CULLY_HOME"]); len(evs) != 0 {
		t.Fatalf("forged requests were recorded: %+v", evs)
	}
	if !strings.Contains(errb.String(), "refused a request") {
		t.Errorf("no refusal in the daemon's log: %s", errb.String())
	}
	// The hook entry's own request: recorded.
	if code, body := post(t, http.DefaultClient, url+"/hook/claude", "", with(), payload); code != 200 {
		t.Fatalf("the hook entry's request: %d %s", code, body)
	}
	if evs := journal(t, env["CULLY_HOME"]); len(evs) != 1 || evs[0].Session != "t1" {
		t.Fatalf("journal: %+v", evs)
	}
	if strings.Contains(errb.String(), tok) {
		t.Errorf("the daemon's log shows the secret")
	}
	for _, f := range []string{"journal.jsonl", "errors.log"} {
		if b, _ := os.ReadFile(filepath.Join(env["CULLY_HOME"], f)); bytes.Contains(b, []byte(tok)) {
			t.Errorf("%s holds the secret", f)
		}
	}
}

// Another user of the machine, for real: run as nobody (the tests run as
// root here), it can neither reach the Unix socket nor read the secret,
// and without it the TCP port refuses it; and a daemon run as nobody
// refuses root's connection on its socket, which file modes would let
// through, by the kernel's peer credentials.
func TestDaemonOtherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("running a client as another user needs root (setpriv); the peer check itself is daemon's TestPeerRefused")
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skipf("no user nobody to run as: %v", err)
	}
	for _, tool := range []string{"setpriv", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: cannot run a client as nobody", tool)
		}
	}
	asNobody := []string{"setpriv", "--reuid=" + nobody.Uid, "--regid=" + nobody.Gid, "--clear-groups"}
	// A parent everyone may enter: only the state dir's own modes stand
	// between nobody and the daemon.
	base, err := os.MkdirTemp("", "cully-daemon-user-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	os.Chmod(base, 0o755)
	nobodyRun := func(args ...string) (string, int) {
		cmd := exec.Command(asNobody[0], append(asNobody[1:], args...)...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=/"}
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	payload := `{"session_id":"forged","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"make"},"tool_use_id":"f1","error":"Exit code 2","cwd":"/w"}`

	t.Run("nobody against the user's socket", func(t *testing.T) {
		env := testEnv(t)
		env["CULLY_HOME"] = filepath.Join(base, "socket-state")
		sock := filepath.Join(env["CULLY_HOME"], "daemon.sock")
		stop, _ := startDaemon(t, env, []string{"cully", "daemon"}, unixClient(sock), "http://localhost", nil)
		defer stop()
		out, code := nobodyRun("curl", "-sS", "--unix-socket", sock, "-H", "Content-Type: application/json", "-d", payload, "http://localhost/hook/claude")
		if code != 7 { // curl's "could not connect": the state dir (0700) and the socket (0600) keep nobody out
			t.Errorf("nobody's curl on the socket: exit %d: %s", code, out)
		}
		if evs := journal(t, env["CULLY_HOME"]); len(evs) != 0 {
			t.Errorf("nobody's request was recorded: %+v", evs)
		}
	})

	t.Run("nobody against the user's port", func(t *testing.T) {
		env := testEnv(t)
		env["CULLY_HOME"] = filepath.Join(base, "tcp-state")
		tok := strings.TrimSpace(cully(t, env, nil, "daemon", "--token").stdout)
		addr := freeAddr(t)
		stop, _ := startDaemon(t, env, []string{"cully", "daemon", "--listen", addr}, http.DefaultClient, "http://"+addr, map[string]string{"Authorization": "Bearer " + tok})
		defer stop()
		if out, code := nobodyRun("cat", filepath.Join(env["CULLY_HOME"], "daemon.token")); code == 0 {
			t.Errorf("nobody read the secret: %s", out)
		}
		out, _ := nobodyRun("curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Content-Type: application/json", "-d", payload, "http://"+addr+"/hook/claude")
		if out != "401" {
			t.Errorf("nobody's request without the secret: %q", out)
		}
		if evs := journal(t, env["CULLY_HOME"]); len(evs) != 0 {
			t.Errorf("nobody's request was recorded: %+v", evs)
		}
	})

	t.Run("root against nobody's socket", func(t *testing.T) {
		// nobody runs the binaries from a folder it may read.
		bin := filepath.Join(base, "bin")
		os.Mkdir(bin, 0o755)
		for _, name := range []string{"cully", "cully-daemon"} {
			b, err := os.ReadFile(filepath.Join(testBin, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(bin, name), b, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		state := filepath.Join(base, "nobody-state")
		os.Mkdir(state, 0o700)
		uid, _ := strconv.Atoi(nobody.Uid)
		gid, _ := strconv.Atoi(nobody.Gid)
		if err := os.Chown(state, uid, gid); err != nil {
			t.Fatal(err)
		}
		sock := filepath.Join(state, "daemon.sock")
		c := unixClient(sock)
		env := map[string]string{"CULLY_HOME": state, "HOME": "/", "CULLY_SNAPSHOTS": "off"}
		argv := append(append([]string(nil), asNobody...), filepath.Join(bin, "cully"), "daemon")
		stop, _ := startDaemon(t, env, argv, c, "http://localhost", nil)
		defer stop()
		code, body := post(t, c, "http://localhost/hook/claude", "", jsonCT, payload)
		if code != 403 || !strings.Contains(body, "runs as uid 0") {
			t.Errorf("root's request on nobody's socket: %d %s", code, body)
		}
		if evs := journal(t, state); len(evs) != 0 {
			t.Errorf("root's request was recorded in nobody's journal: %+v", evs)
		}
	})
}
