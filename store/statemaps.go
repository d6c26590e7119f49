package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"

	"cully/engine"
)

// A state body on disk is the state's JSON without its two large maps,
// files and commands, followed by those two maps in binary:
//
//	JSON object    AppendState's, without "files" and "commands"
//	"\x00cm\x01"   a NUL (never in JSON text) and the maps' format, 1
//	files          uvarint count, then per file: key, Reads, WholeAt,
//	               WholeMod, WholeSize, Seen
//	commands       uvarint count, then per command: key, Preview, Runs,
//	               LastSeen, Fails, SigStreak, LastSig, ChangeAt (uvarint
//	               count, then each), Edit
//	sum            8 bytes, little-endian: mapsSum of everything from the
//	               NUL up to it
//
// Strings are a uvarint length and their bytes, integers zig-zag varints.
// A body without the NUL is all JSON, maps included (the format before
// this one, and what AppendState writes): it decodes as before.
//
// Why: a session at its caps (256 files, 64 commands) is a 36 KB body the
// hook decoded and encoded on every call, 310 and 158 us warm
// (BenchmarkStateDecode, BenchmarkStateEncode), most of it validating and
// parsing JSON numbers, sorting keys and growing maps one entry at a
// time; bench/hook.sh read 1.41-1.46x the minimal hook for that session
// against 1.14-1.18x for a new one. The JSON validation was also the
// body's only integrity check; the body has a checksum instead, so a
// body torn by a crash, or stale bytes under a newer header, is refused
// as before. The maps are written in map order (a state file is read by
// cully alone; encoding/json's sorted order, which cost a third of the
// encoding, is kept for AppendState, whose bytes a test holds equal to
// encoding/json's). After: 67-78 us to decode and 37-39 us to encode the
// same session (its body 17 KB; 67-74 and 42-43 us since the sum covers
// the whole body, below), and the hook 1.41x -> 1.28x for it
// (bench/ratio, 600 rounds, three copies of each binary).
//
// The sum that ends a body covers the whole body, its JSON too: a write cut
// short over an older body of the same slot leaves the new body's head on
// the old one's tail, two halves of the same shape that each parse, and a
// sum over the maps alone passed such a body (its JSON from one state, its
// journal position and maps from the other: a catch-up would then fold
// records in twice). Bodies of the first binary layout (mapsMagicV1, the
// sum over the maps only) are still read.
const mapsMagic = "\x00cm\x02"

// mapsMagicV1 starts the maps of the first binary layout, whose sum
// covers the maps alone.
const mapsMagicV1 = "\x00cm\x01"

// errMapsDamaged: the maps' sum does not hold, or they end early.
var errMapsDamaged = errors.New("state maps are damaged (a torn or stale body)")

// appendStateMaps appends the binary maps section of the state body that
// starts at b[body:], and the sum of the whole body.
func appendStateMaps(b []byte, body int, s *engine.State) []byte {
	b = append(b, mapsMagic...)
	b = binary.AppendUvarint(b, uint64(len(s.Files)))
	for k, f := range s.Files {
		if f == nil {
			f = &engine.FileSeen{}
		}
		b = appendMapStr(b, k)
		b = binary.AppendVarint(b, int64(f.Reads))
		b = binary.AppendVarint(b, f.WholeAt)
		b = binary.AppendVarint(b, f.WholeMod)
		b = binary.AppendVarint(b, f.WholeSize)
		b = binary.AppendVarint(b, f.Seen)
	}
	b = binary.AppendUvarint(b, uint64(len(s.Commands)))
	for k, c := range s.Commands {
		if c == nil {
			c = &engine.CmdSeen{}
		}
		b = appendMapStr(b, k)
		b = appendMapStr(b, c.Preview)
		b = binary.AppendVarint(b, int64(c.Runs))
		b = binary.AppendVarint(b, c.LastSeen)
		b = binary.AppendVarint(b, int64(c.Fails))
		b = binary.AppendVarint(b, int64(c.SigStreak))
		b = appendMapStr(b, c.LastSig)
		b = binary.AppendUvarint(b, uint64(len(c.ChangeAt)))
		for _, n := range c.ChangeAt {
			b = binary.AppendVarint(b, int64(n))
		}
		b = appendMapStr(b, c.Edit)
	}
	return binary.LittleEndian.AppendUint64(b, mapsSum(b[body:]))
}

// appendMapStr appends a string as the maps write one. Invalid UTF-8 is
// written as encoding/json would leave it after a round trip (each bad
// byte U+FFFD), so a state reads back the same whichever way it was kept.
func appendMapStr(b []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = jsonValid(s)
	}
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// jsonValid is s with each byte that is not UTF-8 replaced by U+FFFD, as
// appendQuoted writes it.
func jsonValid(s string) string {
	out := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, s[i:i+size]...)
		}
		i += size
	}
	return string(out)
}

