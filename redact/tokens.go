package redact

import "strings"

// This file holds the rules that recognise a secret by its shape alone,
// wherever it stands: credentials with a well-known prefix, JSON web
// tokens, PEM private-key blocks and passwords in URLs.

// byteClass is the alphabet of a token's tail.
type byteClass uint8

const (
	clsToken      byteClass = iota // A-Za-z0-9 _ -
	clsUpperDigit                  // A-Z 0-9
	clsHex                         // 0-9 a-f A-F
	clsDotted                      // A-Za-z0-9 _ - .
	clsTokenEq                     // A-Za-z0-9 _ - =
)

func inClass(c byte, cl byteClass) bool {
	switch {
	case c >= '0' && c <= '9':
		return true
	case c >= 'A' && c <= 'F':
		return true
	case c >= 'A' && c <= 'Z':
		return cl != clsHex
	case c >= 'a' && c <= 'f':
		return cl != clsUpperDigit
	case c >= 'a' && c <= 'z':
		return cl != clsUpperDigit && cl != clsHex
	case c == '_' || c == '-':
		return cl == clsToken || cl == clsDotted || cl == clsTokenEq
	case c == '.':
		return cl == clsDotted
	case c == '=':
		return cl == clsTokenEq
	}
	return false
}

// tokenShape is a credential that is a secret wherever it appears: a fixed
// prefix, then a tail of class characters at least min long that mixes at
// least classes of lower case, upper case and digits (random tails do;
// words and ordinary file names mostly do not).
type tokenShape struct {
	prefix  string
	min     int
	class   byteClass
	classes int
}

