package codex

import "strings"

// patchFiles lists the files an apply_patch text writes, in the order the
// patch names them, each once: added, deleted and updated files, and the
// new name of a moved one.
//
//	*** Begin Patch
//	*** Update File: src/app.py
//	*** Move to: src/main.py
//	@@ …
//	*** End Patch
func patchFiles(patch string) []string {
	var out []string
	for len(patch) > 0 {
		line := patch
		if i := strings.IndexByte(patch, '\n'); i >= 0 {
			line, patch = patch[:i], patch[i+1:]
		} else {
			patch = ""
		}
		line = strings.TrimSuffix(line, "\r")
		if !strings.HasPrefix(line, "*** ") {
			continue
		}
		rest := line[4:]
		var path string
		for _, h := range [...]string{"Add File: ", "Delete File: ", "Update File: ", "Move to: "} {
			if strings.HasPrefix(rest, h) {
				path = strings.TrimSpace(rest[len(h):])
				break
			}
		}
		if path != "" && !containsStr(out, path) {
			out = append(out, path)
		}
	}
	return out
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// patchAddsOnly reports whether an apply_patch text adds files and does
// nothing else: no file it names was there before.
func patchAddsOnly(patch string) bool {
	adds := false
	for _, line := range strings.Split(patch, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSuffix(line, "\r"), "*** ")
		switch {
		case !ok:
		case strings.HasPrefix(rest, "Add File: "):
			adds = true
		case strings.HasPrefix(rest, "Delete File: "), strings.HasPrefix(rest, "Update File: "), strings.HasPrefix(rest, "Move to: "):
			return false
		}
	}
	return adds
}
