package cursor

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"cully/engine"
	"cully/hookbridge"
	"cully/install"
)

var update = flag.Bool("update", false, "rewrite golden files")

var agent Agent

func fixtureEnv() hookbridge.Env {
	cfg := engine.DefaultConfig()
	return hookbridge.Env{
		Now:    time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC),
		Getenv: func(string) string { return "" },
		Stat:   func(string) (fs.FileInfo, error) { return nil, fs.ErrNotExist },
		Config: &cfg,
	}
}

func fixtures(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob("testdata/hooks/*.json")
	if len(files) < len(Events) {
		t.Fatalf("want a payload per event, found %d files", len(files))
	}
	return files
}

func decodeFixture(t *testing.T, path string) *engine.Event {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := agent.Decode(raw, fixtureEnv())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return ev
}

// Every payload written from the documentation decodes, with its kind,
// its session (the conversation) and its project (the workspace); every
// registered event has one; no one's address reaches the record.
func TestDecodeEveryFixture(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range fixtures(t) {
		ev := decodeFixture(t, f)
		seen[ev.Hook] = true
		if ev.Agent != "cursor" || ev.Session != "c0ffee00-1111-4222-8333-444455556666" || ev.Kind == engine.KindOther || ev.Cwd != "/home/dev/project" {
			t.Errorf("%s: agent %q session %q kind %q cwd %q", f, ev.Agent, ev.Session, ev.Kind, ev.Cwd)
		}
		if (ev.Kind == engine.KindPreTool || ev.Kind == engine.KindPostTool) && (ev.Tool == "" || ev.Class == "" || ev.CallFP == "") {
			t.Errorf("%s: tool %q class %q call %q", f, ev.Tool, ev.Class, ev.CallFP)
		}
		if ev.Kind == engine.KindPostTool && ev.Outcome == "" {
			t.Errorf("%s: post-tool event without outcome", f)
		}
		if ev.Kind == engine.KindPreTool && !ev.Quiet {
			t.Errorf("%s: a pre-tool event has no channel to the model: it is recorded quiet", f)
		}
		if b, _ := json.Marshal(ev); bytes.Contains(b, []byte("example.com")) && !bytes.Contains(b, []byte("example.com/parse")) {
			t.Errorf("%s: the user's email reached the record: %s", f, b)
		}
	}
	for _, ev := range Events {
		if !seen[ev] {
			t.Errorf("no payload for %s", ev)
		}
	}
}

func TestDecodeToolEvents(t *testing.T) {
	type want struct {
		kind    engine.Kind
		tool    string
		class   engine.Class
		outcome engine.Outcome
		target  string
		note    string
	}
	cases := map[string]want{
		"beforeShellExecution-check.json":     {engine.KindPreTool, "Shell", engine.ClassCheck, "", "", ""},
		"afterShellExecution-check-fail.json": {engine.KindPostTool, "Shell", engine.ClassCheck, engine.OutcomeFailed, "", "from-output"},
		"afterShellExecution-check-pass.json": {engine.KindPostTool, "Shell", engine.ClassCheck, engine.OutcomeOK, "", "from-output"},
		// No exit status, and no runner's verdict: unknown, never a success.
		"afterShellExecution-run.json":  {engine.KindPostTool, "Shell", engine.ClassCheck, engine.OutcomeUnknown, "", "no-exit-code"},
		"beforeReadFile.json":           {engine.KindPostTool, "Read", engine.ClassRead, engine.OutcomeOK, "parse.go", ""},
		"afterFileEdit.json":            {engine.KindPostTool, "Edit", engine.ClassEdit, engine.OutcomeOK, "parse.go", ""},
		"beforeMCPExecution.json":       {engine.KindPreTool, "search_issues", engine.ClassOther, "", "", ""},
		"afterMCPExecution.json":        {engine.KindPostTool, "search_issues", engine.ClassOther, engine.OutcomeOK, "", ""},
		"afterMCPExecution-error.json":  {engine.KindPostTool, "search_issues", engine.ClassOther, engine.OutcomeFailed, "", ""},
		"beforeSubmitPrompt.json":       {engine.KindPrompt, "", "", "", "", ""},
		"stop.json":                     {engine.KindStop, "", "", "", "", ""},
		"preCompact.json":               {engine.KindCompact, "", "", "", "", ""},
		"subagentStart.json":            {engine.KindSubagent, "", "", "", "", ""},
		"sessionStart.json":             {engine.KindSessionStart, "", "", "", "", ""},
		"beforeShellExecution-run.json": {engine.KindPreTool, "Shell", engine.ClassCheck, "", "", ""},
	}
	for name, w := range cases {
		ev := decodeFixture(t, filepath.Join("testdata", "hooks", name))
		got := want{ev.Kind, ev.Tool, ev.Class, ev.Outcome, ev.Target, ev.Note}
		if got != w {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, w)
		}
		if ev.Exit != nil {
			t.Errorf("%s: Cursor gives no exit status, and cully invents none", name)
		}
		if ev.Outcome == engine.OutcomeFailed && ev.FailSig == "" {
			t.Errorf("%s: a failure without a signature", name)
		}
	}
	pre, post := decodeFixture(t, "testdata/hooks/beforeShellExecution-check.json"), decodeFixture(t, "testdata/hooks/afterShellExecution-check-fail.json")
	if pre.CallFP != post.CallFP || pre.CmdFP != post.CmdFP || pre.Cmd != "go test ./..." {
		t.Errorf("a command's pre and post events are the same call: %+v / %+v", pre, post)
	}
	if fail := decodeFixture(t, "testdata/hooks/afterShellExecution-check-fail.json"); fail.Tests == nil || fail.Tests.Failed == 0 {
		t.Errorf("the runner's own counts are recorded: %+v", fail.Tests)
	}
}

