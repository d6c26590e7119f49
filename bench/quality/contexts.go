package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Context sizes, as the labelling protocol asks: the task's prompt, the 15
// calls before the nudge, the 10 after, and what the agent wrote next.
const (
	callsBefore = 15
	callsAfter  = 10
	textRunes   = 400
)

// item is one step of a session as a reader meets it.
type item struct {
	at   time.Time
	kind string // prompt, call, result, text
	tool string
	body string
	id   string // tool_use id (call, result)
}

func contexts(corpus, outDir string) error {
	r, err := replay(corpus)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	labels, err := readLabels()
	if err != nil {
		return err
	}
	idx, err := os.Create(filepath.Join(outDir, "index.tsv"))
	if err != nil {
		return err
	}
	defer idx.Close()
	fmt.Fprintln(idx, "id\tsession\tts\tcall\trules\tlabelled")
	cache := map[string]*session{}
	for _, n := range nudges(r) {
		// by its files too: a replay can name several sessions alike (a
		// rollout whose session id it lost reads as session "")
		key := n.Session + "\x00" + strings.Join(n.Files, "\x00")
		s, ok := cache[key]
		if !ok {
			s = readSession(n.Files)
			cache = map[string]*session{key: s} // one session at a time in memory
		}
		_, done := labels[n.key()]
		fmt.Fprintf(idx, "%s\t%s\t%s\t%d\t%s\t%v\n", n.ID, n.Session, n.Time.UTC().Format(time.RFC3339Nano), n.Call, strings.Join(n.Rules, ","), done)
		if err := os.WriteFile(filepath.Join(outDir, n.ID+".txt"), []byte(renderAt(n, s.items, s.locate(n))), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "%d nudges in %d tool calls; contexts in %s\n", r.Nudges, r.ToolCalls, outDir)
	return nil
}

// session is one session's steps, and how to find the call a nudge was
// said before.
type session struct {
	items  []item
	locate func(n nudge) int // the index in items of the nudged call, -1 if none
}

// readSession reads a session's files: Codex rollouts, else Claude Code
// transcripts.
func readSession(files []string) *session {
	if isRollout(files) {
		return codexSession(files)
	}
	items := sessionItems(files)
	return &session{items: items, locate: func(n nudge) int { return callAt(n, items) }}
}

// callAt is the first call at or after the nudge's time.
func callAt(n nudge, items []item) int {
	for i, it := range items {
		if it.kind == "call" && !it.at.Before(n.Time) {
			return i
		}
	}
	return -1
}

// renderAt writes one nudge in its context, the nudged call being
// items[at] (-1: not found).
func renderAt(n nudge, items []item, at int) string {
	head := fmt.Sprintf("nudge %s · session %s · before call %d (%s %s) at %s\n\n", n.ID, n.Session, n.Call, n.Tool, n.Preview, n.Time.UTC().Format(time.RFC3339))
	return renderContext(head, ">>> CULLY NUDGE, delivered before the next call:\n"+n.Text+"\n<<<", items, at)
}

// renderContext writes a point of a session in its context: head, the
// task's prompt, the calls before, mark at the point (items[at], -1: not
// found), the calls after.
func renderContext(head, mark string, items []item, at int) string {
	var b strings.Builder
	b.WriteString(head)
	if at < 0 {
		b.WriteString("(the call was not found in the transcript)\n")
		return b.String()
	}
	for i := min(at, len(items)) - 1; i >= 0; i-- { // the task the point belongs to: not a prompt right after it
		if items[i].kind == "prompt" {
			fmt.Fprintf(&b, "TASK PROMPT (%s):\n%s\n\n", items[i].at.UTC().Format("15:04:05"), clip(items[i].body, 1200))
			break
		}
	}
	b.WriteString("BEFORE:\n")
	// Times are shown as a clock; a line marks each new day, so that a
	// night between two calls is seen.
	day := ""
	write := func(it item) {
		if d := it.at.UTC().Format("2006-01-02"); d != day {
			fmt.Fprintf(&b, "--- %s ---\n", d)
			day = d
		}
		writeItem(&b, it)
	}
	start, calls := at, 0
	for start > 0 && calls < callsBefore {
		start--
		if items[start].kind == "call" {
			calls++
		}
	}
	for _, it := range items[start:at] {
		write(it)
	}
	fmt.Fprintf(&b, "\n%s\n\nAFTER:\n", mark)
	calls = 0
	for _, it := range items[at:] {
		if it.kind == "call" {
			calls++
			if calls > callsAfter {
				break
			}
		}
		write(it)
	}
	return b.String()
}

func writeItem(b *strings.Builder, it item) {
	t := it.at.UTC().Format("15:04:05")
	switch it.kind {
	case "prompt":
		fmt.Fprintf(b, "%s USER: %s\n", t, clip(it.body, textRunes))
	case "text":
		fmt.Fprintf(b, "%s AGENT SAYS: %s\n", t, clip(it.body, textRunes))
	case "call":
		fmt.Fprintf(b, "%s CALL %s: %s\n", t, it.tool, clip(it.body, 300))
	case "result":
		fmt.Fprintf(b, "%s   → %s\n", t, clip(it.body, 240))
	}
}

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + " …"
	}
	return s
}

