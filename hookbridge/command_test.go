package hookbridge

import (
	"strings"
	"testing"

	"cully/redact"
)

func TestPreviewBounded(t *testing.T) {
	long := strings.Repeat("é", 500)
	if n := len([]rune(Preview(long))); n != redact.ClipRunes {
		t.Fatalf("preview has %d runes", n)
	}
	if Preview("go   test\n  ./...") != "go test ./..." {
		t.Fatal("preview should collapse whitespace")
	}
	// A marker at the cut is dropped whole, never left as "[RE…", which
	// redaction would read as a value to redact again.
	for pad := 140; pad < 160; pad++ {
		p := Preview(strings.Repeat("x", pad) + " TOKEN=Xk9pQ2mZ7rT4vB8nL1wq more")
		if redact.Text(p) != p || strings.Contains(p, "Xk9p") {
			t.Errorf("preview %q cuts its marker", p)
		}
	}
}
