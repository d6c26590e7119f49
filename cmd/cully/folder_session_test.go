package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cully/runs"
	"cully/store"
)

// twoRepos is the bug's setting: two git repositories, A and B, a Claude
// Code session in each (its run's baseline taken, then an edit), B the
// most recently active; and a third folder that is no repository.
type twoRepos struct {
	t       *testing.T
	env     map[string]string
	a, b, c string
	seq     int
}

const (
	sessA = "aaaaaaaa-1111-4222-8333-444455556666"
	sessB = "bbbbbbbb-1111-4222-8333-444455556666"
)

func newTwoRepos(t *testing.T) *twoRepos {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	env := testEnv(t)
	base := env["PWD"]
	w := &twoRepos{t: t, env: env, a: filepath.Join(base, "a"), b: filepath.Join(base, "b"), c: filepath.Join(base, "elsewhere")}
	env["CULLY_SNAPSHOTS"] = "on"
	env["CULLY_SNAPSHOT_LINGER"] = "300ms"
	if err := os.MkdirAll(w.c, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct{ dir, name string }{{w.a, "a"}, {w.b, "b"}} {
		if err := os.MkdirAll(filepath.Join(r.dir, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		w.write(filepath.Join(r.dir, r.name+".txt"), r.name+"0\n")
		w.write(filepath.Join(r.dir, "sub", "keep.txt"), "keep\n")
		for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "maintenance.auto=false", "commit", "-qm", "init"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = r.dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v %s", args, err, out)
			}
		}
	}
	t.Cleanup(w.settle)
	w.start(w.a, sessA)
	w.edit(w.a, sessA, "a.txt", "a1\n", "new-a.txt")
	w.start(w.b, sessB)
	w.edit(w.b, sessB, "b.txt", "b1\n", "new-b.txt")
	return w
}

func (w *twoRepos) write(path, s string) {
	w.t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *twoRepos) read(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "<missing>"
	}
	return string(b)
}

// in is the environment of a command typed in dir (an agent's hook: in
// its repository, which is also its project dir).
func (w *twoRepos) in(dir string) map[string]string {
	e := map[string]string{}
	for k, v := range w.env {
		e[k] = v
	}
	e["PWD"], e["CLAUDE_PROJECT_DIR"] = dir, dir
	return e
}

// hook sends one Claude Code payload from the session's repository.
func (w *twoRepos) hook(repo, session, event string, extra string) {
	w.t.Helper()
	if event != "PostToolUse" { // a call's post has its pre's id
		w.seq++
	}
	p := fmt.Sprintf(`{"session_id":%q,"hook_event_name":%q,"cwd":%q,"permission_mode":"default","tool_use_id":"toolu_%d"%s}`, session, event, repo, w.seq, extra)
	if r := runBin(w.t, "cully-hook", w.in(repo), []byte(p)); r.code != 0 || r.stderr != "" {
		w.t.Fatalf("cully-hook: %+v", r)
	}
}

// start opens the session's run with a prompt and waits for its baseline.
func (w *twoRepos) start(repo, session string) {
	w.t.Helper()
	w.hook(repo, session, "UserPromptSubmit", `,"prompt":"work"`)
	w.wait(repo, session)
}

// edit has the agent change one file and create another, each write
// between its call's pre and post, as a host runs a tool between its hooks.
func (w *twoRepos) edit(repo, session, file, text, created string) {
	w.t.Helper()
	for f, content := range map[string]string{file: text, created: "new\n"} {
		in := fmt.Sprintf(`,"tool_name":"Write","tool_input":{"file_path":%q,"content":"x"}`, filepath.Join(repo, f))
		w.hook(repo, session, "PreToolUse", in)
		w.write(filepath.Join(repo, f), content)
		w.hook(repo, session, "PostToolUse", in+`,"tool_response":{}`)
	}
	w.wait(repo, session)
}

