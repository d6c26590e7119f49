package redact

import "strings"

// Name kinds: a strong name's value is a secret whatever it looks like; a
// weak name's only when it looks random.
const (
	kindNone = iota
	kindWeak
	kindStrong
)

// strongWords mark a name as holding a secret wherever they occur in it
// (lower case; longer words before the shorter ones they extend).
var strongWords = []string{"password", "passwd", "passphrase", "passw", "secret", "token", "apikey", "api_key",
	"api-key", "accesskey", "access_key", "access-key", "privatekey", "private_key", "private-key", "credential",
	"authorization", "authtoken", "auth_token", "auth-token", "authkey", "auth_key", "bearer", "cookie",
	"sessionkey", "session_key", "signingkey", "signing_key", "masterkey", "master_key", "accountkey",
	"account_key", "encryptionkey", "encryption_key", "sharedaccesssignature"}

// afterWords after a secret word make the name about the secret, not the
// secret itself: --token-file, PASSWORD_PATH, secret_name, max_tokens…
var afterWords = []string{"file", "path", "dir", "folder", "jar", "name", "type", "env", "helper", "cmd",
	"command", "mode", "method", "provider", "format", "url", "uri", "endpoint", "host", "server", "addr",
	"user", "ttl", "expir", "timeout", "len", "size", "bits", "count", "limit", "max", "min", "policy", "role",
	"version", "alg", "source", "src", "stdin", "prompt", "ref", "manager", "store", "backend", "engine", "mount",
	"kind", "class", "template", "pattern", "field", "regex", "hint", "strength", "lifetime", "duration",
	"location", "label", "only", "flag", "option", "required", "enabled", "budget", "usage", "id", "less",
	"reset", "rotat", "input", "output", "var", "arn", "mask"}

// beforeAny words anywhere before a secret word make a flag a switch:
// --no-password, --ask-become-pass, --with-token, --password-stdin…
var beforeAny = []string{"no", "ask", "prompt", "skip", "with", "without", "use", "show", "print", "list",
	"require", "enable", "disable", "allow", "reset", "forgot", "generate", "is", "has", "need", "validate",
	"check", "hide", "mask"}

// beforeLast words just before a secret word make it no secret: max_tokens,
// csrf_token, page_token, public_key…
var beforeLast = []string{"max", "min", "num", "n", "count", "csrf", "xsrf", "public", "pub", "page", "next",
	"continuation", "cursor", "sync"}

// keyBefore words before a "key" component make it a database or map key.
var keyBefore = []string{"primary", "foreign", "sort", "partition", "hash", "range", "cache", "idempotency",
	"dedup", "lookup", "group", "object", "s3", "routing", "row", "index", "unique", "shard", "natural",
	"sequence", "bucket", "schema", "ssh", "gpg", "pgp", "host", "map", "dict", "composite", "cluster",
	"public", "pub", "join", "order", "label", "annotation", "metadata", "config", "registry", "storage"}

// passNot are words that end in "pass" and are no password.
var passNot = []string{"bypass", "compass", "encompass", "surpass", "overpass", "underpass", "trespass"}

// strongIndex, in tables.go, lists strongWords by first letter, in
// their order.

func trimDashes(s string) string {
	for len(s) > 0 && (s[0] == '-' || s[0] == '_') {
		s = s[1:]
	}
	return s
}

func isSep(c byte) bool { return c == '_' || c == '-' || c == '.' || c == '/' || c == ':' }

func inList(w []byte, list []string) bool {
	for _, x := range list {
		if string(w) == x {
			return true
		}
	}
	return false
}

// nameKind classifies a variable, flag, parameter or property name.
func nameKind(name string, query bool) int {
	name = trimDashes(name)
	if len(name) < 2 {
		return kindNone
	}
	if len(name) > 64 {
		name = name[len(name)-64:] // componentKind reads name and low by the same index
	}
	var buf [64]byte
	low := lowerTail(buf[:], name)
	for i := 0; i < len(low); i++ {
		for _, w := range strongIndex[low[i]] {
			if len(low)-i < len(w) || string(low[i:i+len(w)]) != w {
				continue
			}
			if !excludedName(low, i, i+len(w), w) {
				return kindStrong
			}
			break
		}
	}
	kind := componentKind(name, low, query)
	if kind == kindNone && shouting(name) && secretTail(low) {
		// AZURE_STORAGE_KEY, CSRF_SECRET, SYNC_TOKEN: an environment
		// variable named for a key, secret or token holds one whatever
		// its prefix; its value still has to look random.
		kind = kindWeak
	}
	return kind
}

