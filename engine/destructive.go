package engine

import "strings"

// Destructive commands: what people lose most often to agents is
// uncommitted work thrown away by one command (hundreds of files at a
// time). The hook snapshots the work tree, untracked files included,
// before such a command runs, and the command runs: cully tells the agent
// nothing and blocks nothing, but `cully rollback --to N` brings the work
// back.

// destructive names the destructive command a segment runs ("" when it
// runs none): git reset --hard, git checkout of paths or forced, git
// restore of the work tree, git clean -f, git stash (push, drop, clear),
// git switch forced, git worktree remove --force, rm -r.
func destructive(w []string) string {
	if len(w) == 0 {
		return ""
	}
	switch baseName(w[0]) {
	case "rm":
		for _, a := range w[1:] {
			if a == "--" {
				break
			}
			if a == "--recursive" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "rR") {
				return "rm -r"
			}
		}
	case "git":
		return destructiveGit(w[1:])
	}
	return ""
}

func destructiveGit(args []string) string {
	sub := gitSub(args)
	rest := gitRest(args, sub)
	forced := hasFlag(rest, "-f", "--force") || shortFlag(rest, 'f')
	switch sub {
	case "reset":
		if hasFlag(rest, "--hard", "--merge", "--keep") {
			return "git reset --hard"
		}
	case "checkout":
		if forced || hasFlag(rest, "--", ".", "--ours", "--theirs", "-p", "--patch") {
			return "git checkout of files"
		}
	case "restore":
		staged := hasFlag(rest, "--staged", "-S")
		if !staged || hasFlag(rest, "--worktree", "-W") {
			return "git restore"
		}
	case "clean":
		if forced {
			return "git clean -f"
		}
	case "stash":
		op := ""
		if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
			op = rest[0]
		}
		switch op {
		case "", "push", "save", "drop", "clear":
			return "git stash"
		}
	case "switch":
		if forced || hasFlag(rest, "--discard-changes") {
			return "git switch --discard-changes"
		}
	case "worktree":
		if len(rest) > 0 && rest[0] == "remove" && (forced || hasFlag(rest[1:], "--force")) {
			return "git worktree remove --force"
		}
	}
	return ""
}

// shortFlag reports a combined short flag holding c (-fd, -xfd).
func shortFlag(args []string, c byte) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], c) >= 0 {
			return true
		}
	}
	return false
}
