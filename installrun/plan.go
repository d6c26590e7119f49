package installrun

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cully/hookbridge"
	"cully/hookbridge/agents"
	"cully/install"
	"cully/plugin"
	"cully/skill"
)

// PlanInstall plans the install's steps; commands gives the hook and
// status-line commands for the target's scope, and a note on the hook's.
func (r *Run) PlanInstall(commands func(hookbridge.Scope) (hook, status, note string, err error)) error {
	hookCmd, statusCmd, note, err := commands(r.t.Scope)
	if err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintln(r.errOut, "note:", note)
	}
	if r.pluginSkip() { // plugin.go
		return nil
	}
	skip := false
	if sib, ok := r.sibling(); ok {
		st, cmd := r.wiredIn(sib)
		switch {
		case cmd != "" && sib == hookbridge.ScopeShared && !install.PathFree(cmd):
			r.note("%s, which your team commits, wires cully with a path of this machine (%q), as an earlier cully wrote it: %s would run both, so this machine's settings stay as they are; `cully uninstall --scope project --shared`, then this install again, moves it here", st.Settings, cmd, r.in.Title())
			skip = true
		case cmd != "" && sib == hookbridge.ScopeShared:
			r.note("%s, which your team commits, already wires cully (%q): %s would run both, so this machine's settings stay as they are", st.Settings, cmd, r.in.Title())
			skip = true
		case cmd != "":
			r.note("%s (this machine's own) also wires cully (%q): %s runs both, so `cully uninstall --scope project` removes that one", st.Settings, cmd, r.in.Title())
		}
	}
	if !skip {
		before, err := readSettings(r.t.Settings)
		if err != nil {
			return err
		}
		plan, err := r.in.Install(r.t, before, hookbridge.InstallOptions{HookCommand: hookCmd, StatusLineCommand: statusCmd, Plugin: plugin.For(r.in.Name()), Shells: install.UserShells(r.at.Getenv)})
		if err != nil {
			return err
		}
		r.notes = append(r.notes, plan.Notes...)
		r.settingsStep(plan, "already installed")
		if r.t.Ignore != "" {
			r.excludeAdd(ignore{r.t.Ignore, r.t.Settings, "this machine's settings"}, true)
		}
		if tr, ok := r.in.(hookbridge.Truster); ok {
			r.trustStep(tr)
		}
	}
	r.legacyNote()
	for _, f := range r.skillFiles() {
		if err := r.skillInstall(f); err != nil {
			return err
		}
	}
	switch {
	case r.t.Scope == hookbridge.ScopeProject && !skip:
		for _, ig := range r.skillIgnores() {
			r.excludeAdd(ig, false)
		}
	case r.t.Scope == hookbridge.ScopeShared:
		r.skillUnignore()
	}
	r.finally = r.recordInstall
	return nil
}

// ignore is one line install asks git to ignore: its pattern, the file it
// covers (for git's own checks) and what that is, for the output.
type ignore struct{ pattern, file, what string }

// skillIgnores are the skill folders of a project-scope install, which git
// is told to ignore as it is told to ignore the settings beside them: they
// go with this machine's install (the settings a team commits take their
// skill with them, and `--shared` lets git see it again).
func (r *Run) skillIgnores() []ignore {
	var out []ignore
	for _, dir := range []string{filepath.Dir(r.t.Skill), r.runControlDir()} {
		rel, err := filepath.Rel(r.at.Project, dir)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		out = append(out, ignore{"/" + filepath.ToSlash(rel) + "/", filepath.Join(dir, "SKILL.md"), "cully's skill, installed for this machine only"})
	}
	return out
}

// skillUnignore takes back the skill lines a project-scope install added
// to the exclude file: a --shared install's skill is the team's, committed
// with its settings.
func (r *Run) skillUnignore() {
	if !r.inRepo || !install.HasGit() {
		return
	}
	if ex, err := install.GitExclude(r.at.Project); err == nil {
		for _, ig := range r.skillIgnores() {
			r.excludeRemove(ex, ig.pattern)
		}
	}
}

