package checkout

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sample is one file of testdata/<runner>/<case>.txt: comment lines (`# …`),
// then `$ command`, then the output the command printed.
type sample struct {
	path    string
	command string
	out     []byte
	fromDoc bool // written from the runner's documentation, not run here
}

func loadSample(t testing.TB, path string) sample {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sample{path: path}
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			i = len(data)
		}
		ln := string(data[:i])
		if i < len(data) {
			data = data[i+1:]
		} else {
			data = nil
		}
		if strings.HasPrefix(ln, "$ ") {
			s.command = ln[2:]
			break
		}
		if !strings.HasPrefix(ln, "#") {
			t.Fatalf("%s: no `$ command` line before the output", path)
		}
		if strings.Contains(ln, "from documentation, not run here") {
			s.fromDoc = true
		}
		if data == nil {
			t.Fatalf("%s: no `$ command` line", path)
		}
	}
	s.out = data
	return s
}

func allSamples(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	return files
}
