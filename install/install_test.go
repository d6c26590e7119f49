package install

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestIsCullyCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/usr/local/bin/cully-hook": true, "cully-hook --agent claude": true, "'/my dir/cully-hook'": true,
		"/x/cully hook": true, "cully statusline": true, "cully status": false, "other-hook": false, "echo cully-hook": false,
		"GOMAXPROCS=1 /usr/local/bin/cully-hook": true, "A=1 B_2= cully-hook --agent x": true, "GOMAXPROCS=1": false,
		"=1 cully-hook": false, "1A=1 cully-hook": false, "x=1 other-hook": false,
	} {
		if got := IsCullyCommand(cmd); got != want {
			t.Errorf("IsCullyCommand(%q) = %v", cmd, got)
		}
	}
}

// The hook's environment goes before cully's own hook command only.
func TestWithHookEnv(t *testing.T) {
	for cmd, want := range map[string]string{
		"/usr/local/bin/cully-hook":           "GOMAXPROCS=1 /usr/local/bin/cully-hook",
		"'/my dir/cully-hook' --agent gemini": "GOMAXPROCS=1 '/my dir/cully-hook' --agent gemini",
		"/x/cully hook":                       "GOMAXPROCS=1 /x/cully hook",
		"GOMAXPROCS=1 cully-hook":             "GOMAXPROCS=1 cully-hook", // already set: unchanged, so an install is idempotent
		"GOGC=off cully-hook":                 "GOGC=off cully-hook",     // a person's own variables: theirs
		"my-wrapper cully-hook":               "my-wrapper cully-hook",
		"cully statusline":                    "cully statusline",
	} {
		if got := WithHookEnv(cmd); got != want {
			t.Errorf("WithHookEnv(%q) = %q, want %q", cmd, got, want)
		}
	}
	dir := t.TempDir()
	hook := filepath.Join(dir, "cully-hook")
	os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o755)
	if !CommandRuns(WithHookEnv(hook)) {
		t.Error("a command with the hook's environment runs when its program does")
	}
}

// The hook's environment before the command (WithHookEnv), run with -c
// in every shell this machine has, as agents run hook commands (Claude
// Code: sh; Codex: bash, zsh or sh; Cursor: bash or zsh): each shell
// ShellTakesEnv says takes NAME=value before a command runs the hook with
// it, and each it says does not fails or runs it without (tcsh:
// "GOMAXPROCS=1: Command not found."). .ci/run installs zsh, fish and tcsh
// beside the image's sh and bash. Besides the ones found, the table by
// name.
func TestShellTakesEnv(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no POSIX shells")
	}
	dir := t.TempDir()
	prog := filepath.Join(dir, "cully-hook")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho \"GOMAXPROCS=$GOMAXPROCS\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ran := map[bool]int{}
	for _, name := range []string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "yash", "fish", "busybox", "csh", "tcsh", "pwsh", "nu", "elvish", "xonsh"} {
		path, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		args := []string{"-c", WithHookEnv(prog)}
		if name == "busybox" {
			args = append([]string{"sh"}, args...)
		}
		cmd := exec.Command(path, args...)
		cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "GOMAXPROCS="}
		out, err := cmd.CombinedOutput()
		took := err == nil && strings.TrimSpace(string(out)) == HookEnv
		if took != ShellTakesEnv(path) {
			t.Errorf("%s -c %q: %v, %q; ShellTakesEnv says %v", path, WithHookEnv(prog), err, out, ShellTakesEnv(path))
		}
		ran[took]++
	}
	t.Logf("shells that take it: %d, that do not: %d", ran[true], ran[false])
	if ran[true] < 2 {
		t.Fatalf("only %d shells here to run it with", ran[true])
	}
	for shell, want := range map[string]bool{
		"/bin/sh": true, "/usr/local/bin/bash": true, "/bin/zsh": true, "/usr/bin/fish": true, "/bin/mksh": true,
		"/bin/tcsh": false, "/bin/csh": false, "/usr/bin/nu": false, `C:\Program Files\PowerShell\7\pwsh.exe`: false,
		"/usr/bin/pwsh": false, "/usr/bin/xonsh": false, "": false, "/opt/shells/mystery": false,
	} {
		if ShellTakesEnv(shell) != want {
			t.Errorf("ShellTakesEnv(%q) = %v, want %v", shell, !want, want)
		}
	}
	for want, shells := range map[string][]string{
		"":          {"/usr/sbin/nologin", "/bin/false", "/sbin/nologin", "/bin/bash", "/usr/bin/fish"},
		"/bin/tcsh": {"/usr/sbin/nologin", "/bin/bash", "/bin/tcsh", "/usr/bin/pwsh"},
		"nu":        {"/bin/false", "nu"},
	} {
		if got := ShellWithoutEnv(shells); got != want {
			t.Errorf("ShellWithoutEnv(%q) = %q, want %q", shells, got, want)
		}
	}
	if ShellWithoutEnv(nil) != "" {
		t.Error("no shell known: nothing stands against it")
	}
}

