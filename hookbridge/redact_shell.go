package hookbridge

import "strings"

// This file holds the rules that need the shell's view of a command: which
// program a flag belongs to, what a word follows, where output is
// redirected and which heredoc feeds which command. The lexer is
// deliberately small (words, quotes, $(…), operators, redirections and
// heredocs); a command it misreads still goes through the text rules.

type wordKind uint8

const (
	wArg     wordKind = iota
	wSep              // ; & && || ( ) and a line break
	wPipe             // | |&
	wRedir            // > >> >| &> < <> >& <&
	wTarget           // the word after a redirection
	wHeredoc          // << <<-
	wDelim            // a heredoc's delimiter
	wHereStr          // <<<
	wHereVal          // the word after <<<
)

type shWord struct {
	a, b  int
	kind  wordKind
	whole bool // the word is one quoted string: "…" or '…'
}

type heredoc struct {
	delim int // index of the delimiter word
	dash  bool
	body  span
}

type region struct{ a, b, depth int }

// shellState is the lexer's per-line buffer: arrays with an overflow
// slice, reused line after line.
type shellState struct {
	nw    int
	words [48]shWord
	wmore []shWord

	ndoc  int
	docs  [4]heredoc
	dmore []heredoc

	nsub  int
	subs  [4]region
	smore []region

	// Per command of the line (the first ones), worked out once.
	heads  [16]int
	stdins [16]bool

	// Per command, so that each is worked out once.
	setDone bool // secrets set K=V… was handled
	subAt   int  // the tool word whose subcommand was looked for (+1)…
	subHas  bool // …and whether the command holds it
}

func (st *shellState) push(w shWord) {
	if st.nw < len(st.words) {
		st.words[st.nw] = w
	} else {
		st.wmore = append(st.wmore[:st.nw-len(st.words)], w)
	}
	st.nw++
}

func (st *shellState) w(i int) *shWord {
	if i < len(st.words) {
		return &st.words[i]
	}
	return &st.wmore[i-len(st.words)]
}

func (st *shellState) pushDoc(d heredoc) {
	if st.ndoc < len(st.docs) {
		st.docs[st.ndoc] = d
	} else {
		st.dmore = append(st.dmore[:st.ndoc-len(st.docs)], d)
	}
	st.ndoc++
}

func (st *shellState) doc(i int) *heredoc {
	if i < len(st.docs) {
		return &st.docs[i]
	}
	return &st.dmore[i-len(st.docs)]
}

func (st *shellState) pushSub(g region) {
	if st.nsub < len(st.subs) {
		st.subs[st.nsub] = g
	} else {
		st.smore = append(st.smore[:st.nsub-len(st.subs)], g)
	}
	st.nsub++
}

func (st *shellState) popSub() region {
	st.nsub--
	if st.nsub < len(st.subs) {
		return st.subs[st.nsub]
	}
	return st.smore[st.nsub-len(st.subs)]
}

// maxDepth bounds how deep quoted commands (bash -c '…', ssh host '…')
// and heredocs fed to a shell are read as commands in turn.
const maxDepth = 2

func (r *redactor) scanShell() {
	r.shellRegion(0, len(r.s), 0)
	for r.sh.nsub > 0 {
		g := r.sh.popSub()
		r.shellRegion(g.a, g.b, g.depth)
	}
}

func (r *redactor) shellRegion(p, end, depth int) {
	for p < end {
		next := r.lexLine(p, end)
		r.line(depth)
		if next <= p {
			break
		}
		p = next
	}
}

func (r *redactor) word(i int) string {
	w := r.sh.w(i)
	return r.s[w.a:w.b]
}