// shouting tells an environment variable's name (upper case, digits and
// underscores) from a flag, a property or code.
func shouting(name string) bool {
	letter := false
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9' || c == '_':
		default:
			return false
		}
	}
	return letter
}

// secretTails are the last components that name a credential.
var secretTails = []string{"key", "keys", "secret", "secrets", "token", "password", "passwd", "passphrase", "pass", "apikey", "credential", "credentials"}

// secretTail tells whether the last component of the lower-cased name low
// names a credential (storage_key, csrf-secret, sync.token).
func secretTail(low []byte) bool {
	e := len(low)
	for e > 0 && !isAlnum(low[e-1]) {
		e--
	}
	b := e
	for b > 0 && isAlnum(low[b-1]) {
		b--
	}
	// Something must come before it: a key, a secret or a token alone
	// says nothing (a map's key, a checkpoint's key).
	return b > 0 && b < e && inList(low[b:e], secretTails)
}

// lowerTail writes the last len(buf) bytes of name into buf, ASCII letters
// lower-cased, and returns them: a name's case folded with no allocation.
func lowerTail(buf []byte, name string) []byte {
	if len(name) > len(buf) {
		name = name[len(name)-len(buf):]
	}
	low := buf[:len(name)]
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	return low
}

// secretTailName is secretTail for a name as written.
func secretTailName(name string) bool {
	var buf [64]byte
	low := lowerTail(buf[:], name)
	return secretTail(low)
}

// excludedName tells whether the secret word low[ws:we] is only part of a
// name about the secret.
func excludedName(low []byte, ws, we int, w string) bool {
	rest := low[we:]
	if w == "token" && len(rest) > 0 && (rest[0] == 's' || rest[0] == 'i') {
		return true // tokens, tokenizer, tokenise
	}
	if len(rest) > 0 && rest[0] == 's' {
		rest = rest[1:]
	}
	for len(rest) > 0 && isSep(rest[0]) {
		rest = rest[1:]
	}
	for _, x := range afterWords {
		if len(rest) >= len(x) && string(rest[:len(x)]) == x {
			if x == "id" && (w == "secret" || strings.HasPrefix(w, "private")) {
				continue // a Vault AppRole secret_id is a secret; a private_key_id names the key of a service-account blob
			}
			return true
		}
	}
	before := low[:ws]
	for len(before) > 0 && isSep(before[len(before)-1]) {
		before = before[:len(before)-1]
	}
	last := true
	for len(before) > 0 {
		e := len(before)
		b := e
		for b > 0 && !isSep(before[b-1]) {
			b--
		}
		comp := before[b:e]
		if last && inList(comp, beforeLast) {
			return true
		}
		if inList(comp, beforeAny) {
			return true
		}
		// A word glued to the secret word (nopassword, askpass) counts.
		if last && b == 0 {
			for _, x := range beforeAny {
				if len(comp) > len(x) && string(comp[len(comp)-len(x):]) == x && len(x) >= 3 {
					return true
				}
			}
		}
		last = false
		before = before[:b]
		for len(before) > 0 && isSep(before[len(before)-1]) {
			before = before[:len(before)-1]
		}
	}
	return false
}

// componentKind classifies a name by its components (split at separators
// and camel-case humps): pwd and a trailing pass are strong; key (after
// another component), auth, sig, pat, pw and jwt are weak.
func componentKind(name string, low []byte, query bool) int {
	kind := kindNone
	idx := 0
	var prev []byte
	for i := 0; i < len(name); {
		for i < len(name) && !isAlnum(name[i]) {
			i++
		}
		st := i
		for i < len(name) && isAlnum(name[i]) {
			i++
			if i < len(name) && name[i] >= 'A' && name[i] <= 'Z' && name[i-1] >= 'a' && name[i-1] <= 'z' {
				break
			}
		}
		if st == i {
			break
		}
		comp := low[st:i]
		k := kindNone
		switch string(comp) {
		case "pwd":
			if string(low) != "pwd" && string(low) != "oldpwd" {
				k = kindStrong
			}
		case "pass", "pin":
			k = kindStrong
		case "pw", "pat", "jwt", "sas", "sig", "signature", "auth", "sid":
			k = kindWeak
		case "key":
			if (idx > 0 && !inList(prev, keyBefore)) || (query && string(low) == "key") {
				k = kindWeak
			}
		default:
			if len(comp) > 4 && string(comp[len(comp)-4:]) == "pass" && !inList(comp, passNot) {
				k = kindStrong // storepass, keypass, becomepass
			}
		}
		if k != kindNone && !excludedName(low, st, i, string(comp)) {
			kind = max(kind, k)
		}
		prev = comp
		idx++
	}
	return kind
}

