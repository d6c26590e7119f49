package install

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Plan describes one settings change.
type Plan struct {
	Path    string
	Before  []byte // nil when the file does not exist
	After   []byte // the new content (nil only when there was no file to change)
	Notes   []string
	Changed bool
	Remove  bool // the file goes: cully created it and nothing else is left in it
}

// IsCullyCommand reports whether a hook or status-line command is one of
// ours.
func IsCullyCommand(cmd string) bool {
	f := programWords(cmd)
	if len(f) == 0 {
		return false
	}
	base := filepath.Base(f[0])
	switch base {
	case "cully-hook":
		return true
	case "cully":
		return len(f) > 1 && (f[1] == "hook" || f[1] == "statusline")
	}
	return false
}

// PathFree reports whether a command names no path of this machine: no
// word of it is an absolute path or one in the home folder (~, $HOME). A
// program found on PATH, or a path under $CLAUDE_PROJECT_DIR, means the
// same on every machine that clones the repository.
func PathFree(cmd string) bool {
	for _, w := range shellWords(cmd) {
		if filepath.IsAbs(w) || strings.HasPrefix(w, "~") || strings.HasPrefix(w, "$HOME") || strings.HasPrefix(w, "${HOME}") {
			return false
		}
	}
	return true
}

// HookEnv is the environment cully's hook runs with, where the agent can
// set it safely: before the command where the agent runs it through a
// POSIX shell (WithHookEnv), in the entry's own environment where it has
// one (SetHookEnv). One processor, from the runtime's start. A Go process given GOMAXPROCS=1 before it
// starts makes no second processor and so starts no thread to run its
// first goroutines on it; the hook has no parallel work. Set from inside
// the process it came too late (the threads were started) and cost a stop
// of the world. Measured with bench/ratio (800 rounds, three copies each):
// 0.08 ms and 21 page faults less a call, 1.11x -> 1.07x the minimal hook
// (docs/performance.md). Measured again with the hook built plainly
// (bash bench/hook.sh, 300 rounds, a machine at load 20): bare, the hook
// took 6% more wall time at the median (PostToolUse and PreToolUse alike),
// 36 page faults and 9-10% more CPU a call, so it stays (a hand-written
// setting must save 3% of a call).
const HookEnv = HookEnvName + "=" + HookEnvValue

// HookEnvName and HookEnvValue are HookEnv's variable, for the agents
// whose hook entries carry an environment of their own (SetHookEnv).
const HookEnvName, HookEnvValue = "GOMAXPROCS", "1"

// SetEnv sets name to value in a hook entry's own environment (its "env"
// object, made when there is none), changing nothing when it is set so.
func SetEnv(h *Node, name, value string) {
	env := h.Get("env")
	if env == nil || env.Kind != 'o' {
		env = Object()
		h.Set("env", env)
	}
	if env.Get(name).Str() != value {
		env.Set(name, Scalar(value))
	}
}

// SetHookEnv puts HookEnv into a hook entry's own environment.
func SetHookEnv(h *Node) { SetEnv(h, HookEnvName, HookEnvValue) }

// WithHookEnv is cmd with HookEnv set before it, when cmd is cully's hook
// command (not its status line) and sets nothing of its own (a command a
// person wrote with variables of their own is theirs).
func WithHookEnv(cmd string) string {
	words := shellWords(cmd)
	f := skipAssignments(words)
	if len(f) == 0 || len(f) != len(words) {
		return cmd
	}
	if b := filepath.Base(f[0]); b != "cully-hook" && (b != "cully" || len(f) < 2 || f[1] != "hook") {
		return cmd
	}
	return HookEnv + " " + cmd
}

// HasHookEnv reports whether cmd sets HookEnv before the command, as
// WithHookEnv writes it.
func HasHookEnv(cmd string) bool { return strings.HasPrefix(cmd, HookEnv+" ") }

