package redact

import "strings"

// The rules of one command: its head, its flags (per program and generic)
// and what a short -p or a word after a password flag holds.

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
