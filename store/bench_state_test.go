package store

import (
	"fmt"
	"testing"
	"time"

	"cully/engine"
)

// cappedState is a session at its caps: 256 files with whole-read
// metadata, 64 commands, a full recent window — the largest state a hook
// call decodes and encodes (about 33 KB).
func cappedState() *engine.State {
	st := engine.NewState("0e9b095a-15ce-4954-9bab-4ee72ac1d24e")
	st.Files, st.Commands = map[string]*engine.FileSeen{}, map[string]*engine.CmdSeen{}
	st.Started = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	st.LastSeen = st.Started.Add(30 * 24 * time.Hour)
	for i := range 256 {
		st.Files[fmt.Sprintf("src/pkg%02d/file%04d.go", i%16, i)] = &engine.FileSeen{Reads: 1 + i%4, WholeAt: 1793676500 + int64(i), WholeMod: 1793672900000000000 + int64(i), WholeSize: 8000, Seen: 1793676500 + int64(i)}
	}
	for i := range 64 {
		st.Commands[fmt.Sprintf("%016x", i*7919)] = &engine.CmdSeen{Preview: fmt.Sprintf("go test ./pkg%02d/... -run TestThing%d", i, i), Runs: 3, LastSeen: 1793676500 + int64(i), Fails: 1, SigStreak: 1, LastSig: "3f2a9c1d", ChangeAt: []int{i, i + 1}}
	}
	for i := range 8 {
		st.Recent = append(st.Recent, engine.RecentCall{Call: fmt.Sprintf("c%d", i), Out: "o", Preview: "Read src/pkg00/file0001.go"})
	}
	return st
}

// BenchmarkStateDecode and BenchmarkStateEncode time the state codec on a
// session at its caps, the part of a hook call that grows with a session.
func BenchmarkStateDecode(b *testing.B) {
	raw := appendStateFile(nil, cappedState(), &journalPos{At: 48700461, N: 200000, Sum: 0xabcdef})
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := decodeStateFile(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStateEncode(b *testing.B) {
	st := cappedState()
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = appendStateFile(buf[:0], st, &journalPos{At: 48700461, N: 200000, Sum: 0xabcdef})
	}
	b.SetBytes(int64(len(buf)))
}

// BenchmarkAppend is one journal append under its lock, as the hook makes
// it, with and without CULLY_DURABLE's fdatasync (docs/performance.md).
func BenchmarkAppend(b *testing.B) {
	for _, durable := range []bool{false, true} {
		name := "page-cache"
		if durable {
			name = "durable"
		}
		b.Run(name, func(b *testing.B) {
			h := Home{Dir: b.TempDir(), Durable: durable}
			if err := h.Ensure(); err != nil {
				b.Fatal(err)
			}
			rec := AppendEvent(nil, &engine.Event{V: engine.SchemaVersion, Agent: "claude", Session: "s", Kind: engine.KindPostTool, Tool: "Read"})
			for b.Loop() {
				if err := h.Append(rec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
