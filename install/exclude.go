package install

import (
	"bytes"
	"strings"
)

// excludeMarker is the comment cully writes above each pattern it adds to
// a repository's .git/info/exclude (git's own ignore list, which is never
// committed), so that a reader knows whose line it is and uninstall finds
// exactly the lines install added.
const excludeMarker = "# added by cully install: this machine's own agent settings (cully uninstall removes these two lines)"

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
	return bytes.Contains(content, []byte(excludeMarker+"\n"+pattern+"\n"))
}

// RemoveExclude returns an exclude file's content without cully's lines
// for pattern, and whether it changed. Every other line keeps its bytes.
func RemoveExclude(content []byte, pattern string) ([]byte, bool) {
	s := string(content)
	pair := excludeMarker + "\n" + pattern + "\n"
	if !strings.Contains(s, pair) {
		return content, false
	}
	return []byte(strings.ReplaceAll(s, pair, "")), true
}
