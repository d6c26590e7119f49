package hookbridge

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// Lines cuts lines as bufio.ScanLines does (empty lines kept, a CR before
// the newline dropped, a last line without newline kept), and skips, with
// a count, a line longer than its limit, whether it fits the read buffer
// or not.
func TestLines(t *testing.T) {
	in := "a\r\n\nb\n" + strings.Repeat("x", 50) + "\n" + strings.Repeat("y", 3<<20) + "\nc\r"
	var want []string
	sc := bufio.NewScanner(strings.NewReader(in))
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		if len(sc.Bytes()) <= 40 {
			want = append(want, sc.Text())
		}
	}
	var got []string
	long, err := lines(strings.NewReader(in), 40, func(l []byte) error {
		got = append(got, string(l))
		return nil
	})
	if err != nil || long != 2 || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q long %d err %v; want %q long 2", got, long, err, want)
	}
	var first []string
	if _, err := Lines(bytes.NewReader([]byte("1\n2\n3\n")), func(l []byte) error {
		first = append(first, string(l))
		if len(first) == 2 {
			return ErrStop
		}
		return nil
	}); err != nil || len(first) != 2 {
		t.Fatalf("ErrStop: %q %v", first, err)
	}
}
