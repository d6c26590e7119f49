package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cully/ledger"
)

// toolGapWorker is one fake worker for the three parts of an advisor job,
// told apart by the prompt it reads: tool-gap research (two searches
// reported for jq, none for yq), discovery (five searches: over the
// limit) and the advice. Each run is logged with its part; each prompt is
// kept.
const toolGapWorker = `#!/bin/sh
p=$(cat)
n=$(wc -l < "$WORK/calls.log" 2>/dev/null || echo 0)
case "$p" in
*"seems to lack a tool"*)
  printf '%s' "$p" > "$WORK/prompt-$n-research.txt"
  echo research >> "$WORK/calls.log"
  if printf '%s' "$p" | grep -q 'found no .yq.'; then
    echo 'yq is mikefarah/yq (github.com/mikefarah/yq)'
  else
    printf 'jq is the jq package on Debian and Homebrew (packages.debian.org/jq)\nsearch: install jq\n- search: jq package debian\n'
  fi ;;
*"web searches about the problem"*)
  printf '%s' "$p" > "$WORK/prompt-$n-discovery.txt"
  echo discovery >> "$WORK/calls.log"
  printf 'a finding (example.org)\nsearch: a\nsearch: b\nsearch: c\nsearch: d\nsearch: e\n' ;;
*)
  printf '%s' "$p" > "$WORK/prompt-$n-advisor.txt"
  echo advisor >> "$WORK/calls.log"
  echo 'install jq with the system package manager, then rerun' ;;
esac
`

// bash records one Bash call of session s1 through the real hook: ok, or
// failed with Claude Code's error text.
func bash(t *testing.T, env map[string]string, id, cmd, errText string) {
	t.Helper()
	hook := "PostToolUse"
	p := map[string]any{"session_id": "s1", "cwd": "/w", "tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "tool_use_id": id}
	if errText != "" {
		hook = "PostToolUseFailure"
		p["error"] = errText
	} else {
		p["tool_response"] = map[string]any{"stdout": "", "stderr": "", "interrupted": false}
	}
	p["hook_event_name"] = hook
	b, _ := json.Marshal(p)
	if r := runBin(t, "cully", env, b, "hook"); r.code != 0 {
		t.Fatalf("hook: %+v", r)
	}
}

func calls(t *testing.T, env map[string]string) []string {
	b, _ := os.ReadFile(filepath.Join(env["WORK"], "calls.log"))
	return strings.Fields(string(b))
}

func readPrompt(t *testing.T, env map[string]string, n int, part string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(env["WORK"], fmt.Sprintf("prompt-%d-%s.txt", n, part)))
	if err != nil {
		t.Fatalf("no %s prompt as call %d: %v (calls %v)", part, n, err, calls(t, env))
	}
	return string(b)
}

