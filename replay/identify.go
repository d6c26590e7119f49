package replay

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"cully/hookbridge"
)

// Group is one session's files.
type Group struct {
	rp    hookbridge.Replayer
	id    string
	files []File
	size  int64
	out   []Session
	stats hookbridge.ReplayStats
	err   error
}

// Skip is a file that was not replayed, and why.
type Skip struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// headBytes is how much of a file is read to tell what it is before the
// adapter reads on (it reads further only until a record names a session).
const headBytes = 64 << 10

// Identify reads each file's first lines (GOMAXPROCS at a time)
// and groups the files by the session their records carry; the rest are
// skipped, each with its reason.
func Identify(rps []hookbridge.Replayer, files []File, prog *Progress) ([]*Group, []Skip) {
	type ident struct {
		rp           hookbridge.Replayer
		session, why string
	}
	ids := make([]ident, len(files))
	parallel(len(files), func(i int) {
		ids[i].rp, ids[i].session, ids[i].why = identify(rps, files[i].path)
		prog.identified.Add(1)
	})
	byID := map[string]*Group{}
	var groups []*Group
	var skipped []Skip
	for i, f := range files {
		if ids[i].session == "" {
			skipped = append(skipped, Skip{f.path, ids[i].why})
			continue
		}
		key := ids[i].rp.Name() + "\x00" + ids[i].session
		g := byID[key]
		if g == nil {
			g = &Group{rp: ids[i].rp, id: ids[i].session}
			byID[key] = g
			groups = append(groups, g)
		}
		g.files = append(g.files, f)
		g.size += f.size
	}
	// The session's own transcript first, then its parts and subagents
	// (a walk meets <session>/subagents/ before <session>.jsonl); sessions
	// in the order their transcripts were found.
	for _, g := range groups {
		sort.SliceStable(g.files, func(i, j int) bool {
			si, sj := isSubagentFile(g.files[i].path), isSubagentFile(g.files[j].path)
			if si != sj {
				return !si
			}
			return g.files[i].path < g.files[j].path
		})
	}
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].files[0].seq < groups[j].files[0].seq })
	return groups, skipped
}

// isSubagentFile: Claude Code keeps a subagent's transcript in
// <session>/subagents/.
func isSubagentFile(path string) bool {
	return filepath.Base(filepath.Dir(path)) == "subagents"
}

// identify asks each replayer in turn whether the file is one
// of its agent's recorded sessions; when none says so, why says what each
// found.
func identify(rps []hookbridge.Replayer, path string) (rp hookbridge.Replayer, session, why string) {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, "", "cannot read: " + err.Error()
	}
	defer f.Close()
	head := make([]byte, headBytes)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, "", "cannot read: " + err.Error()
	}
	head = head[:n]
	var whys []string
	for _, rp := range rps {
		r := io.MultiReader(bytes.NewReader(head), io.NewSectionReader(f, int64(n), 1<<62))
		session, why := rp.Identify(r)
		if session != "" {
			return rp, session, ""
		}
		whys = append(whys, why)
	}
	return nil, "", joinWhys(whys)
}

// joinWhys puts the replayers' reasons together: one when they agree,
// "not a Claude Code transcript or a Codex rollout (not JSON lines)" when
// they differ only in what they looked for, else all of them.
func joinWhys(whys []string) string {
	same := true
	for _, w := range whys {
		same = same && w == whys[0]
	}
	if same {
		return whys[0]
	}
	var what []string
	detail := ""
	for i, w := range whys {
		head, rest, ok := strings.Cut(w, " (")
		if !ok || !strings.HasPrefix(head, "not a ") || i > 0 && rest != detail {
			return strings.Join(whys, "; ")
		}
		detail, what = rest, append(what, strings.TrimPrefix(head, "not a "))
	}
	return "not a " + strings.Join(what, " or a ") + " (" + detail
}

// Parts counts the files read for the session besides its own transcript:
// its split parts, and its subagents' transcripts.
func (s *Session) Parts() (parts, subagents int) {
	for _, f := range s.Files[1:] {
		if isSubagentFile(f) {
			subagents++
		} else {
			parts++
		}
	}
	return parts, subagents
}