// splitStateBody splits a state body into its JSON and its maps (nil for
// a body that is all JSON), the maps' sum checked; at is where the maps'
// sections start in b.
func splitStateBody(b []byte) (js, maps []byte, at int, err error) {
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return b, nil, 0, nil
	}
	t := b[i:]
	if len(t) < len(mapsMagic)+8 {
		return nil, nil, 0, fmt.Errorf("state body: a NUL at byte %d that starts no maps section", i)
	}
	n := len(t) - 8
	var sum uint64
	switch string(t[:len(mapsMagic)]) {
	case mapsMagic:
		sum = mapsSum(b[:i+n])
	case mapsMagicV1:
		sum = mapsSum(t[:n])
	default:
		return nil, nil, 0, fmt.Errorf("state body: a NUL at byte %d that starts no maps section", i)
	}
	if sum != binary.LittleEndian.Uint64(t[n:]) {
		return nil, nil, 0, errMapsDamaged
	}
	return b[:i], t[len(mapsMagic):n], i + len(mapsMagic), nil
}

// mapsReader reads the maps' sections; its strings are slices of the
// decoder's one copy of the body.
type mapsReader struct {
	b   []byte
	i   int
	at  int // offset of b in the body
	s   string
	bad bool
}

func (r *mapsReader) uint() uint64 {
	v, n := binary.Uvarint(r.b[r.i:])
	r.took(n)
	return v
}

func (r *mapsReader) int() int64 {
	v, n := binary.Varint(r.b[r.i:])
	r.took(n)
	return v
}

// took moves past a value of n bytes; n <= 0 (none read) is damage, and
// every read after it reads nothing.
func (r *mapsReader) took(n int) {
	if n <= 0 {
		r.bad, r.i = true, len(r.b)
		return
	}
	r.i += n
}

func (r *mapsReader) str() string {
	n := r.uint()
	if n > uint64(len(r.b)-r.i) {
		r.took(0)
		return ""
	}
	s := r.s[r.at+r.i : r.at+r.i+int(n)]
	r.i += int(n)
	return s
}

// count reads an entry count, each entry at least min bytes: a count the
// bytes left cannot hold is damage, never an allocation of its size.
func (r *mapsReader) count(min int) int {
	n := r.uint()
	if n > uint64((len(r.b)-r.i)/min) {
		r.took(0)
		return 0
	}
	return int(n)
}

// decodeStateMaps reads the maps' sections (splitStateBody's maps, at its
// offset) into st. A map with no entries stays nil, as encoding/json's
// omitempty leaves it. The entries of each map are one allocation.
func decodeStateMaps(st *engine.State, maps []byte, at int, body string) error {
	r := &mapsReader{b: maps, at: at, s: body}
	if n := r.count(6); n > 0 {
		st.Files = make(map[string]*engine.FileSeen, n)
		fs := make([]engine.FileSeen, n)
		for i := range fs {
			k := r.str()
			f := &fs[i]
			f.Reads = int(r.int())
			f.WholeAt = r.int()
			f.WholeMod = r.int()
			f.WholeSize = r.int()
			f.Seen = r.int()
			st.Files[k] = f
		}
	}
	if n := r.count(9); n > 0 {
		st.Commands = make(map[string]*engine.CmdSeen, n)
		cs := make([]engine.CmdSeen, n)
		for i := range cs {
			k := r.str()
			c := &cs[i]
			c.Preview = r.str()
			c.Runs = int(r.int())
			c.LastSeen = r.int()
			c.Fails = int(r.int())
			c.SigStreak = int(r.int())
			c.LastSig = r.str()
			if m := r.count(1); m > 0 {
				c.ChangeAt = make([]int, m)
				for j := range c.ChangeAt {
					c.ChangeAt[j] = int(r.int())
				}
			}
			c.Edit = r.str()
			st.Commands[k] = c
		}
	}
	if r.bad || r.i != len(r.b) {
		return errMapsDamaged
	}
	return nil
}

// mapsSum is a state body's checksum: a multiply-xor hash over 8-byte words.
// It guards against torn and stale bytes after a crash (the state dir is
// the user's own, so not against an adversary). Hand-written because the
// library's checksums cost more in a process this short: hash/fnv goes a
// byte at a time (36 us for a body at the caps), and hash/crc32 and
// hash/crc64 build their tables on first use.
//
// It stays because it is part of the state file's format: every state
// body on disk ends with this sum, and a reader must keep accepting them,
// so a library checksum would add a second sum beside it, not replace it.
// What it saves is small: hash/fnv in its place measured 4% more wall time
// at the median for a session at its caps, the same CPU and page faults
// (bench/ratio, 1,500 interleaved rounds, three copies each, load 20).
func mapsSum(b []byte) uint64 {
	const m = 0x9E3779B97F4A7C15
	h := uint64(len(b)) * m
	for ; len(b) >= 8; b = b[8:] {
		h = (h ^ binary.LittleEndian.Uint64(b)) * m
		h ^= h >> 31
	}
	for _, c := range b {
		h = (h ^ uint64(c)) * m
		h ^= h >> 31
	}
	return h ^ h>>29
}