// tokenShapes lists the credential prefixes of the services agents most
// often touch. Longer prefixes come before the shorter ones they extend
// (tokenIndex keeps that order per first byte).
var tokenShapes = []tokenShape{
	// Anthropic, OpenAI and other model APIs.
	{"sk-ant-", 20, clsToken, 2}, {"sk-proj-", 20, clsToken, 2}, {"sk-svcacct-", 20, clsToken, 2},
	{"sk-admin-", 20, clsToken, 2}, {"sk-or-v1-", 32, clsToken, 2}, {"sk-", 32, clsToken, 3},
	{"hf_", 30, clsToken, 2}, {"xai-", 40, clsToken, 2}, {"gsk_", 40, clsToken, 2}, {"pplx-", 40, clsToken, 2},
	{"r8_", 30, clsToken, 2}, {"nvapi-", 40, clsToken, 2},
	// Stripe.
	{"sk_live_", 16, clsToken, 2}, {"sk_test_", 16, clsToken, 2}, {"rk_live_", 16, clsToken, 2},
	{"rk_test_", 16, clsToken, 2}, {"whsec_", 24, clsToken, 2},
	// Package registries.
	{"pypi-", 32, clsToken, 2}, {"npm_", 30, clsToken, 2}, {"rubygems_", 40, clsHex, 2}, {"dckr_pat_", 20, clsToken, 2},
	{"dckr_oat_", 20, clsToken, 2},
	// Source hosts and CI.
	{"ghp_", 30, clsToken, 2}, {"gho_", 30, clsToken, 2}, {"ghs_", 30, clsToken, 2}, {"ghu_", 30, clsToken, 2},
	{"ghr_", 30, clsToken, 2}, {"github_pat_", 30, clsToken, 2},
	{"glpat-", 20, clsToken, 2}, {"gldt-", 20, clsToken, 2}, {"glrt-", 20, clsToken, 2}, {"glptt-", 20, clsToken, 2},
	{"glsoat-", 20, clsToken, 2}, {"glcbt-", 20, clsToken, 2}, {"glimt-", 20, clsToken, 2}, {"GR1348941", 20, clsToken, 2},
	{"ATATT3", 50, clsTokenEq, 2}, {"ATBB", 32, clsToken, 2},
	// Chat.
	{"xoxb-", 10, clsToken, 2}, {"xoxp-", 10, clsToken, 2}, {"xoxa-", 10, clsToken, 2}, {"xoxs-", 10, clsToken, 2},
	{"xoxr-", 10, clsToken, 2}, {"xoxe-", 10, clsToken, 2}, {"xapp-", 10, clsToken, 2},
	// Clouds.
	{"AKIA", 16, clsUpperDigit, 1}, {"ASIA", 16, clsUpperDigit, 1}, {"ABIA", 16, clsUpperDigit, 1},
	{"ACCA", 16, clsUpperDigit, 1}, {"AIza", 30, clsToken, 2}, {"ya29.", 30, clsToken, 2}, {"LTAI", 16, clsToken, 2},
	{"dop_v1_", 40, clsHex, 2}, {"doo_v1_", 40, clsHex, 2}, {"dor_v1_", 40, clsHex, 2}, {"HRKU-", 30, clsToken, 2},
	{"nfp_", 30, clsToken, 2}, {"pul-", 40, clsHex, 2}, {"dapi", 32, clsHex, 2}, {"dt0c01.", 80, clsDotted, 2},
	{"hvs.", 24, clsToken, 2}, {"hvb.", 24, clsToken, 2}, {"hvr.", 24, clsToken, 2}, {"tskey-", 20, clsToken, 2},
	{"ops_", 40, clsToken, 2}, {"sntrys_", 40, clsToken, 2}, {"sntryu_", 40, clsToken, 2},
	{"pscale_tkn_", 32, clsToken, 2}, {"pscale_pw_", 32, clsToken, 2}, {"pscale_oauth_", 32, clsToken, 2},
	{"dp.pt.", 32, clsToken, 2}, {"dp.st.", 32, clsToken, 2}, {"dp.ct.", 32, clsToken, 2}, {"dp.sa.", 32, clsToken, 2},
	// Mail, commerce, SaaS.
	{"SG.", 40, clsDotted, 2}, {"xkeysib-", 40, clsToken, 2}, {"sq0atp-", 20, clsToken, 2}, {"sq0csp-", 30, clsToken, 2},
	{"shpat_", 32, clsHex, 2}, {"shpss_", 32, clsHex, 2}, {"shpca_", 32, clsHex, 2}, {"shppa_", 32, clsHex, 2},
	{"glsa_", 32, clsToken, 2}, {"glc_", 32, clsToken, 2}, {"lin_api_", 32, clsToken, 2}, {"PMAK-", 40, clsToken, 2},
	{"pat-na1-", 30, clsToken, 2}, {"pat-eu1-", 30, clsToken, 2}, {"FLWSECK-", 32, clsToken, 2},
	{"sk.eyJ", 50, clsDotted, 2}, {"sl.", 100, clsToken, 2},
	// Keys.
	{"AGE-SECRET-KEY-1", 40, clsUpperDigit, 2},
}

// The tables of the token scan are in tables.go, written from
// tokenShapes by TestRedactTables: tokenIndex lists, per first byte, the
// shapes that start with it, longest prefix first; tokenSecond marks, per
// first byte, the second bytes a prefix has; textBytes marks the bytes the
// text scan stops at. Built at start-up they cost every hook call 39 page
// faults and 0.1 ms (their small slices landed in a dozen fresh heap
// spans); as static data they cost nothing until read.

const (
	tbPrefix byte = 1 << iota // may start a token shape
	tbEq                      // '='
	tbColon                   // ':'
	tbDash                    // '-' (PEM armour)
	tbE                       // 'e' (JSON web token)
	tbParen                   // '(' (a credential call)
)

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// tokenBoundary tells whether a token may start at i: not in the middle of
// a word.
func tokenBoundary(s string, i int) bool {
	return i == 0 || !isAlnum(s[i-1])
}

// classCount counts which of lower case, upper case and digits occur in t.
func classCount(t string) int {
	var lo, up, di bool
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c >= 'a' && c <= 'z':
			lo = true
		case c >= 'A' && c <= 'Z':
			up = true
		case c >= '0' && c <= '9':
			di = true
		}
	}
	n := 0
	for _, b := range [3]bool{lo, up, di} {
		if b {
			n++
		}
	}
	return n
}