// skillInstall is the step that writes (or keeps) one skill file.
func (r *Run) skillInstall(f skillFile) error {
	sk, err := install.PlanSkillInstall(f.path, f.text, r.rec.Skills[f.path])
	if err != nil {
		return err
	}
	s := step{do: func() error {
		created, err := install.ApplySkill(sk, f.text)
		r.created = append(r.created, created...)
		if sk.Action == install.SkillWrite {
			r.created = append(r.created, sk.Path)
		}
		if sk.Action != install.SkillKept {
			if r.skillSums == nil {
				r.skillSums = map[string]string{}
			}
			r.skillSums[sk.Path] = install.Sum([]byte(f.text))
		}
		return err
	}}
	switch sk.Action {
	case install.SkillWrite:
		s.done, s.would = "skill "+sk.Path+": written", "would write skill "+sk.Path
	case install.SkillUpdate:
		s.done = "skill " + sk.Path + ": updated (it held an earlier cully's text, unedited)"
		s.would = "would update skill " + sk.Path + " (it holds an earlier cully's text, unedited)"
	case install.SkillCurrent:
		s.done, s.would = "skill "+sk.Path+": already current", "would keep skill "+sk.Path+" (already current)"
	case install.SkillKept:
		why := " as it is: it differs from this cully's (edited, or written by another version), and install never overwrites it; to take this version, delete it and run `cully install" + AgentFlags(r.in) + r.t.Scope.Flags() + "` again"
		s.done, s.would = "skill "+sk.Path+": kept"+why, "would keep skill "+sk.Path+why
	}
	r.add(s)
	return nil
}

// trustStep asks the agent to trust cully's entries once they are written
// (Codex runs none it does not trust). A trust that cannot be given does
// not fail the install: the user is told the one step left.
func (r *Run) trustStep(tr hookbridge.Truster) {
	r.add(step{
		would: "would ask " + r.in.Title() + " to trust cully's hook entries in " + r.t.Settings + " (it runs untrusted hooks not at all)",
		do: func() error {
			done, next, err := tr.Trust(r.t)
			w := r.out
			if done != "" {
				fmt.Fprintln(w, done)
			}
			if err != nil {
				fmt.Fprintf(w, "note: %s could not trust cully's hooks itself (%v)\n", r.in.Title(), err)
			}
			if next != "" {
				fmt.Fprintf(w, "next: %s runs user hooks only once trusted: %s\n", r.in.Title(), next)
			}
			return nil
		},
	})
}

// recordInstall adds what this install created to the record.
func (r *Run) recordInstall() error {
	if len(r.created) == 0 && len(r.skillSums) == 0 {
		return nil
	}
	return install.UpdateRecord(r.stateDir, func(rec *install.Record) {
		for _, p := range r.created {
			kind := "file"
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				kind = "dir"
			}
			rec.Created[p] = kind
		}
		for p, sum := range r.skillSums {
			rec.Skills[p] = sum
		}
	})
}

// settingsStep is the step that writes (or removes) the settings file.
func (r *Run) settingsStep(p *install.Plan, same string) {
	if !p.Changed {
		r.add(step{done: p.Path + ": no change (" + same + ")", would: p.Path + ": would not change (" + same + ")"})
		return
	}
	if !p.Remove { // a file of nothing but cully's entries: the line says it goes
		r.diff = install.Diff(p.Path, p.Before, p.After)
	}
	s := step{do: func() error {
		_, created, err := install.Apply(p, r.bk, r.stamp)
		r.created = append(r.created, created...)
		if p.Before == nil {
			r.created = append(r.created, p.Path)
		}
		return err
	}}
	switch {
	case p.Remove && r.unrecorded && r.rec.Created[p.Path] != "file":
		s.gone = []string{p.Path}
		s.done = p.Path + ": removed (nothing but cully's entries was in it)"
		s.would = "would remove " + p.Path + " (nothing but cully's entries is in it)"
	case p.Remove:
		s.gone = []string{p.Path}
		s.done = p.Path + ": removed (install created it, and nothing else was left in it)"
		s.would = "would remove " + p.Path + " (install created it, and nothing else would be left in it)"
	case p.Before == nil:
		s.done, s.would = p.Path+": created", "would create "+p.Path
	default:
		s.done = p.Path + ": updated (previous file backed up to " + r.bk.Name(p.Path, r.stamp) + ")"
		s.would = "would update " + p.Path + " (backing the previous file up in " + r.bk.Folder(p.Path) + ")"
	}
	r.add(s)
}

