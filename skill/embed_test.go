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

func TestRunControlSkill(t *testing.T) {
	files := RunControl()
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	want := []string{"SKILL.md", "references/checkpoint-rules.md", "references/failure-escalation.md"}
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Fatalf("run-control files = %q, want %q", paths, want)
	}
	text := files[0].Text
	if !strings.HasPrefix(text, "---\nname: autonomous-run-control\ndescription: ") || !strings.Contains(text[4:], "\n---\n") {
		t.Fatal("run-control SKILL.md must start with frontmatter naming the skill and describing it")
	}
	for _, must := range []string{"[budget]", "cully status", "cully snapshots", "cully snapshot`", "cully stop", "cully rollback --to STEP --dry-run", "cully resume --raise --reason", "budget warning", "summary-only", "runaway", "references/checkpoint-rules.md", "references/failure-escalation.md"} {
		if !strings.Contains(text, must) {
			t.Errorf("run-control skill lacks %q", must)
		}
	}
	for _, must := range []string{`"run_id"`, `"step"`, `"timestamp"`, `"state_snapshot"`, `"files_modified"`} {
		if !strings.Contains(files[1].Text, must) {
			t.Errorf("checkpoint-rules.md lacks %s", must)
		}
	}
	for _, must := range []string{"snapshot N FAILED", "ROLLBACK FAILED", "runaway", "budget reached"} {
		if !strings.Contains(strings.ToLower(files[2].Text), strings.ToLower(must)) {
			t.Errorf("failure-escalation.md lacks %q", must)
		}
	}
}