// A command the shell could not find, then a lookup of it: a tool gap.
// The automatic advisor researches it once, on the discovery command,
// under discovery's rules; discovery's answer reports five searches and
// is refused; the research's findings reach the advice. The results are in
// the journal, the ledger, status and its JSON. A second job later does
// not research the same gap again; a new gap an hour on is researched,
// and its answer, reporting no search, is refused.
func TestToolGapResearchEndToEnd(t *testing.T) {
	env := advisorEnv(t, toolGapWorker, "")
	env["CULLY_ADVISOR_WORKER"] = "1" // the hooks start no advisor: the test runs it
	worker := filepath.Join(env["WORK"], "worker.sh")
	cfg, _ := os.ReadFile(env["CULLY_CONFIG"])
	os.WriteFile(env["CULLY_CONFIG"], append(cfg, fmt.Sprintf("\n[discovery]\ncommand = [%q]\n", worker)...), 0o600)
	home := env["CULLY_HOME"]

	prompt := []byte(`{"session_id":"s1","hook_event_name":"UserPromptSubmit","cwd":"/w","prompt":"summarise data.json"}`)
	runBin(t, "cully", env, prompt, "hook")
	bash(t, env, "t1", "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 jq .name data.json", "Exit code 127\n/bin/bash: line 1: jq: command not found")
	if sj := cully(t, env, nil, "status", "--session", "s1", "--json"); !strings.Contains(sj.stdout, `"tool_gaps": []`) {
		t.Fatalf("one command-not-found alone is a tool gap:\n%s", sj.stdout)
	}
	var missing bool
	for _, ev := range journal(t, home) {
		missing = missing || ev.Missing == "jq"
	}
	if !missing {
		t.Fatal("the journal does not record jq as the missing program")
	}

	env["CULLY_NOW"] = "2026-11-30T12:03:00Z"
	bash(t, env, "t2", "which jq", "Exit code 1")
	r := cully(t, env, nil, "advise", "--auto", "--session", "s1")
	for _, want := range []string{"advice: install jq", "discovery: too-many-searches", "tool-gap research jq: ok"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("advise lacks %q: %+v", want, r)
		}
	}
	if got := strings.Join(calls(t, env), " "); got != "discovery research advisor" {
		t.Fatalf("calls %q", got)
	}
	research := readPrompt(t, env, 1, "research")
	for _, want := range []string{"The agent seems to lack a tool: the shell found no `jq` once; looked for or install tried without finding it once", "search: <the query>", "tool-gap jq:"} {
		if !strings.Contains(research, want) {
			t.Errorf("the research prompt lacks %q:\n%s", want, research)
		}
	}
	advice := readPrompt(t, env, 2, "advisor")
	if !strings.Contains(advice, "tool-gap research notes (jq):\n- jq is the jq package on Debian and Homebrew (packages.debian.org/jq)") ||
		strings.Contains(advice, "search: install jq") || strings.Contains(advice, "a finding (example.org)") {
		t.Errorf("the advisor's prompt: research's findings without its searches, discovery's refused:\n%s", advice)
	}
	for _, p := range []string{research, advice, readPrompt(t, env, 0, "discovery")} {
		if strings.Contains(p, "ghp_abcdef") {
			t.Errorf("a prompt holds the secret:\n%s", p)
		}
	}

	byKind := map[string]ledger.Entry{}
	for _, e := range ledgerEntries(t, home) {
		byKind[e.Kind] = e
	}
	d, rs := byKind["discovery"], byKind["research"]
	if d.Outcome != ledger.OutcomeTooManySearches || d.Searches == nil || *d.Searches != 5 {
		t.Errorf("discovery's ledger line %+v", d)
	}
	if rs.Outcome != "ok" || rs.Searches == nil || *rs.Searches != 2 || rs.Hash == "" || rs.Hash == byKind["spent"].Hash {
		t.Errorf("research's ledger line %+v", rs)
	}
	var notes []string
	for _, ev := range journal(t, home) {
		if ev.Kind == "advice" && ev.Note != "" {
			notes = append(notes, ev.Note)
		}
	}
	for _, want := range []string{"discovery: too-many-searches (5 search(es) reported, 1–3 allowed)", "tool-gap research jq: ok (2 search(es) reported, 1–3 allowed)"} {
		if !strings.Contains(strings.Join(notes, "\n"), want) {
			t.Errorf("no journal event noting %q: %q", want, notes)
		}
	}

	st := cully(t, env, nil, "status", "--session", "s1")
	if !strings.Contains(st.stdout, "research cooldown until 2026-11-30T13:03:00Z") || !strings.Contains(st.stdout, "tool gap jq (researched): the shell found no `jq` once") {
		t.Errorf("status:\n%s", st.stdout)
	}
	var js struct {
		Advisor struct {
			Research string `json:"research"`
			Gaps     []struct {
				Name       string `json:"name"`
				Researched bool   `json:"researched"`
			} `json:"tool_gaps"`
			Budget struct {
				ResearchCooldown time.Time `json:"research_cooldown_until"`
			} `json:"budget"`
		} `json:"advisor"`
	}
	sj := cully(t, env, nil, "status", "--session", "s1", "--json")
	if err := json.Unmarshal([]byte(sj.stdout), &js); err != nil {
		t.Fatalf("status --json: %v\n%s", err, sj.stdout)
	}
	if a := js.Advisor; a.Research != "on" || len(a.Gaps) != 1 || a.Gaps[0].Name != "jq" || !a.Gaps[0].Researched || a.Budget.ResearchCooldown.IsZero() {
		t.Errorf("status --json advisor %+v", a)
	}
	var lj struct {
		Totals ledger.Totals `json:"totals"`
	}
	if err := json.Unmarshal([]byte(cully(t, env, nil, "ledger", "--json").stdout), &lj); err != nil || lj.Totals.Searches != 7 || lj.Totals.Refused != 1 {
		t.Errorf("ledger totals %+v (%v)", lj.Totals, err)
	}

	// More evidence of the same gap, later: new evidence for the advice,
	// but the gap was researched.
	env["CULLY_NOW"] = "2026-11-30T12:06:00Z"
	bash(t, env, "t3", "find / -name jq", "")
	cully(t, env, nil, "advise", "--auto", "--session", "s1")
	if got := strings.Join(calls(t, env), " "); got != "discovery research advisor advisor" {
		t.Fatalf("the same gap again: calls %q", got)
	}

	// A new gap past the hour: researched; its answer reports no search.
	env["CULLY_NOW"] = "2026-11-30T13:10:00Z"
	bash(t, env, "t4", "yq e .a x.yml", "Exit code 127\n/bin/bash: line 1: yq: command not found")
	bash(t, env, "t5", "apt-get install -y yq", "Exit code 100\nE: Unable to locate package yq")
	r = cully(t, env, nil, "advise", "--auto", "--session", "s1")
	if !strings.Contains(r.stdout, "tool-gap research yq: no-searches") {
		t.Errorf("advise: %+v", r)
	}
	got := calls(t, env)
	if strings.Join(got, " ") != "discovery research advisor advisor discovery research advisor" {
		t.Fatalf("calls %v", got)
	}
	if p := readPrompt(t, env, len(got)-1, "advisor"); strings.Contains(p, "mikefarah") {
		t.Errorf("a refused answer reached the advisor's prompt:\n%s", p)
	}
}
