package install

import (
	"bytes"
	"strings"
)

// excludeMarker is the comment cully writes above each pattern it adds to
// a repository's .git/info/exclude (git's own ignore list, which is never
// committed), so that a reader knows whose line it is and uninstall finds
// exactly the lines install added.
const excludeMarker = "# added by cully install: this machine's own agent settings or cully skill (cully uninstall removes these two lines)"

// excludeMarkers are every marker a cully wrote, the current one first:
// lines an earlier cully added are still found and removed.
var excludeMarkers = []string{
	excludeMarker,
	"# added by cully install: this machine's own agent settings (cully uninstall removes these two lines)",
}

// AddExclude returns an exclude file's content with pattern added under
// cully's marker, and whether it changed (it does not when cully's lines
// for pattern are already there).
func AddExclude(content []byte, pattern string) ([]byte, bool) {
	if HasExclude(content, pattern) {
		return content, false
	}
	out := append([]byte(nil), content...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return append(out, excludeMarker+"\n"+pattern+"\n"...), true
}

// HasExclude reports whether cully's lines for pattern are in an exclude
// file's content.
func HasExclude(content []byte, pattern string) bool {
	for _, m := range excludeMarkers {
		if bytes.Contains(content, []byte(m+"\n"+pattern+"\n")) {
			return true
		}
	}
	return false
}

// RemoveExclude returns an exclude file's content without cully's lines
// for pattern, and whether it changed. Every other line keeps its bytes.
func RemoveExclude(content []byte, pattern string) ([]byte, bool) {
	s, changed := string(content), false
	for _, m := range excludeMarkers {
		if pair := m + "\n" + pattern + "\n"; strings.Contains(s, pair) {
			s, changed = strings.ReplaceAll(s, pair, ""), true
		}
	}
	if !changed {
		return content, false
	}
	return []byte(s), true
}
