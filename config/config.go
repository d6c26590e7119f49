package config

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"

	"cully/engine"
)

// ProjectFile is the name of the optional per-repository threshold file.
const ProjectFile = ".cully.toml"

// Load returns the effective rule configuration. Errors are returned for
// recording (at most MaxProblems of them, then one that counts the rest);
// the configuration is usable whatever they say.
func Load(userPath, projectDir string) (engine.Config, []error) {
	cfg := engine.DefaultConfig()
	var ps problems
	if userPath != "" {
		loadFile(&cfg, userPath, "", MaxUserBytes, false, &ps)
	}
	if projectDir != "" {
		loadFile(&cfg, filepath.Join(projectDir, ProjectFile), projectDir, MaxProjectBytes, true, &ps)
	}
	var errs []error
	for _, p := range ps.list {
		errs = append(errs, p)
	}
	if ps.more > 0 {
		errs = append(errs, moreProblems(ps.more))
	}
	return cfg.Sanitize(), errs
}

type moreProblems int

func (n moreProblems) Error() string {
	return "and " + strconv.Itoa(int(n)) + " more config problem(s) like these: `cully doctor` lists the first ones"
}

// loadFile reads one file (bounded) and applies what it sets. It reports
// whether the file was there and read.
func loadFile(cfg *engine.Config, path, root string, limit int64, project bool, ps *problems) bool {
	b, err := readBounded(path, root, limit)
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	if err != nil {
		ps.add(Problem{File: path, Err: true, Msg: "refused: " + err.Error() + "; the file is ignored"})
		return false
	}
	set, ok := parse(b, path, project, ps)
	if ok {
		apply(cfg, set, project, path, ps)
	}
	return ok
}

// apply sets what a file said on cfg, each threshold held to its range.
func apply(cfg *engine.Config, set map[string]setting, project bool, file string, ps *problems) {
	for _, l := range Limits {
		s, ok := set[l.Key]
		if !ok {
			continue
		}
		v, why := l.clamp(s.n, project)
		if why != "" {
			ps.add(Problem{File: file, Line: s.line, Msg: why})
		}
		l.set(cfg, v)
	}
	if project {
		return // a project file never names a command (parse refused those keys)
	}
	if s, ok := set["unattended"]; ok {
		cfg.Unattended = s.s
	}
	if s, ok := set["checks"]; ok {
		cfg.Checks = s.list
	}
	if s, ok := set["read_only"]; ok {
		cfg.ReadOnly = s.list
	}
}
