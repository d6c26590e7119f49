package redact

import "strings"

// The rules that follow a value out of its flag: positional secrets, what
// is piped into --password-stdin, and echo/printf/heredoc bodies written to
// .env-like and key files.

// positional handles an argument that is no flag: config set KEY VALUE,
// secrets set K=V, a long random word after a secret-ish one, vault login
// TOKEN and sqlplus user/password@db.
func (r *redactor) positional(i, b int, t tool, first bool) {
	st := &r.sh
	s := r.s
	raw := r.unq(i)
	switch {
	case raw == "config" || raw == "configure":
		k := r.nextPositional(i, b)
		if k >= 0 && r.unq(k) == "set" {
			k = r.nextPositional(k, b)
		}
		if k < 0 {
			return
		}
		v := r.nextPositional(k, b)
		if v < 0 {
			return
		}
		kind := nameKind(r.unq(k), false)
		va, vb := r.inner(v)
		if kind != kindNone && secretValue(s[va:vb], kind) {
			r.add(va, vb)
		}
		return
	case (raw == "secrets" || raw == "secret") && r.nextPositional(i, b) >= 0 && r.unq(r.nextPositional(i, b)) == "set",
		raw == "secrets:set" || raw == "config:set":
		if st.setDone {
			return
		}
		st.setDone = true
		for j := i + 1; j < b; j++ {
			w := st.w(j)
			if w.kind != wArg {
				continue
			}
			if eq := strings.IndexByte(s[w.a:w.b], '='); eq > 0 && isAssignment(s[w.a:w.b]) {
				r.value(w.a+eq+1, w.b, modeWhole)
			}
		}
		return
	case t == toolVault && raw == "login":
		if j := r.nextArg(i, b); j >= 0 {
			if v := r.word(j); v[0] != '-' && strings.IndexByte(v, '=') < 0 {
				w := st.w(j)
				r.value(w.a, w.b, modeWhole)
			}
		}
		return
	case t == toolSQLPlus && first:
		if k := strings.IndexByte(raw, '/'); k > 0 {
			w := st.w(i)
			a, e := stripQuotes(s, w.a, w.b)
			a += k + 1
			if at := strings.IndexByte(s[a:e], '@'); at >= 0 {
				e = a + at
			}
			if a < e {
				r.add(a, e)
			}
		}
		return
	}
	j := r.nextArg(i, b)
	if j < 0 {
		return
	}
	va, vb := r.inner(j)
	if !highEntropy(s[va:vb]) {
		return
	}
	if nameKind(raw, false) == kindStrong || (len(raw) >= 20 && (strings.HasPrefix(raw, "AKIA") || strings.HasPrefix(raw, "ASIA"))) {
		r.add(va, vb)
	}
}

func (r *redactor) nextPositional(i, b int) int {
	for j := r.nextArg(i, b); j >= 0; j = r.nextArg(j, b) {
		if w := r.word(j); len(w) < 2 || w[0] != '-' {
			return j
		}
	}
	return -1
}

// stdinSecret tells whether the command [a,b) reads a secret on its
// standard input: docker login --password-stdin, gh auth login
// --with-token, chpasswd, gh secret set without --body.
func (r *redactor) stdinSecret(a, b, head int) bool {
	base := basename(r.unq(head))
	if base == "chpasswd" {
		return true
	}
	for i := a; i < b; i++ {
		if r.sh.w(i).kind != wArg {
			continue
		}
		switch r.word(i) {
		case "--password-stdin", "--with-token", "--token-stdin", "--passphrase-fd":
			return true
		}
	}
	if base == "gh" && r.hasWord(head, b, "secret") && r.hasWord(head, b, "set") &&
		!r.hasWord(head, b, "-b") && !r.hasWord(head, b, "--body") && !r.hasWord(head, b, "-f") && !r.hasWord(head, b, "--env-file") {
		return true
	}
	if (base == "docker" || base == "podman") && r.hasWord(head, b, "secret") && r.hasWord(head, b, "create") && r.hasWord(head, b, "-") {
		return true
	}
	return false
}

