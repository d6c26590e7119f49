// Command replaycorpus lays out a corpus for bench/replay.sh: every Claude
// Code transcript under -corpus (as cully replay identifies them: Codex
// rollouts and other files left out) is linked into -out/projects/ at its
// path relative to the corpus, as Claude Code's own projects folder, so
// that ccusage (CLAUDE_CONFIG_DIR=-out) and cully read the same files.
//
// ccusage does not follow symbolic links, so the files are hard links
// (copies when the corpus is on another file system), and a name that
// does not end in .jsonl (a split part, full.jsonl.001) gets that suffix
// for ccusage to read it too; cully tells sessions by their ids, not names.
//
//	go run ./bench/replaycorpus -corpus DIR -out DIR
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"cully/hookbridge/claude"
)

func main() {
	corpus := flag.String("corpus", "", "the folder of transcripts")
	out := flag.String("out", "", "the folder to lay projects/ out in")
	flag.Parse()
	if *corpus == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	var files, all int
	var size int64
	err := filepath.WalkDir(*corpus, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		all++
		if !transcript(p) {
			return nil
		}
		rel, _ := filepath.Rel(*corpus, p)
		if !strings.HasSuffix(rel, ".jsonl") {
			rel += ".jsonl"
		}
		dst := filepath.Join(*out, "projects", rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.Link(p, dst); err != nil {
			if err := copyFile(p, dst); err != nil {
				return err
			}
		}
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		files++
		size += fi.Size()
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%d %d %d\n", files, size, all)
}

// transcript tells a Claude Code transcript as cully replay does.
func transcript(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, head)
	session, _ := claude.Agent{}.Identify(io.MultiReader(bytes.NewReader(head[:n]), f))
	return session != ""
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
