package secretscan

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/report"
)

// TestGitleaksEverySurface has cmd/cully's every-surface test send the
// regression corpus through the real binaries and write out what each
// surface showed or stored (the journal, session state, nudges, status
// and its JSON, the panel, replay, the ledger, the advisor's prompt, the
// OTLP payload, snapshot and rollback path lists), then has gitleaks judge
// every surface: as it stands, and each word presented as a token. It
// finds nothing. (cully's own check ran in the same test and passed, or
// this one fails first.)
func TestGitleaksEverySurface(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("go", "test", "-count=1", "-run", "^TestSecretCorpusEverySurface$", "./cmd/cully")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "CULLY_SURFACES_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cmd/cully's every-surface test failed (cully's own check): %v\n%s", err, out)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(files) < 15 {
		t.Fatalf("want every surface written out, found %d: %v", len(files), err)
	}
	d := newJudge(t)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		surface := strings.TrimSuffix(filepath.Base(f), ".txt")
		text := string(b)
		var fs []report.Finding
		for _, f := range d.DetectString(text) {
			if !ownWord(f.Secret) {
				fs = append(fs, f)
			}
		}
		if len(fs) > 0 {
			t.Errorf("%s: gitleaks finds secrets as it stands:%s", surface, describe(fs))
		}
		seen := map[string]bool{}
		for _, w := range fields(text) {
			if len(w) < 8 || seen[w] || ownWord(w) {
				continue
			}
			seen[w] = true
			if fs := d.DetectString(wrap(w)); len(fs) > 0 {
				t.Errorf("%s: gitleaks judges %q, shown there, a secret:%s", surface, w, describe(fs))
			}
		}
		t.Logf("%s: %d bytes, %d distinct words judged", surface, len(b), len(seen))
	}
}

// ownWord tells the identifiers cully itself writes (fingerprints such as
// a checkpoint's "key", trace and span ids, run ids: hex or UUIDs; times)
// from a word a secret could be: random as they are, they are no secret,
// and gitleaks' generic rule takes a fingerprint after "key" for one.
func ownWord(w string) bool {
	if isUUID(w) || strings.HasPrefix(w, "TestSecretCorpusEverySurface") { // the test's own folder
		return true
	}
	hex, clock := true, true
	for i := 0; i < len(w); i++ {
		c := w[i]
		hex = hex && (c >= '0' && c <= '9' || c >= 'a' && c <= 'f')
		clock = clock && (c >= '0' && c <= '9' || strings.IndexByte(".:-+TZ", c) >= 0) // times: 36.852940197Z
	}
	return hex || clock
}