// The decoded records, pinned.
func TestDecodeGolden(t *testing.T) {
	var out bytes.Buffer
	for _, f := range fixtures(t) {
		b, _ := json.Marshal(decodeFixture(t, f))
		out.WriteString(filepath.Base(f) + " " + string(b) + "\n")
	}
	golden := filepath.Join("testdata", "decode.golden")
	if *update {
		os.WriteFile(golden, out.Bytes(), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("decoded events differ from %s (run with -update only for a deliberate change):\n%s", golden, out.String())
	}
}

func TestDecodeErrors(t *testing.T) {
	if _, err := agent.Decode([]byte(" \n"), fixtureEnv()); err != hookbridge.ErrEmpty {
		t.Errorf("empty: %v", err)
	}
	if _, err := agent.Decode([]byte(`{"conversation_id":"c"}`), fixtureEnv()); err == nil {
		t.Error("a payload without hook_event_name is an error")
	}
	if _, err := agent.Decode([]byte(`{"hook_event_name":`), fixtureEnv()); err == nil {
		t.Error("a broken payload is an error")
	}
	raw, _ := os.ReadFile("testdata/hooks/afterShellExecution-check-fail.json")
	head := raw[:bytes.Index(raw, []byte(`"output"`))+15]
	ev := agent.DecodeHead(head, 99<<20, fixtureEnv())
	if ev.Session == "" || ev.Kind != engine.KindPostTool || ev.Tool != "Shell" || ev.Outcome != engine.OutcomeUnknown {
		t.Errorf("salvaged %+v", ev)
	}
}

// No Cursor hook gets an answer outside a halted run: a message to the
// model needs a permission decision, and cully makes none but a refusal.
func TestEncodeAnswersNothing(t *testing.T) {
	for _, ev := range Events {
		if out := agent.Encode(ev, "cully: a note"); out != nil {
			t.Errorf("%s: %q", ev, out)
		}
	}
}

// The skill carries what the hooks cannot: where cully's notes wait.
func TestSkillText(t *testing.T) {
	common := "---\nname: cully\ndescription: d\n---\n\n# Working with cully\n"
	s := agent.SkillText(common)
	if !strings.HasPrefix(s, common) || !strings.Contains(s, "cully status") || !strings.Contains(s, "In Cursor") {
		t.Errorf("%s", s)
	}
	var _ hookbridge.Skilled = agent
}

func TestInstallRoundTrip(t *testing.T) {
	start := `{
  "version": 1,
  "hooks": {
    "afterFileEdit": [{ "command": "./hooks/format.sh" }],
    "stop": []
  }
}
`
	tg, _ := agent.Target(hookbridge.ScopeProject, hookbridge.Place{Project: "/home/dev/project"})
	if tg.Settings != "/home/dev/project/.cursor/hooks.json" || tg.Ignore != "/.cursor/hooks.json" || tg.Skill != "/home/dev/project/.cursor/skills/cully/SKILL.md" {
		t.Errorf("project target %+v", tg)
	}
	o := hookbridge.InstallOptions{HookCommand: "/opt/bin/cully-hook"}
	p, err := agent.Install(tg, []byte(start), o)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Version int                            `json:"version"`
		Hooks   map[string][]map[string]string `json:"hooks"`
	}
	if err := json.Unmarshal(p.After, &f); err != nil || f.Version != 1 {
		t.Fatalf("%v\n%s", err, p.After)
	}
	for _, ev := range Events {
		n := 0
		for _, h := range f.Hooks[ev] {
			if h["command"] == "GOMAXPROCS=1 /opt/bin/cully-hook --agent cursor" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s: %d entries of cully's", ev, n)
		}
	}
	if f.Hooks["afterFileEdit"][0]["command"] != "./hooks/format.sh" {
		t.Errorf("the user's entry moved: %v", f.Hooks["afterFileEdit"])
	}
	if p2, _ := agent.Install(tg, p.After, o); p2.Changed {
		t.Errorf("second install changed:\n%s", install.Diff("h", p.After, p2.After))
	}
	// Through the backups, as `cully uninstall` does: an empty list of the
	// user's that cully's entry went into comes back as it was.
	dir := t.TempDir()
	p.Path = filepath.Join(dir, "hooks.json")
	os.WriteFile(p.Path, []byte(start), 0o644)
	bk := install.Backups{Dir: filepath.Join(dir, "backups")}
	if _, _, err := install.Apply(p, bk, "20260101T000000"); err != nil {
		t.Fatal(err)
	}
	u, err := agent.Uninstall(hookbridge.Target{Scope: tg.Scope, Settings: p.Path}, p.After)
	bk.Restore(u)
	if err != nil || string(u.After) != start {
		t.Errorf("uninstall is not byte-exact: %v\n%s", err, install.Diff("h", []byte(start), u.After))
	}
	fresh, _ := agent.Install(tg, nil, o)
	if u, _ := agent.Uninstall(tg, fresh.After); !install.EmptyObject(u.After) {
		t.Errorf("a file install created holds nothing once uninstalled: %s", u.After)
	}
	if _, err := agent.Install(tg, []byte(`{"version": 2}`), o); err == nil {
		t.Error("another version is left for the user")
	}
}

