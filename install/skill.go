package install

import (
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
)

// SkillAction says what installing or removing the skill does.
type SkillAction struct {
	Path   string
	Action string
}

// The skill actions.
const (
	SkillWrite   = "write"   // absent: cully writes it
	SkillUpdate  = "update"  // as an earlier cully wrote it, never edited: this cully's text replaces it
	SkillCurrent = "current" // already this cully's text
	SkillKept    = "kept"    // it differs from anything cully wrote there: edited, so it stays
	SkillRemove  = "remove"  // cully's text, unedited: uninstall removes it
	SkillLeft    = "left"    // edited: uninstall leaves it
	SkillAbsent  = "absent"  // nothing to remove
)

// Sum is the hex FNV-128a of a text, as the install record keeps it: it
// tells cully's own text from a user's edit, which no one forges, and
// keeps crypto out of the hook binary, which links this package (the FIPS
// module's initialisation cost every hook call 0.03 ms).
func Sum(b []byte) string {
	h := fnv.New128a()
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// PlanSkillInstall decides what happens to the skill file: written when
// absent, updated when it is still exactly what cully wrote there (wrote:
// the hash the install record holds for it, "" for none), and otherwise
// kept as it is: cully never overwrites a skill the user edited.
func PlanSkillInstall(path, text, wrote string) (SkillAction, error) {
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return SkillAction{path, SkillWrite}, nil
	case err != nil:
		return SkillAction{}, fmt.Errorf("read skill: %w", err)
	case string(b) == text:
		return SkillAction{path, SkillCurrent}, nil
	case wrote != "" && Sum(b) == wrote:
		return SkillAction{path, SkillUpdate}, nil
	}
	return SkillAction{path, SkillKept}, nil
}

// PlanSkillRemove removes the skill only if it is still cully's text (this
// cully's, or what the record says an earlier one wrote there): a file the
// user edited is theirs now.
func PlanSkillRemove(path, text, wrote string) SkillAction {
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return SkillAction{path, SkillAbsent}
	case err == nil && (string(b) == text || wrote != "" && Sum(b) == wrote):
		return SkillAction{path, SkillRemove}
	}
	return SkillAction{path, SkillLeft}
}

// ApplySkill carries out a skill action, and returns the folders it
// created, outermost first.
func ApplySkill(a SkillAction, text string) ([]string, error) {
	switch a.Action {
	case SkillWrite, SkillUpdate:
		created, err := MkdirAll(filepath.Dir(a.Path), 0o755)
		if err != nil {
			return nil, fmt.Errorf("create skill dir: %w", err)
		}
		return created, WriteAtomic(a.Path, []byte(text), 0o644)
	case SkillRemove:
		if err := os.Remove(a.Path); err != nil {
			return nil, fmt.Errorf("remove skill: %w", err)
		}
	}
	return nil, nil
}

// SkillSibling is the file rel (slash-separated) of the skill folder named
// folder beside the one that holds skill: for …/skills/cully/SKILL.md and
// "cully-run-control", …/skills/cully-run-control/rel. Every agent reads
// its skills one folder each under one skills folder, so a second skill
// goes where the first one's path says that folder is.
func SkillSibling(skill, folder, rel string) string {
	return filepath.Join(filepath.Dir(filepath.Dir(skill)), folder, filepath.FromSlash(rel))
}