// UserShells are the user's shells as this machine names them: the login
// shell in the password database (/etc/passwd, for the current user; none
// where the user is not in that file, as with a directory service, or on
// Windows), then $SHELL when it is set. An agent that runs hook commands
// through the user's shell (Codex) takes its pick from the first; $SHELL
// is there to be safe when the two disagree.
func UserShells(getenv func(string) string) []string {
	var shells []string
	if b, err := os.ReadFile("/etc/passwd"); err == nil {
		if sh := LoginShell(b, os.Getuid()); sh != "" {
			shells = append(shells, sh)
		}
	}
	if sh := getenv("SHELL"); sh != "" {
		shells = append(shells, sh)
	}
	return shells
}

// ShellName is a shell's path as agents tell shells apart: its file's
// name without extension, in lower case ("pwsh" for
// C:\Program Files\PowerShell\7\pwsh.exe).
func ShellName(shell string) string {
	base := filepath.Base(strings.ReplaceAll(shell, "\\", "/"))
	return strings.ToLower(strings.TrimSuffix(base, filepath.Ext(base)))
}

// ShellTakesEnv reports whether a shell, by its path, takes NAME=value
// before a command, as HookEnv goes before cully's hook: the sh family
// (sh, bash, zsh, dash, ksh and its kin, ash, yash, busybox) and fish,
// which has since 3.1. Every other shell, and one cully does not know, is
// taken not to (csh and tcsh, PowerShell, nushell, elvish, xonsh: each
// would fail the whole command).
func ShellTakesEnv(shell string) bool {
	switch ShellName(shell) {
	case "sh", "bash", "zsh", "dash", "ksh", "ksh93", "mksh", "pdksh", "oksh", "loksh", "lksh", "ash", "yash", "busybox", "fish":
		return true
	}
	return false
}

// ShellWithoutEnv is the first of shells that would not take HookEnv
// before a command (ShellTakesEnv), "" when each would. A login shell that
// only refuses a login (nologin, false) runs no command, so it says
// nothing of the shell an agent uses and is passed over.
func ShellWithoutEnv(shells []string) string {
	for _, sh := range shells {
		if !noLogin(sh) && !ShellTakesEnv(sh) {
			return sh
		}
	}
	return ""
}

func noLogin(shell string) bool {
	n := ShellName(shell)
	return n == "nologin" || n == "false"
}

// LoginShell is the shell field of uid's line in a passwd file ("" when
// there is none): name:password:uid:gid:gecos:home:shell.
func LoginShell(passwd []byte, uid int) string {
	if uid < 0 {
		return ""
	}
	want := strconv.Itoa(uid)
	for _, line := range strings.Split(string(passwd), "\n") {
		f := strings.Split(strings.TrimRight(line, "\r"), ":")
		if len(f) == 7 && f[2] == want && !strings.HasPrefix(f[0], "#") {
			return f[6]
		}
	}
	return ""
}

// programWords is a command line's words from its program on: the
// NAME=value assignments a shell takes before the program are skipped.
func programWords(cmd string) []string { return skipAssignments(shellWords(cmd)) }

// skipAssignments is words without the NAME=value words that lead them.
func skipAssignments(words []string) []string {
	for len(words) > 0 && isAssignment(words[0]) {
		words = words[1:]
	}
	return words
}

// isAssignment reports whether a shell word is NAME=value.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, c := range name {
		if c != '_' && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// shellWords splits a command line into words, honouring single and double
// quotes (enough to find the program of a hook command).
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// ItemsOrNil is an array's items, or nil for anything else (nil included).
func (n *Node) ItemsOrNil() []*Node {
	if n == nil || n.Kind != 'a' {
		return nil
	}
	return n.Items
}

// ParseSettings reads a JSON settings file, keeping its key order; an
// empty file is an empty object.
func ParseSettings(path string, b []byte) (*Node, error) {
	if len(strings.TrimSpace(string(b))) == 0 {
		return Object(), nil
	}
	root, err := ParseNode(b)
	if err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (%v): fix it by hand first, cully will not rewrite it", path, err)
	}
	if root.Kind != 'o' {
		return nil, fmt.Errorf("%s is not a JSON object: fix it by hand first", path)
	}
	return root, nil
}

