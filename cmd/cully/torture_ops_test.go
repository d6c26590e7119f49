//go:build linux

package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"pgregory.net/rapid"
)

// The operations of the torture test's world: what the agent, the user and
// another process do to the work tree, and the run control commands.

func (w *world) agentWrite(s *session) {
	p, ok := w.pick("file", agentPaths, w.writable)
	if !ok {
		return
	}
	content := w.text(s.name, !w.off["crlf"] && rapid.Bool().Draw(w.rt, "CRLF"))
	full := w.abs(p)
	w.begin(fmt.Sprintf("session %s Write %q: %q", s.name, p, content))
	input := map[string]any{"file_path": full, "content": content}
	w.call(s, "Write", input, func() (map[string]any, string) {
		resp := map[string]any{"type": "create", "filePath": full, "content": content, "structuredPatch": []any{}, "originalFile": nil, "userModified": false}
		if old, err := os.ReadFile(full); err == nil {
			resp["type"], resp["originalFile"] = "update", string(old)
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return nil, err.Error()
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			return nil, err.Error()
		}
		return resp, ""
	})
}

func (w *world) agentEdit(s *session) {
	p, ok := w.pick("file", names, func(p string) bool { return !ignoredish(p) && w.regular(p) && firstLine(w.abs(p)) != "" })
	if !ok {
		return
	}
	full := w.abs(p)
	b, _ := os.ReadFile(full)
	old := firstLine(full)
	w.n++
	repl := fmt.Sprintf("%s (edit %d by %s)", old, w.n, s.name)
	all := strings.Count(string(b), old) > 1
	w.begin(fmt.Sprintf("session %s Edit %q: %q -> %q", s.name, p, old, repl))
	input := map[string]any{"file_path": full, "old_string": old, "new_string": repl, "replace_all": all}
	w.call(s, "Edit", input, func() (map[string]any, string) {
		n := 1
		if all {
			n = -1
		}
		if err := os.WriteFile(full, []byte(strings.Replace(string(b), old, repl, n)), 0o644); err != nil {
			return nil, err.Error()
		}
		return map[string]any{"filePath": full, "oldString": old, "newString": repl, "originalFile": string(b), "structuredPatch": []any{}, "userModified": false, "replaceAll": all}, ""
	})
}

func firstLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	l, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(strings.TrimRight(l, "\r"))
}

// agentShell is a Bash call: the command runs with sh -c in the repository
// between the call's PreToolUse and PostToolUse.
func (w *world) agentShell(s *session) {
	cmd, ok := w.command(s)
	if !ok {
		return
	}
	w.begin(fmt.Sprintf("session %s Bash: %s", s.name, cmd))
	input := map[string]any{"command": cmd, "description": "torture"}
	w.call(s, "Bash", input, func() (map[string]any, string) {
		r := w.exec(nil, "sh", "-c", cmd)
		if r.code != 0 {
			return nil, fmt.Sprintf("Exit code %d\n%s", r.code, r.stderr)
		}
		return map[string]any{"stdout": r.stdout, "stderr": r.stderr, "interrupted": false, "isImage": false, "noOutputExpected": false}, ""
	})
}

func mkdirFor(p string) string {
	if d := pathDir(p); d != "" {
		return "mkdir -p -- " + sq(d) + " && "
	}
	return ""
}

