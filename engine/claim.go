package engine

import "strings"

// What a closing message claims of the work's checks (Event.EndClaim).
// The turn-end checkpoints (rule_finishfailing.go, rule_finishunchecked.go)
// hold a claim against what the session recorded: "the tests pass" said
// with code edited since the last check, or with that check failing, is a
// claim nothing backs. Like the says class, it is one word the adapter
// reads off the message as it decodes the turn's end; the text is never
// kept.
const ClaimPasses = "passes"

// claimPhrases are, in normalised words (NormalizeProse: digits are one
// "0", punctuation a space), the ways a closing message says the checks
// pass or the change works: matched on word boundaries.
var claimPhrases = []string{
	"tests pass", "tests passed", "tests are passing", "tests now pass", "tests still pass", "tests all pass",
	"test passes", "test passed", "test now passes", "tests are green", "tests green", "suite passes",
	"suite passed", "suite is green", "all green", "passes locally", "pass locally",
	"build passes", "build succeeds", "build succeeded", "builds cleanly", "builds successfully", "compiles cleanly",
	"compiles successfully", "lint passes", "lint is clean", "lint clean", "linting clean", "linter passes",
	"vet is clean", "checks pass", "checks passed", "ci should pass", "ci will pass", "ci should be green",
	"should now pass", "should pass now", "now passes", "everything works", "everything passes", "works correctly",
	"working correctly", "works as expected", "now works", "works now", "verified", "confirmed working",
}

// claimNegations are the words that, among the three before a phrase,
// turn it into its opposite or a condition: "the tests do not pass yet",
// "once the tests pass", "if CI should pass".
var claimNegations = []string{"not", "t", "no", "nothing", "none", "nor", "without", "never", "fail", "fails", "failed", "until", "once", "if", "unless",
	"whether", "before", "after", "when", "to", "can", "cannot", "could", "might", "may", "make", "ensure"}

// claimOf reads the claim in a normalised closing message: ClaimPasses,
// or "" for none.
func claimOf(norm string) string {
	padded := " " + norm + " "
	for _, p := range claimPhrases {
		for from := 0; ; {
			i := strings.Index(padded[from:], " "+p+" ")
			if i < 0 {
				break
			}
			i += from
			if !negated(padded[:i]) {
				return ClaimPasses
			}
			from = i + len(p) + 1
		}
	}
	return ""
}

// negated reports whether one of the three words that end before holds
// a negation or a condition.
func negated(before string) bool {
	words := strings.Fields(before)
	for k := len(words) - 1; k >= 0 && k >= len(words)-3; k-- {
		if contains(claimNegations, words[k]) {
			return true
		}
	}
	return false
}
