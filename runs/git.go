package runs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// ErrNoGit is returned when git is not installed: snapshots keep their
// content in a git store of their own.
var ErrNoGit = errors.New("git is not installed: recovery snapshots keep the files' content in a git store of their own (install git, or set CULLY_SNAPSHOTS=off)")

// gitConfig is passed to every git command: no file-system monitor (a
// repository's own config could name a program to run as one, and cully
// runs git in whatever project the agent is in), no untracked cache or
// split index in a throwaway index, no automatic gc or maintenance in a
// store pruned only under its lock, no line-ending conversion and no
// refusal of one (the user's files are kept byte for byte: with the
// store's info/attributes, see initStore), and the store's files readable
// by this user only.
var gitConfig = []string{
	"-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false", "-c", "core.splitIndex=false",
	"-c", "gc.auto=0", "-c", "maintenance.auto=false", "-c", "core.safecrlf=false",
	"-c", "core.autocrlf=false", "-c", "core.sharedRepository=0600",
}

// git runs git commands: on the run's private repository (dir set, with
// the user's work tree), or read-only ones on the user's repository (dir
// empty, in root).
type git struct {
	dir   string // the private git dir; "" for the user's repository
	root  string // the work tree, and the commands' working directory
	index string // GIT_INDEX_FILE when not the private repository's own
	// excludes is the run's own ignore list (core.excludesFile): what the
	// user's global and repository excludes said at the run's start, and
	// every file ignored then, so that a run's edit of .gitignore never
	// makes a file that was there before the run look created by it.
	excludes string
}

func (g git) withIndex(path string) git { g.index = path; return g }

// environ is the process environment without any GIT_ variable the agent's
// shell may carry (a GIT_DIR or GIT_INDEX_FILE of its own would turn a
// snapshot into a write to the user's repository), plus the run's own.
func (g git) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	env = append(env, "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	if g.dir != "" {
		env = append(env, "GIT_DIR="+g.dir, "GIT_WORK_TREE="+g.root)
	}
	if g.index != "" {
		env = append(env, "GIT_INDEX_FILE="+g.index)
	}
	return env
}

func (g git) command(args ...string) (*exec.Cmd, error) {
	bin, err := exec.LookPath("git")
	if err != nil {
		return nil, ErrNoGit
	}
	g.clearStaleIndexLock()
	pre := append([]string{}, gitConfig...)
	if g.excludes != "" {
		pre = append(pre, "-c", "core.excludesFile="+g.excludes)
	}
	c := exec.Command(bin, append(pre, args...)...)
	c.Dir, c.Env = g.root, g.environ()
	return c, nil
}

// staleIndexLock is how old an index.lock of the run's own index must be
// to be taken for a dead git's: every git that writes it runs under the
// run's lock, from a cully process whose whole process group is killed at
// its deadline (hookrun.Wait), and none holds it for more than seconds.
const staleIndexLock = time.Minute

// clearStaleIndexLock removes the index.lock a killed git left on the run's
// own index (never the user's repository's): without it every later
// command that writes the index failed with git's "remove the file
// manually", and the run could no longer be rolled back.
func (g git) clearStaleIndexLock() {
	if g.dir == "" {
		return // the user's repository: its locks are the user's
	}
	lock := g.indexPath() + ".lock"
	if fi, err := os.Lstat(lock); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > staleIndexLock {
		_ = os.Remove(lock)
	}
}

// out runs a git command with stdin and returns its output; its error
// carries what git said.
func (g git) out(stdin []byte, args ...string) ([]byte, error) {
	c, err := g.command(args...)
	if err != nil {
		return nil, err
	}
	if stdin != nil {
		c.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		return out, gitError(args, err, stderr.Bytes())
	}
	return out, nil
}

// lines runs a git command whose output is NUL-separated and hands each
// field to fn as it arrives; fn returning an error stops git.
func (g git) lines(fn func(string) error, args ...string) error {
	c, err := g.command(args...)
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	c.Stderr = &stderr
	pipe, err := c.StdoutPipe()
	if err != nil {
		return err
	}
	if err := c.Start(); err != nil {
		return gitError(args, err, nil)
	}
	r := bufio.NewReaderSize(pipe, 64<<10)
	var stop error
	for stop == nil {
		field, err := r.ReadString(0)
		if len(field) > 0 && strings.HasSuffix(field, "\x00") {
			stop = fn(strings.TrimSuffix(field, "\x00"))
		}
		if err != nil {
			break
		}
	}
	if stop != nil {
		_ = c.Process.Kill()
		_, _ = io.Copy(io.Discard, r)
		_ = c.Wait()
		return stop
	}
	if err := c.Wait(); err != nil {
		return gitError(args, err, stderr.Bytes())
	}
	return nil
}

// gitError says which git command failed and what it printed.
func gitError(args []string, err error, stderr []byte) error {
	msg := strings.TrimSpace(string(stderr))
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 { // git's last line is its verdict ("fatal: …")
		msg = msg[i+1:]
	}
	if msg == "" {
		msg = err.Error()
	}
	return fmt.Errorf("git %s: %s", args[0], msg)
}

// nulFields splits NUL-terminated output.
func nulFields(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

// nulJoin is the input of a git command reading paths with -z --stdin.
func nulJoin(paths []string) []byte {
	var b bytes.Buffer
	for _, p := range paths {
		b.WriteString(p)
		b.WriteByte(0)
	}
	return b.Bytes()
}