// The login shell comes from the current user's passwd line, and $SHELL
// follows it.
func TestUserShells(t *testing.T) {
	passwd := []byte("root:x:0:0:root:/root:/bin/bash\n#x:x:1000:1000::/:/bin/nope\ndev:x:1000:1000:Dev,,,:/home/dev:/usr/bin/zsh\r\nbad:line\n")
	for uid, want := range map[int]string{0: "/bin/bash", 1000: "/usr/bin/zsh", 1001: "", -1: ""} {
		if got := LoginShell(passwd, uid); got != want {
			t.Errorf("LoginShell(uid %d) = %q, want %q", uid, got, want)
		}
	}
	shells := UserShells(func(k string) string {
		if k == "SHELL" {
			return "/usr/bin/pwsh"
		}
		return ""
	})
	if len(shells) == 0 || shells[len(shells)-1] != "/usr/bin/pwsh" {
		t.Errorf("UserShells = %q, want $SHELL last", shells)
	}
}

func TestBackupsKeepTheNewestFewInTheStateDir(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "project", ".claude", "settings.json")
	bk := Backups{Dir: filepath.Join(dir, "state", "backups")}
	for i := range 5 {
		name, err := bk.Save(path, []byte(fmt.Sprintf(`{"n": %d}`, i)), fmt.Sprintf("20260101T00000%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(name) != bk.Folder(path) || !strings.HasPrefix(name, bk.Dir) {
			t.Fatalf("backup %s is not in the state dir's folder for the file", name)
		}
		if fi, _ := os.Stat(name); fi.Mode().Perm() != 0o600 {
			t.Errorf("backup mode %v: it holds this machine's paths", fi.Mode().Perm())
		}
	}
	saved := bk.saved(path)
	if len(saved) != BackupsKept || !strings.Contains(saved[0], "T000002-") {
		t.Fatalf("kept %v, want the newest %d", saved, BackupsKept)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "project", ".claude", "*")); len(m) != 0 {
		t.Fatalf("something was written beside the file: %v", m)
	}
	if other := bk.Folder(filepath.Join(dir, "other", ".claude", "settings.json")); other == bk.Folder(path) {
		t.Fatal("two settings files share a backup folder")
	}
	if got := bk.Matching(path, []byte("{\n  \"n\": 3\n}")); string(got) != `{"n": 3}` {
		t.Fatalf("Matching gave %q, want the backup's own bytes", got)
	}
}

func TestRestoreOnlyWhenSomethingWasRemoved(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	bk := Backups{Dir: filepath.Join(dir, "backups")}
	if _, err := bk.Save(path, []byte(`{"a":1, "hooks": {}}`), "20260101T000000"); err != nil {
		t.Fatal(err)
	}
	p := &Plan{Path: path, Before: []byte("{\"a\": 1, \"hooks\": {\"Stop\": []}}"), After: []byte(`{"a": 1}`), Changed: true}
	bk.Restore(p)
	if string(p.After) != `{"a":1, "hooks": {}}` || !p.Changed {
		t.Fatalf("restore: %q changed=%v", p.After, p.Changed)
	}
	same := &Plan{Path: path, Before: []byte(`{ "a" : 1 }`), After: []byte(`{ "a" : 1 }`)}
	bk.Restore(same)
	if string(same.After) != `{ "a" : 1 }` || same.Changed {
		t.Fatal("a file uninstall does not change must keep its bytes, whatever a backup holds")
	}
}