// lexLine reads the words of one line from p, and the bodies of the
// heredocs it opens; it returns where the next line starts.
func (r *redactor) lexLine(p, end int) int {
	s := r.s
	st := &r.sh
	st.nw, st.ndoc = 0, 0
	next := wArg
	dash := false // the heredoc operator was <<-
	op := func(n int, k wordKind) {
		st.push(shWord{a: p, b: p + n, kind: k})
		p += n
	}
	for p < end {
		c := s[p]
		switch c {
		case ' ', '\t', '\r':
			p++
			continue
		case '\n':
			op(1, wSep)
			return r.heredocBodies(p, end)
		case '#':
			for p < end && s[p] != '\n' {
				p++
			}
			continue
		case ';', '(', ')':
			op(1, wSep)
			next = wArg
			continue
		case '&':
			switch {
			case p+1 < end && s[p+1] == '&':
				op(2, wSep)
			case p+2 < end && s[p+1] == '>' && s[p+2] == '>':
				op(3, wRedir)
				next = wTarget
				continue
			case p+1 < end && s[p+1] == '>':
				op(2, wRedir)
				next = wTarget
				continue
			default:
				op(1, wSep)
			}
			next = wArg
			continue
		case '|':
			switch {
			case p+1 < end && s[p+1] == '|':
				op(2, wSep)
			case p+1 < end && s[p+1] == '&':
				op(2, wPipe)
			default:
				op(1, wPipe)
			}
			next = wArg
			continue
		case '<':
			switch {
			case strings.HasPrefix(s[p:end], "<<<"):
				op(3, wHereStr)
				next = wHereVal
			case strings.HasPrefix(s[p:end], "<<-"):
				op(3, wHeredoc)
				next, dash = wDelim, true
			case strings.HasPrefix(s[p:end], "<<"):
				op(2, wHeredoc)
				next, dash = wDelim, false
			case p+1 < end && (s[p+1] == '>' || s[p+1] == '&'):
				op(2, wRedir)
				next = wTarget
			default:
				op(1, wRedir)
				next = wTarget
			}
			continue
		case '>':
			if p+1 < end && (s[p+1] == '>' || s[p+1] == '|' || s[p+1] == '&') {
				op(2, wRedir)
			} else {
				op(1, wRedir)
			}
			next = wTarget
			continue
		case '\\':
			if p+1 < end && s[p+1] == '\n' {
				p += 2
				continue
			}
		}
		q, whole := wordEnd(s, p, end)
		if q <= p {
			q, whole = p+1, false
		}
		if q < end && (s[q] == '<' || s[q] == '>') && allDigits(s[p:q]) {
			p = q // a file descriptor: 2>…
			continue
		}
		if next == wDelim {
			st.pushDoc(heredoc{delim: st.nw, dash: dash})
		}
		st.push(shWord{p, q, next, whole})
		next = wArg
		p = q
	}
	return r.heredocBodies(end, end)
}

// wordEnd returns the end of the shell word starting at p, and whether
// the word is one quoted string.
func wordEnd(s string, p, end int) (int, bool) {
	e := wordEnd1(s, p, end)
	if (s[p] == '"' || s[p] == '\'') && e-p >= 2 {
		return e, closeQuote(s[:e], p) == e-1
	}
	return e, false
}

func wordEnd1(s string, p, end int) int {
	q := p
	for q < end {
		switch s[q] {
		case ' ', '\t', '\n', '\r', ';', '&', '|', '<', '>', '(', ')':
			return q
		case '\\':
			q += 2
		case '\'':
			e := strings.IndexByte(s[q+1:end], '\'')
			if e < 0 {
				return end
			}
			q += e + 2
		case '"':
			q = min(closeQuote(s[:end], q)+1, end)
		case '`':
			e := strings.IndexByte(s[q+1:end], '`')
			if e < 0 {
				return end
			}
			q += e + 2
		case '$':
			if q+1 < end && s[q+1] == '(' {
				q = min(closeParen(s[:end], q+1), end)
			} else if q+1 < end && s[q+1] == '{' {
				e := strings.IndexByte(s[q:end], '}')
				if e < 0 {
					return end
				}
				q += e + 1
			} else {
				q++
			}
		default:
			q++
		}
	}
	return min(q, end)
}

