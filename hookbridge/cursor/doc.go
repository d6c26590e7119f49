// Package cursor is Cursor's adapter: its hook payloads (hooks.json
// events), its hook files and its skill. Everything cully knows about
// Cursor is in this folder.
//
// No Cursor client runs here (it is not a package of any registry this
// project reaches), so the facts come from Cursor's hooks documentation;
// the payloads in testdata/ are written from it, not captured. docs/agents.md
// marks every one of them "from documentation".
//
// Invariants: a shell command's outcome is unknown (never a success) unless
// a check's own output settles it, because afterShellExecution carries no
// exit status. Cursor's answers to a pre-tool hook can carry a message to
// the model only beside a permission decision, and cully never decides a
// permission: its pre-tool events are recorded quiet (the rules run, no
// nudge is composed, so no checkpoint is taken as told), the panel and
// `cully status` show what they raise, and the skill tells the agent to
// look there (SkillText).
package cursor
