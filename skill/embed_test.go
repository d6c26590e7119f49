package skill

import (
	"strings"
	"testing"
)

func TestSkillFrontmatter(t *testing.T) {
	if !strings.HasPrefix(SKILL, "---\nname: cully\ndescription: ") {
		t.Fatal("SKILL.md must start with frontmatter naming the skill and describing it")
	}
	end := strings.Index(SKILL[4:], "\n---\n")
	if end < 0 {
		t.Fatal("unterminated frontmatter")
	}
	for _, must := range []string{"Are we still on track, or should I change direction?", "summary", "Wait"} {
		if !strings.Contains(SKILL, must) {
			t.Errorf("skill text lacks %q", must)
		}
	}
}
