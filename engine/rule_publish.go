package engine

import (
	"fmt"
	"strings"
)

// ReasonUnaskedPublish: the agent published work (a push, a pull request,
// a comment) in a task whose prompt asked for nothing of the kind.
const ReasonUnaskedPublish Reason = "unasked-publish"

// What a prompt asks to publish (Event.PromptAsks), reduced in the hook
// to these bits: the prompt's text is never kept.
const (
	AskKnown    = 1 << iota // the prompt's text was seen (a host that gives none asks nothing either way)
	AskPush                 // push, ship, publish, deploy, release, merge, or the PR itself
	AskPR                   // open, create, make, raise, send or submit a PR (or merge request)
	AskComment              // comment, reply, respond, post, answer
	AskContinue             // a short go-ahead ("continue", "yes, do it"): the task before's asks stand
)

// unaskedPublish is raised when a foreground shell call publishes the
// task's work beyond the machine — `git push`, `gh pr create`, a comment
// or review posted through `gh`, a package or image published — while the
// prompt that began the task (or the one it continues: "continue", "go
// on") asked for nothing of that kind (State.PublishAsk), and nothing in
// the session so far asked for or did it (State.PublishSeen: the first
// unasked push of a session is the news; the ones after it, to the branch
// it set up, are the session's routine — blind reviewers labelled them
// noise). What leaves the machine is the user's to decide: a push lands on
// a shared branch and runs CI, a PR or a comment speaks in the user's name. Shown, not told,
// unless publish_tell is on: a user who said "ship it" three tasks ago has
// asked, and cully sees only this task's prompt.
var unaskedPublish = checkpointRule{
	reason: ReasonUnaskedPublish,
	action: "ask the user before pushing, opening a pull request or posting: what leaves the machine is theirs to decide",
	due: func(s *State, ev *Event, _ *CmdSeen, _ *Config) (string, bool) {
		if ev.Subagent != "" || ev.Outcome == OutcomeFailed || s.PublishAsk&AskKnown == 0 {
			return "", false
		}
		if ev.Publish == "" || (s.PublishAsk|s.PublishSeen)&publishNeeds(ev.Publish) != 0 {
			return "", false
		}
		return fmt.Sprintf("`%s` %s, and the task's prompt asked for none", preview(ev), ev.Publish), true
	},
	tell: func(_ *State, cfg *Config) bool { return cfg.PublishTell },
}

// Publish kinds (Shell.Publish, Event.Publish): what a command line sends
// beyond the machine.
const (
	PublishPush    = "pushed the work"
	PublishForce   = "force-pushed the work"
	PublishPR      = "opened a pull request"
	PublishMerge   = "merged a pull request"
	PublishPost    = "posted on the forge"
	PublishRelease = "published a release"
)

// publishNeeds is, for a publish kind, the prompt's asks any of which
// allow it.
func publishNeeds(kind string) int {
	switch kind {
	case PublishPush, PublishForce:
		return AskPush | AskPR
	case PublishPR:
		return AskPR
	case PublishPost:
		return AskComment | AskPR
	case PublishMerge, PublishRelease:
		return AskPush
	}
	return 0
}

// publishSeg says what one simple command (wrappers stripped) publishes,
// "" for nothing. ClassifyShell runs it on every segment of the whole
// command line: a push at the end of a long commit message is still one.
func publishSeg(w []string) string {
	if len(w) < 2 {
		return ""
	}
	prog, sub, act := progName(w[0]), w[1], ""
	if len(w) > 2 {
		act = w[2]
	}
	switch {
	case prog == "git" && gitSub(w[1:]) == "push" && !hasFlag(w[2:], "--dry-run", "-n"):
		for _, a := range w[2:] {
			if a == "--force" || a == "-f" || strings.HasPrefix(a, "--force-with-lease") || strings.HasPrefix(a, "+") && len(a) > 1 || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "f") {
				return PublishForce
			}
		}
		return PublishPush
	case (prog == "gh" && sub == "pr" || prog == "glab" && sub == "mr") && act == "create":
		return PublishPR
	case prog == "gh" && sub == "pr" && act == "merge":
		return PublishMerge
	case (prog == "gh" || prog == "glab") && (sub == "pr" || sub == "issue" || sub == "mr") && (act == "comment" || act == "review" || act == "note"),
		prog == "gh" && sub == "issue" && act == "create":
		return PublishPost
	case prog == "gh" && sub == "release" && act == "create",
		(prog == "npm" || prog == "pnpm" || prog == "yarn" || prog == "cargo" || prog == "twine" || prog == "gem") && sub == "publish",
		prog == "docker" && sub == "push":
		return PublishRelease
	}
	return ""
}

// PromptAsks reduces a user's prompt to what it asks to publish (the Ask
// bits). Words, not intent: "push" anywhere allows a push; a pull request
// named with a verb that makes one allows opening it.
func PromptAsks(prompt string) int {
	low := strings.ToLower(prompt)
	words := strings.FieldsFunc(low, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '\'')
	})
	if len(words) == 0 {
		return 0
	}
	asks := AskKnown
	has := func(ws ...string) bool {
		for _, w := range words {
			for _, x := range ws {
				if w == x || strings.HasPrefix(w, x) && len(x) > 4 {
					return true
				}
			}
		}
		return false
	}
	pr := has("pr", "prs", "mr") || strings.Contains(low, "pull request") || strings.Contains(low, "merge request")
	if pr || has("push", "pushed", "ship", "publish", "deploy", "release", "merge", "upstream") {
		asks |= AskPush
	}
	if pr && has("open", "create", "make", "raise", "send", "submit", "file", "new", "draft") {
		asks |= AskPR
	}
	if has("comment", "comments", "reply", "respond", "post", "answer", "review") {
		asks |= AskComment
	}
	if asks == AskKnown && len(words) <= 4 && has("continue", "go", "yes", "ok", "okay", "proceed", "sure", "do", "please", "resume", "carry") {
		asks |= AskContinue
	}
	return asks
}

// bookPublish remembers, for the session, what a foreground call
// published: the same kind again is the session's routine.
func (s *State) bookPublish(ev *Event) {
	if ev.Subagent == "" && ev.Publish != "" && ev.Outcome != OutcomeFailed {
		s.PublishSeen |= publishNeeds(ev.Publish)
	}
}