// echo handles echo and printf: text written to a secret file, or piped
// into a command that reads a secret on its standard input.
func (r *redactor) echo(a, b, head int) {
	st := &r.sh
	s := r.s
	var file fileKind
	for i := a; i < b; i++ {
		if st.w(i).kind == wTarget {
			file = file.max(fileKindOf(r.word(i)))
		}
	}
	stdin, chpasswd := false, false
	if b < st.nw && st.w(b).kind == wPipe {
		c := r.cmdEnd(b + 1)
		if h := r.cmdHead(b+1, c); h >= 0 {
			stdin = r.stdinSecret(b+1, c, h)
			chpasswd = basename(r.unq(h)) == "chpasswd"
			if basename(r.unq(h)) == "tee" {
				for i := h + 1; i < c; i++ {
					if w := st.w(i); w.kind == wArg && s[w.a] != '-' {
						file = file.max(fileKindOf(r.word(i)))
					}
					if w := st.w(i); w.kind == wTarget {
						file = file.max(fileKindOf(r.word(i)))
					}
				}
			}
		}
	}
	if file.kind == fileNone && !stdin {
		return
	}
	printf := basename(r.unq(head)) == "printf"
	first := true
	for i := head + 1; i < b; i++ {
		w := st.w(i)
		if w.kind != wArg {
			continue
		}
		raw := s[w.a:w.b]
		if first && len(raw) > 1 && raw[0] == '-' && strings.Trim(raw, "-neEv") == "" {
			if raw == "-v" {
				i++ // printf -v var
			}
			continue
		}
		va, vb := r.inner(i)
		if stdin && !(printf && first && strings.IndexByte(s[va:vb], '%') >= 0) {
			mode := uint8(modeWhole)
			if chpasswd {
				mode = modeAfterColon
			}
			r.value(w.a, w.b, mode)
		}
		if file.kind != fileNone {
			r.fileRegion(va, vb, file, true)
		}
		first = false
	}
}

// Kinds of file whose content is secret.
const (
	fileNone   = iota
	fileConfig // .npmrc, .pypirc, credentials…: values of secret-ish names and random-looking values
	fileEnv    // .env, .env.*, secrets.*: every value
	fileWhole  // *.pem, *.key, id_rsa…: everything
)

const (
	subNone = iota
	subNetrc
	subPgpass
	subHtpasswd
)

type fileKind struct{ kind, sub int }

func (f fileKind) max(g fileKind) fileKind {
	if g.kind > f.kind {
		return g
	}
	return f
}

func hasSuffixFold(s, suf string) bool {
	return len(s) >= len(suf) && strings.EqualFold(s[len(s)-len(suf):], suf)
}

func hasPrefixFold(s, pre string) bool {
	return len(s) >= len(pre) && strings.EqualFold(s[:len(pre)], pre)
}

// fileKindOf classifies a redirection target or tee argument.
func fileKindOf(target string) fileKind {
	t := unquoted(target)
	base := t[strings.LastIndexByte(t, '/')+1:]
	if base == "" || hasSuffixFold(base, ".pub") {
		return fileKind{}
	}
	for _, ext := range []string{".pem", ".key", ".p12", ".pfx", ".ppk", ".jks", ".keystore", ".p8"} {
		if hasSuffixFold(base, ext) {
			return fileKind{kind: fileWhole}
		}
	}
	for _, p := range []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"} {
		if hasPrefixFold(base, p) {
			return fileKind{kind: fileWhole}
		}
	}
	switch {
	case strings.EqualFold(base, ".env"), hasPrefixFold(base, ".env."), hasSuffixFold(base, ".env"),
		strings.EqualFold(base, ".envrc"), hasPrefixFold(base, "secrets."), hasPrefixFold(base, "secret."):
		return fileKind{kind: fileEnv}
	}
	switch strings.ToLower(base) {
	case ".netrc", "_netrc":
		return fileKind{fileConfig, subNetrc}
	case ".pgpass":
		return fileKind{fileConfig, subPgpass}
	case ".htpasswd":
		return fileKind{fileConfig, subHtpasswd}
	case ".npmrc", ".pypirc", ".my.cnf", ".git-credentials", ".dockercfg", ".yarnrc", ".yarnrc.yml", ".s3cfg", ".boto":
		return fileKind{kind: fileConfig}
	}
	if hasPrefixFold(base, "credentials") || (strings.EqualFold(base, "config.json") && strings.Contains(t, ".docker/")) {
		return fileKind{kind: fileConfig}
	}
	return fileKind{}
}