// minRun is how long an unbroken run of letters and digits after a known
// prefix must be to make a token whatever its alphabet (a bare sk- key of
// letters only, an hf_ token in one case): words that long are no words.
const minRun = 24

// longestRun returns the length of the longest run of letters and digits
// in t.
func longestRun(t string) int {
	best, n := 0, 0
	for i := 0; i < len(t); i++ {
		if isAlnum(t[i]) {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// matchToken returns the end of a known-prefix token starting at i, or -1.
func (r *redactor) matchToken(i int) int {
	s := r.s
	if i+1 >= len(s) || tokenSecond[s[i]][s[i+1]>>6]&(1<<(s[i+1]&63)) == 0 {
		return -1
	}
	for _, k := range tokenIndex[s[i]] {
		t := &tokenShapes[k]
		if !strings.HasPrefix(s[i:], t.prefix) {
			continue
		}
		if i+len(t.prefix) <= r.tokFail[k] {
			continue // inside a tail run already found too weak: so is its rest
		}
		e := i + len(t.prefix)
		for e < len(s) && inClass(s[e], t.class) {
			e++
		}
		tail := s[i+len(t.prefix) : e]
		if len(tail) >= t.min && (classCount(tail) >= t.classes || longestRun(tail) >= max(t.min, minRun)) {
			return e
		}
		r.tokFail[k] = e
	}
	return -1
}

func b64urlChar(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }

// matchJWT returns the end of a JSON web token (eyJ….….…) starting at i,
// or -1.
func matchJWT(s string, i int) int {
	if !strings.HasPrefix(s[i:], "eyJ") {
		return -1
	}
	e := i
	var segs [3]int
	for seg := 0; seg < 3; seg++ {
		st := e
		for e < len(s) && b64urlChar(s[e]) {
			e++
		}
		segs[seg] = e - st
		if seg < 2 {
			if e >= len(s) || s[e] != '.' {
				return -1
			}
			e++
		}
	}
	if segs[0] < 10 || segs[1] < 8 {
		return -1
	}
	return e
}

// matchPEM returns the end of a PEM private-key block starting at i (at
// "-----BEGIN "), or -1 when the armour is not a private key's. Without
// its END line the block runs as far as base64 lines do.
func (r *redactor) matchPEM(i int) int {
	s := r.s
	const begin = "-----BEGIN "
	if !strings.HasPrefix(s[i:], begin) {
		return -1
	}
	j := i + len(begin)
	k := strings.Index(s[j:min(len(s), j+80)], "-----")
	if k < 0 {
		return -1
	}
	label := s[j : j+k]
	if !strings.Contains(label, "PRIVATE") {
		return -1
	}
	j += k + 5
	if !r.noEnd {
		if e := strings.Index(s[j:], "-----END "); e >= 0 {
			e += j + len("-----END ")
			if f := strings.Index(s[e:min(len(s), e+80)], "-----"); f >= 0 {
				return e + f + 5
			}
			return e
		}
		r.noEnd = true
	}
	// No END: take the base64 lines (real or \n-escaped line breaks) and
	// the Proc-Type/DEK-Info headers; a short line that is not padding
	// ends the block.
	end := j
	for p := j; ; {
		// skip one line break
		switch {
		case p < len(s) && s[p] == '\r':
			p++
			continue
		case p < len(s) && s[p] == '\n':
			p++
		case p+1 < len(s) && s[p] == '\\' && s[p+1] == 'n':
			p += 2
		}
		q := p
		for q < len(s) && (isAlnum(s[q]) || strings.IndexByte("+/=:-, ", s[q]) >= 0) {
			q++
		}
		if q == p {
			return end
		}
		line := s[p:q]
		if len(line) < 16 && !strings.HasSuffix(line, "=") {
			return end
		}
		end = q
		p = q
		if p >= len(s) || (s[p] != '\n' && s[p] != '\r' && !(s[p] == '\\' && p+1 < len(s) && s[p+1] == 'n')) {
			return end
		}
	}
}

// urlStop ends the text a URL's authority is looked for in.
func urlStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '<', '>', '`':
		return true
	}
	return false
}

func hostChar(c byte) bool {
	return isAlnum(c) || strings.IndexByte(".-_~%:[]", c) >= 0
}

// url handles the URL whose "://" is at i: a password in its userinfo
// (scheme://user:pass@host, ://:pass@, passwords holding '/' or '@'), a
// token as the whole userinfo, and the webhook URLs whose path is the
// secret.
func (r *redactor) url(i int) {
	s := r.s
	start := i + 3
	end := start
	for end < len(s) && end-start < 2048 && !urlStop(s[end]) {
		end++ // an authority is short: 2 KiB is plenty, and bounds the work
	}
	t := s[start:end]
	hostAt := 0
	if c := strings.IndexByte(t, ':'); c >= 0 && !strings.ContainsAny(t[:c], "/@?#") {
		// A port (host:8080/path/@x) is no userinfo.
		port := false
		if sl := strings.IndexByte(t[c+1:], '/'); sl > 0 && allDigits(t[c+1:c+1+sl]) {
			port = true
		}
		for at := c + 1; !port && at < len(t); at++ {
			if t[at] != '@' {
				continue
			}
			h := at + 1
			he := h
			for he < len(t) && t[he] != '/' && t[he] != '?' && t[he] != '#' {
				he++
			}
			if validHost(t[h:he]) {
				if at > c+1 {
					r.add(start+c+1, start+at)
				}
				hostAt = h
				break
			}
		}
	} else if at := strings.IndexByte(t, '@'); at > 0 && !strings.ContainsAny(t[:at], "/?#") {
		// A token as the user name: https://<token>@github.com.
		h := at + 1
		he := h
		for he < len(t) && t[he] != '/' && t[he] != '?' && t[he] != '#' {
			he++
		}
		if validHost(t[h:he]) && highEntropy(t[:at]) && len(t[:at]) >= 20 {
			r.add(start, start+at)
			hostAt = h
		}
	}
	r.webhook(start+hostAt, end)
}

func validHost(h string) bool {
	if h == "" {
		return false
	}
	alnum := false
	for i := 0; i < len(h); i++ {
		if !hostChar(h[i]) {
			return false
		}
		alnum = alnum || isAlnum(h[i])
	}
	return alnum
}

// webhook redacts the secret path of a webhook URL whose host starts at h.
func (r *redactor) webhook(h, end int) {
	s := r.s[h:end]
	pathEnd := func(from int) int {
		e := from
		for e < len(s) && s[e] != '?' && s[e] != '#' && s[e] != '\\' && s[e] != ')' {
			e++
		}
		return e
	}
	for _, p := range []string{"hooks.slack.com/services/", "hooks.slack.com/workflows/", "hooks.slack.com/triggers/"} {
		if strings.HasPrefix(s, p) {
			r.add(h+len(p), h+pathEnd(len(p)))
			return
		}
	}
	for _, p := range []string{"discord.com/api/webhooks/", "discordapp.com/api/webhooks/", "canary.discord.com/api/webhooks/", "ptb.discord.com/api/webhooks/"} {
		if strings.HasPrefix(s, p) {
			// Keep the webhook's id, redact its token.
			if sl := strings.IndexByte(s[len(p):], '/'); sl > 0 {
				from := len(p) + sl + 1
				r.add(h+from, h+pathEnd(from))
			}
			return
		}
	}
	if p := "api.telegram.org/bot"; strings.HasPrefix(s, p) {
		if c := strings.IndexByte(s[len(p):], ':'); c > 0 && allDigits(s[len(p):len(p)+c]) {
			from := len(p) + c + 1
			e := from
			for e < len(s) && b64urlChar(s[e]) {
				e++
			}
			r.add(h+from, h+e)
		}
	}
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