// TestInstallHookEnv: the hook's environment goes before the command but
// for a user whose shell would not take it (with a note), a file the team
// commits, and Windows (CMD); an entry of an older install, bare, gets it.
func TestInstallHookEnv(t *testing.T) {
	user, _ := agent.Target(hookbridge.ScopeUser, hookbridge.Place{Getenv: func(k string) string { return map[string]string{"HOME": "/home/dev"}[k] }})
	shared, _ := agent.Target(hookbridge.ScopeShared, hookbridge.Place{Project: "/home/dev/project"})
	for _, c := range []struct {
		tg     hookbridge.Target
		hook   string
		shells []string
		want   string
		note   string
	}{
		{user, "/opt/bin/cully-hook", nil, "GOMAXPROCS=1 /opt/bin/cully-hook --agent cursor", ""},
		{user, "/opt/bin/cully-hook", []string{"/bin/bash", "/usr/bin/zsh"}, "GOMAXPROCS=1 /opt/bin/cully-hook --agent cursor", ""},
		{user, "/opt/bin/cully-hook", []string{"/usr/sbin/nologin", "/usr/bin/fish"}, "GOMAXPROCS=1 /opt/bin/cully-hook --agent cursor", ""},
		{user, "/opt/bin/cully-hook", []string{"/bin/bash", "/bin/tcsh"}, "/opt/bin/cully-hook --agent cursor", "your shell /bin/tcsh does not take GOMAXPROCS=1"},
		{user, "/opt/bin/cully-hook", []string{"/usr/bin/nu"}, "/opt/bin/cully-hook --agent cursor", "your shell /usr/bin/nu does not"},
		{user, "/opt/bin/cully-hook", []string{"/usr/bin/pwsh"}, "/opt/bin/cully-hook --agent cursor", "your shell /usr/bin/pwsh does not"},
		{shared, "cully-hook", []string{"/bin/bash"}, "cully-hook --agent cursor", ""},
	} {
		if runtime.GOOS == "windows" {
			c.want, c.note = strings.TrimPrefix(c.want, "GOMAXPROCS=1 "), ""
		}
		before := []byte(`{"version": 1, "hooks": {"stop": [{"command": "` + c.hook + ` --agent cursor"}]}}`)
		p, err := agent.Install(c.tg, before, hookbridge.InstallOptions{HookCommand: c.hook, Shells: c.shells})
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(p.After), `"command": "`+c.want+`"`); n != len(Events) {
			t.Errorf("%s %q: %d of %d entries are %q:\n%s", c.tg.Scope, c.shells, n, len(Events), c.want, p.After)
		}
		notes := strings.Join(p.Notes, "\n")
		if c.note == "" && notes != "" || !strings.Contains(notes, c.note) {
			t.Errorf("%s %q: notes %q, want %q", c.tg.Scope, c.shells, notes, c.note)
		}
	}
}

