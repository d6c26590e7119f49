package config

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"

	"cully/engine"
)

// Problem is one thing wrong with a config file, at a line when it has one.
// Err problems lose a setting (a syntax error, an unknown key, a value of the
// wrong type); the others are notes (a value clamped, a file not allowed).
type Problem struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"column,omitempty"`
	Msg  string `json:"message"`
	Err  bool   `json:"error"`
	// Consent marks the reminder that a project file is not (or no longer)
	// allowed: reports that show the file's state already say it.
	Consent bool `json:"-"`
}

// Error is the problem on one line, fit for a terminal: whatever a hostile
// file put in a key, no control character gets through.
func (p Problem) Error() string {
	msg := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return '?'
		}
		return r
	}, p.Msg)
	switch {
	case p.Line > 0 && p.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Col, msg)
	case p.Line > 0:
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, msg)
	}
	return p.File + ": " + msg
}

// cut shortens a name from a file to 60 bytes.
func cut(k string) string {
	if len(k) > 60 {
		return strings.ToValidUTF8(k[:60], "") + "…"
	}
	return k
}

// showKey prints a key from a file: bare when it is a bare TOML key, else
// quoted with escapes; cut at 60 bytes, since a key can be as long as its file.
func showKey(parts []string) string {
	var b strings.Builder
	for i, k := range parts {
		if i > 0 {
			b.WriteByte('.')
		}
		k = cut(k)
		bare := k != ""
		for _, r := range k {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '…') {
				bare = false
				break
			}
		}
		if bare {
			b.WriteString(k)
		} else {
			b.WriteString(strconv.QuoteToASCII(k))
		}
	}
	return b.String()
}

// MaxProblems is how many problems one load keeps; the rest are counted.
// A file of ten thousand typos is one mistake repeated, and must not become
// ten thousand lines anywhere.
const MaxProblems = 20

// problems collects what is wrong, bounded.
type problems struct {
	list []Problem
	more int
}

func (ps *problems) add(p Problem) {
	if len(ps.list) < MaxProblems {
		ps.list = append(ps.list, p)
		return
	}
	ps.more++
}

// sorted orders the problems by line within each file, files in the order
// they were read (a file's clamps are found after its parse).
func (ps *problems) sorted() []Problem {
	rank := map[string]int{}
	for _, p := range ps.list {
		if _, ok := rank[p.File]; !ok {
			rank[p.File] = len(rank)
		}
	}
	sort.SliceStable(ps.list, func(i, j int) bool {
		a, b := ps.list[i], ps.list[j]
		if rank[a.File] != rank[b.File] {
			return rank[a.File] < rank[b.File]
		}
		return a.Line < b.Line
	})
	return ps.list
}

// full reports whether a new problem would only be counted, so the caller
// can skip working out its line.
func (ps *problems) full() bool { return len(ps.list) >= MaxProblems }

// setting is one value a file set, with the line it was set on.
type setting struct {
	line int
	n    int64
	f    float64
	s    string
	list []string
}

// spec is a key a file may set under [rules].
type spec struct {
	kind     unstable.Kind // Integer, String or Array (of strings)
	userOnly bool          // names commands or decides for the user: never from a project file
}

// specs is a list, not a map: a map literal is built at start-up, in every
// hook call, and the hook parses a config file only when one changed.
var specs = []struct {
	key string
	spec
}{
	{"explore_reads", spec{kind: unstable.Integer}},
	{"unverified_edits", spec{kind: unstable.Integer}},
	{"loop_failures", spec{kind: unstable.Integer}},
	{"blind_retry_failures", spec{kind: unstable.Integer}},
	{"large_read_bytes", spec{kind: unstable.Integer}},
	{"reread_min_bytes", spec{kind: unstable.Integer}},
	{"unverified_tell", spec{kind: unstable.Integer, userOnly: true}},
	{"explore_tell", spec{kind: unstable.Integer, userOnly: true}},
	{"empty_search_tell", spec{kind: unstable.Integer, userOnly: true}},
	{"rerun_tell", spec{kind: unstable.Integer, userOnly: true}},
	{"same_failure_tell", spec{kind: unstable.Integer, userOnly: true}},
	{"unverified_tell_since", spec{kind: unstable.String, userOnly: true}},
	{"fix_in_test_tell", spec{kind: unstable.Bool, userOnly: true}},
	{"commit_tell", spec{kind: unstable.Bool, userOnly: true}},
	{"reported_tell", spec{kind: unstable.Bool, userOnly: true}},
	{"finish_checks", spec{kind: unstable.Bool, userOnly: true}},
	{"unattended", spec{kind: unstable.String, userOnly: true}},
	{"checks", spec{kind: unstable.Array, userOnly: true}},
	{"read_only", spec{kind: unstable.Array, userOnly: true}},
}

// budgetKeys are [budget]'s keys; every one is user-only: a project file
// may not loosen (or set) the user's run budgets.
var budgetKeys = []string{"class", "wall_clock_seconds", "tool_calls", "tokens", "cost_usd", "mode", "auto_rollback"}

// snapshotKeys are [snapshots]'s keys, user-only: a project file may not
// grow or shrink the user's store.
var snapshotKeys = []string{"max_store_bytes", "min_free_bytes", "keep_runs", "keep_days", "max_file_bytes"}

// budgetSpec is a [budget] key's spec.
func budgetSpec(key string) (spec, bool) {
	switch key {
	case "class", "mode":
		return spec{kind: unstable.String, userOnly: true}, true
	case "auto_rollback":
		return spec{kind: unstable.Bool, userOnly: true}, true
	case "cost_usd":
		return spec{kind: unstable.Float, userOnly: true}, true
	case "wall_clock_seconds", "tool_calls", "tokens":
		return spec{kind: unstable.Integer, userOnly: true}, true
	}
	return spec{}, false
}

// specFor finds a key's spec.
func specFor(key string) (spec, bool) {
	for _, s := range specs {
		if s.key == key {
			return s.spec, true
		}
	}
	return spec{}, false
}

// parse reads a config document. It walks go-toml's parser (the unstable
// package: expressions with byte ranges) rather than decoding into a struct
// in strict mode, because the decoder's cost grows with the square of the
// keys it does not know — 8,000 unknown keys in 79 KB took 1.35 s strict and
// 73 ms loose, against 0.4 ms for the parser alone — and a hostile file is
// all unknown keys. Lines are worked out only for the problems kept.
//
// On a syntax error the whole file is ignored (ok false): a half-read file
// would apply some settings and silently drop the rest.
func parse(doc []byte, file string, project bool, ps *problems) (map[string]setting, bool) {
	w := walker{doc: doc, file: file, project: project, ps: ps, set: map[string]setting{}}
	w.p.Reset(doc)
	for w.p.NextExpression() {
		e := w.p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			path, off := keyOf(e)
			w.table, w.skip = path, true
			switch {
			case e.Kind == unstable.Table && len(path) == 1 && path[0] == "rules":
				w.skip = false
				if w.rulesLine > 0 {
					w.problemf(off, true, func() string {
						return fmt.Sprintf("[rules] is defined twice (first on line %d): TOML forbids it; its keys are read once each", w.rulesLine)
					})
				} else {
					w.rulesLine = w.line(off)
				}
			case e.Kind == unstable.Table && len(path) == 1 && (workerTable(path[0]) || path[0] == "budget" || path[0] == "snapshots"):
				w.skip = false
			case e.Kind == unstable.ArrayTable:
				w.problemf(off, true, func() string {
					return fmt.Sprintf("unknown array of tables [[%s]]: ignored with its keys", showKey(path))
				})
			default:
				w.problemf(off, true, func() string {
					return fmt.Sprintf("unknown table [%s]: ignored with its keys%s", showKey(path), hint(path, []string{"rules", "advisor", "discovery", "budget", "snapshots"}))
				})
			}
		case unstable.KeyValue:
			if w.skip {
				continue // part of a table already reported
			}
			key, off := keyOf(e)
			w.assign(append(append([]string(nil), w.table...), key...), e.Value(), off)
		}
	}
	if err := w.p.Error(); err != nil {
		var pe *unstable.ParserError
		off := len(doc)
		msg := err.Error()
		if errors.As(err, &pe) {
			msg = pe.Message
			if len(pe.Highlight) > 0 {
				off = int(w.p.Range(pe.Highlight).Offset)
			}
		}
		line, col := position(doc, off)
		ps.add(Problem{File: file, Line: line, Col: col, Err: true, Msg: "TOML syntax error: " + msg + ": the whole file is ignored"})
		return nil, false
	}
	return w.set, true
}

type walker struct {
	p         unstable.Parser
	doc       []byte
	file      string
	project   bool
	ps        *problems
	set       map[string]setting
	table     []string // the current [table]
	skip      bool     // the current table is unknown: its keys go with it
	rulesLine int
}

// keyOf returns a table's or key-value's dotted key and its offset.
func keyOf(n *unstable.Node) ([]string, int) {
	var parts []string
	off := -1
	it := n.Key()
	for it.Next() {
		k := it.Node()
		if off < 0 {
			off = int(k.Raw.Offset)
		}
		parts = append(parts, string(k.Data))
	}
	return parts, off
}

func (w *walker) line(off int) int { l, _ := position(w.doc, off); return l }

// position is the line and column (from 1) of a byte offset.
func position(doc []byte, off int) (int, int) {
	if off < 0 || off > len(doc) {
		off = len(doc)
	}
	before := doc[:off]
	return bytes.Count(before, []byte{'\n'}) + 1, off - bytes.LastIndexByte(before, '\n')
}

func (w *walker) problem(off int, isErr bool, msg string) {
	w.problemf(off, isErr, func() string { return msg })
}

// problemf is problem with the message built only when it is kept: past
// MaxProblems a problem costs a counter increment, no line count, no hint.
func (w *walker) problemf(off int, isErr bool, msg func() string) {
	if w.ps.full() {
		w.ps.more++
		return
	}
	w.ps.add(Problem{File: w.file, Line: w.line(off), Err: isErr, Msg: msg()})
}

// assign sets one dotted key (the table's path plus the key's) to a value.
func (w *walker) assign(path []string, v *unstable.Node, off int) {
	if len(path) == 1 && path[0] == "rules" {
		if v.Kind != unstable.InlineTable {
			w.problem(off, true, "rules must be a table ([rules]), not "+kindName(v.Kind)+": ignored")
			return
		}
		it := v.Children()
		for it.Next() {
			kv := it.Node()
			if kv.Kind != unstable.KeyValue {
				continue
			}
			key, koff := keyOf(kv)
			w.assign(append([]string{"rules"}, key...), kv.Value(), koff)
		}
		return
	}
	if len(path) == 2 && path[0] == "rules" {
		if sp, ok := specFor(path[1]); ok {
			w.value(path[1], sp, v, off)
			return
		}
	}
	if len(path) == 2 && path[0] == "budget" {
		if sp, ok := budgetSpec(path[1]); ok {
			w.value(path[0]+"."+path[1], sp, v, off)
			return
		}
	}
	if len(path) == 2 && path[0] == "snapshots" && slices.Contains(snapshotKeys, path[1]) {
		w.value(path[0]+"."+path[1], spec{kind: unstable.Integer, userOnly: true}, v, off)
		return
	}
	if len(path) == 2 && workerTable(path[0]) {
		if sp, ok := workerSpec(path[0], path[1]); ok {
			w.value(path[0]+"."+path[1], sp, v, off)
			return
		}
	}
	w.problemf(off, true, func() string {
		if _, known := specFor(path[0]); known && len(path) == 1 {
			return fmt.Sprintf("%q is outside [rules]: ignored (rule settings go under [rules])", path[0])
		}
		if len(path) == 2 && path[0] == "rules" {
			return fmt.Sprintf("unknown key %q in [rules]: ignored%s", cut(path[1]), hint(path[1:], specNames()))
		}
		if len(path) == 2 && path[0] == "budget" {
			return fmt.Sprintf("unknown key %q in [budget]: ignored%s", cut(path[1]), hint(path[1:], budgetKeys))
		}
		if len(path) == 2 && path[0] == "snapshots" {
			return fmt.Sprintf("unknown key %q in [snapshots]: ignored%s", cut(path[1]), hint(path[1:], snapshotKeys))
		}
		if len(path) == 2 && workerTable(path[0]) {
			return fmt.Sprintf("unknown key %q in [%s]: ignored%s", cut(path[1]), path[0], hint(path[1:], workerKeys(path[0])))
		}
		return fmt.Sprintf("unknown key %q: ignored%s", cut(strings.Join(path, ".")), hint(path, append(specNames(), "rules")))
	})
}

// value records a known key's value, checking its type.
func (w *walker) value(key string, sp spec, v *unstable.Node, off int) {
	if w.project && sp.userOnly {
		w.problemf(off, true, func() string {
			if strings.HasPrefix(key, "snapshots.") {
				return fmt.Sprintf("%q ignored: the snapshot store's bounds come from your own config only", key)
			}
			if strings.HasPrefix(key, "budget.") {
				return fmt.Sprintf("%q ignored: run budgets come from your own config only (a project file may not loosen them)", key)
			}
			if strings.Contains(key, ".") {
				return fmt.Sprintf("%q ignored: a project file can never set or change a command (the advisor's and discovery's workers come from your own config only)", key)
			}
			return fmt.Sprintf("%q ignored: a project file may tune thresholds only (checks, read_only, unattended and what the agent is told come from your own config)", "rules."+key)
		})
		return
	}
	if prev, dup := w.set[key]; dup {
		w.problemf(off, true, func() string {
			return fmt.Sprintf("%s is set twice (first on line %d): TOML forbids it; the first value is kept", key, prev.line)
		})
		return
	}
	s := setting{}
	switch {
	case sp.kind == unstable.Integer && v.Kind == unstable.Integer:
		n, err := parseInt(v.Data)
		if err != nil {
			w.problemf(off, true, func() string { return fmt.Sprintf("%s = %s is not a 64-bit integer: ignored", key, v.Data) })
			return
		}
		s.n = n
	case sp.kind == unstable.Float && (v.Kind == unstable.Float || v.Kind == unstable.Integer):
		f, err := strconv.ParseFloat(strings.ReplaceAll(string(v.Data), "_", ""), 64)
		if err != nil || !(f >= 0) || f > 1e9 {
			w.problemf(off, true, func() string { return fmt.Sprintf("%s = %s is not a usable amount: ignored", key, v.Data) })
			return
		}
		s.f = f
	case sp.kind == unstable.String && v.Kind == unstable.String:
		s.s = string(v.Data)
		if key == "budget.class" && !engine.ValidClass(s.s) {
			w.problemf(off, true, func() string {
				return fmt.Sprintf("budget.class = %q: it is \"standard\", \"multi-file\" or \"full-repo\"; the class is decided from the run's edits", s.s)
			})
			return
		}
		if key == "budget.mode" && !engine.ValidMode(s.s) {
			w.problemf(off, true, func() string {
				return fmt.Sprintf("budget.mode = %q: it is \"advise\" or \"enforce\"; unset, unattended sessions are enforced and attended ones advised", s.s)
			})
			return
		}
		if key == "unverified_tell_since" && s.s != engine.TellSinceCheck && s.s != engine.TellSincePass {
			w.problemf(off, true, func() string {
				return fmt.Sprintf("unverified_tell_since = %q: it is \"check\" (any check) or \"pass\" (a successful check); \"check\" is used", s.s)
			})
			return
		}
		if key == "unattended" && s.s != "continue" && s.s != "stop" {
			w.problemf(off, true, func() string {
				return fmt.Sprintf("unattended = %q: it is \"continue\" or \"stop\"; \"continue\" is used", s.s)
			})
			return
		}
	case sp.kind == unstable.Bool && v.Kind == unstable.Bool:
		if string(v.Data) == "true" {
			s.n = 1
		}
	case sp.kind == unstable.Array && v.Kind == unstable.Array:
		it := v.Children()
		for it.Next() {
			el := it.Node()
			if el.Kind == unstable.Comment {
				continue
			}
			if el.Kind != unstable.String {
				w.problemf(off, true, func() string {
					return fmt.Sprintf("%s holds %s: it is a list of strings; ignored", key, kindName(el.Kind))
				})
				return
			}
			s.list = append(s.list, string(el.Data))
		}
	default:
		want := map[unstable.Kind]string{unstable.Integer: "an integer", unstable.String: "a string", unstable.Array: "a list of strings", unstable.Float: "a number", unstable.Bool: "true or false"}[sp.kind]
		w.problemf(off, true, func() string { return fmt.Sprintf("%s is %s, not %s: ignored", key, want, kindName(v.Kind)) })
		return
	}
	s.line = w.line(off)
	w.set[key] = s
}

// parseInt reads a TOML integer as the parser delivered it (underscores,
// a sign, or a 0x/0o/0b prefix; the parser has checked the syntax).
func parseInt(raw []byte) (int64, error) {
	s := strings.ReplaceAll(string(raw), "_", "")
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o' || s[1] == 'b') {
		base := map[byte]int{'x': 16, 'o': 8, 'b': 2}[s[1]]
		u, err := strconv.ParseUint(s[2:], base, 63)
		return int64(u), err
	}
	return strconv.ParseInt(s, 10, 64)
}

func kindName(k unstable.Kind) string {
	switch k {
	case unstable.Integer:
		return "an integer"
	case unstable.Float:
		return "a float"
	case unstable.String:
		return "a string"
	case unstable.Bool:
		return "a boolean"
	case unstable.Array:
		return "a list"
	case unstable.InlineTable:
		return "a table"
	}
	return "a date or time"
}

// hint suggests the known name a mistyped key or table was probably meant
// to be: the nearest of names at most two edits away.
func hint(path []string, names []string) string {
	if len(path) != 1 {
		return ""
	}
	best, bestD := "", 3
	for _, k := range names {
		if d := distance(path[0], k); d < bestD || d == bestD && k < best {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	return " (did you mean " + best + "?)"
}

func specNames() []string {
	names := make([]string, 0, len(specs))
	for _, s := range specs {
		names = append(names, s.key)
	}
	return names
}

// distance is the Levenshtein distance, for short names only (it gives up
// past 40 bytes: a hostile key must not cost much).
func distance(a, b string) int {
	if len(a) > 40 || len(b) > 40 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			c = min(c, prev[j]+1, cur[j-1]+1)
			cur[j] = c
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