// command draws a shell command the agent runs, among those the tree
// allows (none writes through a link or into a named pipe).
func (w *world) command(s *session) (string, bool) {
	regs := func(p string) bool { return !ignoredish(p) && w.regular(p) }
	existing := func(p string) bool { return w.cur[p] != nil && !ignoredish(p) && w.clear(p) }
	// rapid favours the first of a list (and shrinks towards it): the
	// commonest commands first, the slow ones (a few MB, 64 MiB) last.
	kinds := []string{"rm", "mv", "heredoc", "sed", "crlf", "symlink", "folder-to-link", "link-to-folder", "stash", "checkout", "chmod", "big", "overcap"}
	kind, _ := w.pick("command", kinds, func(k string) bool {
		switch {
		case w.off[k], (k == "folder-to-link" || k == "link-to-folder") && w.off["symlink"]:
			return false
		case k == "folder-to-link":
			return w.cur["lib"] == nil && !w.clear("lib")
		case k == "link-to-folder":
			return slices.ContainsFunc(names, w.link)
		}
		return true
	})
	switch kind {
	case "sed":
		if p, ok := w.pick("file", names, regs); ok {
			return "sed -i 's/[a-z]/&&/' -- " + sq(p), true
		}
	case "heredoc":
		if p, ok := w.pick("file", agentPaths, w.writable); ok {
			return mkdirFor(p) + "cat > " + sq(p) + " <<'EOF'\n" + w.text(s.name, false) + "EOF", true
		}
	case "mv":
		src, ok1 := w.pick("from", names, existing)
		dst, ok2 := w.pick("to", agentPaths, func(p string) bool { return p != src && w.writable(p) && !strings.HasPrefix(p, src+"/") })
		if ok1 && ok2 {
			return mkdirFor(dst) + "mv -f -T -- " + sq(src) + " " + sq(dst), true
		}
	case "rm":
		if p, ok := w.pick("file", names, existing); ok {
			return "rm -f -- " + sq(p), true
		}
	case "chmod":
		if p, ok := w.pick("file", names, regs); ok {
			return "chmod " + rapid.SampledFrom([]string{"+x", "-x"}).Draw(w.rt, "mode") + " -- " + sq(p), true
		}
	case "checkout":
		if p, ok := w.pick("file", slices.Sorted(maps.Keys(committed)), func(p string) bool { return !ignoredish(p) && w.clear(p) }); ok {
			return "git checkout -- " + sq(p), true
		}
	case "stash":
		return "git stash", true
	case "symlink":
		links := map[string]string{"link.txt": "../outside/target.txt", "readme.lnk": "README.md", "dir with space/up.lnk": "../src"}
		if p, ok := w.pick("link", linkPaths, func(p string) bool { return w.clear(p) && (w.cur[p] == nil || w.cur[p].kind != 'p') }); ok {
			return mkdirFor(p) + "ln -sfn -- " + sq(links[p]) + " " + sq(p), true
		}
	case "folder-to-link":
		return "rm -rf lib && ln -s ../outside lib", true
	case "link-to-folder":
		if p, ok := w.pick("link", names, w.link); ok {
			return "rm -f -- " + sq(p) + " && mkdir -- " + sq(p) + " && printf 'inside a folder\\n' > " + sq(p+"/inner.txt"), true
		}
	case "big":
		if p, ok := w.pick("file", []string{"big.bin", "dir with space/big 2.bin"}, w.writable); ok {
			w.n++
			return mkdirFor(p) + fmt.Sprintf("yes 'big %d' | head -c 3000000 > ", w.n) + sq(p), true
		}
	case "overcap":
		if p, ok := w.pick("file", names, func(p string) bool { return !ignoredish(p) && w.writable(p) }); ok {
			return fmt.Sprintf("truncate -s %d -- %s", storeCap+1, sq(p)), true
		}
	case "crlf":
		if p, ok := w.pick("file", agentPaths, w.writable); ok {
			w.n++
			return mkdirFor(p) + fmt.Sprintf("printf 'crlf %d\\r\\nsecond\\r\\n' > %s", w.n, sq(p)), true
		}
	}
	return "", false
}

// agentGitignore rewrites .gitignore: the names ignored before the run may
// stop being ignored (and the files, there all along, become visible).
func (w *world) agentGitignore(s *session) {
	var lines []string
	for _, l := range []string{".env", "node_modules/", "*.log"} {
		if rapid.Bool().Draw(w.rt, "ignore "+l) {
			lines = append(lines, l)
		}
	}
	cmd := "printf '%s\\n' " + strings.Join(func() []string {
		q := []string{}
		for _, l := range lines {
			q = append(q, sq(l))
		}
		return q
	}(), " ") + " > .gitignore"
	if len(lines) == 0 {
		cmd = ": > .gitignore"
	}
	w.begin(fmt.Sprintf("session %s Bash: %s", s.name, cmd))
	input := map[string]any{"command": cmd, "description": "edit .gitignore"}
	w.call(s, "Bash", input, func() (map[string]any, string) {
		if r := w.exec(nil, "sh", "-c", cmd); r.code != 0 {
			return nil, fmt.Sprintf("Exit code %d\n%s", r.code, r.stderr)
		}
		return map[string]any{"stdout": "", "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": true}, ""
	})
}

