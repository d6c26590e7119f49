// Package skill embeds the agent skills that `cully install` writes: cully's
// own (for Claude Code: ~/.claude/skills/cully/SKILL.md) and run control's,
// in the sibling folder RunControlFolder with its references
// (~/.claude/skills/cully-run-control/SKILL.md, references/*.md). Each
// SKILL.md starts with the frontmatter every supported agent requires: a
// name and a description.
package skill