func TestDoctor(t *testing.T) {
	if sh := install.ShellWithoutEnv(install.UserShells(func(string) string { return "" })); sh != "" {
		t.Skipf("this user's login shell, %s, would not take the hook's environment", sh)
	}
	t.Setenv("SHELL", "/bin/sh")
	dir := t.TempDir()
	hook := filepath.Join(dir, "cully-hook")
	os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o755)
	home := filepath.Join(dir, "home")
	tg, _ := agent.Target(hookbridge.ScopeUser, hookbridge.Place{Getenv: func(k string) string { return map[string]string{"HOME": home}[k] }})
	if w := agent.Doctor(tg, "s"); len(w.Checks) != 0 {
		t.Errorf("nothing installed, nothing to check: %+v", w)
	}
	p, _ := agent.Install(tg, nil, hookbridge.InstallOptions{HookCommand: hook})
	os.MkdirAll(filepath.Dir(tg.Skill), 0o755)
	os.WriteFile(tg.Settings, p.After, 0o644)
	os.WriteFile(tg.Skill, []byte("s"), 0o644)
	w := agent.Doctor(tg, "s")
	for _, c := range w.Checks {
		if !c.OK {
			t.Errorf("installed, yet: %s", c.What)
		}
	}
	want := hook + " --agent cursor"
	if runtime.GOOS != "windows" {
		want = "GOMAXPROCS=1 " + want
	}
	if w.Command != want {
		t.Errorf("command %q, want %q", w.Command, want)
	}
	// A shell that does not take it, once the entries have it: a failure,
	// and install's fix.
	t.Setenv("SHELL", "/bin/tcsh")
	failed := false
	for _, c := range agent.Doctor(tg, "s").Checks {
		if !c.OK && strings.Contains(c.What, "sets GOMAXPROCS=1 before the command, and your shell /bin/tcsh does not") && strings.HasPrefix(c.Fix, "cully install --agent cursor") {
			failed = true
		}
	}
	if !failed {
		t.Error("a prefixed entry with tcsh for a shell passes")
	}
	t.Setenv("SHELL", "/bin/sh")
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"cully-hook"}]}]}}`), 0o644)
	found := false
	for _, c := range agent.Doctor(tg, "s").Checks {
		found = found || strings.Contains(c.What, "recorded twice")
	}
	if !found {
		t.Error("Claude Code's user hooks wiring cully are not mentioned")
	}
}

// An install by an earlier cully, with its entry on subagentStop: doctor
// notes it (no failure), install takes it out and leaves the user's own.
func TestRetiredEvents(t *testing.T) {
	dir := t.TempDir()
	hook := filepath.Join(dir, "cully-hook")
	os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o755)
	tg, _ := agent.Target(hookbridge.ScopeUser, hookbridge.Place{Getenv: func(k string) string { return map[string]string{"HOME": filepath.Join(dir, "home")}[k] }})
	o := hookbridge.InstallOptions{HookCommand: hook, Shells: []string{"/bin/sh"}}
	p, err := agent.Install(tg, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Hooks map[string][]map[string]any `json:"hooks"`
	}
	json.Unmarshal(p.After, &f)
	cmd, _ := f.Hooks["stop"][0]["command"].(string)
	old := strings.Replace(string(p.After), `"stop": [`, `"subagentStop": [{"command": `+strconv.Quote(cmd)+`}, {"command": "./mine.sh"}], "stop": [`, 1)
	if old == string(p.After) {
		t.Fatalf("no stop entry to put subagentStop beside:\n%s", p.After)
	}
	os.MkdirAll(filepath.Dir(tg.Skill), 0o755)
	os.WriteFile(tg.Settings, []byte(old), 0o644)
	os.WriteFile(tg.Skill, []byte("s"), 0o644)
	notes := 0
	for _, c := range agent.Doctor(tg, "s").Checks {
		if !c.OK && !c.Warn {
			t.Errorf("an earlier install: %s", c.What)
		}
		if c.Warn && strings.Contains(c.What, "can be updated") && strings.Contains(c.What, "subagentStop") {
			notes++
		}
	}
	if notes != 1 {
		t.Errorf("%d notes of the retired entry, want 1", notes)
	}
	p, err = agent.Install(tg, []byte(old), o)
	if err != nil {
		t.Fatal(err)
	}
	f.Hooks = nil
	if err := json.Unmarshal(p.After, &f); err != nil {
		t.Fatal(err)
	}
	if e := f.Hooks["subagentStop"]; len(e) != 1 || e[0]["command"] != "./mine.sh" {
		t.Errorf("subagentStop: the user's entry alone should stay: %v\n%s", e, p.After)
	}
}