// fileRegion redacts text [a,b) written to a file of kind f; escapes says
// whether \n in it is a line break (echo -e, printf).
func (r *redactor) fileRegion(a, b int, f fileKind, escapes bool) {
	s := r.s
	if f.kind == fileWhole {
		for a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\n' || s[a] == '\r') {
			a++
		}
		for b > a && (s[b-1] == ' ' || s[b-1] == '\t' || s[b-1] == '\n' || s[b-1] == '\r') {
			b--
		}
		for escapes && b-a >= 2 && s[b-2] == '\\' && s[b-1] == 'n' {
			b -= 2
		}
		if v := s[a:b]; !nothingLeft(v) && !isVarRef(v) {
			r.add(a, b)
		}
		return
	}
	for ls := a; ls < b; {
		le := ls
		for le < b && s[le] != '\n' && !(escapes && s[le] == '\\' && le+1 < b && s[le+1] == 'n') {
			le++
		}
		r.fileLine(ls, le, f)
		if le >= b {
			break
		}
		if s[le] == '\n' {
			ls = le + 1
		} else {
			ls = le + 2
		}
	}
}

// fileLine redacts the value on one line of a secret file: KEY=value,
// key = value, key: value, and the netrc, pgpass and htpasswd formats.
func (r *redactor) fileLine(a, b int, f fileKind) {
	s := r.s
	for a < b && (s[a] == ' ' || s[a] == '\t') {
		a++
	}
	for b > a && (s[b-1] == ' ' || s[b-1] == '\t' || s[b-1] == '\r') {
		b--
	}
	if a >= b || s[a] == '#' || s[a] == ';' || s[a] == '[' {
		return
	}
	if strings.HasPrefix(s[a:b], "export ") {
		a += len("export ")
	}
	line := s[a:b]
	switch f.sub {
	case subPgpass, subHtpasswd:
		k, n := 0, 4
		if f.sub == subHtpasswd {
			n = 1
		}
		for c := 0; c < n; c++ {
			e := strings.IndexByte(line[k:], ':')
			if e < 0 {
				return
			}
			k += e + 1
		}
		r.value(a+k, b, modeWhole)
		return
	case subNetrc:
		for k := 0; k < len(line); {
			for k < len(line) && (line[k] == ' ' || line[k] == '\t') {
				k++
			}
			e := k
			for e < len(line) && line[e] != ' ' && line[e] != '\t' {
				e++
			}
			if w := line[k:e]; w == "password" || w == "passwd" {
				v := e
				for v < len(line) && (line[v] == ' ' || line[v] == '\t') {
					v++
				}
				ve := v
				for ve < len(line) && line[ve] != ' ' && line[ve] != '\t' {
					ve++
				}
				r.value(a+v, a+ve, modeWhole)
				return
			}
			k = e
		}
		return
	}
	sep := strings.IndexByte(line, '=')
	for k := 0; k < len(line); k++ {
		if line[k] == ':' && (k+1 == len(line) || line[k+1] == ' ' || line[k+1] == '\t') {
			if sep < 0 || k < sep {
				sep = k
			}
			break
		}
	}
	if sep <= 0 {
		return
	}
	name := strings.TrimSpace(line[:sep])
	if name == "" || strings.ContainsAny(name, " \t") {
		return
	}
	va := a + sep + 1
	for va < b && (s[va] == ' ' || s[va] == '\t') {
		va++
	}
	va, vb := stripQuotes(s, va, b)
	v := s[va:vb]
	if nothingLeft(v) || isVarRef(v) || v == "|" || v == ">" || v == "|-" || v == ">-" || v[0] == '{' || v[0] == '[' {
		return
	}
	kind := nameKind(name, false)
	if f.kind == fileEnv {
		// Every value of a .env file, but a flag or a port says nothing
		// unless its name says secret.
		if kind != kindNone || !(isBoolish(v) || len(v) <= 5 && allDigits(v)) {
			r.add(va, vb)
		}
		return
	}
	if (kind != kindNone && secretValue(v, kind)) || highEntropy(v) {
		r.add(va, vb)
	}
}
