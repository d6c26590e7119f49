package hookbridge

import (
	"path/filepath"
	"strings"
)

// AbsPath resolves a path from a payload against the call's working
// directory. "~/" paths are left as they are: the host's HOME is not ours
// to guess.
func AbsPath(p, cwd string) string {
	if strings.HasPrefix(p, "~/") {
		return p
	}
	if !filepath.IsAbs(p) && cwd != "" {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// RelPath makes a path project-relative when it lies inside the project.
func RelPath(abs, project string) string {
	if project == "" || !filepath.IsAbs(abs) {
		return abs
	}
	rel, err := filepath.Rel(project, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return abs
	}
	return rel
}
