// Command doclinks checks the relative links of the user docs (README.md,
// AGENTS.md and docs/*.md): every linked file exists, and every #anchor
// names a heading of its page, as GitHub makes heading anchors. Links in
// code blocks and code spans are text, not links. Run from the repository's
// root (.ci/run does): go run ./.ci/doclinks
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

var (
	link    = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	imgSrc  = regexp.MustCompile(`<img[^>]*\ssrc="([^"]+)"`)
	heading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	codeRun = regexp.MustCompile("`+[^`]*`+")
)

func main() {
	files, _ := filepath.Glob("docs/*.md")
	files = append([]string{"README.md", "AGENTS.md"}, files...)
	bad := 0
	anchors := map[string]map[string]bool{}
	for _, f := range files {
		lines, err := readLines(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for n, l := range lines {
			var targets []string
			for _, m := range link.FindAllStringSubmatch(codeRun.ReplaceAllString(l, ""), -1) {
				targets = append(targets, m[1])
			}
			for _, m := range imgSrc.FindAllStringSubmatch(l, -1) {
				targets = append(targets, m[1])
			}
			for _, t := range targets {
				if strings.Contains(t, "://") || strings.HasPrefix(t, "mailto:") {
					continue
				}
				if why := check(f, t, anchors); why != "" {
					fmt.Printf("%s:%d: %s: %s\n", f, n+1, t, why)
					bad++
				}
			}
		}
	}
	if bad > 0 {
		fmt.Printf("doclinks: %d broken links\n", bad)
		os.Exit(1)
	}
	fmt.Printf("doclinks: every relative link of %d files resolves\n", len(files))
}

// check says what is wrong with target, linked from file, or "".
func check(file, target string, anchors map[string]map[string]bool) string {
	path, frag, _ := strings.Cut(target, "#")
	dest := file
	if path != "" {
		dest = filepath.Join(filepath.Dir(file), path)
		if _, err := os.Stat(dest); err != nil {
			return "no such file"
		}
	}
	if frag == "" || !strings.HasSuffix(dest, ".md") {
		return ""
	}
	if anchors[dest] == nil {
		lines, err := readLines(dest)
		if err != nil {
			return err.Error()
		}
		anchors[dest] = slugs(lines)
	}
	if !anchors[dest][frag] {
		return "no heading with this anchor in " + dest
	}
	return ""
}

// slugs returns the anchors GitHub gives the headings outside code blocks:
// lower case, punctuation but '-' and '_' dropped, spaces to '-', a repeated
// anchor numbered -1, -2...
func slugs(lines []string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range lines {
		m := heading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		s := b.String()
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// readLines returns the file's lines with fenced code blocks blanked.
func readLines(name string) ([]string, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(b), "\n")
	fence := ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case fence == "" && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			fence = t[:3]
			lines[i] = ""
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			lines[i] = ""
		}
	}
	return lines, nil
}