func (w *twoRepos) wait(repo, session string) {
	w.t.Helper()
	if r := cully(w.t, w.in(repo), nil, "snapshot", "--wait", "--session", session); r.code != 0 {
		w.t.Fatalf("snapshot --wait: %+v", r)
	}
}

// cully runs a command typed in dir, without a terminal.
func (w *twoRepos) cully(dir string, args ...string) result {
	w.t.Helper()
	return cully(w.t, w.in(dir), nil, args...)
}

// settle waits for the snapshot server to go (its linger is short here).
func (w *twoRepos) settle() {
	h := store.Home{Dir: w.env["CULLY_HOME"]}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if srv, err := runs.Server(h); errors.Is(err, fs.ErrNotExist) || err == nil && exited(srv.PID) {
			return
		}
	}
}

// edited reports whether a repository still holds its session's edits.
func (w *twoRepos) edited(repo, file, text, created string) bool {
	_, err := os.Stat(filepath.Join(repo, created))
	return w.read(filepath.Join(repo, file)) == text && err == nil
}

// reverted reports whether a repository is back at its run's start.
func (w *twoRepos) reverted(repo, file, text, created string) bool {
	_, err := os.Stat(filepath.Join(repo, created))
	return w.read(filepath.Join(repo, file)) == text && errors.Is(err, fs.ErrNotExist)
}

// refusedHere checks the refusal of a change typed where no session works.
func (w *twoRepos) refusedHere(r result) {
	w.t.Helper()
	if r.code != 1 || !strings.Contains(r.stderr, "no session works in this folder") ||
		!strings.Contains(r.stderr, runs.Resolve(w.a)) || !strings.Contains(r.stderr, runs.Resolve(w.b)) || !strings.Contains(r.stderr, "--session") {
		w.t.Errorf("a change typed in a folder with no session is refused, listing the sessions' repositories and --session: %+v", r)
	}
}

// needsYes checks the refusal of another repository's session, named
// without a terminal and without --yes.
func (w *twoRepos) needsYes(r result, root string) {
	w.t.Helper()
	if r.code != 1 || !strings.Contains(r.stderr, "add --yes") || !strings.Contains(r.stderr, runs.Resolve(root)) {
		w.t.Errorf("another repository's session needs --yes without a terminal, and the message names it: %+v", r)
	}
}

