package engine

import (
	"strings"
	"testing"
)

func TestPublishKind(t *testing.T) {
	for cmd, want := range map[string]string{
		"git push": "pushed the work",
		"cd /p && git add -A && git push -u origin x":                                                        "pushed the work",
		"git commit -m \"$(cat <<'EOF'\n" + strings.Repeat("a long message ", 40) + "\nEOF\n)\" && git push": "pushed the work",
		"git push --dry-run":                 "",
		"git push --force origin x":          "force-pushed the work",
		"git push -uf origin x":              "force-pushed the work",
		"git push origin +main":              "force-pushed the work",
		"git push --force-with-lease":        "force-pushed the work",
		"gh pr create --base main --title x": "opened a pull request",
		"gh pr comment 135 --body x":         "posted on the forge",
		"gh issue create --title x":          "posted on the forge",
		"gh pr view 12 --comments":           "",
		"gh pr merge 12 --squash":            "merged a pull request",
		"npm publish":                        "published a release",
		"git status && git log":              "",
		"echo push":                          "",
	} {
		if got := ClassifyShell(cmd, &Config{}).Publish; got != want {
			t.Errorf("ClassifyShell(%q).Publish = %q, want %q", cmd, got, want)
		}
	}
}

func TestPromptAsks(t *testing.T) {
	for prompt, want := range map[string]int{
		"can you look at the copilot comments?": AskKnown | AskComment,
		"can you create a PR":                   AskKnown | AskPush | AskPR,
		"ok push a new branch and create a pr":  AskKnown | AskPush | AskPR,
		"fix the flaky test":                    AskKnown,
		"continue":                              AskKnown | AskContinue,
		"yes, do it":                            AskKnown | AskContinue,
		"ship it":                               AskKnown | AskPush,
		"is there a way to fix this by changing the pr?": AskKnown | AskPush,
		"": 0,
		"please continue with the refactor of the parser now": AskKnown,
	} {
		if got := PromptAsks(prompt); got != want {
			t.Errorf("PromptAsks(%q) = %b, want %b", prompt, got, want)
		}
	}
}

func TestUnaskedPublish(t *testing.T) {
	push := Event{Tool: "Bash", Class: ClassRun, Cmd: "git push origin fix", CmdFP: "fp-push", Publish: PublishPush}
	pr := Event{Tool: "Bash", Class: ClassRun, Cmd: "gh pr create --fill", CmdFP: "fp-pr", Publish: PublishPR}
	prompt := func(s *sim, text string) { s.apply(Event{Kind: KindPrompt, PromptAsks: PromptAsks(text)}) }
	cases := []struct {
		name    string
		prompts []string
		call    Event
		fires   bool
	}{
		{"a push nobody asked for", []string{"look at the copilot comments"}, push, true},
		{"a push asked for", []string{"commit and push"}, push, false},
		{"a go-ahead keeps the ask before it", []string{"push the fix", "continue"}, push, false},
		{"an ask earlier in the session stands", []string{"push the fix", "now rename the flag"}, push, false},
		{"a PR talked about, not asked for", []string{"fix this by changing the pr"}, pr, true},
		{"a PR asked for", []string{"open a PR for it"}, pr, false},
		{"a host that gives no prompt text", []string{""}, push, false},
		{"asked tasks ago, in this session", []string{"open a PR for the fix", "now rename the flag"}, push, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSim(t)
			for _, p := range c.prompts {
				prompt(s, p)
			}
			s.call(c.call)
			if got := s.open(ReasonUnaskedPublish) > 0; got != c.fires {
				t.Fatalf("raised %v, want %v", got, c.fires)
			}
		})
	}
	t.Run("the second unasked push of a session is its routine", func(t *testing.T) {
		s := newSim(t)
		prompt(s, "look at the comments")
		s.call(push)
		prompt(s, "and the next one")
		s.call(push)
		if n := len(s.st.Checkpoints); n != 1 {
			t.Fatalf("%d checkpoints, want the first push's alone", n)
		}
	})
}