// legacyNote points at backups an earlier cully left beside the file.
func (r *Run) legacyNote() {
	if old := install.Legacy(r.t.Settings); len(old) > 0 {
		r.note("%d backup(s) from an earlier cully are beside %s (%s…): cully now keeps its backups in the state dir; these hold this machine's paths, so delete them when you no longer need them",
			len(old), r.t.Settings, filepath.Base(r.t.Settings)+".cully-backup-")
	}
}

// excludeAdd asks git to ignore a file of this machine's install (its
// settings, its skill), in the repository's own .git/info/exclude (never
// committed), unless git already ignores or tracks it. notes: say why it
// could not (for the settings, which hold this machine's paths).
func (r *Run) excludeAdd(ig ignore, notes bool) {
	root, pat := r.at.Project, ig.pattern
	rel, err := filepath.Rel(root, ig.file)
	if err != nil {
		rel = strings.TrimPrefix(pat, "/")
	}
	switch {
	case !r.inRepo:
		return
	case !install.HasGit():
		if notes {
			r.note("git is not installed here: add %s to the repository's .gitignore, since %s holds this machine's paths", pat, ig.file)
		}
		return
	case install.GitTracked(root, rel):
		if notes {
			r.note("%s is tracked by git: this machine's hook command would be committed with it (`git rm --cached %s` keeps it yours alone)", ig.file, rel)
		}
		return
	}
	ex, err := install.GitExclude(root)
	if err != nil {
		if notes {
			r.note("git does not say where this repository's exclude file is (%v): add %s to its .gitignore", err, pat)
		}
		return
	}
	content, _ := os.ReadFile(ex)
	if install.HasExclude(content, pat) || install.GitIgnored(root, rel) {
		return
	}
	r.add(step{
		done:  ex + ": " + pat + " added, so git ignores " + ig.what,
		would: "would add " + pat + " to " + ex + ", so git ignores " + ig.what,
		do: func() error {
			old, err := readSettings(ex)
			if err != nil {
				return err
			}
			b, _ := install.AddExclude(old, pat)
			created, err := install.MkdirAll(filepath.Dir(ex), 0o755)
			if err != nil {
				return err
			}
			r.created = append(r.created, created...)
			if old == nil {
				r.created = append(r.created, ex)
			}
			return install.WriteAtomic(ex, b, 0o644)
		},
	})
}

