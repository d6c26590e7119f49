// Package testbin builds the real binaries a package's tests run, without
// cgo as every build of cully is, and keeps them between runs: the tests
// of cmd/cully and cmd/cully-export start them as an agent would.
//
// go build skips the link when the binary it would write is already there
// with the same build ID, so each checkout's binaries live in a folder of
// their own in the user's cache (the folder named by a hash of the
// checkout's path and the packages), built under a lock there; a run gets
// hard links to them in a fresh folder, which a later rebuild (a rename
// onto the cached name) leaves as they were. A folder no build has used
// for a week is removed by the next build. Linking the three binaries of
// cmd/cully took about 3 s of CPU on every run on a 2-core machine; an
// up-to-date check takes 0.5 s.
package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"cully/store"
)

// Build builds the main packages pkgs (as the go command names them, from
// the current folder) and puts the binaries, named after their folders,
// into dir. Without a user cache folder it builds into dir directly.
func Build(dir string, pkgs ...string) error {
	keep, err := keepDir(pkgs)
	if err != nil {
		return goBuild(dir, pkgs)
	}
	lk, err := store.Acquire(filepath.Join(keep, ".lock"), 10*time.Minute)
	if err != nil {
		return fmt.Errorf("lock %s: %w", keep, err)
	}
	defer lk.Unlock()
	if err := goBuild(keep, pkgs); err != nil {
		return err
	}
	now := time.Now()
	_ = os.Chtimes(keep, now, now) // in use: pruneStale leaves it
	pruneStale(filepath.Dir(keep), now)
	ents, err := os.ReadDir(keep)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.Name() == ".lock" || !e.Type().IsRegular() {
			continue
		}
		if err := linkOrCopy(filepath.Join(keep, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// keepDir is the cache folder of this checkout's build of pkgs.
func keepDir(pkgs []string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(wd + "\x00" + strings.Join(pkgs, "\x00")))
	keep := filepath.Join(cache, "cully-test-bin", hex.EncodeToString(sum[:8]))
	return keep, os.MkdirAll(keep, 0o700)
}

// staleAfter is how long a checkout's binaries stay unused before a build
// of another removes them: a clone made for one CI run, a worktree since
// deleted, each left about 30 MB behind.
const staleAfter = 7 * 24 * time.Hour

// pruneStale removes the folders under root no build has used for
// staleAfter.
func pruneStale(root string, now time.Time) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range ents {
		if info, err := e.Info(); err == nil && e.IsDir() && now.Sub(info.ModTime()) > staleAfter {
			_ = os.RemoveAll(filepath.Join(root, e.Name()))
		}
	}
}

func goBuild(dir string, pkgs []string) error {
	build := exec.Command("go", append([]string{"build", "-o", dir + string(os.PathSeparator)}, pkgs...)...)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build %s: %w", strings.Join(pkgs, " "), err)
	}
	return nil
}

// linkOrCopy hard-links src to dst, or copies it where a link cannot be
// made (another file system).
func linkOrCopy(src, dst string) error {
	if os.Link(src, dst) == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
