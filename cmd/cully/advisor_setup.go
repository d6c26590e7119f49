package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"cully/advisor"
	"cully/config"
	"cully/install"
)

type setupOpts struct {
	agent     string
	discovery bool
	deadline  int
	yes       bool
	dryRun    bool
}

// workerHeader finds a worker table's header in a TOML file ([advisor],
// [ discovery ], [advisor.x]): appending a second one would make the file
// invalid.
var workerHeader = regexp.MustCompile(`^\s*\[\s*(advisor|discovery)\s*[\].]`)

// advisorSetup proposes the advisor command for a client on PATH, shows
// it, and appends it to the user's config on confirmation (--yes, or a
// "y" typed at a terminal). It never edits what the file already says: a
// config that sets a worker already is reported, with its line.
func (a *app) advisorSetup(o setupOpts) error {
	path := a.env().ConfigPath()
	if path == "" {
		return fail(codeUsage, errUsage, "no place for your config: set HOME (or CULLY_CONFIG to a file)")
	}
	if o.deadline != 0 && (o.deadline < 1 || o.deadline > config.MaxDeadline) {
		return fail(codeUsage, errUsage, "--deadline %d is outside 1–%d seconds", o.deadline, config.MaxDeadline)
	}
	props := advisor.Propose(exec.LookPath)
	w := termSafe{a.stdout}
	for _, name := range []string{"claude", "codex"} {
		i := slices.IndexFunc(props, func(p advisor.Proposal) bool { return p.Agent == name })
		if i < 0 {
			fmt.Fprintf(w, "%-7s not on PATH\n", name)
		} else {
			fmt.Fprintf(w, "%-7s %s\n", name, props[i].Path)
		}
	}
	if len(props) == 0 {
		return fail(codeFailed, nil, "neither claude nor codex is on PATH: install one, or write an [advisor] command yourself (docs/advisor.md)")
	}
	p := props[0]
	if o.agent != "" {
		i := slices.IndexFunc(props, func(p advisor.Proposal) bool { return p.Agent == o.agent })
		if i < 0 {
			if o.agent != "claude" && o.agent != "codex" {
				return fail(codeUsage, errUsage, "--agent %q: setup knows claude and codex", o.agent)
			}
			return fail(codeFailed, nil, "--agent %s: %s is not on PATH", o.agent, o.agent)
		}
		p = props[i]
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fail(codeFailed, err, "cannot read your config %s: %s", path, plain(err))
	}
	if line := headerLine(old); line > 0 {
		return fail(codeFailed, nil, "%s:%d already has an advisor or discovery table: edit it there (docs/advisor.md), or remove it and run setup again", path, line)
	}
	if ld := a.loadConfig(); len(ld.Workers.Advisor) > 0 || len(ld.Workers.Discovery) > 0 {
		return fail(codeFailed, nil, "%s already sets a worker command: edit it there (docs/advisor.md), or remove it and run setup again", path)
	}
	text := p.TOML(o.discovery, o.deadline)
	fmt.Fprintf(w, "\nProposed for %s (%s):\n\n%s\n", path, p.Agent, text)
	for _, n := range p.Notes {
		fmt.Fprintf(w, "  - %s\n", n)
	}
	if o.discovery && p.Discovery == nil {
		fmt.Fprintf(w, "  (--discovery: none for %s, see above)\n", p.Agent)
	}
	fmt.Fprintln(w)
	switch {
	case o.dryRun:
		fmt.Fprintln(w, "dry run: nothing written")
		return nil
	case o.yes:
	case isTerminal(a.stdin) && isTerminal(a.stdout):
		fmt.Fprintf(w, "Write it to %s? [y/N] ", path)
		ans, _ := bufio.NewReader(a.stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(ans)); a != "y" && a != "yes" {
			fmt.Fprintln(w, "not written")
			return nil
		}
	default:
		fmt.Fprintln(w, "not written: run again with --yes to write it (or from a terminal, to be asked)")
		return nil
	}
	if err := appendConfig(path, old, text); err != nil {
		return fail(codeFailed, err, "cannot write your config %s: %s", path, plain(err))
	}
	// Read back as the hook will: the command must be exactly the proposal.
	ld := a.loadConfig()
	if !slices.Equal(ld.Workers.Advisor, p.Advisor) {
		return fail(codeFailed, nil, "wrote %s, but it does not read back as the proposed command: check it with cully doctor", path)
	}
	fmt.Fprintf(w, "written: %s\nThe advisor now runs in the background when a checkpoint opens, under its budget; ask it now with: cully advise\n", path)
	return nil
}

// headerLine is the 1-based line of the first worker table header in a
// config file's text, or 0.
func headerLine(b []byte) int {
	for i, ln := range strings.Split(string(b), "\n") {
		if workerHeader.MatchString(ln) {
			return i + 1
		}
	}
	return 0
}

// appendConfig writes old with text appended (a blank line between), as a
// new file when there was none: private, its folder created.
func appendConfig(path string, old []byte, text string) error {
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	} else if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b := slices.Clone(old)
	if len(b) > 0 {
		if b[len(b)-1] != '\n' {
			b = append(b, '\n')
		}
		b = append(b, '\n')
	}
	return install.WriteAtomic(path, append(b, text...), mode)
}
