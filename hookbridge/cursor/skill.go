package cursor

import "strings"

// skillCursor is what the skill adds for Cursor: its hooks let cully
// record every command, read and edit, but carry no note back to the model
// (see Encode), so the agent is told in advance where cully's notes wait
// and when to look.
const skillCursor = `
## In Cursor: cully cannot speak to you, so look

In Cursor, cully records every shell command, file read and edit, but its
hooks have no way to add a note before or after a call. Its checkpoints and
warnings wait in ` + "`cully status`" + ` (and the user's panel) instead. Run
` + "`cully status`" + ` yourself:

- after a command has failed twice,
- after about 20 reads or searches without an edit or a check,
- after about a dozen edits without a passing check,
- before the third run of a command that keeps failing.

An open checkpoint there means what the note would have said: do what the
section above asks. Cursor gives cully no exit status for shell commands,
so a check counts as passed only when its own output says so (a test
runner's summary): run checks so that their verdict is printed.
`

// SkillText is cully's common skill with what Cursor's hooks cannot carry.
func (Agent) SkillText(common string) string {
	return strings.TrimRight(common, "\n") + "\n" + skillCursor
}
