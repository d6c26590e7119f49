package codex

import (
	"bufio"
	"context"
	"encoding/json"

	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"cully/hookbridge"
	"cully/install"
)

// Codex runs a user's or a project's hooks only once the user trusts them:
// config.toml keeps, per entry, the hash of what was trusted
//
//	[hooks.state."<hooks.json path>:<event>:<group>:<handler>"]
//	trusted_hash = "sha256:…"
//
// and an entry whose hash differs (its command or timeout changed) is
// "modified" and silently not run. Codex's own app server computes the
// hashes and writes them (hooks/list, then config/batchWrite, as its TUI
// does): cully asks it, rather than hashing Codex's entries itself.

// trustWait bounds one conversation with the app server: it starts in
// well under a second.
const trustWait = 30 * time.Second

// stepTrust is the one thing a user must do when cully cannot trust its
// entries itself.
const stepTrust = "start codex once and trust cully's hooks when it says they need review (or review them with /hooks in codex)"

// hookInfo is one entry as Codex's app server lists it.
type hookInfo struct {
	Key         string `json:"key"`
	Command     string `json:"command"`
	SourcePath  string `json:"sourcePath"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"` // managed, untrusted, trusted, modified
	EventName   string `json:"eventName"`
}

// codexBin finds the codex binary.
func codexBin() (string, bool) {
	p, err := exec.LookPath("codex")
	return p, err == nil
}

// appServer is one conversation with `codex app-server` over stdio
// (JSON-RPC, one message a line).
type appServer struct {
	cmd  *exec.Cmd
	pipe io.Closer // its stdin: closing it ends the server
	in   *json.Encoder
	out  *bufio.Scanner
	next int
}

