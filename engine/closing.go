package engine

import (
	"hash/fnv"
	"math/bits"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What a hook keeps of a turn's closing message (and of a user's prompt):
// never its text. The adapters reduce it, as they decode the turn-end
// event, to a fingerprint of its normalised form, a 64-bit similarity
// sketch, the one word of the phrase table it matches, if any
// (rule_idleloop.go compares turn ends by these), and whether it claims a
// passing check (claim.go, for the turn-end checkpoints).
//
// Normalised: lower case, every run of digits one "0", every run of
// anything that is neither a letter nor a digit one space. "Waiting 3
// minutes…" and "waiting 5 minutes" normalise alike; nothing of a number,
// a path's punctuation or a token's digits survives into the fingerprint.

// maxClosing is how much of a message is read: a closing summary is a few
// hundred words; past this the head decides.
const maxClosing = 16 << 10

// What a closing message says of the agent's state (Event.EndSays).
const (
	SaysWaiting = "waiting" // for the user: a choice, an answer, an approval
	SaysBlocked = "blocked" // it cannot go on
	SaysPaused  = "paused"  // it stopped on purpose
	SaysDone    = "done"    // the task is complete, nothing left
)

// saysPhrases is the phrase table, in normalised words, matched on word
// boundaries, the first class that matches winning. Each phrase is one an
// agent ends a turn with when it has nothing to do but say so again:
// the public reports of these runaways quote "Awaiting your choice …
// Nothing actionable on my end", "waiting, no action this turn", "I'm
// blocked on …", "The task is complete. I'm ready for the next task."
var saysPhrases = []struct {
	says    string
	phrases []string
}{
	{SaysBlocked, []string{"blocked", "cannot proceed", "can t proceed", "unable to proceed", "cannot continue",
		"can t continue", "unable to continue", "i m stuck", "still stuck", "no way to proceed"}},
	{SaysWaiting, []string{"waiting for", "waiting on", "awaiting", "still waiting", "standing by", "wait for your",
		"nothing actionable", "no action this turn", "no action needed", "no further action", "nothing to do until",
		"let me know", "your choice", "your input", "your confirmation", "your approval", "your decision",
		"once you", "when you re ready", "please confirm", "please provide", "need your", "needs your",
		"ready for the next task", "ready for your next", "i ll wait", "i will wait"}},
	{SaysPaused, []string{"paused", "pausing", "on hold", "holding off", "stopping here", "stop here for now"}},
	{SaysDone, []string{"task is complete", "task is done", "task is finished", "task has been completed",
		"all done", "all set", "already complete", "already done", "already been completed", "nothing left to do",
		"nothing more to do", "nothing else to do", "no further changes", "work is complete", "goal is complete",
		"goal is met", "goal has been met"}},
}

// NormalizeProse is a message's normalised form (see above).
func NormalizeProse(text string) string {
	if len(text) > maxClosing {
		text = text[:maxClosing]
	}
	var b strings.Builder
	b.Grow(len(text))
	space, digit := true, false
	for _, r := range text {
		switch {
		case unicode.IsDigit(r):
			if !digit {
				b.WriteByte('0')
			}
			space, digit = false, true
			continue
		case unicode.IsLetter(r):
			b.WriteRune(unicode.ToLower(r))
			space = false
		case r == '\'' || r == '’': // "I'm", "can't": one word each side of a space
			if !space {
				b.WriteByte(' ')
				space = true
			}
		default:
			if !space {
				b.WriteByte(' ')
				space = true
			}
		}
		digit = false
	}
	return strings.TrimRight(b.String(), " ")
}

// ClosingOf reduces a closing message to what an event keeps: its
// fingerprint, its sketch and what it says ("" each for no message).
func ClosingOf(text string) (fp, sketch, says string) {
	var ev Event
	ev.SetClosing(text)
	return ev.EndFP, ev.EndSketch, ev.EndSays
}

// SetClosing keeps what a turn's end keeps of its closing message (the
// adapters call it as they decode a stop event): its fingerprint, sketch,
// what it says and what it claims.
func (ev *Event) SetClosing(text string) {
	norm := NormalizeProse(text)
	if norm == "" {
		ev.EndFP, ev.EndSketch, ev.EndSays, ev.EndClaim = "", "", "", ""
		return
	}
	ev.EndFP, ev.EndSketch, ev.EndSays = Fingerprint("closing", norm), strconv.FormatUint(simhash(norm), 16), saysOf(norm, text)
	ev.EndClaim = claimOf(norm)
}

// PromptFingerprint is a user prompt's fingerprint, "" for no text: an
// automation that re-sends one prompt sends the same one each time.
func PromptFingerprint(text string) string {
	norm := NormalizeProse(text)
	if norm == "" {
		return ""
	}
	return Fingerprint("prompt", norm)
}

// saysOf matches the phrase table; a message whose last sentence is a
// question to the user waits for them too.
func saysOf(norm, text string) string {
	padded := " " + norm + " "
	for _, c := range saysPhrases {
		for _, p := range c.phrases {
			if strings.Contains(padded, " "+p+" ") {
				return c.says
			}
		}
	}
	t := strings.TrimRightFunc(text, func(r rune) bool { return unicode.IsSpace(r) || r == '*' || r == '_' || r == '`' })
	if r, _ := utf8.DecodeLastRuneInString(t); r == '?' {
		return SaysWaiting
	}
	return ""
}

// simhash is a 64-bit sketch of the normalised text's word pairs (its
// words, for a one-word text): texts that share most pairs have sketches
// a few bits apart (SketchDistance).
func simhash(norm string) uint64 {
	words := strings.Fields(norm)
	var v [64]int
	add := func(s string) {
		h := fnv.New64a()
		h.Write([]byte(s))
		x := h.Sum64()
		for i := range v {
			if x>>uint(i)&1 == 1 {
				v[i]++
			} else {
				v[i]--
			}
		}
	}
	if len(words) == 1 {
		add(words[0])
	}
	for i := 0; i+1 < len(words); i++ {
		add(words[i] + " " + words[i+1])
	}
	var out uint64
	for i, n := range v {
		if n > 0 {
			out |= 1 << uint(i)
		}
	}
	return out
}

// SketchDistance is the number of bits two sketches differ in, 64 when
// either is missing or unreadable.
func SketchDistance(a, b string) int {
	x, err1 := strconv.ParseUint(a, 16, 64)
	y, err2 := strconv.ParseUint(b, 16, 64)
	if a == "" || b == "" || err1 != nil || err2 != nil {
		return 64
	}
	return bits.OnesCount64(x ^ y)
}
