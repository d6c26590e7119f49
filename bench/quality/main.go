// Command quality measures the rules on real recorded sessions: it runs
// `cully replay --json` over a corpus of Claude Code transcripts and Codex
// rollouts and either writes one context file per nudge for labelling, or
// joins the nudges with their labels and prints docs/quality.md.
//
//	go run ./bench/quality contexts CORPUS OUTDIR   # context files, outside the repository
//	go run ./bench/quality sessions CORPUS OUTDIR   # whole sessions, calls numbered, for marking moments blind
//	go run ./bench/quality signals CORPUS OUTDIR    # one context per checkpoint or guard, for judging shown signals blind
//	go run ./bench/quality report CORPUS > docs/quality.md
//	go run ./bench/quality runaways CORPUS [OUTDIR]  # run control's alerts; blind contexts in OUTDIR
//
// QUALITY_CONFIG names a cully config file to replay with instead of the
// defaults, to measure a variant. CORPUS is a folder of transcripts (../shared/corpus/rebuild.sh writes
// one). Labels live in bench/quality/labels.tsv: one line per nudge,
// keyed by session and the time of the call it was said on. The context
// files hold prompt and transcript text and never enter the repository;
// the labels hold only the verdict and one line of reason.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

const (
	labelsFile  = "bench/quality/labels.tsv"
	momentsFile = "bench/quality/moments.tsv" // marked blind: the recall's base
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: quality contexts CORPUS OUTDIR | quality sessions CORPUS OUTDIR | quality signals CORPUS OUTDIR | quality runaways CORPUS [OUTDIR] | quality report CORPUS")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "contexts":
		if len(os.Args) != 4 {
			err = fmt.Errorf("usage: quality contexts CORPUS OUTDIR")
			break
		}
		err = contexts(os.Args[2], os.Args[3])
	case "runaways":
		out := ""
		switch len(os.Args) {
		case 3:
		case 4:
			out = os.Args[3]
		default:
			err = fmt.Errorf("usage: quality runaways CORPUS [OUTDIR]")
		}
		if err == nil {
			err = runaways(os.Args[2], out)
		}
	case "signals":
		if len(os.Args) != 4 {
			err = fmt.Errorf("usage: quality signals CORPUS OUTDIR")
			break
		}
		err = signals(os.Args[2], os.Args[3])
	case "sessions":
		if len(os.Args) != 4 {
			err = fmt.Errorf("usage: quality sessions CORPUS OUTDIR")
			break
		}
		err = sessions(os.Args[2], os.Args[3])
	case "report":
		err = report(os.Args[2])
	default:
		err = fmt.Errorf("unknown verb %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "quality:", err)
		os.Exit(1)
	}
}

// replayOut is the part of `cully replay --json` this tool reads.
type replayOut struct {
	Files     int   `json:"files"`
	Bytes     int64 `json:"bytes"`
	ToolCalls int   `json:"tool_calls"`
	Nudges    int   `json:"nudges"`
	// Checkpoints counts the checkpoints each rule raised: what the
	// status view shows.
	Checkpoints map[string]int `json:"checkpoints"`
	Moments     *struct {
		Moments, Caught, NotFound int
		ByKind                    map[string]struct{ Moments, Caught int } `json:"by_kind"`
	} `json:"moments"`
	Sessions []struct {
		File      string    `json:"file"`
		Files     []string  `json:"files"`
		Session   string    `json:"session"`
		ToolCalls int       `json:"tool_calls"`
		Findings  []finding `json:"findings"`
	} `json:"sessions"`
}

type finding struct {
	Call     int        `json:"call"`
	Kind     string     `json:"kind"`
	Reason   string     `json:"reason"`
	Evidence string     `json:"evidence"`
	Text     string     `json:"text"`
	Time     *time.Time `json:"ts"`
	Tool     string     `json:"tool"`
	Preview  string     `json:"preview"`
}