// startAppServer starts Codex's app server for t: with CODEX_HOME set to
// the folder of a user hooks.json, so it reads the file cully wrote.
func startAppServer(ctx context.Context, bin string, t hookbridge.Target) (*appServer, error) {
	cmd := exec.CommandContext(ctx, bin, "app-server")
	cmd.Env = os.Environ()
	if t.Scope == hookbridge.ScopeUser {
		cmd.Env = append(cmd.Env, "CODEX_HOME="+filepath.Dir(t.Settings))
	}
	cmd.Stderr = nil
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &appServer{cmd: cmd, pipe: in, in: json.NewEncoder(in), out: bufio.NewScanner(out)}
	s.out.Buffer(make([]byte, 1<<20), 64<<20)
	if _, err := s.call("initialize", map[string]any{"clientInfo": map[string]string{"name": "cully", "version": "1"}}); err != nil {
		s.close()
		return nil, err
	}
	if err := s.in.Encode(map[string]any{"method": "initialized"}); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// call sends one request and waits for its answer (notifications in
// between are skipped).
func (s *appServer) call(method string, params any) (json.RawMessage, error) {
	s.next++
	id := s.next
	if err := s.in.Encode(map[string]any{"id": id, "method": method, "params": params}); err != nil {
		return nil, fmt.Errorf("codex app-server %s: %w", method, err)
	}
	for s.out.Scan() {
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(s.out.Bytes(), &m) != nil || m.ID == nil || *m.ID != id {
			continue
		}
		if m.Error != nil {
			return nil, fmt.Errorf("codex app-server %s: %s", method, m.Error.Message)
		}
		return m.Result, nil
	}
	if err := s.out.Err(); err != nil {
		return nil, fmt.Errorf("codex app-server %s: %w", method, err)
	}
	return nil, fmt.Errorf("codex app-server %s: it closed without answering", method)
}

func (s *appServer) close() {
	_ = s.pipe.Close()
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// cullyHooks lists cully's entries in t's file, as Codex sees them from
// the project (the user's file is listed from any folder).
func (s *appServer) cullyHooks(t hookbridge.Target) ([]hookInfo, error) {
	cwd := filepath.Dir(filepath.Dir(t.Settings)) // the project root, for .codex/hooks.json
	if t.Scope == hookbridge.ScopeUser {
		cwd, _ = os.Getwd()
	}
	res, err := s.call("hooks/list", map[string]any{"cwds": []string{cwd}})
	if err != nil {
		return nil, err
	}
	var list struct {
		Data []struct {
			Hooks []hookInfo `json:"hooks"`
		} `json:"data"`
	}
	if err := json.Unmarshal(res, &list); err != nil {
		return nil, fmt.Errorf("codex app-server hooks/list: %w", err)
	}
	var out []hookInfo
	for _, d := range list.Data {
		for _, h := range d.Hooks {
			if samePath(h.SourcePath, t.Settings) && install.IsCullyCommand(h.Command) {
				out = append(out, h)
			}
		}
	}
	return out, nil
}

func samePath(a, b string) bool {
	if a == b {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// errNotListed: Codex does not load the file (a project it was not told
// to trust).
const errNotListed = decodeError("codex does not list cully's entries")

// Trust marks cully's entries in t as trusted, through Codex's own app
// server: the hashes Codex computes, written where Codex keeps them. Entries
// already trusted are left as they are.
func (Agent) Trust(t hookbridge.Target) (done, step string, err error) {
	bin, ok := codexBin()
	if !ok {
		return "", "codex is not on PATH, so cully could not trust its hooks for it: " + stepTrust, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), trustWait)
	defer cancel()
	s, err := startAppServer(ctx, bin, t)
	if err != nil {
		return "", stepTrust, fmt.Errorf("start codex app-server: %w", err)
	}
	defer s.close()
	hooks, err := s.cullyHooks(t)
	if err != nil {
		return "", stepTrust, err
	}
	if len(hooks) == 0 {
		if t.Scope == hookbridge.ScopeProject {
			return "", fmt.Sprintf("Codex loads %s only in a project it trusts: start codex in %s and trust the folder, then run `cully install --agent codex --scope project` again", t.Settings, filepath.Dir(filepath.Dir(t.Settings))), nil
		}
		return "", stepTrust, errNotListed
	}
	value := map[string]any{}
	for _, h := range hooks {
		if h.TrustStatus == "untrusted" || h.TrustStatus == "modified" {
			value[h.Key] = map[string]string{"trusted_hash": h.CurrentHash}
		}
	}
	if len(value) == 0 {
		return fmt.Sprintf("codex: cully's %d hook entries in %s are already trusted", len(hooks), t.Settings), "", nil
	}
	if _, err := s.call("config/batchWrite", map[string]any{"edits": []map[string]any{{"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": value}}}); err != nil {
		return "", stepTrust, err
	}
	after, err := s.cullyHooks(t)
	if err != nil {
		return "", stepTrust, err
	}
	var left []string
	for _, h := range after {
		if h.TrustStatus != "trusted" && h.TrustStatus != "managed" {
			left = append(left, h.EventName+" ("+h.TrustStatus+")")
		}
	}
	if len(left) > 0 {
		return "", stepTrust, fmt.Errorf("codex still reports cully's entries as not trusted: %s", strings.Join(left, ", "))
	}
	return fmt.Sprintf("codex: trusted cully's %d hook entries in %s (Codex's own trust record, in its config.toml)", len(value), t.Settings), "", nil
}

// TrustChecks: whether Codex will run cully's entries in t, as its app
// server says: every entry trusted is a pass; an untrusted or modified one
// is a failure with its fix. Without codex on PATH it cannot be told.
func (Agent) TrustChecks(t hookbridge.Target) []hookbridge.Check {
	where := fmt.Sprintf("Codex (%s, %s)", t.Scope, t.Settings)
	fix := "cully install --agent codex" + t.Scope.Flags() + " (it asks codex to trust them), or " + stepTrust
	bin, ok := codexBin()
	if !ok {
		return []hookbridge.Check{{OK: true, Warn: true, What: where + ": codex is not on PATH, so whether it trusts cully's hooks cannot be checked (Codex runs untrusted hooks silently not at all)", Fix: stepTrust}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), trustWait)
	defer cancel()
	s, err := startAppServer(ctx, bin, t)
	if err != nil {
		return []hookbridge.Check{{Warn: true, What: where + ": could not ask codex whether it trusts cully's hooks: " + err.Error()}}
	}
	defer s.close()
	hooks, err := s.cullyHooks(t)
	switch {
	case err != nil:
		return []hookbridge.Check{{Warn: true, What: where + ": could not ask codex whether it trusts cully's hooks: " + err.Error()}}
	case len(hooks) == 0 && t.Scope == hookbridge.ScopeProject:
		return []hookbridge.Check{{What: where + ": codex does not load this project's hooks (the project is not trusted in Codex)", Fix: "start codex in the project and trust the folder, then " + fix}}
	case len(hooks) == 0:
		return []hookbridge.Check{{What: where + ": codex does not list cully's entries", Fix: fix}}
	}
	var untrusted, modified []string
	for _, h := range hooks {
		switch h.TrustStatus {
		case "untrusted":
			untrusted = append(untrusted, h.EventName)
		case "modified":
			modified = append(modified, h.EventName)
		}
	}
	var cs []hookbridge.Check
	if len(modified) > 0 {
		cs = append(cs, hookbridge.Check{What: where + ": cully's entries changed since they were trusted, and Codex skips them: " + strings.Join(modified, ", "), Fix: fix})
	}
	if len(untrusted) > 0 {
		cs = append(cs, hookbridge.Check{What: where + ": Codex does not run cully's untrusted entries: " + strings.Join(untrusted, ", "), Fix: fix})
	}
	if len(cs) == 0 {
		cs = append(cs, hookbridge.Check{OK: true, What: fmt.Sprintf("%s: codex trusts all %d of cully's hook entries", where, len(hooks))})
	}
	return cs
}
