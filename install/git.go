package install

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ProjectRoot is the repository dir is in, as the project scopes find it:
// git's top level; when git is not installed, the nearest folder at or
// above dir holding .git; outside any repository, dir itself, and inRepo
// is false.
func ProjectRoot(dir string) (root string, inRepo bool) {
	if HasGit() {
		if out, err := git(dir, "rev-parse", "--show-toplevel"); err == nil && out != "" {
			return out, true
		}
		return dir, false
	}
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		up := filepath.Dir(d)
		if up == d {
			return dir, false
		}
		d = up
	}
}

// git runs git in dir and returns its output, trimmed.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// HasGit reports whether git is installed.
func HasGit() bool {
	_, err := exec.LookPath("git")
	return err == nil
}

// GitTracked reports whether git tracks the file at rel (from root).
func GitTracked(root, rel string) bool {
	_, err := git(root, "ls-files", "--error-unmatch", "--", rel)
	return err == nil
}

// GitIgnored reports whether git ignores the file at rel (from root), by
// any of its ignore files.
func GitIgnored(root, rel string) bool {
	_, err := git(root, "check-ignore", "-q", "--", rel)
	return err == nil
}

// GitExclude is the repository's own ignore list, .git/info/exclude (in a
// worktree, the main repository's), which git reads and nobody commits.
func GitExclude(root string) (string, error) {
	p, err := git(root, "rev-parse", "--git-path", "info/exclude")
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	return p, nil
}