// sessionItems reads a session's transcript files into one ordered list,
// each record once (by uuid).
func sessionItems(files []string) []item {
	seen := map[string]bool{}
	var items []item
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var rec struct {
				Type        string    `json:"type"`
				UUID        string    `json:"uuid"`
				Timestamp   time.Time `json:"timestamp"`
				IsMeta      bool      `json:"isMeta"`
				IsSidechain bool      `json:"isSidechain"`
				Message     struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.UUID != "" && seen[rec.UUID] || rec.IsSidechain {
				continue
			}
			seen[rec.UUID] = true
			items = append(items, recordItems(rec.Type, rec.Timestamp, rec.IsMeta, rec.Message.Content)...)
		}
		fh.Close()
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].at.Before(items[j].at) })
	return items
}

func recordItems(typ string, at time.Time, meta bool, content json.RawMessage) []item {
	var text string
	if json.Unmarshal(content, &text) == nil {
		if typ == "user" && !meta && !strings.HasPrefix(text, "<") {
			return []item{{at: at, kind: "prompt", body: text}}
		}
		return nil
	}
	var blocks []struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		ToolUseID string          `json:"tool_use_id"`
		IsError   bool            `json:"is_error"`
		Content   json.RawMessage `json:"content"`
		Text      string          `json:"text"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return nil
	}
	var out []item
	for _, bl := range blocks {
		switch {
		case bl.Type == "text" && typ == "assistant" && strings.TrimSpace(bl.Text) != "":
			out = append(out, item{at: at, kind: "text", body: bl.Text})
		case bl.Type == "text" && typ == "user" && !meta && !strings.HasPrefix(bl.Text, "<"):
			out = append(out, item{at: at, kind: "prompt", body: bl.Text})
		case bl.Type == "tool_use":
			out = append(out, item{at: at, kind: "call", tool: bl.Name, body: inputSummary(bl.Input), id: bl.ID})
		case bl.Type == "tool_result":
			status := "ok"
			if bl.IsError {
				status = "ERROR"
			}
			out = append(out, item{at: at, kind: "result", body: status + ": " + resultText(bl.Content), id: bl.ToolUseID})
		}
	}
	return out
}

func inputSummary(raw json.RawMessage) string {
	var in map[string]any
	if json.Unmarshal(raw, &in) != nil {
		return string(raw)
	}
	for _, k := range []string{"command", "file_path", "pattern", "path", "url", "query", "description", "prompt", "subagent_type"} {
		if v, ok := in[k].(string); ok && v != "" {
			rest := ""
			if k == "file_path" {
				if _, ok := in["old_string"]; ok {
					rest = " (edit)"
				} else if _, ok := in["content"]; ok {
					rest = " (write)"
				}
			}
			return v + rest
		}
	}
	b, _ := json.Marshal(in)
	return string(b)
}

func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.Join(strings.Fields(s), " ")
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) == nil {
		var parts []string
		for _, b := range blocks {
			parts = append(parts, b.Text)
		}
		return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
	}
	return ""
}
