package skill

import (
	_ "embed"
)

// SKILL is the text of SKILL.md.
//
//go:embed SKILL.md
var SKILL string
