package engine

import "testing"

func TestClosingOf(t *testing.T) {
	for _, c := range []struct {
		name, a, b string
		same       bool // one fingerprint
	}{
		{"digits collapse", "Waiting 3 minutes for CI (run #4411).", "waiting 5 minutes for ci (run #12)", true},
		{"punctuation and space collapse", "Done!\n\n**All set.**", "done all set", true},
		{"apostrophes", "I'm blocked", "I’m blocked.", true},
		{"words differ", "Done.", "Not done.", false},
	} {
		fa, _, _ := ClosingOf(c.a)
		fb, _, _ := ClosingOf(c.b)
		if (fa == fb) != c.same {
			t.Errorf("%s: %q and %q: same fingerprint %v, want %v", c.name, c.a, c.b, fa == fb, c.same)
		}
	}
	if fp, sk, says := ClosingOf(" \n…"); fp != "" || sk != "" || says != "" {
		t.Errorf("no words, nothing kept: %q %q %q", fp, sk, says)
	}
	if _, sk, _ := ClosingOf("Done."); len(sk) == 0 || len(sk) > 16 {
		t.Errorf("a sketch is at most 16 hex digits: %q", sk)
	}
}

func TestClosingSays(t *testing.T) {
	for text, want := range map[string]string{
		"Awaiting your choice (Option A or B). Nothing actionable on my end.": SaysWaiting,
		"Waiting, no action this turn.":                                       SaysWaiting,
		"Want me to set this up now?":                                         SaysWaiting,
		"Shall I go on? **":                                                   SaysWaiting,
		"I'm blocked on the missing API key.":                                 SaysBlocked,
		"Live verification is required but I cannot proceed without it.":      SaysBlocked,
		"Pausing here until the job finishes.":                                SaysPaused,
		"Everything is in order. The task is complete.":                       SaysDone,
		"Refactored the parser and added three tests.":                        "",
		"The unblocked path is now covered.":                                  "", // on word boundaries only
		"What is done: the parser. What remains: the docs.":                   "",
	} {
		if _, _, got := ClosingOf(text); got != want {
			t.Errorf("%q says %q, want %q", text, got, want)
		}
	}
}

func TestSketchDistance(t *testing.T) {
	_, a, _ := ClosingOf("The build passes and the branch is pushed; the release needs your approval.")
	_, b, _ := ClosingOf("The build passes and the branch is pushed; the release needs approval.")
	_, c, _ := ClosingOf("Rewrote the lexer to read runes, not bytes, and fixed the two tests it broke.")
	if d := SketchDistance(a, a); d != 0 {
		t.Errorf("a sketch is 0 bits from itself, got %d", d)
	}
	if d := SketchDistance(a, b); d > idleSketchBits {
		t.Errorf("one word dropped: %d bits apart, over the threshold %d", d, idleSketchBits)
	}
	if d := SketchDistance(a, c); d <= idleSketchBits {
		t.Errorf("unrelated messages: %d bits apart, within the threshold %d", d, idleSketchBits)
	}
	if SketchDistance(a, "") != 64 || SketchDistance("zz", a) != 64 {
		t.Error("a missing or unreadable sketch is as far as can be")
	}
	if PromptFingerprint("/loop check CI") != PromptFingerprint("/loop  check ci") || PromptFingerprint("") != "" {
		t.Error("prompts are fingerprinted in normalised form, none for no text")
	}
}

// A closing message claims a passing check in so many words; the same words
// negated, conditional or asked for claim nothing.
func TestClosingClaims(t *testing.T) {
	for text, want := range map[string]string{
		"Done. All tests pass.":                                   ClaimPasses,
		"Build passes. The 4 failing tests are pre-existing.":     ClaimPasses,
		"Fixed the parser; `go test ./...` passed.":               ClaimPasses,
		"All green: build, vet and tests.":                        ClaimPasses,
		"Lint is clean and the tests pass.":                       ClaimPasses,
		"Verified: the endpoint returns 404 now.":                 ClaimPasses,
		"The tests do not pass yet: two fail on the lexer.":       "",
		"The tests don't pass on Windows.":                        "",
		"Once the tests pass I will commit.":                      "",
		"Run the tests to make sure CI should pass.":              "",
		"Refactored the parser and added three tests.":            "",
		"I could not verify it: the tests fail to build.":         "",
		"Want me to check whether the build passes on arm64?":     "",
		"Nothing was verified; the suite never ran (no network).": "",
	} {
		var ev Event
		ev.SetClosing(text)
		if ev.EndClaim != want {
			t.Errorf("%q claims %q, want %q", text, ev.EndClaim, want)
		}
	}
}
