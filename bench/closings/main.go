// Command closings measures, on a folder of recorded sessions kept outside
// the repository, how far apart the similarity sketches of turns' closing
// messages are (engine.ClosingOf): consecutive closings of one session
// (different turns of healthy work), and each closing against small edits
// of itself (the near-identical repeats of a runaway: a word changed, a
// clause dropped, a number moved). It prints figures only, never text: the
// distance that separates the two is the idle-loop rule's threshold.
//
//	go run ./bench/closings -corpus DIR
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"cully/engine"
)

func main() {
	corpus := flag.String("corpus", "", "the folder of Claude Code transcripts and Codex rollouts")
	flag.Parse()
	if *corpus == "" {
		flag.Usage()
		os.Exit(2)
	}
	var sessions [][]string
	filepath.WalkDir(*corpus, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		if c := closings(p); len(c) > 0 {
			sessions = append(sessions, c)
		}
		return nil
	})
	var healthy, edited []int
	same, says := 0, map[string]int{}
	n := 0
	for _, s := range sessions {
		for i, text := range s {
			n++
			fp, sk, say := engine.ClosingOf(text)
			says[say]++
			if i > 0 {
				pfp, psk, _ := engine.ClosingOf(s[i-1])
				if pfp == fp {
					same++
				}
				healthy = append(healthy, engine.SketchDistance(sk, psk))
			}
			for _, e := range edits(text) {
				_, esk, _ := engine.ClosingOf(e)
				edited = append(edited, engine.SketchDistance(sk, esk))
			}
		}
	}
	fmt.Printf("%d sessions, %d closing messages; %d consecutive pairs equal once normalised\n", len(sessions), n, same)
	fmt.Printf("says: %v\n", says)
	fmt.Println("distance  consecutive-closings(cumulative %)  edited-repeats(cumulative %)")
	for d := 0; d <= 32; d += 2 {
		fmt.Printf("<=%2d      %6.1f%%                             %6.1f%%\n", d, cum(healthy, d), cum(edited, d))
	}
}

func cum(xs []int, d int) float64 {
	if len(xs) == 0 {
		return 0
	}
	k := 0
	for _, x := range xs {
		if x <= d {
			k++
		}
	}
	return 100 * float64(k) / float64(len(xs))
}

// edits are small edits of a message, as a runaway's repeats differ: one
// word dropped, one added, the last sentence dropped.
func edits(text string) []string {
	w := strings.Fields(text)
	if len(w) < 4 {
		return nil
	}
	mid := len(w) / 2
	drop := strings.Join(append(append([]string{}, w[:mid]...), w[mid+1:]...), " ")
	add := strings.Join(append(append(append([]string{}, w[:mid]...), "still"), w[mid:]...), " ")
	out := []string{drop, add}
	if i := strings.LastIndexAny(strings.TrimRight(text, ".!? \n"), ".!?"); i > len(text)/2 {
		out = append(out, text[:i+1])
	}
	return out
}

// closings are a session's turn-closing messages, in order: a Codex
// rollout's task_complete last_agent_message; a Claude Code transcript's
// last assistant text before each real user prompt and at its end.
func closings(p string) []string {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []string
	last, open := "", false
	for sc.Scan() {
		var r struct {
			Type        string `json:"type"`
			IsSidechain bool   `json:"isSidechain"`
			IsMeta      bool   `json:"isMeta"`
			Payload     struct {
				Type string `json:"type"`
				Last string `json:"last_agent_message"`
			} `json:"payload"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		switch {
		case r.Type == "event_msg" && r.Payload.Type == "task_complete" && r.Payload.Last != "":
			out = append(out, r.Payload.Last)
		case r.IsSidechain:
		case r.Type == "assistant":
			var blocks []struct{ Type, Text string }
			if json.Unmarshal(r.Message.Content, &blocks) == nil {
				for _, b := range blocks {
					if b.Type == "text" && b.Text != "" {
						last, open = b.Text, true
					}
					if b.Type == "tool_use" {
						last, open = "", true
					}
				}
			}
		case r.Type == "user" && !r.IsMeta:
			var s string
			if json.Unmarshal(r.Message.Content, &s) == nil && open {
				if last != "" {
					out = append(out, last)
				}
				last, open = "", false
			}
		}
	}
	if open && last != "" {
		out = append(out, last)
	}
	return out
}
