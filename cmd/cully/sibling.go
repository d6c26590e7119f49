package main

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// runSibling runs one of cully's own binaries, beside this one or on PATH,
// in this process's place (see runBinary).
func (a *app) runSibling(name string, args []string) error {
	bin := ""
	if exe, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(exe), name+exeSuffix()); fileExists(p) {
			bin = p
		}
	}
	if bin == "" {
		p, err := exec.LookPath(name)
		if err != nil {
			return fail(codeNotFound, err, "cully %s needs the %s binary beside cully or on PATH: it comes in every release archive, or: CGO_ENABLED=0 go install ./cmd/%s (docs/install.md)", strings.TrimPrefix(name, "cully-"), name, name)
		}
		bin = p
	}
	return a.runBinary(bin, args)
}

// siblingExit maps a sibling binary's exit status: it said why on stderr.
func siblingExit(err error, bin string) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ee.ExitCode() == exitUsage {
			return errors.Join(errSilent, errUsage)
		}
		return errSilent
	}
	if err != nil {
		return fail(codeFailed, err, "cannot run %s: %s", bin, plain(err))
	}
	return nil
}

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// runBinaryChild runs bin as a child with this process's
// streams, passing on an interrupt or a termination it receives.
func (a *app) runBinaryChild(bin string, args []string) error {
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = a.stdin, a.stdout, a.stderr
	if err := cmd.Start(); err != nil {
		return fail(codeFailed, err, "cannot run %s: %s", bin, plain(err))
	}
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case s := <-sig:
			_ = cmd.Process.Signal(s)
		case err := <-done:
			return siblingExit(err, bin)
		}
	}
}
