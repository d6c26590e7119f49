package installrun

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"cully/hookbridge"
	"cully/install"
	"cully/skill"
)

// Run is one install or uninstall: where it works, what it found,
// and its steps. Each step says what it did in the past tense and, for
// --dry-run, what it would do; a dry run writes nothing, not even the
// state dir.
type Run struct {
	out      io.Writer // what the steps say
	errOut   io.Writer // a note on the hook command
	in       hookbridge.Installer
	at       hookbridge.Place
	inRepo   bool
	t        hookbridge.Target
	dry      bool
	stateDir string
	bk       install.Backups
	rec      install.Record
	stamp    string

	notes   []string
	diff    string
	steps   []step
	finally func() error // after the steps, even when one failed: the record of what they did

	// What the steps did, for the record.
	created    []string          // paths install created (folders and files)
	skillSums  map[string]string // skill file → the sum of the text cully now has there
	dropSkills []string          // uninstall: the skill files whose sum in the record no longer applies

	// unrecorded: an uninstall in a project whose install the record does
	// not know (see PlanUninstall).
	unrecorded bool
}

// skillFile is one file a skill install writes: where, and its text.
type skillFile struct{ path, text string }

// skillFiles are the skill files this agent gets: cully's own at t.Skill,
// then run control's (its SKILL.md, then its references) in the sibling
// folder skill.RunControlFolder. Each is planned, kept when edited and
// removed on its own, exactly as cully's own skill is.
func (r *Run) skillFiles() []skillFile {
	out := []skillFile{{r.t.Skill, r.skill()}}
	for _, f := range skill.RunControl() {
		out = append(out, skillFile{install.SkillSibling(r.t.Skill, skill.RunControlFolder, f.Path), f.Text})
	}
	return out
}

// runControlDir is the run-control skill's folder for this target.
func (r *Run) runControlDir() string {
	return filepath.Dir(install.SkillSibling(r.t.Skill, skill.RunControlFolder, "SKILL.md"))
}

// step is one thing a run does: the line when done, the line for a dry
// run, and the work (nil for a line that only reports).
type step struct {
	done, would string
	do          func() error
	gone        []string // what it removes, for a dry run's account of the folders left empty
}

func (r *Run) note(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

func (r *Run) add(s step) { r.steps = append(r.steps, s) }

// skill is the skill text this agent gets.
func (r *Run) skill() string { return hookbridge.SkillFor(r.in, skill.SKILL) }

// Execute prints the notes, then carries out the steps (or, for a dry run,
// prints the diff and what each step would do), then updates the record.
func (r *Run) Execute() error {
	w := r.out
	for _, n := range r.notes {
		fmt.Fprintln(w, "note:", n)
	}
	if r.dry {
		fmt.Fprint(w, r.diff)
		for _, s := range r.steps {
			if s.would != "" {
				fmt.Fprintln(w, s.would)
			}
		}
		fmt.Fprintln(w, "dry run: nothing written")
		return nil
	}
	err := r.do(w)
	if r.finally != nil {
		err = errors.Join(err, r.finally())
	}
	return err
}

func (r *Run) do(w io.Writer) error {
	for _, s := range r.steps {
		if s.do != nil {
			if err := s.do(); err != nil {
				return err
			}
		}
		if s.done != "" {
			fmt.Fprintln(w, s.done)
		}
	}
	return nil
}

// wiredIn is another scope's target, and the hook command of cully's
// entries there ("" for none).
func (r *Run) wiredIn(scope hookbridge.Scope) (hookbridge.Target, string) {
	t, err := r.in.Target(scope, r.at)
	if err != nil {
		return t, ""
	}
	return t, r.in.Doctor(t, r.skill()).Command
}

// sibling is the other settings file of a project scope: the committed
// one for this machine's, and the other way round. An agent that reads one
// file for both (Cursor's .cursor/hooks.json) has no sibling.
func (r *Run) sibling() (hookbridge.Scope, bool) {
	var sib hookbridge.Scope
	switch r.t.Scope {
	case hookbridge.ScopeProject:
		sib = hookbridge.ScopeShared
	case hookbridge.ScopeShared:
		sib = hookbridge.ScopeProject
	default:
		return "", false
	}
	if t, err := r.in.Target(sib, r.at); err != nil || absPath(t.Settings) == r.t.Settings {
		return "", false
	}
	return sib, true
}
