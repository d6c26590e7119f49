//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"cully/store"
)

// How the torture test drives cully: the real binaries, the hook payloads
// of its calls, and a rollback read back from its JSON and the tree.

// cmdResult is a command's outcome; the test's binaries are those
// TestMain built, first on PATH.
func (w *world) exec(stdin []byte, name string, args ...string) result {
	w.rt.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env, cmd.Dir, cmd.Stdin = w.env, w.repo, bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok && ctx.Err() == nil {
		code = ee.ExitCode()
	} else if err != nil {
		w.rt.Fatalf("run %s %q: %v (stderr %q)", name, args, err, errb.String())
	}
	return result{out.String(), errb.String(), code}
}

func (w *world) cully(args ...string) result {
	w.rt.Helper()
	r := w.exec(nil, "cully", args...)
	w.rt.Logf("    $ cully %s -> exit %d%s%s", strings.Join(args, " "), r.code, indented("stdout", r.stdout), indented("stderr", r.stderr))
	return r
}

func indented(name, s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	if len(s) > 1500 {
		s = s[:1500] + "…"
	}
	return "\n      " + name + ": " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n        ")
}

// hook sends one payload to cully-hook as Claude Code sends it: from the
// repository's folder, CLAUDE_PROJECT_DIR set. The hook always exits 0.
func (w *world) hook(s *session, event string, fields map[string]any) result {
	w.rt.Helper()
	p := map[string]any{
		"session_id":      s.id,
		"transcript_path": filepath.Join(w.home, ".claude", "projects", "-repo", s.id+".jsonl"),
		"cwd":             w.repo,
		"permission_mode": "default",
		"hook_event_name": event,
	}
	for k, v := range fields {
		p[k] = v
	}
	body, err := json.Marshal(p)
	if err != nil {
		w.rt.Fatalf("payload: %v", err)
	}
	r := w.exec(body, "cully-hook")
	if r.code != 0 {
		w.rt.Fatalf("cully-hook %s exited %d: %s", event, r.code, r.stderr)
	}
	return r
}

func (w *world) toolUseID() string {
	w.calls++
	return fmt.Sprintf("toolu_torture_%04d", w.calls)
}

func preTool(tool string, input map[string]any, id string) map[string]any {
	return map[string]any{"tool_name": tool, "tool_input": input, "tool_use_id": id}
}

func postTool(tool string, input, response map[string]any, id string) map[string]any {
	return map[string]any{"tool_name": tool, "tool_input": input, "tool_response": response, "tool_use_id": id, "duration_ms": 12}
}

func failedTool(tool string, input map[string]any, id, why string) map[string]any {
	return map[string]any{"tool_name": tool, "tool_input": input, "tool_use_id": id, "error": why, "is_interrupt": false, "duration_ms": 12}
}

func batch(tool string, input map[string]any, id, response string) map[string]any {
	return map[string]any{"tool_calls": []any{map[string]any{"tool_name": tool, "tool_input": input, "tool_use_id": id, "tool_response": response}}}
}

// denied reports a PreToolUse answer that refuses the call: the host then
// does not run the tool.
func denied(stdout string) bool {
	var a struct {
		Specific struct {
			Decision string `json:"permissionDecision"`
		} `json:"hookSpecificOutput"`
	}
	return json.Unmarshal([]byte(stdout), &a) == nil && a.Specific.Decision == "deny"
}

// sync waits for the snapshots the session's hook calls asked for and
// records the new steps as taken now (nothing changes the tree while it
// waits, so that is their content). It reads the session's state as
// `cully snapshot --wait` does (every ask done, the last one's outcome),
// in this process: two waits a tool call were a quarter of the cully
// processes the test starts.
func (w *world) sync(s *session) {
	w.rt.Helper()
	h := store.Home{Dir: w.state}
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		st, err := h.ReadState(s.id, nil)
		if err != nil || st.Run == nil {
			w.violated(chkSnapshot, "session %s's state: %v (run %v)", s.name, err, st != nil && st.Run != nil)
			return
		}
		r := st.Run
		if r.Pending() == 0 {
			if f := r.Failed; f != nil {
				w.violated(chkSnapshot, "snapshot %d of session %s's run failed: %s", f.Step, s.name, scrub(f.Error, w.dir))
				return
			}
			if r.Snapshots == 0 {
				return
			}
			for k := s.last + 1; k <= r.LastStep; k++ {
				w.addStep(s, k, len(w.log), w.cur)
			}
			return
		}
		if time.Now().After(deadline) {
			w.violated(chkSnapshot, "session %s: %d snapshot(s) asked for have not finished after 90 s", s.name, r.Pending())
			return
		}
	}
}

