package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// sessions writes every session of the corpus whole, for marking moments
// blind (../shared/corpus/MOMENTS.md): its prompts, what the agent wrote,
// and its tool calls numbered 1, 2, … as the moments file counts them
// (the main agent's, subagents' left out), each with its time, and no
// signal of cully's. Each file is named by an opaque id (s001.txt …); the
// index that joins ids to sessions goes beside the folder, not in it, so
// the folder alone can be handed to the one who marks.
func sessions(corpus, outDir string) error {
	r, err := replay(corpus)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	idx, err := os.Create(filepath.Join(filepath.Dir(filepath.Clean(outDir)), filepath.Base(filepath.Clean(outDir))+"-index.tsv"))
	if err != nil {
		return err
	}
	defer idx.Close()
	fmt.Fprintln(idx, "id\tsession\tcalls\tcall_times")
	n := 0
	for _, s := range r.Sessions {
		if s.ToolCalls == 0 {
			continue
		}
		files := s.Files
		if len(files) == 0 {
			files = []string{s.File}
		}
		items := readSession(files).items
		n++
		id := fmt.Sprintf("s%03d", n)
		text, times := renderSession(id, items)
		if err := os.WriteFile(filepath.Join(outDir, id+".txt"), []byte(text), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(idx, "%s\t%s\t%d\t%s\n", id, s.Session, len(times), strings.Join(times, ","))
	}
	fmt.Fprintf(os.Stderr, "%d sessions in %s\n", n, outDir)
	return nil
}

// renderSession writes a session's items with its calls numbered; it
// returns the text and each call's time (RFC 3339), in order.
func renderSession(id string, items []item) (string, []string) {
	var b strings.Builder
	var times []string
	fmt.Fprintf(&b, "session %s\n\n", id)
	day := ""
	for _, it := range items {
		if d := it.at.UTC().Format("2006-01-02"); d != day {
			fmt.Fprintf(&b, "--- %s ---\n", d)
			day = d
		}
		t := it.at.UTC().Format("15:04:05")
		switch it.kind {
		case "prompt":
			fmt.Fprintf(&b, "%s USER: %s\n", t, clip(it.body, 2000))
		case "text":
			fmt.Fprintf(&b, "%s AGENT SAYS: %s\n", t, clip(it.body, 800))
		case "call":
			times = append(times, it.at.UTC().Format(time.RFC3339Nano))
			fmt.Fprintf(&b, "%s CALL %d %s: %s\n", t, len(times), it.tool, clip(it.body, 400))
		case "result":
			fmt.Fprintf(&b, "%s   → %s\n", t, clip(it.body, 300))
		}
	}
	return b.String(), times
}
