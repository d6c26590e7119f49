package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cully/config"
)

// repoRoot is the repository dir is in: the nearest directory at or above it
// holding .git (a directory, or a file in a worktree), else dir itself.
func repoRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// projectFileArg is the project file a command names: FILE, FILE/.cully.toml
// for a directory, or the .cully.toml of the current repository's root.
func projectFileArg(args []string) (string, error) {
	var p string
	if len(args) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		p = filepath.Join(repoRoot(wd), config.ProjectFile)
	} else {
		abs, err := filepath.Abs(args[0])
		if err != nil {
			return "", err
		}
		p = abs
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			p = filepath.Join(p, config.ProjectFile)
		}
	}
	return p, nil
}

// allow records the user's consent to a project file's exact content, after
// showing what it sets and what is wrong with it.
func (a *app) allow(args []string) error {
	p, err := projectFileArg(args)
	if err != nil {
		return err
	}
	root := repoRoot(filepath.Dir(p))
	in, err := config.Inspect(p, root)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no %s to allow", p)
	}
	if err != nil {
		return fmt.Errorf("cannot allow %s: refused, %v", p, err)
	}
	if in.Broken {
		for _, pr := range in.Problems {
			if pr.Err && pr.Line > 0 && strings.Contains(pr.Msg, "syntax") {
				return fmt.Errorf("not allowed: %v (fix it, then run `%s`)", pr, config.AllowCommand(p))
			}
		}
		return fmt.Errorf("not allowed: %s does not parse", p)
	}
	now, _ := a.now()
	h, err := a.home()
	if err != nil {
		return err
	}
	sum := sha256Hex(in.Content)
	if err := config.Allow(h.Dir, p, in.Content, sum, now); err != nil {
		return fmt.Errorf("allow %s: %w", p, err)
	}
	sets := "it sets nothing"
	if len(in.Sets) > 0 {
		sets = "it sets " + strings.Join(in.Sets, ", ")
	}
	fmt.Fprintf(a.stdout, "allowed %s (sha256 %s…): %s\n", p, sum[:12], sets)
	for _, pr := range in.Problems {
		fmt.Fprintf(a.stdout, "  %v\n", pr)
	}
	if in.More > 0 {
		fmt.Fprintf(a.stdout, "  and %d more problem(s)\n", in.More)
	}
	if filepath.Base(p) != config.ProjectFile {
		fmt.Fprintf(a.stdout, "note: cully reads only files named %s in a project directory\n", config.ProjectFile)
	}
	fmt.Fprintln(a.stdout, "It takes effect at the next hook call; once the file changes it is ignored until allowed again.")
	return nil
}

// deny withdraws consent: the project file is ignored, without a reminder,
// until allowed again.
func (a *app) deny(args []string) error {
	p, err := projectFileArg(args)
	if err != nil {
		return err
	}
	now, _ := a.now()
	h, err := a.home()
	if err != nil {
		return err
	}
	was, err := config.Deny(h.Dir, p, now)
	if err != nil {
		return fmt.Errorf("deny %s: %w", p, err)
	}
	note := ""
	if !was {
		note = " (it was not allowed)"
	}
	fmt.Fprintf(a.stdout, "denied %s%s: it is ignored from the next hook call, without a reminder; `%s` undoes this\n", p, note, config.AllowCommand(p))
	return nil
}

// sha256Hex is the hex SHA-256 that allowed.json keeps for people to read.
func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