// sameSettings compares two settings files as Claude Code reads them: an
// empty hook list, or an empty "hooks" object, means the same as none.
func sameSettings(a, b []byte) bool {
	return SameJSON(normalizeSettings(a), normalizeSettings(b))
}

func normalizeSettings(b []byte) []byte {
	root, err := ParseNode(b)
	if err != nil || root.Kind != 'o' {
		return b
	}
	if hooks := root.Get("hooks"); hooks != nil && hooks.Kind == 'o' {
		for i := 0; i < len(hooks.Keys); i++ {
			if v := hooks.Vals[i]; v.Kind == 'a' && len(v.Items) == 0 {
				hooks.Del(hooks.Keys[i])
				i--
			}
		}
		if len(hooks.Keys) == 0 {
			root.Del("hooks")
		}
	}
	return root.Encode()
}

// Apply carries out a plan: back up the previous file (when there was
// one) into bk, then write the new content atomically, keeping the file's
// mode, creating its folder if need be; or remove the file, for a plan that
// says so (it held nothing but cully's entries: no backup). It returns the backup's path ("" for none) and the folders it
// created, outermost first.
func Apply(p *Plan, bk Backups, stamp string) (backup string, created []string, err error) {
	if !p.Changed {
		return "", nil, nil
	}
	if p.Before != nil && !p.Remove {
		if backup, err = bk.Save(p.Path, p.Before, stamp); err != nil {
			return "", nil, err
		}
	}
	if p.Remove {
		if err := os.Remove(p.Path); err != nil {
			return "", nil, fmt.Errorf("remove %s: %w", p.Path, err)
		}
		return "", nil, nil
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(p.Path); err == nil {
		mode = fi.Mode().Perm()
	}
	if created, err = MkdirAll(filepath.Dir(p.Path), 0o755); err != nil {
		return backup, nil, err
	}
	return backup, created, WriteAtomic(p.Path, p.After, mode)
}

// EmptyObject reports whether a settings document holds nothing: an empty
// object (whatever its spacing) or no bytes but space.
func EmptyObject(b []byte) bool {
	if len(strings.TrimSpace(string(b))) == 0 {
		return true
	}
	n, err := ParseNode(b)
	return err == nil && n.Kind == 'o' && len(n.Keys) == 0
}

// WriteAtomic writes a file through a temp file and a rename, so a reader
// (the agent reloading its settings) never sees half of it.
func WriteAtomic(path string, b []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), mode)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// CommandRuns checks that a hook command's program exists and is
// executable (a PATH lookup for a bare name).
func CommandRuns(cmd string) bool {
	f := programWords(cmd)
	if len(f) == 0 {
		return false
	}
	p := f[0]
	if !filepath.IsAbs(p) {
		var err error
		if p, err = exec.LookPath(p); err != nil {
			return false
		}
	}
	return IsExecutable(p)
}

// IsExecutable reports whether p is a regular file with an execute bit.
func IsExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// RemoveGroupedHooks takes cully's entries out of a settings document whose
// hooks are grouped per event, as Claude Code, Codex and Gemini CLI write
// them ({"hooks": {"Event": [{"hooks": [{"command": …}]}]}}): an entry
// whose command is cully's goes, a group left empty goes, an event left
// with no group goes, and "hooks" goes when nothing is left in it. Every
// other byte stays.
func RemoveGroupedHooks(root *Node) {
	if hooks := root.Get("hooks"); hooks != nil && hooks.Kind == 'o' {
		for i := 0; i < len(hooks.Keys); i++ {
			arr := hooks.Vals[i]
			if arr.Kind != 'a' {
				continue
			}
			var groups []*Node
			for _, group := range arr.Items {
				list := group.Get("hooks")
				if list == nil || list.Kind != 'a' {
					groups = append(groups, group)
					continue
				}
				var keep []*Node
				for _, h := range list.Items {
					if !IsCullyCommand(h.Get("command").Str()) {
						keep = append(keep, h)
					}
				}
				if len(keep) == 0 && len(list.Items) > 0 {
					continue // the whole group was ours
				}
				list.Items = keep
				groups = append(groups, group)
			}
			if len(groups) == 0 && len(arr.Items) > 0 {
				hooks.Del(hooks.Keys[i])
				i--
				continue
			}
			arr.Items = groups
		}
		if len(hooks.Keys) == 0 {
			root.Del("hooks")
		}
	}
}