// PlanUninstall plans the uninstall's steps.
func (r *Run) PlanUninstall() error {
	// An install the record does not know (made with another state dir, or
	// the record gone) still leaves nothing of cully's in a project: the
	// settings file goes when nothing but cully's entries was in it, and
	// so do the folders left empty between cully's files and the project's
	// root. Nothing with anything in it is removed, and never a folder
	// outside the project.
	r.unrecorded = r.t.Scope != hookbridge.ScopeUser && r.at.Project != "" &&
		r.rec.Created[r.t.Settings] == "" && r.rec.Skills[r.t.Skill] == ""
	before, err := readSettings(r.t.Settings)
	if err != nil {
		return err
	}
	if before == nil {
		r.add(step{done: r.t.Settings + ": not present (nothing to remove)", would: r.t.Settings + ": not present, so nothing would be removed"})
	} else {
		plan, err := r.in.Uninstall(r.t, before)
		if err != nil {
			return err
		}
		after := plan.After
		r.bk.Restore(plan)
		// Handed back as a backup holds it from before an install, the file
		// is the user's, {} or not, whatever the record says (a record of
		// an earlier install that created it is stale once it is back).
		restored := !bytes.Equal(after, plan.After)
		if plan.Changed && !restored && install.EmptyObject(plan.After) && (r.rec.Created[r.t.Settings] == "file" || r.unrecorded) {
			plan.Remove = true
		}
		r.notes = append(r.notes, plan.Notes...)
		r.settingsStep(plan, "cully is not installed there")
	}
	var ex string
	project := r.t.Scope == hookbridge.ScopeProject
	if (r.t.Ignore != "" || project) && r.inRepo && install.HasGit() {
		if p, err := install.GitExclude(r.at.Project); err == nil {
			ex = p
			if r.t.Ignore != "" {
				r.excludeRemove(ex, r.t.Ignore)
			}
			if project {
				for _, ig := range r.skillIgnores() {
					r.excludeRemove(ex, ig.pattern)
				}
			}
		}
	}
	r.legacyNote()
	keepSkill := ""
	if sib, ok := r.sibling(); ok {
		if st, cmd := r.wiredIn(sib); cmd != "" {
			keepSkill = st.Settings
			switch sib {
			case hookbridge.ScopeShared:
				r.note("%s, which your team commits, still wires cully (%q): `cully uninstall --scope project --shared` removes it there", st.Settings, cmd)
			case hookbridge.ScopeProject:
				// The skill is this machine's install's again: git ignores
				// it as that install had it ignored (--shared took it back).
				for _, ig := range r.skillIgnores() {
					r.excludeAdd(ig, false)
				}
			}
		}
	}
	if keepSkill == "" {
		keepSkill = r.skillSharer()
	}
	for _, f := range r.skillFiles() {
		if keepSkill != "" {
			r.add(step{done: "skill " + f.path + ": left for " + keepSkill + ", which still wires cully",
				would: "would leave skill " + f.path + " for " + keepSkill + ", which still wires cully"})
		} else {
			r.skillRemove(f)
		}
	}
	// The folders install may have created: the settings' and the skill's,
	// and where they meet (Copilot: ~/.copilot; Codex: ~/.agents beside
	// ~/.codex); only those the record says it created, once empty.
	bases := []string{filepath.Dir(r.t.Settings), r.skillBase(), r.runControlDir(), commonDir(filepath.Dir(r.t.Settings), filepath.Dir(r.t.Skill))}
	if ex != "" {
		bases = append(bases, filepath.Dir(ex))
	}
	r.foldersRemove(bases)
	r.finally = func() error { return r.recordUninstall(bases) }
	return nil
}

// skillSharer is the settings file of another agent that reads the same
// skill file and still wires cully (Gemini CLI and Codex both read
// ~/.agents/skills), or "" for none: that skill stays.
func (r *Run) skillSharer() string {
	for _, ag := range agents.All() {
		in, ok := ag.(hookbridge.Installer)
		if !ok || ag.Name() == r.in.Name() {
			continue
		}
		for _, scope := range hookbridge.Scopes {
			t, err := in.Target(scope, r.at)
			if err != nil || absPath(t.Skill) != r.t.Skill {
				continue
			}
			if in.Doctor(t, skill.SKILL).Command != "" {
				return t.Settings
			}
		}
	}
	return ""
}

// skillBase is the outermost folder install created to hold the skill
// (~/.agents for ~/.agents/skills/cully/SKILL.md, when it made all three):
// uninstall removes what it created there once it is empty.
func (r *Run) skillBase() string {
	d := filepath.Dir(r.t.Skill)
	for up := filepath.Dir(d); up != d && r.rec.Created[up] == "dir"; up = filepath.Dir(up) {
		d = up
	}
	return d
}

// excludeRemove takes cully's lines for pat out of the repository's
// exclude file, and the file itself when install created it and nothing
// else is in it.
func (r *Run) excludeRemove(ex, pat string) {
	content, err := os.ReadFile(ex)
	if err != nil || !install.HasExclude(content, pat) {
		return
	}
	r.add(step{
		done:  ex + ": " + pat + " removed (install had added it)",
		would: "would remove " + pat + " from " + ex + " (install added it)",
		do: func() error {
			old, err := os.ReadFile(ex)
			if err != nil {
				return err
			}
			b, _ := install.RemoveExclude(old, pat)
			if len(b) == 0 && r.rec.Created[ex] == "file" {
				return os.Remove(ex)
			}
			fi, err := os.Stat(ex)
			if err != nil {
				return err
			}
			return install.WriteAtomic(ex, b, fi.Mode().Perm())
		},
	})
}

