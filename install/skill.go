package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// SkillAction says what installing or removing the skill does.
type SkillAction struct {
	Path   string
	Action string // "write", "keep" (already current), "remove", "left" (changed by the user), "absent"
}

// PlanSkillInstall decides whether the skill file needs writing.
func PlanSkillInstall(path, text string) SkillAction {
	if b, err := os.ReadFile(path); err == nil && string(b) == text {
		return SkillAction{path, "keep"}
	}
	return SkillAction{path, "write"}
}

// PlanSkillRemove removes the skill only if it is still cully's text: a
// file the user edited is theirs now.
func PlanSkillRemove(path, text string) SkillAction {
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return SkillAction{path, "absent"}
	case err == nil && string(b) == text:
		return SkillAction{path, "remove"}
	}
	return SkillAction{path, "left"}
}

// ApplySkill carries out a skill action.
func ApplySkill(a SkillAction, text string) error {
	switch a.Action {
	case "write":
		if err := os.MkdirAll(filepath.Dir(a.Path), 0o755); err != nil {
			return fmt.Errorf("create skill dir: %w", err)
		}
		return WriteAtomic(a.Path, []byte(text), 0o644)
	case "remove":
		if err := os.Remove(a.Path); err != nil {
			return fmt.Errorf("remove skill: %w", err)
		}
		_ = os.Remove(filepath.Dir(a.Path)) // only if empty
	}
	return nil
}