// nudge is one nudge with the rules that made it.
type nudge struct {
	ID, Session string
	Time        time.Time
	Call        int
	Rules       []string
	Text        string
	Tool        string
	Preview     string
	Files       []string
}

// key joins a nudge to its label.
func (n nudge) key() string { return n.Session + "\t" + n.Time.UTC().Format(time.RFC3339Nano) }

// replay runs this checkout's cully over the corpus, with the defaults or
// with QUALITY_CONFIG.
func replay(corpus string) (*replayOut, error) {
	return replayWith(corpus, os.Getenv("QUALITY_CONFIG"))
}

// replayWith runs this checkout's cully over the corpus with a config file
// ("" for the defaults).
func replayWith(corpus, configFile string) (*replayOut, error) {
	bin, err := os.MkdirTemp("", "cully-quality-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(bin)
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "cully"), "./cmd/cully")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("build cully: %w", err)
	}
	args := []string{"replay", "--json"}
	if _, err := os.Stat(momentsFile); err == nil {
		args = append(args, "--moments", momentsFile)
	}
	cmd := exec.Command(filepath.Join(bin, "cully"), append(args, corpus)...)
	config := filepath.Join(bin, "none.toml") // the defaults, whatever the user set
	if configFile != "" {
		config = configFile // a variant under study
	}
	cmd.Env = append(os.Environ(), "CULLY_CONFIG="+config)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("cully replay: %w", err)
	}
	var r replayOut
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("read replay output: %w", err)
	}
	return &r, nil
}

// nudges lists every nudge with its rules: the checkpoints it delivers
// (named in its text) and the guards raised on the same call.
func nudges(r *replayOut) []nudge {
	var out []nudge
	for _, s := range r.Sessions {
		for i, f := range s.Findings {
			if f.Kind != "nudge" || f.Time == nil {
				continue
			}
			n := nudge{Session: s.Session, Time: *f.Time, Call: f.Call, Text: f.Text, Tool: f.Tool, Preview: f.Preview, Files: s.Files}
			for _, ln := range strings.Split(f.Text, "\n") {
				if rest, ok := strings.CutPrefix(ln, "cully checkpoint "); ok {
					if a, b := strings.IndexByte(rest, '('), strings.IndexByte(rest, ')'); a >= 0 && b > a {
						n.Rules = append(n.Rules, rest[a+1:b])
					}
				}
			}
			for j := i - 1; j >= 0 && s.Findings[j].Call == f.Call; j-- {
				if s.Findings[j].Kind == "guard" {
					n.Rules = append(n.Rules, s.Findings[j].Reason)
				}
			}
			sort.Strings(n.Rules)
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Session != out[j].Session {
			return out[i].Session < out[j].Session
		}
		return out[i].Time.Before(out[j].Time)
	})
	for i := range out {
		out[i].ID = fmt.Sprintf("n%03d", i+1)
	}
	return out
}

// label is one line of labels.tsv.
type label struct {
	Session, Time, Rules, Verdict, Reason string
}

func readLabels() (map[string]label, error) {
	f, err := os.Open(labelsFile)
	if os.IsNotExist(err) {
		return map[string]label{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]label{}
	sc := bufio.NewScanner(f)
	for line := 0; sc.Scan(); line++ {
		t := sc.Text()
		if line == 0 || strings.HasPrefix(t, "#") || strings.TrimSpace(t) == "" {
			continue
		}
		p := strings.Split(t, "\t")
		if len(p) != 5 {
			return nil, fmt.Errorf("%s:%d: want 5 tab-separated fields, got %d", labelsFile, line+1, len(p))
		}
		if p[3] != "worth" && p[3] != "noise" {
			return nil, fmt.Errorf("%s:%d: verdict is worth or noise, not %q", labelsFile, line+1, p[3])
		}
		m[p[0]+"\t"+p[1]] = label{p[0], p[1], p[2], p[3], p[4]}
	}
	return m, sc.Err()
}