func TestSkillPlans(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "skills", "cully", "SKILL.md")
	plan := func(wrote string) string {
		a, err := PlanSkillInstall(path, "new text\n", wrote)
		if err != nil {
			t.Fatal(err)
		}
		return a.Action
	}
	if got := plan(""); got != SkillWrite {
		t.Errorf("absent: %s", got)
	}
	created, err := ApplySkill(SkillAction{path, SkillWrite}, "old text\n")
	if err != nil || len(created) != 2 {
		t.Fatalf("created %v, %v", created, err)
	}
	if got := plan(Sum([]byte("old text\n"))); got != SkillUpdate {
		t.Errorf("an earlier cully's text, unedited: %s", got)
	}
	if got := plan(""); got != SkillKept {
		t.Errorf("text cully has no record of writing: %s", got)
	}
	os.WriteFile(path, []byte("old text, edited\n"), 0o644)
	if got := plan(Sum([]byte("old text\n"))); got != SkillKept {
		t.Errorf("edited: %s", got)
	}
	if got := PlanSkillRemove(path, "new text\n", Sum([]byte("old text\n"))).Action; got != SkillLeft {
		t.Errorf("uninstall of an edited skill: %s", got)
	}
	os.WriteFile(path, []byte("new text\n"), 0o644)
	if got := plan(""); got != SkillCurrent {
		t.Errorf("current: %s", got)
	}
	if got := PlanSkillRemove(path, "new text\n", "").Action; got != SkillRemove {
		t.Errorf("uninstall of cully's text: %s", got)
	}
}

func TestExcludeLinesComeAndGoExactly(t *testing.T) {
	orig := []byte("# git's own comments\n*.log")
	b, changed := AddExclude(orig, "/.claude/settings.local.json")
	if !changed || !HasExclude(b, "/.claude/settings.local.json") {
		t.Fatalf("not added: %q", b)
	}
	if again, changed := AddExclude(b, "/.claude/settings.local.json"); changed || !bytes.Equal(again, b) {
		t.Fatal("a second add changed the file")
	}
	back, changed := RemoveExclude(b, "/.claude/settings.local.json")
	if !changed || string(back) != "# git's own comments\n*.log\n" {
		t.Fatalf("after removal: %q", back)
	}
	// Lines an earlier cully added, under its marker, are found and go.
	old := []byte("*.log\n# added by cully install: this machine's own agent settings (cully uninstall removes these two lines)\n/.codex/hooks.json\n")
	if !HasExclude(old, "/.codex/hooks.json") {
		t.Fatal("an earlier cully's lines not found")
	}
	if back, changed := RemoveExclude(old, "/.codex/hooks.json"); !changed || string(back) != "*.log\n" {
		t.Fatalf("an earlier cully's lines after removal: %q", back)
	}
}

func TestRecordUnderDeepestFirst(t *testing.T) {
	r := Record{Created: map[string]string{"/p/.claude": "dir", "/p/.claude/skills": "dir", "/p/.claude/skills/cully": "dir", "/p/.claudex": "dir", "/q/.claude": "dir"}}
	got := strings.Join(r.Under("/p/.claude"), " ")
	if got != "/p/.claude/skills/cully /p/.claude/skills /p/.claude" {
		t.Fatalf("Under: %s", got)
	}
	dir := t.TempDir()
	if err := UpdateRecord(dir, func(r *Record) { r.Created["/p/x"] = "file" }); err != nil {
		t.Fatal(err)
	}
	if r, err := ReadRecord(dir); err != nil || r.Created["/p/x"] != "file" {
		t.Fatalf("read back %v %v", r, err)
	}
	if err := UpdateRecord(dir, func(r *Record) { delete(r.Created, "/p/x") }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, RecordFile)); !os.IsNotExist(err) {
		t.Fatal("an empty record should be removed")
	}
}

func TestPathFree(t *testing.T) {
	for cmd, want := range map[string]bool{
		"cully-hook": true, "cully hook --agent claude": true, `"$CLAUDE_PROJECT_DIR"/bin/cully-hook`: true,
		"/usr/local/bin/cully-hook": false, "~/bin/cully-hook": false, "$HOME/bin/cully-hook": false, "'/my dir/cully' hook": false,
	} {
		if got := PathFree(cmd); got != want {
			t.Errorf("PathFree(%q) = %v", cmd, got)
		}
	}
}

func TestSkillSibling(t *testing.T) {
	for _, c := range []struct{ skill, rel, want string }{
		{"/h/.claude/skills/cully/SKILL.md", "SKILL.md", "/h/.claude/skills/cully-run-control/SKILL.md"},
		{"/h/.agents/skills/cully/SKILL.md", "references/checkpoint-rules.md", "/h/.agents/skills/cully-run-control/references/checkpoint-rules.md"},
		{"/repo/.github/skills/cully/SKILL.md", "SKILL.md", "/repo/.github/skills/cully-run-control/SKILL.md"},
	} {
		if got := SkillSibling(filepath.FromSlash(c.skill), "cully-run-control", c.rel); got != filepath.FromSlash(c.want) {
			t.Errorf("SkillSibling(%s, %s) = %s, want %s", c.skill, c.rel, got, c.want)
		}
	}
}
