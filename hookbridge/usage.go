package hookbridge

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"

	"cully/usage"
)

// UsageReader is an agent whose own record of a session carries its token
// figures (Claude Code's transcript, Codex's rollout, Gemini CLI's session
// log). `cully status` and the panel read it on from where they last
// stopped (ReadUsage), off the hook's path, for the cost, tokens and
// context of sessions no status line reports.
type UsageReader interface {
	Agent
	// UsageFiles finds the files of a session's record, its main file
	// first (nil: none found), in the host's folders under getenv's HOME
	// and the host's own variables. known, when not "", is the hash the
	// hooks keep of the record's path (engine.TranscriptPos.File): a file
	// that does not match it is not this session's record.
	UsageFiles(session, known string, getenv func(string) string) []string
	// UsageLine adds one line's figures to t. main is false for a
	// subagent's file: its lines count for the tokens, not the context.
	UsageLine(line []byte, main bool, t *usage.Tally)
}

// MaxUsageRead bounds what one ReadUsage reads in all: a record longer
// than this (hundreds of megabytes, read the first time) is read over
// several calls, the Cache marked Behind until it has caught up. A line
// longer than this is never read past.
const MaxUsageRead = 64 << 20

// ReadUsage reads the files of a session's record on from the offsets c
// holds, whole lines only, and adds their figures to c's Tally. A main
// file other than the one c was read from, or a file shorter than what was
// read of it (rewritten), starts the Tally over. It reports whether c
// changed. It never fails: a file it cannot read is read next time.
func ReadUsage(r UsageReader, c *usage.Cache, files []string) bool {
	if len(files) == 0 {
		return false
	}
	changed := false
	if len(c.Files) == 0 || c.Files[0].Path != files[0] || rewritten(c.Files) {
		*c = usage.Cache{}
		changed = true
	}
	for _, p := range files {
		if !slices.ContainsFunc(c.Files, func(f usage.File) bool { return f.Path == p }) {
			c.Files = append(c.Files, usage.File{Path: p})
			changed = true
		}
	}
	budget := int64(MaxUsageRead)
	behind := false
	for i := range c.Files {
		f := &c.Files[i]
		c.Tally.File = i
		off, more := readOn(f.Path, f.Off, budget, func(line []byte) { r.UsageLine(line, i == 0, &c.Tally) })
		if off != f.Off {
			budget -= off - f.Off
			f.Off = off
			changed = true
		}
		behind = behind || more
	}
	if c.Behind != behind {
		c.Behind, changed = behind, true
	}
	return changed
}

// rewritten reports whether a file read before is now shorter than what
// was read of it.
func rewritten(files []usage.File) bool {
	for _, f := range files {
		if fi, err := os.Stat(f.Path); err == nil && fi.Size() < f.Off {
			return true
		}
	}
	return false
}

// usageChunk is what readOn reads at a time: one buffer, reused, so a
// long record costs no more memory than this (and its longest line).
const usageChunk = 1 << 20

// readOn hands fn each whole line of a regular file from off, reading at
// most max bytes, and returns the offset after the last whole line and
// whether more is left to read.
func readOn(path string, off, max int64, fn func([]byte)) (int64, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() <= off {
		return off, false
	}
	f, err := os.Open(path)
	if err != nil {
		return off, false
	}
	defer f.Close()
	size := fi.Size()
	end := min(size, off+max)
	buf := make([]byte, min(usageChunk, end-off))
	have := 0 // bytes of a line begun in buf, not handed on yet
	for pos := off + int64(have); pos < end; {
		if have == len(buf) { // a line longer than the buffer: a larger one
			buf = append(buf, make([]byte, len(buf))...)
		}
		n, err := f.ReadAt(buf[have:min(len(buf), have+int(end-pos))], pos)
		if n == 0 {
			if err != nil && err != io.EOF {
				return off, false
			}
			break
		}
		pos += int64(n)
		data := buf[:have+n]
		last := bytes.LastIndexByte(data, '\n')
		if last < 0 {
			have = len(data)
			continue
		}
		for _, line := range bytes.Split(data[:last], []byte{'\n'}) {
			fn(line)
		}
		off += int64(last) + 1
		have = copy(buf, data[last+1:])
	}
	return off, off+int64(have) < size && end < size
}

// FindFiles is the files that match any of the glob patterns, sorted, at
// most max of them (a pattern with no match, or a bad one, adds none).
func FindFiles(patterns []string, max int) []string {
	var out []string
	for _, p := range patterns {
		m, _ := filepath.Glob(p)
		out = append(out, m...)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > max {
		out = out[:max]
	}
	return out
}

// SafeID reports whether a session id can go into a file name pattern: a
// host's ids are letters, digits, '-' and '_'.
func SafeID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
