package advisor

import (
	"fmt"
	"strings"
)

// Proposal is one worker command `cully advisor setup` offers: a headless
// agent CLI found on PATH, run read-only, with a small model and few turns.
// The flags are the pinned clients' own (Claude Code 2.1.332, Codex
// 0.171.0); docs/advisor.md explains each.
type Proposal struct {
	Agent string // "claude" or "codex"
	Path  string // the program, as found on PATH (absolute: the hook's background run may see another PATH)
	// Advisor is the [advisor] command; Discovery the [discovery] one, or
	// nil when the client has no web search cully can bound.
	Advisor   []string
	Discovery []string
	// Notes say, one line each, what the command does and does not allow.
	Notes []string
}

// noHooks keeps a Claude Code worker's own session out of cully's journal:
// its hooks (cully's among them) do not run. Only this session's settings
// change; the user's files are not touched.
const noHooks = `{"disableAllHooks":true}`

// Propose returns a proposal for each supported client lookPath finds
// (exec.LookPath in the CLI), Claude Code first.
func Propose(lookPath func(string) (string, error)) []Proposal {
	var out []Proposal
	if p, err := lookPath("claude"); err == nil {
		out = append(out, claudeProposal(p))
	}
	if p, err := lookPath("codex"); err == nil {
		out = append(out, codexProposal(p))
	}
	return out
}

func claudeProposal(path string) Proposal {
	common := []string{"--permission-mode", "dontAsk", "--settings", noHooks, "--no-session-persistence", "--output-format", "text"}
	return Proposal{
		Agent: "claude",
		Path:  path,
		Advisor: append([]string{path, "-p", "--model", "haiku", "--max-turns", "3",
			"--tools", "Read,Grep,Glob", "--allowedTools", "Read,Grep,Glob"}, common...),
		Discovery: append([]string{path, "-p", "--model", "haiku", "--max-turns", "4",
			"--tools", "WebSearch", "--allowedTools", "WebSearch"}, common...),
		Notes: []string{
			"print mode (-p): the prompt on stdin, the answer on stdout, no terminal",
			"a small model (haiku) and at most 3 turns (discovery: 4)",
			"tools: Read, Grep and Glob only (discovery: WebSearch only); anything else is denied without asking (dontAsk)",
			"no hooks in the worker's session (cully's included: it is not recorded) and nothing saved to resume",
		},
	}
}

func codexProposal(path string) Proposal {
	return Proposal{
		Agent: "codex",
		Path:  path,
		Advisor: []string{path, "exec", "--sandbox", "read-only", "--skip-git-repo-check", "--ephemeral",
			"--disable", "hooks", "-c", `model_reasoning_effort="low"`, "--color", "never", "-"},
		Notes: []string{
			"exec: headless, the prompt read from stdin (-), the last message on stdout",
			"a read-only sandbox: commands it runs cannot write or reach the network",
			"low reasoning effort; the model is your Codex default",
			"no hooks in the worker's session (cully's included: it is not recorded), nothing saved (--ephemeral)",
			"no discovery command: codex exec has no flag that bounds its web searches",
		},
	}
}

// TOML is the config text the proposal writes: an [advisor] table, and a
// [discovery] one when asked for and the client has one. deadline 0 leaves
// the default.
func (p Proposal) TOML(discovery bool, deadline int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by `cully advisor setup` (%s). docs/advisor.md says what each flag does.\n", p.Agent)
	b.WriteString("[advisor]\n")
	fmt.Fprintf(&b, "command = %s\n", tomlArray(p.Advisor))
	if deadline > 0 {
		fmt.Fprintf(&b, "deadline_seconds = %d\n", deadline)
	}
	if discovery && p.Discovery != nil {
		b.WriteString("\n[discovery]\n")
		fmt.Fprintf(&b, "command = %s\n", tomlArray(p.Discovery))
	}
	return b.String()
}

func tomlArray(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = tomlString(x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// tomlString quotes s as a TOML basic string: backslash, quote and every
// control character escaped (TOML has no \x escapes, so strconv.Quote
// will not do).
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