// userEdit is the user's own change, made directly between the agents'
// calls: no hook call around it.
func (w *world) userEdit() {
	kind, _ := w.pick("user's edit", []string{"write", "append", "delete", "chmod", "fifo"}, func(k string) bool {
		return k != "fifo" || !w.off["fifo"] && w.cur["user.fifo"] == nil && w.clear("user.fifo")
	})
	var desc string
	var do func() error
	switch kind {
	case "write":
		p, ok := w.pick("file", userPaths, w.writable)
		if !ok {
			return
		}
		c := w.text("the user", !w.off["crlf"] && rapid.Bool().Draw(w.rt, "CRLF"))
		desc = fmt.Sprintf("the user writes %q: %q", p, c)
		do = func() error {
			if err := os.MkdirAll(filepath.Dir(w.abs(p)), 0o755); err != nil {
				return err
			}
			return os.WriteFile(w.abs(p), []byte(c), 0o644)
		}
	case "append":
		p, ok := w.pick("file", names, w.regular)
		if !ok {
			return
		}
		w.n++
		line := fmt.Sprintf("appended %d by the user\n", w.n)
		desc = fmt.Sprintf("the user appends to %q: %q", p, line)
		do = func() error {
			f, err := os.OpenFile(w.abs(p), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			_, err = f.WriteString(line)
			return firstErr(err, f.Close())
		}
	case "delete":
		p, ok := w.pick("file", names, func(p string) bool { return w.cur[p] != nil && w.clear(p) })
		if !ok {
			return
		}
		desc, do = fmt.Sprintf("the user deletes %q", p), func() error { return os.Remove(w.abs(p)) }
	case "chmod":
		p, ok := w.pick("file", names, w.regular)
		if !ok {
			return
		}
		m := rapid.SampledFrom([]os.FileMode{0o600, 0o644, 0o755}).Draw(w.rt, "mode")
		desc, do = fmt.Sprintf("the user: chmod %o %q", m, p), func() error { return os.Chmod(w.abs(p), m) }
	case "fifo":
		desc, do = "the user makes a named pipe user.fifo", func() error { return syscall.Mkfifo(w.abs("user.fifo"), 0o644) }
	}
	w.begin(desc)
	before := w.cur
	if err := do(); err != nil {
		w.rt.Fatalf("%s: %v", desc, err)
	}
	w.record("user", before, w.scan())
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func (w *world) pickSession() *session {
	name, _ := w.pick("session", []string{"A", "B"}, func(n string) bool { return n == "A" || w.b.started })
	if name == "B" {
		return w.b
	}
	return w.a
}

func (w *world) snapshot() {
	s := w.pickSession()
	w.begin(fmt.Sprintf("cully snapshot --session %s", s.name))
	if r := w.cully("snapshot", "--session", s.id); r.code != 0 {
		w.violated(chkSnapshot, "cully snapshot exited %d: %s", r.code, scrub(r.stderr, w.dir))
	}
	w.sync(s)
}

// turn ends a session's turn (Stop), and sometimes starts its next task
// (a new prompt: a new run, with its own baseline).
func (w *world) turn() {
	s := w.pickSession()
	next := rapid.Bool().Draw(w.rt, "next task")
	w.begin(fmt.Sprintf("session %s's turn ends (Stop); a new prompt: %v", s.name, next))
	w.hook(s, "Stop", map[string]any{"stop_hook_active": false})
	w.sync(s)
	if next {
		w.prompt(s)
	}
}

// rollbackOp is a rollback (to the last snapshot, or to a drawn step) or
// a stop --revert (then resume), each sometimes followed by its undo, and
// that sometimes by its own undo.
func (w *world) rollbackOp(how string, drawTo bool) {
	s := w.pickSession()
	to := -1
	if drawTo {
		var steps []int
		for k := range s.steps {
			steps = append(steps, k)
		}
		if len(steps) == 0 {
			return
		}
		sort.Ints(steps)
		to = rapid.SampledFrom(steps).Draw(w.rt, "to")
	}
	dry := how == "rollback" && rapid.Bool().Draw(w.rt, "dry run first")
	done := w.rollback(s, to, how, dry, nil)
	if how == "stop" {
		if r := w.cully("resume", "--session", s.id, "--reason", "test"); r.code != 0 {
			w.rt.Fatalf("cully resume exited %d: %s", r.code, scrub(r.stderr, w.dir))
		}
	}
	if done.undo < 0 {
		return
	}
	switch rapid.SampledFrom([]string{"none", "undo", "undo and redo"}).Draw(w.rt, "then") {
	case "undo":
		w.rollback(s, done.undo, "undo", false, done.displaced)
	case "undo and redo":
		if u := w.rollback(s, done.undo, "undo", false, done.displaced); u.undo >= 0 {
			w.rollback(s, u.undo, "redo", false, u.displaced)
		}
	}
}

// finish rolls session A back to its run's start, and undoes that.
func (w *world) finish() {
	if w.off["final"] {
		return
	}
	if done := w.rollback(w.a, 0, "rollback", false, nil); done.undo >= 0 {
		w.rollback(w.a, done.undo, "undo", false, done.displaced)
	}
}
