package installrun

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"cully/hookbridge"
	"cully/hookbridge/agents"
	"cully/install"
)

// New starts one install or uninstall of in's entries in scope: in a
// project scope the project is the repository of the current directory
// (install.ProjectRoot). What the steps say goes to out; a dry run writes
// nothing.
func New(in hookbridge.Installer, scope hookbridge.Scope, getenv func(string) string, dry bool, out, errOut io.Writer) (*Run, error) {
	r := &Run{out: out, errOut: errOut, in: in, dry: dry, at: hookbridge.Place{Getenv: getenv}}
	if scope != hookbridge.ScopeUser {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		r.at.Project, r.inRepo = install.ProjectRoot(wd)
		if !r.inRepo {
			r.note("not in a git repository: the project is the current directory, %s", wd)
		}
	}
	var err error
	if r.t, err = in.Target(scope, r.at); err != nil {
		return nil, err
	}
	r.t.Settings, r.t.Skill = absPath(r.t.Settings), absPath(r.t.Skill)
	return r, nil
}

// InStateDir keeps the run's backups and reads its record in the state
// dir, dir.
func (r *Run) InStateDir(dir string) error {
	r.stateDir = dir
	r.bk = install.Backups{Dir: filepath.Join(dir, "backups")}
	r.stamp = time.Now().UTC().Format("20060102T150405.000000000")
	var err error
	r.rec, err = install.ReadRecord(dir)
	return err
}

// AgentFlags is the --agent flag a command needs for an agent ("" for
// the default one).
func AgentFlags(ag hookbridge.Agent) string {
	if ag.Name() == agents.Default {
		return ""
	}
	return " --agent " + ag.Name()
}

func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// readSettings reads a settings file: nil when there is none.
func readSettings(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}
