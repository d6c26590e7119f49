// Package skill embeds the agent skill that `cully install` writes (for
// Claude Code: ~/.claude/skills/cully/SKILL.md). Its frontmatter carries the
// name and description every supported agent requires.
package skill

import (
	_ "embed"
)

// SKILL is the text of SKILL.md.
//
//go:embed SKILL.md
var SKILL string
