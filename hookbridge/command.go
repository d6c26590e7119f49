package hookbridge

import (
	"io/fs"

	"cully/engine"
	"cully/redact"
)

// Command is what a shell command line alone tells the rules: its class
// and effects, and its redacted, normalized text as a preview, a
// fingerprint and (for a check) the fingerprint of its check family.
type Command struct {
	Shell   engine.Shell
	Preview string // the redacted, normalized command, clipped for the journal
	Norm    string // the redacted, normalized command
	FP      string // Norm's fingerprint ("" for an empty command)
	Family  string // a check's family fingerprint ("" for anything else)
	Plain   string // a check's fingerprint with its output plumbing removed (engine.PlainCommand)
	// Search is a shell search's term fingerprint (engine.SearchFP) and
	// SearchPlain whether the line's exit status is the search's.
	Search      string
	SearchPlain bool
	Filter      string // a shell search's file filter fingerprint (-g, --include …), "" for none
}

// Preview is the short, redacted, single-line form of a command kept in
// the journal. Redaction comes first: heredocs and multi-line strings are
// only recognisable before the whitespace is collapsed.
func Preview(cmd string) string {
	return redact.Clip(engine.NormalizeCommand(redact.Text(cmd)))
}

// DescribeCommand classifies and fingerprints one shell command line, as
// every adapter whose host runs shell commands does.
func DescribeCommand(command string, cfg *engine.Config) Command {
	c := Command{Shell: engine.ClassifyShell(command, cfg)}
	c.Norm = engine.NormalizeCommand(redact.Text(command))
	c.Preview = redact.Clip(c.Norm)
	if c.Norm == "" {
		return c
	}
	c.FP = engine.Fingerprint(c.Norm)
	if c.Shell.Class == engine.ClassCheck {
		fam := engine.CheckFamily(c.Norm)
		if fam == "" {
			fam = c.Norm // the command is its own family
		}
		c.Family = engine.Fingerprint("family", fam)
		c.Plain = engine.Fingerprint("plain", engine.PlainCommand(c.Norm))
	}
	if c.Shell.Class == engine.ClassRead {
		if p, filter, plain := engine.ShellSearch(command); p != "" {
			c.Search, c.SearchPlain = engine.SearchFP(p), plain
			if filter != "" {
				c.Filter = engine.Fingerprint("filter", filter)
			}
		}
	}
	return c
}

// Apply gives a shell call's event what the command says: class, effects,
// preview and fingerprints, and the file a single-file read names.
// It returns that file, absolute ("" when none).
func (c Command) Apply(ev *engine.Event, cwd string) string {
	ev.Class = c.Shell.Class
	ev.Changes = c.Shell.Changes
	ev.Destructive = c.Shell.Destructive
	ev.Cmd, ev.CmdFP = c.Preview, c.FP
	ev.FamilyFP, ev.PlainFP = c.Family, c.Plain
	ev.SearchFP, ev.FilterFP = c.Search, c.Filter
	if c.Shell.Target == "" {
		return ""
	}
	ev.Ranged = c.Shell.Ranged
	return AbsPath(c.Shell.Target, cwd)
}

// SetTarget records the file a call works on: project-relative and
// redacted (a token in a path is no less a secret), its size and
// modification time when stat finds a regular file (reads and edits only),
// and, for a read or edit tool (not a shell command), the fingerprint that
// makes "the same tool on the same file" the same command for the retry
// rules.
func SetTarget(ev *engine.Event, abs, project string, stat func(string) (fs.FileInfo, error), shell bool) {
	if abs == "" {
		return
	}
	ev.Target = redact.Path(RelPath(abs, project))
	fileCall := ev.Class == engine.ClassRead || ev.Class == engine.ClassEdit
	if !shell && fileCall {
		ev.CmdFP = engine.Fingerprint("tool:"+ev.Tool, ev.Target)
	}
	if stat != nil && fileCall {
		if fi, err := stat(abs); err == nil && fi.Mode().IsRegular() {
			size, mt := fi.Size(), fi.ModTime().UTC()
			ev.Size, ev.Mtime = &size, &mt
		}
	}
}

// SetMissing records the program a failed shell call could not find
// (engine.MissingProgram) from its error text: the tool-gap evidence. Only
// a word of the recorded command (ev.Cmd, redacted) is ever kept.
func SetMissing(ev *engine.Event, errText string) {
	if ev.Outcome == engine.OutcomeFailed && ev.Cmd != "" {
		ev.Missing = engine.MissingProgram(ev.Exit, errText, ev.Cmd)
	}
}

// FingerprintHead bounds what a call or outcome fingerprint hashes: a
// file's content or a command's output can be megabytes, and their first
// 64 KiB tell two calls apart as surely as the whole.
func FingerprintHead(raw []byte) []byte {
	const head = 64 << 10
	if len(raw) > head {
		return raw[:head]
	}
	return raw
}

// SetMatches records what a shell search found, from the exit status the
// adapter has set: grep, rg and their kin exit 1 when nothing matched, 0
// when something did (Matches 1: at least one; the count is not read from
// the output). Nothing is set for a search whose status another command
// has (a pipe, `|| echo`), nor for any other status (2: an error).
func (c Command) SetMatches(ev *engine.Event) {
	if c.Search == "" || !c.SearchPlain || ev.Exit == nil || *ev.Exit > 1 || *ev.Exit < 0 {
		return
	}
	n := 1 - *ev.Exit
	ev.Matches = &n
}
