package hookbridge

import "bytes"

// ReadOn reads a host's own record of a session (an append-only file of
// JSON lines: Claude Code's transcript, Codex's rollout) on from off, at
// most max bytes: the whole lines written since (slices of one buffer),
// the offset after the last of them (to read on from next time), and
// whether the file was rewritten (shorter than off: read anew from its
// start, so whatever the caller kept of the old one is stale). When more
// than max was written since, it reads the last max bytes from the first
// whole line in them. ok is false when the file cannot be read or holds
// no whole line past off; then nothing moved.
func ReadOn(path string, off, max int64) (lines [][]byte, next int64, rewritten, ok bool) {
	buf, start, ok := ReadFrom(path, off, max)
	if !ok {
		return nil, off, false, false
	}
	rewritten = start < off
	if start > off { // a jump past unread lines: start at the first whole one
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return nil, off, false, false
		}
		buf, start = buf[i+1:], start+int64(i)+1
	}
	end := bytes.LastIndexByte(buf, '\n')
	if end < 0 {
		return nil, off, rewritten, false // no whole line since: read it once it ends
	}
	return bytes.Split(buf[:end], []byte{'\n'}), start + int64(end) + 1, rewritten, true
}
