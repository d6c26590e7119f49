// Package install merges cully into an agent's own settings and removes it
// again: hook entries, the optional status line, and the agent skill.
//
// Invariants:
//   - Everything that is not cully's stays exactly as it was: key order is
//     kept, other hooks and settings are untouched, and an uninstall that
//     leaves the file as it was before install restores its exact bytes.
//   - A second install changes nothing; every real change first backs the
//     file up beside itself and is written atomically (temp file + rename).
//   - cully's entries are recognised by their command (cully-hook, or
//     `cully hook`/`cully statusline`), never by position.
package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ClaudeEvents are the Claude Code hook events cully registers: tool events
// (including failures and batches), prompt submit, session start and end,
// stop, compaction and subagents.
var ClaudeEvents = []string{
	"PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch",
	"UserPromptSubmit", "SessionStart", "SessionEnd", "Stop", "PreCompact",
	"SubagentStart", "SubagentStop",
}

// HookTimeout is each entry's timeout in seconds: a hook call takes
// milliseconds, so a cully that is stuck for this long is broken, and the
// agent goes on without it.
const HookTimeout = 5

// Plan describes one settings change.
type Plan struct {
	Path    string
	Before  []byte // nil when the file does not exist
	After   []byte // the new content (nil only when there was no file to change)
	Notes   []string
	Changed bool
}

