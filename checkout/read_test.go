package checkout

import (
	"bytes"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// sampleOut is the output of a sample, for tests that reshape it.
func sampleOut(t testing.TB, name string) []byte {
	t.Helper()
	return loadSample(t, filepath.Join("testdata", name+".txt")).out
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// TestReadPlumbing reshapes real samples the way captures and command lines
// do: whole or cut captures, silence, two runs in one output.
func TestReadPlumbing(t *testing.T) {
	goPass := sampleOut(t, "gotest/pass")
	pyPass := sampleOut(t, "pytest/pass")
	pyFail := sampleOut(t, "pytest/fail_tail")
	both := cat(pyFail, pyPass)
	cargo := []byte("running 1 test\rtest result: ok. 1 passed; 0 failed; 0 ignored\r\n")
	for _, c := range []struct {
		name       string
		command    string
		head, tail []byte
		want       Result
	}{
		{"go test prints something when it runs", "go test ./...", nil, nil, r(Unknown, "")},
		{"head kept every line", "go test ./... 2>&1 | head -50", goPass, goPass, r(Pass, "go test").n(2, 0, 0, 1, true)},
		{"head may have cut", "go test ./... 2>&1 | head -3", goPass, goPass, r(Unknown, "")},
		{"tail kept every line", "go test ./... | tail -n 20", goPass, goPass, r(Pass, "go test").n(2, 0, 0, 1, true)},
		{"only the start of a long output", "pytest", pyPass[:len(pyPass)-20], nil, r(Unknown, "")},
		{"only the end of a long output", "pytest", nil, pyPass[len(pyPass)/2:], r(Pass, "pytest").n(2, 0, 0, 1, true)},
		{"a failed run before a passing one", "pytest a; pytest b", both, both, r(Fail, "pytest").n(1, 1, 1, 1, true)},
		{"silence of a runner silent on success", "go vet ./...", nil, nil, r(Pass, "go vet")},
		{"silence through grep", "go vet ./... | grep -v '^#'", nil, nil, r(Unknown, "")},
		{"silence with stderr dropped", "go vet ./... 2>/dev/null", nil, nil, r(Unknown, "")},
		{"silence behind a wrapper", "make vet", nil, nil, r(Unknown, "")},
		{"silence of a cut capture", "go vet ./...", []byte("x"), []byte("y"), r(Unknown, "")},
		{"output sent to a file", "go test ./... > out.txt", nil, nil, r(Unknown, "")},
		{"carriage returns", "cargo test", cargo, cargo, r(Pass, "cargo test").n(1, 0, 0, 0, true)},
		{"a long line is judged by its start", "go test ./pkg",
			cat([]byte("ok  \texample.com/m/"), bytes.Repeat([]byte("x"), 4000), []byte("\t0.1s\n")), nil, r(Unknown, "")},
	} {
		if c.name == "a long line is judged by its start" {
			c.tail = c.head
			c.want = r(Pass, "go test").n(1, 0, 0, 0, true)
		}
		if got := Read(c.command, c.head, c.tail); got != c.want {
			t.Errorf("%s: Read(%q)\n got %+v\nwant %+v", c.name, c.command, got, c.want)
		}
	}
}

// TestReadCutCapture reads a 17 KB go test -v output through 8 KiB windows:
// the verdict is in the tail, the counts are not the whole run's.
func TestReadCutCapture(t *testing.T) {
	out := sampleOut(t, "gotest/verbose_16k")
	h, tl := Split(out, 8<<10)
	if bytes.Equal(h, tl) {
		t.Fatal("the sample should not fit two windows")
	}
	if got, want := Read("go test -v ./p", h, tl), r(Pass, "go test").n(1, 0, 0, 0, false); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := Read("go test -v ./...", h, tl); got.Outcome != Pass {
		t.Errorf("several packages, end visible: got %+v, want a pass", got)
	}
	if got := Read("go test -v ./... | head -400", h, tl); got.Outcome != Unknown {
		t.Errorf("several packages cut by head: got %+v, want unknown", got)
	}
}

func TestSplit(t *testing.T) {
	out := []byte("0123456789")
	if h, tl := Split(out, 5); string(h) != "0123456789" || string(tl) != "0123456789" {
		t.Errorf("short output: %q %q", h, tl)
	}
	if h, tl := Split(out, 3); string(h) != "012" || string(tl) != "789" {
		t.Errorf("long output: %q %q", h, tl)
	}
	if h, tl := Split(out, 0); h != nil || tl != nil {
		t.Errorf("no window: %q %q", h, tl)
	}
}

// TestReadAllocations: Read's memory does not grow with the output.
func TestReadAllocations(t *testing.T) {
	line := []byte("--- PASS: TestCase (0.00s)\n")
	small := cat(bytes.Repeat(line, 10), []byte("ok  \texample.com/p\t0.1s\n"))
	large := cat(bytes.Repeat(line, 2000), []byte("ok  \texample.com/p\t0.1s\n"))
	lh, lt := Split(large, 8<<10)
	a := testing.AllocsPerRun(50, func() { Read("go test -v ./p", small, small) })
	b := testing.AllocsPerRun(50, func() { Read("go test -v ./p", lh, lt) })
	if b > a {
		t.Errorf("allocations grow with the output: %v for %d bytes, %v for %d", a, len(small), b, len(lh)+len(lt))
	}
}

// TestImports keeps the package pure: only bytes, strconv and strings (no
// regexp, nothing of ours, no I/O).
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			switch im.Path.Value {
			case `"bytes"`, `"strconv"`, `"strings"`:
			default:
				t.Errorf("%s imports %s", f, im.Path.Value)
			}
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, name := range allSamples(f) {
		s := loadSample(f, name)
		f.Add(s.command, s.out, 64)
	}
	f.Add("go test ./... | tail -3", []byte("ok  \tx\t0.1s\nFAIL\n"), 4)
	f.Add("", []byte{}, 0)
	f.Fuzz(func(t *testing.T, command string, out []byte, n int) {
		if len(out) > 64<<10 || len(command) > 4<<10 {
			return
		}
		whole := Read(command, out, out)
		if n < 0 {
			n = -n
		}
		h, tl := Split(out, n%(len(out)+2))
		cut := Read(command, h, tl)
		for _, res := range []Result{whole, cut} {
			switch res.Outcome {
			case Pass, Fail:
				if res.Runner == "" {
					t.Fatalf("%+v: a verdict with no runner", res)
				}
			case Unknown:
				if res != (Result{Outcome: Unknown}) {
					t.Fatalf("%+v: unknown with a runner or counts", res)
				}
			default:
				t.Fatalf("outcome %q", res.Outcome)
			}
			if res.Passed < 0 || res.Failed < 0 || res.Errors < 0 || res.Skipped < 0 {
				t.Fatalf("negative counts: %+v", res)
			}
		}
		// A window shows a subset of the lines: what fails there fails whole.
		if cut.Outcome == Fail && whole.Outcome != Fail {
			t.Fatalf("window fails (%+v) but the whole output does not (%+v)", cut, whole)
		}
	})
}

func BenchmarkRead(b *testing.B) {
	out := sampleOut(b, "gotest/verbose_16k")
	h, tl := Split(out, 8<<10)
	b.SetBytes(int64(len(h) + len(tl)))
	b.ReportAllocs()
	for b.Loop() {
		Read("go test -v ./p 2>&1 | tail -n 400", h, tl)
	}
}