func (w *world) addStep(s *session, k, at int, t fileTree) {
	s.steps[k] = snapStep{at: at, tree: t.clone()}
	if k > s.last {
		s.last = k
	}
}

// scrub takes the machine's temporary paths out of a message, so a
// failure reads the same on every run (rapid replays it to shrink it).
func scrub(s, dir string) string {
	s = strings.ReplaceAll(s, dir, "$TMP")
	s = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`).ReplaceAllString(s, "<time>")
	return regexp.MustCompile(`[0-9a-f]{8}(-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})?`).ReplaceAllString(s, "<id>")
}

// sq quotes a word for sh.
func sq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

type rolledBack struct {
	undo      int               // the step that undoes it (-1: none)
	displaced map[string]string // content -> the path it was taken from
}

// rollbackJSON is `cully rollback --json`'s report, or its error.
type rollbackJSON struct {
	UndoStep *int     `json:"undo_step"`
	Restored []string `json:"restored"`
	Removed  []string `json:"removed"`
	Error    *struct {
		Message  string `json:"message"`
		Problems []struct {
			Path string `json:"path"`
		} `json:"problems"`
	} `json:"error"`
}

var finalStep = regexp.MustCompile(`final snapshot: step (\d+)`)

// rollback runs one rollback (how: rollback, stop, or the undo or redo of
// one) and checks it against the model.
func (w *world) rollback(s *session, to int, how string, dry bool, displaced map[string]string) rolledBack {
	target := to
	if to < 0 {
		target = s.last
	}
	args := []string{"rollback", "--session", s.id, "--json"}
	if to >= 0 {
		args = append(args, "--to", strconv.Itoa(to))
	}
	desc := fmt.Sprintf("cully rollback --session %s --to %d", s.name, target)
	switch {
	case how == "stop":
		args = []string{"stop", "--session", s.id, "--revert"}
		desc = fmt.Sprintf("cully stop --session %s --revert (to step 0), then cully resume", s.name)
	case to < 0:
		desc = fmt.Sprintf("cully rollback --session %s (its last snapshot, step %d)", s.name, target)
	}
	if how == "undo" || how == "redo" {
		desc = how + ": " + desc
	}
	if dry {
		desc += ", after a --dry-run"
	}
	w.begin(desc)
	if how == "stop" {
		target = 0
	}
	exp, blocked, why := w.expect(s, target)
	pre, outer := w.cur, w.outerState()
	var dryList []string
	if dry {
		r := w.cully(append(slices.Clone(args), "--dry-run")...)
		var rep rollbackJSON
		_ = json.Unmarshal([]byte(r.stdout), &rep)
		dryList = append(append(dryList, rep.Restored...), rep.Removed...)
		sort.Strings(dryList)
		got := w.scan()
		if d := differ(got, pre); len(d) > 0 || rep.UndoStep != nil {
			w.violated(chkDryRun, "the dry run changed the tree or wrote a snapshot (undo_step %v):%s", rep.UndoStep, describe(d, got, pre, nil))
		}
		if d := mapDiff(outer, w.outerState()); len(d) > 0 {
			w.violated(chkDryRun, "the dry run changed .git or the outside folder:\n    %s", strings.Join(d, "\n    "))
		}
	}
	r := w.cully(args...)
	post := w.scan()
	var rep rollbackJSON
	undo := -1
	if how == "stop" {
		if m := finalStep.FindStringSubmatch(r.stdout); m != nil && r.code == 0 {
			undo, _ = strconv.Atoi(m[1])
		}
	} else if json.Unmarshal([]byte(r.stdout), &rep) == nil && rep.UndoStep != nil {
		undo = *rep.UndoStep
	}
	if undo >= 0 {
		w.addStep(s, undo, len(w.log), pre)
	}
	if d := mapDiff(outer, w.outerState()); len(d) > 0 {
		w.violated(invOuter, "%s changed .git or the folder outside the repository:\n    %s", desc, strings.Join(d, "\n    "))
	}
	changed, should := differ(pre, post), differ(pre, exp)
	wrong := differ(post, exp)
	out := scrub(r.stderr, w.dir)
	switch {
	case len(blocked) > 0 && r.code != 1:
		w.violated(invCannot, "it must fail (exit 1) naming one of %q, which it cannot restore%s; it exited %d and changed:%s",
			blocked, describe(blocked, pre, exp, why), r.code, describe(changed, post, pre, nil))
	case len(blocked) > 0 && len(changed) > 0:
		w.violated(invCannot, "it failed (it cannot restore %q) but changed:%s", blocked, describe(changed, post, pre, nil))
	case len(blocked) > 0 && !named(r, rep, blocked):
		w.violated(invCannot, "it failed without naming any of %q, which it cannot restore:%s", blocked, errLine(out))
	case len(blocked) > 0:
	case how == "undo" || how == "redo":
		var lost []string
		have, want := post.contents(), exp.contents()
		for c, p := range displaced {
			if want[c] && !have[c] {
				lost = append(lost, p)
			}
		}
		sort.Strings(lost)
		if len(lost) > 0 {
			w.violated(invNoLoss, "the content the rollback took from %q is not back (exit %d):%s", lost, r.code, describe(lost, post, exp, why))
		}
		if len(wrong) > 0 || r.code != 0 {
			w.violated(invUndo, "exit %d; the tree is not as it was %s the rollback:%s", r.code,
				map[bool]string{true: "before", false: "after"}[how == "undo"], describe(wrong, post, exp, why))
		}
	case r.code != 0 && len(should) == 0:
		w.violated(invCannot, "it exited %d though it had nothing to restore:%s", r.code, errLine(out))
	default:
		var intact, reverted []string
		for _, p := range wrong {
			if same(exp[p], pre[p]) {
				intact = append(intact, p)
			} else {
				reverted = append(reverted, p)
			}
		}
		if len(intact) > 0 {
			w.violated(invIntact, "exit %d; changes that are not the session's since step %d were undone:%s%s", r.code, target,
				describe(intact, post, exp, why), also(reverted, post, exp, why))
		}
		if len(reverted) > 0 || r.code != 0 {
			w.violated(invReverted, "exit %d%s; the session's changes since step %d are not all reverted:%s", r.code, errLine(out), target,
				describe(reverted, post, exp, why))
		}
	}
	if real := append(slices.Clone(rep.Restored), rep.Removed...); dry && r.code == 0 {
		if sort.Strings(real); !slices.Equal(dryList, real) {
			w.violated(chkDryRun, "the dry run listed %q; the rollback restored and removed %q", dryList, real)
		}
	}
	lostNow := map[string]string{}
	have := post.contents()
	for _, p := range changed {
		if c, ok := pre[p].content(); ok && !have[c] {
			lostNow[c] = p
		}
	}
	w.record(s.name, pre, post)
	w.sync(s)
	return rolledBack{undo: undo, displaced: lostNow}
}

// errLine is the first line of what a command said on stderr.
func errLine(stderr string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n")
	if l == "" {
		return ""
	}
	return " (" + l + ")"
}

func also(paths []string, got, want fileTree, why map[string]string) string {
	if len(paths) == 0 {
		return ""
	}
	return "\n    and not reverted:" + describe(paths, got, want, why)
}

// named reports that a failed rollback's output names one of the paths.
func named(r result, rep rollbackJSON, paths []string) bool {
	for _, p := range paths {
		if rep.Error != nil {
			for _, pr := range rep.Error.Problems {
				if pr.Path == p || strings.HasPrefix(pr.Path, p+"/") {
					return true
				}
			}
		}
		if strings.Contains(r.stderr, p) || strings.Contains(r.stdout, strconv.Quote(p)) {
			return true
		}
	}
	return false
}
