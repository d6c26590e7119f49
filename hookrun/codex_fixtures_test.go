package hookrun

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Every captured Codex payload, in capture order, goes through the hook's
// whole path with the run's rollout growing as it did in the real run
// (before each hook, the lines written up to its start): the answers and
// the journal records must equal the golden file byte for byte. The
// rollout's path is rewritten to the copy; the records keep no path of it.
func TestCodexCapturedFixturesByteForByte(t *testing.T) {
	var out bytes.Buffer
	fixtures := filepath.Join("..", "hookbridge", "codex", "testdata")
	for _, run := range []string{"inject", "block", "skill-probe"} {
		files, err := filepath.Glob(filepath.Join(fixtures, run, "*.json"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no fixtures in %s: %v", run, err)
		}
		sort.Strings(files)
		rollout, err := os.ReadFile(filepath.Join(fixtures, run, "rollout.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.SplitAfter(rollout, []byte{'\n'})
		home := t.TempDir()
		path := filepath.Join(home, "rollout.jsonl")
		written := 0
		env := map[string]string{
			"CULLY_HOME":   home,
			"CULLY_NOW":    "2026-11-30T12:00:00Z",
			"CULLY_CONFIG": filepath.Join(home, "none.toml"),
		}
		for _, f := range files {
			ns, _ := strconv.ParseInt(strings.SplitN(filepath.Base(f), "-", 2)[0], 10, 64)
			at := time.Unix(0, ns).UTC().Format("2006-01-02T15:04:05.000Z")
			var grow []byte
			for written < len(lines) && len(lines[written]) > 0 && string(lines[written][14:38]) <= at {
				grow = append(grow, lines[written]...)
				written++
			}
			fh, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			fh.Write(grow)
			fh.Close()
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			raw = transcriptPath.ReplaceAll(raw, []byte(`"transcript_path":"`+path+`"`))
			var stdout, stderr bytes.Buffer
			Run(IO{Stdin: bytes.NewReader(raw), Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return env[k] }}, "codex")
			fmt.Fprintf(&out, "== codex/%s/%s\nanswer: %s\n", run, filepath.Base(f), stdout.String())
			if stderr.Len() > 0 {
				t.Errorf("%s: stderr %q", f, stderr.String())
			}
		}
		journal, err := os.ReadFile(filepath.Join(home, "journal.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(journal, []byte(home)) {
			t.Errorf("%s: the journal names the rollout's path", run)
		}
		// The rollout is named by a hash of its path, which is a temporary one here.
		journal = fileHash.ReplaceAll(journal, []byte(`"file":"(hash of the rollout's path)"`))
		fmt.Fprintf(&out, "== codex/%s journal\n%s", run, journal)
	}
	golden := filepath.Join("testdata", "codex-fixtures.golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("hook answers or journal records differ from %s (run with -update only for a deliberate change)\n%s", golden, firstDiff(out.Bytes(), want))
	}
}

var (
	transcriptPath = regexp.MustCompile(`"transcript_path":"[^"]*"`)
	fileHash       = regexp.MustCompile(`"file":"[0-9a-f]+"`)
)
