package engine

import (
	"fmt"
	"strings"
)

// ReasonGitInternals: a bulk in-place edit whose file list takes in the
// repository's own .git folder.
const ReasonGitInternals Reason = "edits-git-internals"

// gitInternals warns before a shell line that edits in place (sed -i,
// perl -pi) every file a recursive search lists from a folder with no
// filter that leaves .git out: `grep -rl old . | xargs sed -i s/old/new/`,
// `find . -type f -exec sed -i … {} +`. grep -r and find descend into .git,
// so the edit rewrites refs, logs and the index wherever the text occurs —
// a corrupted repository that no rollback of the work tree repairs. A
// filter (--include, --exclude-dir=.git, -name '*.go', -not -path
// '*/.git/*') or a search that skips .git itself (rg, git grep, fd) is not
// warned. Dedup key: the command.
var gitInternals = guardRule{
	reason: ReasonGitInternals,
	advice: "List the files with `git grep -l` (or rg -l, or grep --exclude-dir=.git) so the edit stays out of .git.",
	check: func(s *State, ev *Event, _ *Config) (string, string, bool) {
		if ev.Subagent != "" || !IsShellTool(ev.Tool) || !mentions(ev.Cmd, "sed", "perl") || !mentions(ev.Cmd, "xargs", "-exec") {
			return "", "", false
		}
		if !editsGitInternals(splitShell(ev.Cmd)) {
			return "", "", false
		}
		return "gitint\x00" + ev.CmdFP, fmt.Sprintf("`%s` edits in place every file a recursive search lists, the repository's .git folder included", preview(ev)), true
	},
}

// editsGitInternals reports whether a line edits in place the files of an
// unfiltered recursive listing: grep -r…l piped to xargs sed -i or perl
// -pi, or find -type f -exec of one.
func editsGitInternals(segs []segment) bool {
	for i, sg := range segs {
		w := stripWrappers(sg.words)
		if len(w) < 2 {
			continue
		}
		switch progName(w[0]) {
		case "grep", "egrep", "fgrep", "ggrep":
			if sg.op != "|" || i+1 >= len(segs) || !unfilteredGrepList(w[1:]) {
				continue
			}
			x := stripWrappers(segs[i+1].words)
			if len(x) > 1 && progName(x[0]) == "xargs" && inPlaceEdit(xargsCommand(x[1:])) {
				return true
			}
		case "find", "gfind":
			if exec, ok := findExec(w[1:]); ok && inPlaceEdit(exec) && unfilteredFind(w[1:]) {
				return true
			}
		}
	}
	return false
}

// unfilteredGrepList: grep -r with -l (files listed), from . or a folder,
// with no --include or --exclude-dir.
func unfilteredGrepList(args []string) bool {
	recursive, list := false, false
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "--include") || strings.HasPrefix(a, "--exclude-dir"):
			return false
		case a == "--recursive" || a == "--dereference-recursive":
			recursive = true
		case a == "--files-with-matches":
			list = true
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--"):
			recursive = recursive || strings.ContainsAny(a, "rR")
			list = list || strings.Contains(a, "l")
		}
	}
	return recursive && list
}

// findExec is the command of find's -exec (or -execdir), ok when there is one.
func findExec(args []string) ([]string, bool) {
	for i, a := range args {
		if a == "-exec" || a == "-execdir" {
			cmd := args[i+1:]
			for j, x := range cmd {
				if x == ";" || x == "+" {
					return cmd[:j], true
				}
			}
			return cmd, true
		}
	}
	return nil, false
}

// unfilteredFind: a find with no name, path or prune test: every file.
func unfilteredFind(args []string) bool {
	for _, a := range args {
		if a == "-exec" || a == "-execdir" {
			return true
		}
		switch a {
		case "-name", "-iname", "-path", "-ipath", "-regex", "-iregex", "-prune", "-wholename", "-not", "!":
			return false
		}
	}
	return true
}

// xargsCommand is the command xargs runs: its arguments after xargs' own
// options.
func xargsCommand(args []string) []string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			return args[i:]
		}
		if (a == "-I" || a == "-n" || a == "-P" || a == "-L" || a == "-d" || a == "-s" || a == "-E") && i+1 < len(args) {
			i++
		}
	}
	return nil
}

// inPlaceEdit: sed -i or perl -pi, as the shell classification reads them
// (classifySegment: an edit).
func inPlaceEdit(w []string) bool {
	if len(w) < 2 || progName(w[0]) != "sed" && progName(w[0]) != "perl" {
		return false
	}
	c, _, _, _ := classifySegment(w, nil, &Config{})
	return c == ClassEdit
}