// RemoveFlatHooks takes cully's entries out of a settings document whose
// hooks are listed per event without groups, as GitHub Copilot CLI and
// Cursor write them ({"hooks": {"event": [{"command": …}]}}; command reads
// an entry's command line): an entry that is cully's goes, an event left
// with none goes, and "hooks" goes when nothing is left in it. Every other
// byte stays.
func RemoveFlatHooks(root *Node, command func(*Node) string) { removeFlatHooks(root, command, nil) }

// RemoveFlatHooksOf is RemoveFlatHooks for the named events only: what
// install does to the events an earlier cully registered and this one no
// longer uses.
func RemoveFlatHooksOf(root *Node, command func(*Node) string, events []string) {
	if len(events) > 0 {
		removeFlatHooks(root, command, events)
	}
}

func removeFlatHooks(root *Node, command func(*Node) string, only []string) {
	hooks := root.Get("hooks")
	if hooks == nil || hooks.Kind != 'o' {
		return
	}
	for i := 0; i < len(hooks.Keys); i++ {
		arr := hooks.Vals[i]
		if arr.Kind != 'a' || only != nil && !slices.Contains(only, hooks.Keys[i]) {
			continue
		}
		var keep []*Node
		for _, h := range arr.Items {
			if !IsCullyCommand(command(h)) {
				keep = append(keep, h)
			}
		}
		if len(keep) == 0 && len(arr.Items) > 0 {
			hooks.Del(hooks.Keys[i])
			i--
			continue
		}
		arr.Items = keep
	}
	if len(hooks.Keys) == 0 {
		root.Del("hooks")
	}
}

// UninstallGrouped plans the removal of cully's entries from a settings
// file whose hooks are grouped per event (RemoveGroupedHooks), keeping
// every other byte; a file that is not there needs nothing.
func UninstallGrouped(path string, before []byte) (*Plan, error) {
	p := &Plan{Path: path, Before: before}
	if before == nil {
		return p, nil
	}
	root, err := ParseSettings(path, before)
	if err != nil {
		return nil, err
	}
	RemoveGroupedHooks(root)
	p.After = root.Encode()
	p.Changed = string(before) != string(p.After)
	return p, nil
}

// EventLists is the list of hook entries of each event in a settings
// document's "hooks" object, creating the object and the lists that are
// not there; a "hooks" that is no object, or an event's value that is no
// list, is an error for the user to fix by hand (cully rewrites nothing
// it does not understand).
func EventLists(root *Node, path string, events []string) ([]*Node, error) {
	hooks := root.Get("hooks")
	if hooks == nil || hooks.Kind != 'o' {
		if hooks != nil {
			return nil, fmt.Errorf("%s: \"hooks\" is not an object; fix it by hand first", path)
		}
		hooks = Object()
		root.Set("hooks", hooks)
	}
	out := make([]*Node, len(events))
	for i, ev := range events {
		arr := hooks.Get(ev)
		if arr == nil {
			arr = &Node{Kind: 'a'}
			hooks.Set(ev, arr)
		}
		if arr.Kind != 'a' {
			return nil, fmt.Errorf("%s: hooks.%s is not a list; fix it by hand first", path, ev)
		}
		out[i] = arr
	}
	return out, nil
}
