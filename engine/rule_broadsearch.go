package engine

import (
	"fmt"
	"strings"
)

// ReasonBroadSearch: a search over the whole disk or the whole home folder.
const ReasonBroadSearch Reason = "broad-search"

// broadSearch warns before a shell search (find, grep -r, rg, fd, ag, ack,
// locate aside: it reads an index) whose starting point is the file
// system's root or a home folder: `find ~ -name ffmpeg`, `grep -rn X /`.
// It walks every cache, package store and mounted volume, takes minutes
// on a developer's machine and often ends in the background, timed out or
// interrupted, while the thing sought has a known place: a program on
// PATH (`command -v`), a dependency in the language's module or package
// cache, a sibling checkout the user named. A search below a home folder
// (`~/go/pkg/mod`, `~/src/app`) is aimed, and not warned. Dedup key: the
// command and its starting point.
var broadSearch = guardRule{
	reason: ReasonBroadSearch,
	advice: "Search where the thing lives: the project, the language's module or package cache, `command -v` for a program.",
	check: func(s *State, ev *Event, _ *Config) (string, string, bool) {
		if ev.Subagent != "" || ev.Cmd == "" || !IsShellTool(ev.Tool) {
			return "", "", false
		}
		root := broadRoot(ev.Cmd)
		if root == "" {
			return "", "", false
		}
		where := "the whole home folder"
		if root == "/" {
			where = "the whole file system"
		}
		return "broad\x00" + root + "\x00" + ev.CmdFP,
			fmt.Sprintf("`%s` searches %s (`%s`)", preview(ev), where, root),
			true
	},
}

// broadRoot is the first starting point of a shell search in cmd that is
// the root or a home folder, "" when there is none.
func broadRoot(cmd string) string {
	if !mentions(cmd, "find", "grep", "rg ", "fd ", "fdfind", "ag ", "ack ", "bfs") || !mentions(cmd, "~", "HOME", " /", "/Users", "/home", "/root", "C:") {
		return "" // most calls, a search of the project among them: no lexing
	}
	for _, sg := range splitShell(cmd) {
		w := stripWrappers(sg.words)
		if len(w) < 2 {
			continue
		}
		for _, p := range searchRoots(progName(w[0]), w[1:]) {
			if broadPath(p) {
				return p
			}
		}
	}
	return ""
}

// mentions reports whether s holds any of words: the cheap test that
// spares most commands the lexer on the hook's path.
func mentions(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// searchRoots are the folders a search command starts from: find's paths
// before its expression; the operands after the pattern of a recursive
// grep, rg, ag or ack (the pattern given with -e or -f counts as given);
// fd's after its pattern.
func searchRoots(prog string, args []string) []string {
	var ops []string
	patternGiven, recursive := false, false
	switch prog {
	case "find", "gfind", "bfs":
		for _, a := range args {
			if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
				break
			}
			ops = append(ops, a)
		}
		return ops
	case "grep", "ggrep", "egrep", "fgrep":
	case "rg", "ag", "ack", "fd", "fdfind", "ugrep":
		recursive = true
	default:
		return nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case a == "-e" || a == "-f" || a == "--regexp" || a == "--file":
			patternGiven = true
			i++
		case strings.HasPrefix(a, "--"):
			if a == "--recursive" || a == "--dereference-recursive" {
				recursive = true
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if strings.ContainsAny(a[1:], "rR") && (prog == "grep" || prog == "ggrep" || prog == "egrep" || prog == "fgrep") {
				recursive = true
			}
			if strings.HasSuffix(a, "e") || strings.HasSuffix(a, "f") {
				patternGiven = true
				i++
			}
		default:
			ops = append(ops, a)
		}
	}
	if !recursive {
		return nil
	}
	if !patternGiven && len(ops) > 0 {
		ops = ops[1:] // the pattern
	}
	return ops
}

// broadPath reports whether a search's starting point is the root or a
// home folder itself: /, ~, $HOME, /Users/NAME, /home/NAME, /root.
func broadPath(p string) bool {
	if strings.HasSuffix(p, "…") {
		return false // a preview clipped there: the path goes on
	}
	p = strings.Trim(p, `"'`)
	if len(p) > 1 {
		p = strings.TrimRight(p, "/")
	}
	switch p {
	case "/", "~", "$HOME", "${HOME}", "/root", "/Users", "/home", "C:", `C:\`:
		return true
	}
	for _, home := range []string{"/Users/", "/home/"} {
		if rest, ok := strings.CutPrefix(p, home); ok && rest != "" && !strings.Contains(rest, "/") {
			return true
		}
	}
	return false
}