// skillRemove removes a skill file if it is still cully's text.
func (r *Run) skillRemove(f skillFile) {
	sk := install.PlanSkillRemove(f.path, f.text, r.rec.Skills[f.path])
	s := step{do: func() error {
		_, err := install.ApplySkill(sk, f.text)
		if sk.Action != install.SkillAbsent {
			r.dropSkills = append(r.dropSkills, sk.Path)
		}
		return err
	}}
	switch sk.Action {
	case install.SkillRemove:
		s.gone = []string{sk.Path}
		s.done, s.would = "skill "+sk.Path+": removed", "would remove skill "+sk.Path
	case install.SkillLeft:
		s.done = "skill " + sk.Path + ": left in place (it was edited after cully wrote it)"
		s.would = "would leave skill " + sk.Path + " in place (it was edited after cully wrote it)"
	default:
		s.done, s.would = "skill "+sk.Path+": not present", "would remove no skill (none at "+sk.Path+")"
	}
	r.add(s)
}

// removableDirs are the folders uninstall may remove, deepest first: those
// the record says install created under bases (run control's skill folder
// among them), and cully's own skill folder.
func (r *Run) removableDirs(bases []string) []string {
	set := map[string]bool{filepath.Dir(r.t.Skill): true}
	for _, b := range bases {
		for _, p := range r.rec.Under(b) {
			if r.rec.Created[p] == "dir" {
				set[p] = true
			}
		}
	}
	if r.unrecorded { // the folders that held cully's files, up to the project's root
		files := []string{r.t.Settings}
		for _, f := range r.skillFiles() {
			files = append(files, f.path)
		}
		root := r.at.Project + string(filepath.Separator)
		for _, f := range files {
			for d := filepath.Dir(f); strings.HasPrefix(d, root); d = filepath.Dir(d) {
				set[d] = true
			}
		}
	}
	var out []string
	for p := range set {
		out = append(out, p)
	}
	install.DeepestFirst(out)
	return out
}

// foldersRemove removes the folders install created once they are empty
// (for a dry run: those that would be, after the steps before it).
func (r *Run) foldersRemove(bases []string) {
	dirs := r.removableDirs(bases)
	var would []string
	if r.dry {
		gone := map[string]bool{}
		for _, s := range r.steps { // what the steps before would remove
			for _, p := range s.gone {
				gone[p] = true
			}
		}
		for _, d := range dirs {
			ents, err := os.ReadDir(d)
			if err != nil {
				continue
			}
			empty := true
			for _, e := range ents {
				empty = empty && gone[filepath.Join(d, e.Name())]
			}
			if empty {
				gone[d] = true
				would = append(would, d)
			}
		}
	}
	s := step{}
	which := "the folders install created"
	if r.unrecorded {
		which = "the folders that held cully's files"
	}
	if len(would) > 0 {
		s.would = "would remove " + which + ", left empty: " + strings.Join(would, ", ")
	}
	s.do = func() error {
		var removed []string
		for _, d := range dirs {
			if os.Remove(d) == nil { // only an empty folder goes
				removed = append(removed, d)
			}
		}
		if len(removed) > 0 {
			fmt.Fprintln(r.out, "removed "+which+", left empty: "+strings.Join(removed, ", "))
		}
		return nil
	}
	r.add(s)
}

// recordUninstall drops from the record what is gone under bases, and each
// skill file's sum once uninstall has dealt with it.
func (r *Run) recordUninstall(bases []string) error {
	var gone []string
	for _, b := range bases {
		for _, p := range r.rec.Under(b) {
			if _, err := os.Lstat(p); err != nil {
				gone = append(gone, p)
			}
		}
	}
	drop := false
	for _, p := range r.dropSkills {
		drop = drop || r.rec.Skills[p] != ""
	}
	if len(gone) == 0 && !drop {
		return nil
	}
	return install.UpdateRecord(r.stateDir, func(rec *install.Record) {
		for _, p := range gone {
			delete(rec.Created, p)
		}
		for _, p := range r.dropSkills {
			delete(rec.Skills, p)
		}
	})
}

// commonDir is the deepest folder holding both a and b: where an agent's
// settings and skill meet (~/.claude; a repository's .github for GitHub
// Copilot CLI, whose hooks and skills are sibling folders there), under
// which uninstall looks for the folders install created.
func commonDir(a, b string) string {
	for d := a; ; d = filepath.Dir(d) {
		if b == d || strings.HasPrefix(b, d+string(filepath.Separator)) {
			return d
		}
		if filepath.Dir(d) == d {
			return d
		}
	}
}