// IsCullyCommand reports whether a hook or status-line command is one of
// ours.
func IsCullyCommand(cmd string) bool {
	f := shellWords(cmd)
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

// ClaudeInstall computes the settings after installing cully's hooks (and
// the status line when statusline is set and the user has none).
func ClaudeInstall(path string, before []byte, hookCmd, statusCmd string) (*Plan, error) {
	root, err := parseSettings(path, before)
	if err != nil {
		return nil, err
	}
	p := &Plan{Path: path, Before: before}
	hooks := root.get("hooks")
	if hooks == nil || hooks.kind != 'o' {
		if hooks != nil {
			return nil, fmt.Errorf("%s: \"hooks\" is not an object; fix it by hand first", path)
		}
		hooks = object()
		root.set("hooks", hooks)
	}
	for _, ev := range ClaudeEvents {
		arr := hooks.get(ev)
		if arr == nil {
			arr = &node{kind: 'a'}
			hooks.set(ev, arr)
		}
		if arr.kind != 'a' {
			return nil, fmt.Errorf("%s: hooks.%s is not a list; fix it by hand first", path, ev)
		}
		found := false
		for _, group := range arr.items {
			for _, h := range group.get("hooks").itemsOrNil() {
				if IsCullyCommand(h.get("command").str()) {
					if found { // a duplicate of ours: keep one
						continue
					}
					found = true
					if h.get("command").str() != hookCmd {
						h.set("command", scalar(hookCmd))
					}
					if t := h.get("timeout"); t == nil || string(t.raw) != fmt.Sprint(HookTimeout) {
						h.set("timeout", scalar(HookTimeout))
					}
				}
			}
		}
		if !found {
			h := object()
			h.set("type", scalar("command"))
			h.set("command", scalar(hookCmd))
			h.set("timeout", scalar(HookTimeout))
			list := &node{kind: 'a', items: []*node{h}}
			group := object()
			group.set("hooks", list)
			arr.items = append(arr.items, group)
		}
	}
	if statusCmd != "" {
		sl := root.get("statusLine")
		switch {
		case sl == nil:
			n := object()
			n.set("type", scalar("command"))
			n.set("command", scalar(statusCmd))
			root.set("statusLine", n)
		case IsCullyCommand(sl.get("command").str()):
			sl.set("command", scalar(statusCmd))
		default:
			p.Notes = append(p.Notes, fmt.Sprintf("status line left alone: %s already has one (%q); cully never replaces it", path, sl.get("command").str()))
		}
	}
	p.After = root.encode()
	p.Changed = before == nil || !sameJSON(before, p.After)
	if !p.Changed {
		p.After = before
	}
	return p, nil
}

// ClaudeUninstall computes the settings with cully's entries removed. When
// the result equals a backup (the file as it was before an install), that
// backup's exact bytes come back.
func ClaudeUninstall(path string, before []byte) (*Plan, error) {
	p := &Plan{Path: path, Before: before}
	if before == nil {
		p.After = nil
		return p, nil
	}
	root, err := parseSettings(path, before)
	if err != nil {
		return nil, err
	}
	if hooks := root.get("hooks"); hooks != nil && hooks.kind == 'o' {
		for i := 0; i < len(hooks.keys); i++ {
			arr := hooks.vals[i]
			if arr.kind != 'a' {
				continue
			}
			var groups []*node
			for _, group := range arr.items {
				list := group.get("hooks")
				if list == nil || list.kind != 'a' {
					groups = append(groups, group)
					continue
				}
				var keep []*node
				for _, h := range list.items {
					if !IsCullyCommand(h.get("command").str()) {
						keep = append(keep, h)
					}
				}
				if len(keep) == 0 && len(list.items) > 0 {
					continue // the whole group was ours
				}
				list.items = keep
				groups = append(groups, group)
			}
			if len(groups) == 0 && len(arr.items) > 0 {
				hooks.del(hooks.keys[i])
				i--
				continue
			}
			arr.items = groups
		}
		if len(hooks.keys) == 0 {
			root.del("hooks")
		}
	}
	if sl := root.get("statusLine"); sl != nil && IsCullyCommand(sl.get("command").str()) {
		root.del("statusLine")
	}
	p.After = root.encode()
	if orig := matchingBackup(path, p.After); orig != nil {
		p.After = orig
	}
	p.Changed = !sameJSON(before, p.After) || string(before) != string(p.After)
	if !p.Changed {
		p.After = before
	}
	return p, nil
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

func (n *node) itemsOrNil() []*node {
	if n == nil || n.kind != 'a' {
		return nil
	}
	return n.items
}

func parseSettings(path string, b []byte) (*node, error) {
	if len(strings.TrimSpace(string(b))) == 0 {
		return object(), nil
	}
	root, err := parseNode(b)
	if err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (%v): fix it by hand first, cully will not rewrite it", path, err)
	}
	if root.kind != 'o' {
		return nil, fmt.Errorf("%s is not a JSON object: fix it by hand first", path)
	}
	return root, nil
}

// backupSuffix marks cully's backups beside a settings file.
const backupSuffix = ".cully-backup-"

func backups(path string) []string {
	m, _ := filepath.Glob(path + backupSuffix + "*")
	return m // lexical order is time order: the suffix is a UTC timestamp
}

// matchingBackup returns the newest backup holding the same JSON as want:
// the user's own bytes for a file cully is handing back unchanged.
func matchingBackup(path string, want []byte) []byte {
	bs := backups(path)
	for i := len(bs) - 1; i >= 0; i-- {
		if b, err := os.ReadFile(bs[i]); err == nil && sameSettings(b, want) {
			return b
		}
	}
	return nil
}

// sameSettings compares two settings files as Claude Code reads them: an
// empty hook list, or an empty "hooks" object, means the same as none.
func sameSettings(a, b []byte) bool {
	return sameJSON(normalizeSettings(a), normalizeSettings(b))
}

func normalizeSettings(b []byte) []byte {
	root, err := parseNode(b)
	if err != nil || root.kind != 'o' {
		return b
	}
	if hooks := root.get("hooks"); hooks != nil && hooks.kind == 'o' {
		for i := 0; i < len(hooks.keys); i++ {
			if v := hooks.vals[i]; v.kind == 'a' && len(v.items) == 0 {
				hooks.del(hooks.keys[i])
				i--
			}
		}
		if len(hooks.keys) == 0 {
			root.del("hooks")
		}
	}
	return root.encode()
}

// Apply writes a plan: back up the previous file (when there was one), then
// write the new content atomically, keeping the file's mode.
func Apply(p *Plan, stamp string) error {
	if !p.Changed {
		return nil
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(p.Path); err == nil {
		mode = fi.Mode().Perm()
	}
	if p.Before != nil {
		if err := os.WriteFile(p.Path+backupSuffix+stamp, p.Before, 0o600); err != nil {
			return fmt.Errorf("back up %s: %w", p.Path, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(p.Path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(p.Path), err)
	}
	return WriteAtomic(p.Path, p.After, mode)
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