// isVarRef tells a reference to a variable ($NAME, ${NAME}, ${{ x.y }})
// or the output of a command ($(gh auth token), `cat ~/.token`) from a
// value: a reference is no secret, and keeping it keeps the preview
// telling. A command that only prints a literal ($(echo x)) is the
// literal.
func isVarRef(v string) bool {
	if len(v) < 2 {
		return false
	}
	var inner string
	switch {
	case v[0] == '`' && v[len(v)-1] == '`':
		inner = v[1 : len(v)-1]
	case strings.HasPrefix(v, "$(") && v[len(v)-1] == ')' && !strings.HasPrefix(v, "$(("):
		inner = v[2 : len(v)-1]
	}
	if inner != "" {
		inner = strings.TrimLeft(inner, " \t")
		return !strings.HasPrefix(inner, "echo") && !strings.HasPrefix(inner, "printf") && !strings.HasPrefix(inner, "<<<")
	}
	if v[0] != '$' {
		return false
	}
	if v[1] == '{' {
		return strings.HasSuffix(v, "}") && !strings.Contains(v[2:len(v)-1], "$(")
	}
	for i := 1; i < len(v); i++ {
		if !isAlnum(v[i]) && v[i] != '_' {
			return false
		}
	}
	return true
}

var boolish = []string{"true", "false", "yes", "no", "on", "off", "null", "none", "nil", "-", "0", "1"}

func isBoolish(v string) bool {
	for _, b := range boolish {
		if strings.EqualFold(v, b) {
			return true
		}
	}
	return false
}

// secretValue tells whether val, the value of a name of the given kind, is
// to be redacted.
func secretValue(val string, kind int) bool {
	if nothingLeft(val) || isVarRef(val) {
		return false
	}
	if isBoolish(val) {
		return false
	}
	if pathLike(val) {
		return false
	}
	if kind == kindWeak {
		return looksSecret(val)
	}
	return true
}

// nothingLeft tells a value with nothing to hide: empty, or no letter or
// digit once the markers of an earlier pass are taken out (a marker
// followed by an empty pair of quotes, say).
func nothingLeft(v string) bool {
	if strings.Contains(v, redacted) {
		v = strings.ReplaceAll(v, redacted, "")
	}
	return !hasAlnum(v)
}

func hasAlnum(v string) bool {
	for i := 0; i < len(v); i++ {
		if isAlnum(v[i]) {
			return true
		}
	}
	return false
}

// pathLike tells a path (~/.ssh/id_ed25519, ./key.pem, /run/secrets/db)
// from a secret that happens to start with a slash or hold one.
func pathLike(v string) bool {
	if !(strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || strings.HasPrefix(v, "~/")) {
		// A name with slashes in one case and no digit (prod/db/password,
		// a secret's path in a store) is no secret either.
		return strings.IndexByte(v, '/') > 0 && classCount(v) == 1 && strings.ToLower(v) == v
	}
	return classCount(v) < 3 || strings.Count(v, "/") == 1 && strings.IndexByte(v, '.') > 0
}

// looksSecret: long enough and mixing letters with digits or cases.
func looksSecret(v string) bool {
	return len(v) >= 6 && classCount(v) >= 2 && !pathLike(v)
}

// highEntropy: a long word of base64 or hex characters with digits in it,
// the shape of a key or token with no known prefix.
func highEntropy(v string) bool {
	if len(v) < 16 {
		return false
	}
	digit := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !isAlnum(c) && strings.IndexByte("+/=_-.~%", c) < 0 {
			return false
		}
		digit = digit || c >= '0' && c <= '9'
	}
	if !digit || classCount(v) < 2 {
		return false
	}
	if strings.ContainsRune(v, '/') && strings.ToLower(v) == v {
		return false // a path
	}
	return true
}