// heredocBodies finds the bodies of the line's heredocs, one after the
// other from p (just after the line break), and returns where the line
// after the last one starts.
func (r *redactor) heredocBodies(p, end int) int {
	s := r.s
	st := &r.sh
	for d := 0; d < st.ndoc; d++ {
		doc := st.doc(d)
		delim := unquoteDelim(r.word(doc.delim))
		start := p
		doc.body = span{start, end}
		for q := start; q < end; {
			le := strings.IndexByte(s[q:end], '\n')
			if le < 0 {
				le = end
			} else {
				le += q
			}
			line := s[q:le]
			if doc.dash {
				line = strings.TrimLeft(line, "\t")
			}
			if strings.TrimSuffix(line, "\r") == delim {
				doc.body = span{start, q}
				p = min(le+1, end)
				break
			}
			q = le + 1
		}
		if doc.body.b == end {
			p = end
		}
	}
	return p
}

func unquoteDelim(w string) string {
	if len(w) >= 2 && (w[0] == '\'' || w[0] == '"') && w[len(w)-1] == w[0] {
		return w[1 : len(w)-1]
	}
	if !strings.ContainsAny(w, `'"\`) {
		return w
	}
	return strings.Map(func(c rune) rune {
		if c == '\'' || c == '"' || c == '\\' {
			return -1
		}
		return c
	}, w)
}

// stripQuotes narrows [a,b) to the inside of the quotes around it, when
// one quoted string spans it all ("x", not "a":"b").
func stripQuotes(s string, a, b int) (int, int) {
	if b-a >= 3 && s[a] == '$' && s[a+1] == '\'' && closeQuote(s[:b], a+1) == b-1 {
		return a + 2, b - 1
	}
	if b-a >= 2 && (s[a] == '"' || s[a] == '\'') && closeQuote(s[:b], a) == b-1 {
		return a + 1, b - 1
	}
	return a, b
}

// inner returns the span of word i inside its quotes, when it is one
// quoted string.
func (r *redactor) inner(i int) (int, int) {
	w := r.sh.w(i)
	if w.whole {
		return w.a + 1, w.b - 1
	}
	if w.b-w.a >= 3 && r.s[w.a] == '$' && r.s[w.a+1] == '\'' {
		return stripQuotes(r.s, w.a, w.b) // $'…'
	}
	return w.a, w.b
}

// unq returns word i without the quotes of a one-quoted-string word.
func (r *redactor) unq(i int) string {
	w := r.sh.w(i)
	if w.whole {
		return r.s[w.a+1 : w.b-1]
	}
	return r.s[w.a:w.b]
}

func unquoted(w string) string {
	if a, b := stripQuotes(w, 0, len(w)); a > 0 {
		return w[a:b]
	}
	return w
}

func basename(w string) string {
	w = unquoted(w)
	return w[strings.LastIndexByte(w, '/')+1:]
}

// line applies the command rules to the words lexLine read.
func (r *redactor) line(depth int) {
	st := &r.sh
	n := st.nw
	// What the line's heredocs feed and where their text goes.
	var file fileKind
	stdin, shell := false, false
	for a, c := 0, 0; a < n; c++ {
		b := r.cmdEnd(a)
		head := r.cmdHead(a, b)
		in := head >= 0 && r.stdinSecret(a, b, head)
		if c < len(st.heads) {
			st.heads[c], st.stdins[c] = head, in
		}
		stdin = stdin || in
		if head >= 0 {
			base := basename(r.unq(head))
			switch base {
			case "bash", "sh", "zsh", "dash", "ksh", "ssh", "fish":
				shell = true
			case "tee":
				for i := head + 1; i < b; i++ {
					if w := st.w(i); w.kind == wArg && r.s[w.a] != '-' {
						file = file.max(fileKindOf(r.word(i)))
					}
				}
			}
		}
		for i := a; i < b; i++ {
			if st.w(i).kind == wTarget {
				file = file.max(fileKindOf(r.word(i)))
			}
		}
		a = b + 1
	}
	for a, c := 0, 0; a < n; c++ {
		b := r.cmdEnd(a)
		if b > a {
			head, in := -1, false
			if c < len(st.heads) {
				head, in = st.heads[c], st.stdins[c]
			} else if head = r.cmdHead(a, b); head >= 0 {
				in = r.stdinSecret(a, b, head)
			}
			r.command(a, b, head, in, depth)
		}
		a = b + 1
	}
	for d := 0; d < st.ndoc; d++ {
		body := st.doc(d).body
		if body.b <= body.a {
			continue
		}
		if file.kind != fileNone {
			r.fileRegion(body.a, body.b, file, false)
		}
		if stdin {
			r.fileRegion(body.a, body.b, fileKind{kind: fileWhole}, false)
		}
		if shell && depth < maxDepth {
			st.pushSub(region{body.a, body.b, depth + 1})
		}
	}
}

// cmdEnd returns the index of the separator or pipe ending the command
// that starts at word a (or the word count).
func (r *redactor) cmdEnd(a int) int {
	st := &r.sh
	for i := a; i < st.nw; i++ {
		if k := st.w(i).kind; k == wSep || k == wPipe {
			return i
		}
	}
	return st.nw
}

func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := w[i]
		if !(isAlnum(c) || c == '_') || (i == 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// cmdHead returns the index of the command word of [a,b): after
// assignments, reserved words and wrappers such as sudo and env.
func (r *redactor) cmdHead(a, b int) int {
	st := &r.sh
	for i := a; i < b; i++ {
		if st.w(i).kind != wArg {
			continue
		}
		w := r.word(i)
		if isAssignment(w) {
			continue
		}
		switch w {
		case "{", "}", "!", "if", "then", "do", "else", "elif", "while", "until", "time":
			continue
		}
		var valued string // the wrapper's flags that take a value
		switch basename(w) {
		case "sudo", "doas":
			valued = "ugCDhprtUT"
		case "env":
			valued = "uCS"
		case "nice":
			valued = "n"
		case "xargs":
			valued = "IinPLdsE"
		case "command", "builtin", "exec", "nohup", "stdbuf", "caffeinate", "timeout":
		default:
			return i
		}
		timeout := basename(w) == "timeout"
		for i+1 < b && st.w(i+1).kind == wArg {
			f := r.word(i + 1)
			if len(f) < 2 || f[0] != '-' {
				if timeout {
					timeout = false
					i++
					continue
				}
				break
			}
			i++
			if len(f) == 2 && strings.IndexByte(valued, f[1]) >= 0 {
				i++
			}
		}
	}
	return -1
}

// nextArg returns the next argument word after i within the command, or
// -1.
func (r *redactor) nextArg(i, b int) int {
	st := &r.sh
	for j := i + 1; j < b; j++ {
		if st.w(j).kind == wArg {
			return j
		}
	}
	return -1
}

// Programs whose flags carry a password in their own way.
type tool uint8

const (
	toolNone tool = iota
	toolMySQL
	toolSSHPass
	toolRegistry // docker/podman/helm … login
	toolTwine
	toolMongo
	toolAz
	toolRedis
	toolSQLCmd
	toolLDAP
	toolCurl
	toolHTTPie
	toolSMB
	toolOpenSSL
	toolGH
	toolZip
	tool7z
	toolSSHKeygen
	toolVault
	toolHtpasswd
	toolSQLPlus
	toolChpasswd
)

func toolOf(base string) tool {
	switch base {
	case "mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlcheck", "mysqlshow", "mysqlpump", "mysqlsh",
		"mysqlbinlog", "mysqlslap", "mariadb", "mariadb-dump", "mariadb-admin", "mariadb-import", "mariadb-check",
		"mariadb-show", "mycli":
		return toolMySQL
	case "sshpass":
		return toolSSHPass
	case "docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras", "crane", "regctl", "finch":
		return toolRegistry
	case "twine":
		return toolTwine
	case "mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport", "mongostat", "mongotop", "mongofiles":
		return toolMongo
	case "az":
		return toolAz
	case "redis-cli", "valkey-cli", "keydb-cli":
		return toolRedis
	case "sqlcmd", "bcp", "osql", "isql":
		return toolSQLCmd
	case "ldapsearch", "ldapadd", "ldapmodify", "ldapdelete", "ldapwhoami", "ldappasswd", "ldapcompare", "ldapmodrdn", "ldapexop":
		return toolLDAP
	case "curl":
		return toolCurl
	case "http", "https", "xh", "xhs", "httpie":
		return toolHTTPie
	case "smbclient", "rpcclient", "smbcacls", "smbget", "smbmap":
		return toolSMB
	case "openssl":
		return toolOpenSSL
	case "gh":
		return toolGH
	case "zip", "unzip", "zipcloak":
		return toolZip
	case "7z", "7za", "7zz", "7zr":
		return tool7z
	case "ssh-keygen":
		return toolSSHKeygen
	case "vault":
		return toolVault
	case "htpasswd":
		return toolHtpasswd
	case "sqlplus", "rman", "expdp", "impdp", "exp", "imp", "sqlldr":
		return toolSQLPlus
	case "chpasswd":
		return toolChpasswd
	}
	return toolNone
}

// How a password flag's value holds the secret.
const (
	modeWhole        = iota
	modeAfterColon   // user:secret
	modeAfterPercent // user%secret
	modeAfterPass    // pass:secret (env:VAR and file:path are no secret)
)

type flagRule struct {
	flag     string
	attached bool // -pSECRET, --user=…
	separate bool // -p SECRET
	mode     uint8
}

type toolRules struct {
	sub   string // a word the command must hold: login, secret
	flags []flagRule
}

var rulesOf = [...]toolRules{
	toolMySQL:     {flags: []flagRule{{"-p", true, false, modeWhole}}}, // -p alone prompts; the next word is the database
	toolSSHPass:   {flags: []flagRule{{"-p", true, true, modeWhole}}},
	toolRegistry:  {sub: "login", flags: []flagRule{{"-p", true, true, modeWhole}}},
	toolTwine:     {flags: []flagRule{{"-p", true, true, modeWhole}}},
	toolMongo:     {flags: []flagRule{{"-p", true, true, modeWhole}}},
	toolAz:        {sub: "login", flags: []flagRule{{"-p", true, true, modeWhole}}},
	toolRedis:     {flags: []flagRule{{"-a", true, true, modeWhole}}},
	toolSQLCmd:    {flags: []flagRule{{"-P", true, true, modeWhole}}},
	toolLDAP:      {flags: []flagRule{{"-w", true, true, modeWhole}}},
	toolCurl:      {flags: []flagRule{{"-u", true, true, modeAfterColon}, {"--user", true, true, modeAfterColon}, {"-U", true, true, modeAfterColon}, {"--proxy-user", true, true, modeAfterColon}}},
	toolHTTPie:    {flags: []flagRule{{"-a", true, true, modeAfterColon}, {"--auth", true, true, modeAfterColon}}},
	toolSMB:       {flags: []flagRule{{"-U", true, true, modeAfterPercent}, {"--user", true, true, modeAfterPercent}}},
	toolOpenSSL:   {flags: []flagRule{{"-passin", false, true, modeAfterPass}, {"-passout", false, true, modeAfterPass}, {"-pass", false, true, modeAfterPass}, {"-k", false, true, modeWhole}}},
	toolGH:        {sub: "secret", flags: []flagRule{{"-b", true, true, modeWhole}, {"--body", true, true, modeWhole}}},
	toolZip:       {flags: []flagRule{{"-P", true, true, modeWhole}}},
	tool7z:        {flags: []flagRule{{"-p", true, false, modeWhole}}},
	toolSSHKeygen: {flags: []flagRule{{"-N", true, true, modeWhole}, {"-P", true, true, modeWhole}}},
}

// hasWord tells whether the command [a,b) has the argument w.
func (r *redactor) hasWord(a, b int, w string) bool {
	for i := a; i < b; i++ {
		if r.sh.w(i).kind == wArg && r.unq(i) == w {
			return true
		}
	}
	return false
}

// command applies the flag, positional and echo rules to the command in
// words [a,b), whose command word is head and which reads a secret on its
// standard input when stdin.
func (r *redactor) command(a, b, head int, stdin bool, depth int) {
	st := &r.sh
	s := r.s
	if head >= 0 {
		switch basename(r.unq(head)) {
		case "echo", "printf":
			r.echo(a, b, head)
		}
	}
	if stdin {
		for i := a; i < b; i++ {
			if w := st.w(i); w.kind == wHereVal {
				r.value(w.a, w.b, modeWhole)
			}
		}
	}
	t, toolAt := toolNone, -1
	firstPos := -1 // the first positional argument after the tool
	st.setDone, st.subAt = false, 0
	for i := a; i < b; i++ {
		w := st.w(i)
		if w.kind != wArg {
			continue
		}
		raw := s[w.a:w.b]
		if depth < maxDepth && len(raw) > 2 && (raw[0] == '\'' || raw[0] == '"') && raw[len(raw)-1] == raw[0] &&
			strings.IndexByte(raw, ' ') > 0 {
			st.pushSub(region{w.a + 1, w.b - 1, depth + 1}) // bash -c '…', ssh host '…'
		}
		if depth < maxDepth {
			if k := strings.Index(raw, "$("); k >= 0 {
				st.pushSub(region{w.a + k + 2, min(closeParen(s[:w.b], w.a+k+1), w.b), depth + 1})
			}
		}
		if raw[0] != '-' && !w.whole {
			if nt := toolOf(basename(raw)); nt != toolNone {
				t, toolAt, firstPos = nt, i, -1
				continue
			}
		}
		if len(raw) > 1 && raw[0] == '-' {
			if t != toolNone {
				if j, ok := r.toolFlag(t, toolAt, i, b); ok {
					i = max(i, j)
					continue
				}
			}
			if j := r.genericFlag(i, b); j > 0 {
				i = j
			} else if j := r.shortPassword(i, b, head); j > 0 {
				i = j
			}
			continue
		}
		if t != toolNone && firstPos < 0 {
			firstPos = i
		}
		r.positional(i, b, t, firstPos == i)
	}
	if t == toolHtpasswd {
		batch, last := false, -1
		for i := toolAt + 1; i < b; i++ {
			if st.w(i).kind != wArg {
				continue
			}
			if w := r.word(i); len(w) > 1 && w[0] == '-' && w[1] != '-' {
				batch = batch || strings.IndexByte(w, 'b') > 0
			} else {
				last = i
			}
		}
		if batch && last >= 0 {
			w := st.w(last)
			r.value(w.a, w.b, modeWhole)
		}
	}
}

// toolFlag applies tool t's password flags to the flag word i. It returns
// the index of the word it consumed and whether the flag was one of them.
func (r *redactor) toolFlag(t tool, toolAt, i, b int) (int, bool) {
	if int(t) >= len(rulesOf) {
		return i, false
	}
	tr := &rulesOf[t]
	if len(tr.flags) == 0 {
		return i, false
	}
	st := &r.sh
	w := st.w(i)
	raw := r.word(i)
	for _, fr := range tr.flags {
		if !strings.HasPrefix(raw, fr.flag) {
			continue
		}
		if tr.sub != "" {
			if st.subAt != toolAt+1 {
				st.subAt, st.subHas = toolAt+1, r.hasWord(toolAt+1, b, tr.sub)
			}
			if !st.subHas {
				return i, false
			}
		}
		if len(raw) == len(fr.flag) {
			if !fr.separate {
				return i, true
			}
			j := r.nextArg(i, b)
			if j < 0 {
				return i, true
			}
			if v := r.word(j); len(v) > 1 && v[0] == '-' {
				return i, true
			}
			vw := st.w(j)
			r.value(vw.a, vw.b, fr.mode)
			return j, true
		}
		if !fr.attached {
			continue
		}
		off := len(fr.flag)
		long := strings.HasPrefix(fr.flag, "--")
		if raw[off] == '=' {
			off++
		} else if long {
			continue // --username is not --user
		}
		r.value(w.a+off, w.b, fr.mode)
		return i, true
	}
	return i, false
}

// quoteState returns the quote character open at position p of the word
// starting at w (0 when none is), and where that quoted segment closes.
func quoteState(s string, w, p int) (byte, int) {
	var q byte
	start := 0
	for i := w; i < p; i++ {
		switch c := s[i]; {
		case q == 0 && (c == '\'' || c == '"'):
			q, start = c, i
		case q != 0 && c == q:
			q = 0
		case c == '\\' && q != '\'':
			i++
		}
	}
	if q == 0 {
		return 0, -1
	}
	return q, closeQuote(s, start)
}

// value redacts the secret in the value word [a,b) as mode says. A secret
// never straddles a quote that is open where it starts: replacing it must
// leave the rest of the command lexed as before.
func (r *redactor) value(a, b int, mode uint8) {
	s := r.s
	w := a
	a, b = stripQuotes(s, a, b)
	var sep byte
	switch mode {
	case modeAfterColon:
		sep = ':'
	case modeAfterPercent:
		sep = '%'
	case modeAfterPass:
		if !strings.HasPrefix(s[a:b], "pass:") {
			return
		}
		a += len("pass:")
	}
	if sep != 0 {
		k := strings.IndexByte(s[a:b], sep)
		if k < 0 {
			return
		}
		a += k + 1
		if q, e := quoteState(s, w, a); q != 0 && e < b {
			b = e
		}
		a, b = stripQuotes(s, a, b)
	}
	if v := s[a:b]; nothingLeft(v) || isVarRef(v) {
		return
	}
	r.add(a, b)
}

// genericFlag handles --secret-name VALUE for any program. It returns the
// index of the value word it redacted, or -1.
func (r *redactor) genericFlag(i, b int) int {
	raw := r.word(i)
	if strings.IndexByte(raw, '=') >= 0 {
		return -1 // --name=value is the text rules' job
	}
	name := trimDashes(raw)
	if raw[1] != '-' && len(name) < 3 {
		return -1 // short flags mean something else to every program
	}
	kind := nameKind(name, false)
	if kind == kindNone {
		return -1
	}
	j := r.nextArg(i, b)
	if j < 0 {
		return -1
	}
	if v := r.word(j); len(v) > 1 && v[0] == '-' {
		return -1
	}
	va, vb := r.inner(j)
	val := r.s[va:vb]
	if strings.HasPrefix(name, "secret") && hasSpecPrefix(val) {
		return -1
	}
	if !secretValue(val, kind) {
		return -1
	}
	r.add(va, vb)
	return j
}

// notPasswordP are programs whose -p or -P is something else (parents,
// ports, patches, packages, pids, preserve), even with a mixed value.
var notPasswordP = []string{"git", "mkdir", "cp", "mv", "install", "rsync", "ssh", "scp", "sftp", "tar", "docker",
	"podman", "kubectl", "helm", "cargo", "npm", "npx", "pnpm", "yarn", "ps", "pgrep", "pkill", "kill", "top",
	"python", "python3", "node", "perl", "ruby", "psql", "pg_dump", "pg_restore", "createdb", "dropdb", "nc",
	"ncat", "socat", "curl", "wget", "go", "patch", "diff", "sed", "grep", "rg", "xargs", "parallel", "lsof"}

// shortPassword handles -p VALUE, -pVALUE and -P VALUE of a program
// rulesOf does not know: the value is a password when it reads like one
// (three of lower case, upper case and digits, or two and a symbol), no
// port, path, host or package name. It returns the index of the word it
// redacted, or -1.
func (r *redactor) shortPassword(i, b, head int) int {
	raw := r.word(i)
	if len(raw) < 2 || raw[0] != '-' || (raw[1] != 'p' && raw[1] != 'P') || head < 0 {
		return -1
	}
	if inList([]byte(basename(r.unq(head))), notPasswordP) {
		return -1
	}
	if len(raw) > 2 {
		w := r.sh.w(i)
		a, e := stripQuotes(r.s, w.a+2, w.b)
		if passwordLike(r.s[a:e]) {
			r.add(a, e)
			return i
		}
		return -1
	}
	j := r.nextArg(i, b)
	if j < 0 {
		return -1
	}
	va, vb := r.inner(j)
	if !passwordLike(r.s[va:vb]) {
		return -1
	}
	r.add(va, vb)
	return j
}

// passwordLike: 8 to 128 bytes mixing three of lower case, upper case and
// digits, or two and a symbol, with nothing of a path, host, port, list or
// structure in it.
func passwordLike(v string) bool {
	if len(v) < 8 || len(v) > 128 || isVarRef(v) || strings.ContainsAny(v, "/.:,{}[]()=<> \t\n$") {
		return false
	}
	n := classCount(v)
	return n == 3 || n == 2 && strings.ContainsAny(v, "!@#%^&*+?~")
}

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
