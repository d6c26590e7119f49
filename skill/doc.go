// Package skill embeds the agent skill that `cully install` writes (for
// Claude Code: ~/.claude/skills/cully/SKILL.md). Its frontmatter carries the
// name and description every supported agent requires.
package skill
