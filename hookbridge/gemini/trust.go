package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"cully/hookbridge"
	"cully/jsonlite"
)

// Gemini CLI 0.61 registers the hooks of its settings files, the user's
// included, only in a trusted folder (HookRegistry.processHooksFromConfig),
// and folder trust is on unless security.folderTrust.enabled is false in
// the user's (or the system's) settings. A folder is trusted by a rule in
// trustedFolders.json (the longest rule that covers it wins), by the IDE,
// or for one run by GEMINI_CLI_TRUST_WORKSPACE=true or --skip-trust.

// The trust levels of trustedFolders.json.
const (
	trustFolder = "TRUST_FOLDER"
	trustParent = "TRUST_PARENT"
	doNotTrust  = "DO_NOT_TRUST"
)

// trustNotes says what folder trust means for cully's hooks here: nothing
// when trust is off or the project is trusted; otherwise that the hooks
// will not run there until it is.
func trustNotes(home string, at hookbridge.Place) []string {
	if !trustEnabled(filepath.Join(home, ".gemini", "settings.json")) {
		return nil
	}
	file := at.Getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
	if file == "" {
		file = filepath.Join(home, ".gemini", "trustedFolders.json")
	}
	const how = "trust it when Gemini CLI asks (or with /permissions); a headless run needs --skip-trust or GEMINI_CLI_TRUST_WORKSPACE=true"
	if at.Project == "" {
		return []string{"Gemini CLI runs cully's hooks only in folders it trusts (folder trust is on): in each project, " + how}
	}
	rules, err := readTrust(file)
	if err != nil {
		return []string{"Gemini CLI runs cully's hooks only in folders it trusts, and " + file + " cannot be read (" + err.Error() + "): Gemini CLI refuses to start until it is fixed"}
	}
	switch trusted(rules, at.Project) {
	case trustFolder:
		return nil
	case doNotTrust:
		return []string{"Gemini CLI runs cully's hooks only in folders it trusts, and " + file + " marks " + at.Project + " as not trusted: change it with /permissions in Gemini CLI"}
	}
	return []string{"Gemini CLI runs cully's hooks only in folders it trusts, and " + at.Project + " is not trusted yet: " + how}
}

// trustEnabled reads security.folderTrust.enabled from the user's settings
// (true unless it says false, as Gemini CLI's schema defaults it).
func trustEnabled(settings string) bool {
	b, err := os.ReadFile(settings)
	if err != nil {
		return true
	}
	var s struct {
		Security struct {
			FolderTrust struct {
				Enabled *bool `json:"enabled"`
			} `json:"folderTrust"`
		} `json:"security"`
	}
	if json.Unmarshal(stripComments(b), &s) != nil || s.Security.FolderTrust.Enabled == nil {
		return true
	}
	return *s.Security.FolderTrust.Enabled
}

// readTrust reads trustedFolders.json: folder → trust level (an absent
// file has no rules).
func readTrust(file string) (map[string]string, error) {
	b, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rules map[string]string
	if err := json.Unmarshal(stripComments(b), &rules); err != nil {
		return nil, jsonlite.Where(b, err)
	}
	return rules, nil
}

// trusted applies the rules to a folder as Gemini CLI does: the longest
// rule whose folder (for TRUST_PARENT, the rule's parent) holds it decides;
// "" when none does.
func trusted(rules map[string]string, dir string) string {
	dir = realPath(dir)
	best, level := -1, ""
	for rule, lv := range rules {
		base := rule
		if lv == trustParent {
			base = filepath.Dir(rule)
		}
		base = realPath(base)
		if (dir == base || strings.HasPrefix(dir, strings.TrimSuffix(base, string(filepath.Separator))+string(filepath.Separator))) && len(rule) > best {
			best, level = len(rule), lv
		}
	}
	if level == trustParent {
		return trustFolder
	}
	return level
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// stripComments blanks the // and /* */ comments Gemini CLI allows in its
// JSON files (it strips them before parsing), outside strings.
func stripComments(b []byte) []byte {
	out := make([]byte, len(b))
	copy(out, b)
	inStr := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			j := i
			for ; j < len(out) && !(out[j] == '*' && j+1 < len(out) && out[j+1] == '/' && j > i+1); j++ {
				if out[j] != '\n' {
					out[j] = ' '
				}
			}
			for k := j; k < j+2 && k < len(out); k++ {
				out[k] = ' '
			}
			i = j + 1
		}
	}
	return out
}