// cully rollback acts on the session of the folder it runs in: in A, A's
// files only, though B is the most recent session; in B (a folder inside
// it), B's only; in a folder of neither it refuses; B named from A
// without a terminal needs --yes, and then proceeds.
func TestFolderSessionRollback(t *testing.T) {
	t.Parallel()
	w := newTwoRepos(t)
	w.refusedHere(w.cully(w.c, "rollback", "--to", "0"))
	r := w.cully(w.c, "rollback", "--to", "0", "--json")
	var je struct {
		Error struct {
			Code     string `json:"code"`
			Sessions []struct {
				ID   string  `json:"id"`
				Root *string `json:"project_root"`
			} `json:"sessions"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &je); err != nil || je.Error.Code != "no_session_here" || len(je.Error.Sessions) != 2 ||
		je.Error.Sessions[0].ID != sessB || je.Error.Sessions[0].Root == nil || *je.Error.Sessions[0].Root != runs.Resolve(w.b) {
		t.Errorf("--json: the refusal as an error object naming the sessions, most recent first: %v %+v", err, r)
	}
	if !w.edited(w.a, "a.txt", "a1\n", "new-a.txt") || !w.edited(w.b, "b.txt", "b1\n", "new-b.txt") {
		t.Fatal("a refused rollback changed files")
	}

	if r := w.cully(w.a, "rollback", "--to", "0"); r.code != 0 || !strings.Contains(r.stdout, runs.Resolve(w.a)) {
		t.Fatalf("rollback in A: %+v", r)
	}
	if !w.reverted(w.a, "a.txt", "a0\n", "new-a.txt") {
		t.Error("rollback in A did not put A's files back")
	}
	if !w.edited(w.b, "b.txt", "b1\n", "new-b.txt") {
		t.Fatal("rollback typed in A changed B's files")
	}

	// A again the most recent, with an edit of its own.
	w.edit(w.a, sessA, "a.txt", "a2\n", "new-a.txt")
	if r := w.cully(filepath.Join(w.b, "sub"), "rollback", "--to", "0"); r.code != 0 {
		t.Fatalf("rollback in B/sub: %+v", r)
	}
	if !w.reverted(w.b, "b.txt", "b0\n", "new-b.txt") {
		t.Error("rollback in B did not put B's files back")
	}
	if !w.edited(w.a, "a.txt", "a2\n", "new-a.txt") {
		t.Fatal("rollback typed in B changed A's files")
	}

	// B named from A.
	w.edit(w.b, sessB, "b.txt", "b3\n", "new-b.txt")
	w.needsYes(w.cully(w.a, "rollback", "--to", "0", "--session", sessB), w.b)
	if r := w.cully(w.a, "rollback", "--to", "0", "--session", sessB, "--json"); !strings.Contains(r.stdout, `"code": "confirm_needed"`) {
		t.Errorf("--json: confirm_needed: %+v", r)
	}
	if !w.edited(w.b, "b.txt", "b3\n", "new-b.txt") {
		t.Fatal("a rollback of B named from A without --yes changed B's files")
	}
	if r := w.cully(w.a, "rollback", "--to", "0", "--session", sessB[:8], "--yes"); r.code != 0 {
		t.Fatalf("rollback --session B --yes from A: %+v", r)
	}
	if !w.reverted(w.b, "b.txt", "b0\n", "new-b.txt") || !w.edited(w.a, "a.txt", "a2\n", "new-a.txt") {
		t.Error("rollback --session B --yes from A: B's files back, A's kept")
	}
	// Reading is not refused: a dry run and status elsewhere show the
	// latest session and say whose it is.
	if r := w.cully(w.c, "status"); r.code != 0 || !strings.Contains(r.stdout, "no session works in this folder") || !strings.Contains(r.stdout, runs.Resolve(w.b)) {
		t.Errorf("status in a folder with no session: the latest, saying whose: %+v", r)
	}
	if r := w.cully(w.c, "snapshots"); r.code != 0 || !strings.Contains(r.stdout, "note: no session works in this folder") {
		t.Errorf("snapshots in a folder with no session: %+v", r)
	}
	if r := w.cully(w.a, "status", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"this_folder": true`) || !strings.Contains(r.stdout, `"session": "`+sessA) {
		t.Errorf("status in A: A's session: %+v", r)
	}
}

// cully stop --revert: the same choice of session as rollback.
func TestFolderSessionStopRevert(t *testing.T) {
	t.Parallel()
	w := newTwoRepos(t)
	w.refusedHere(w.cully(w.c, "stop", "--revert"))
	if r := w.cully(w.a, "stop", "--revert"); r.code != 0 || !strings.Contains(r.stdout, "(session aaaaaaaa,") {
		t.Fatalf("stop --revert in A: %+v", r)
	}
	if !w.reverted(w.a, "a.txt", "a0\n", "new-a.txt") || !w.edited(w.b, "b.txt", "b1\n", "new-b.txt") {
		t.Fatal("stop --revert typed in A: A's files back, B's kept")
	}
	h := store.Home{Dir: w.env["CULLY_HOME"]}
	if st, err := h.ReadState(sessB, nil); err != nil || st.Run.Paused != nil {
		t.Fatalf("B's run was paused by a stop typed in A: %v", err)
	}
	w.needsYes(w.cully(w.a, "stop", "--revert", "--session", sessB), w.b)
	if st, err := h.ReadState(sessB, nil); err != nil || st.Run.Paused != nil || !w.edited(w.b, "b.txt", "b1\n", "new-b.txt") {
		t.Fatalf("stop of B named from A without --yes paused or reverted it: %v", err)
	}
	if r := w.cully(w.a, "stop", "--revert", "--session", sessB, "--yes"); r.code != 0 {
		t.Fatalf("stop --revert --session B --yes from A: %+v", r)
	}
	if !w.reverted(w.b, "b.txt", "b0\n", "new-b.txt") {
		t.Error("stop --revert --session B --yes: B's files back")
	}
	// resume, too, is the folder's.
	w.refusedHere(w.cully(w.c, "resume", "--reason", "go on"))
	if r := w.cully(w.b, "resume", "--reason", "go on"); r.code != 0 || !strings.Contains(r.stdout, "session bbbbbbbb") {
		t.Errorf("resume in B: %+v", r)
	}
}

// cully ack: checkpoints of the folder's session only.
func TestFolderSessionAck(t *testing.T) {
	t.Parallel()
	w := newTwoRepos(t)
	for _, s := range []struct{ repo, id string }{{w.a, sessA}, {w.b, sessB}} {
		for i := range 3 {
			w.hook(s.repo, s.id, "PostToolUseFailure", fmt.Sprintf(`,"tool_name":"Bash","tool_input":{"command":"make all"},"error":"Exit code 1\nboom %d","is_interrupt":false`, i))
		}
	}
	h := store.Home{Dir: w.env["CULLY_HOME"]}
	open := func(id string) int {
		st, err := h.ReadState(id, nil)
		if err != nil {
			t.Fatal(err)
		}
		return len(st.OpenCheckpoints())
	}
	if open(sessA) == 0 || open(sessB) == 0 {
		t.Fatalf("a failure loop opens a checkpoint in each session: A %d, B %d", open(sessA), open(sessB))
	}
	w.refusedHere(w.cully(w.c, "ack", "--all"))
	if r := w.cully(w.a, "ack", "--all"); r.code != 0 {
		t.Fatalf("ack in A: %+v", r)
	}
	if open(sessA) != 0 || open(sessB) == 0 {
		t.Fatalf("ack --all typed in A: A's acknowledged (%d open), B's open (%d)", open(sessA), open(sessB))
	}
	w.needsYes(w.cully(w.a, "ack", "--all", "--session", sessB), w.b)
	if open(sessB) == 0 {
		t.Fatal("ack of B named from A without --yes acknowledged it")
	}
	if r := w.cully(w.a, "ack", "--all", "--session", sessB, "--yes"); r.code != 0 || open(sessB) != 0 {
		t.Fatalf("ack --session B --yes from A: %+v", r)
	}
}

// On a terminal, acting on another repository's session asks first, and
// names the repository; anything but yes does nothing.
func TestFolderSessionConfirmOnATerminal(t *testing.T) {
	t.Parallel()
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("needs script(1) to give cully a terminal")
	}
	w := newTwoRepos(t)
	self, err := exec.LookPath("cully")
	if err != nil {
		t.Fatal(err)
	}
	onTerminal := func(answer string) string {
		t.Helper()
		cmd := exec.Command(script, "-qec", self+" rollback --to 0 --session "+sessB, "/dev/null")
		cmd.Dir = w.a
		for k, v := range w.in(w.a) {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.Env = append(cmd.Env, "PATH="+os.Getenv("PATH"), "NO_COLOR=1")
		cmd.Stdin = strings.NewReader(answer)
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	out := onTerminal("n\n")
	if !strings.Contains(out, "Session bbbbbbbb works in "+runs.Resolve(w.b)) || !strings.Contains(out, "[y/N]") || !strings.Contains(out, "not confirmed") {
		t.Errorf("the question names B's repository, and no is no: %q", out)
	}
	if !w.edited(w.b, "b.txt", "b1\n", "new-b.txt") {
		t.Fatal("answered no, B's files changed")
	}
	out = onTerminal("y\n")
	if !w.reverted(w.b, "b.txt", "b0\n", "new-b.txt") || !w.edited(w.a, "a.txt", "a1\n", "new-a.txt") {
		t.Errorf("answered yes: B's files back, A's kept: %q", out)
	}
}
