package engine

import (
	"strings"
	"testing"
)

// Every C0 control but newline and tab, DEL, every C1 control and every
// bidirectional control is shown as text; everything else stays.
func TestShowControls(t *testing.T) {
	var in strings.Builder
	for r := rune(0); r < 0x20; r++ {
		in.WriteRune(r)
	}
	in.WriteRune(0x7f)
	for r := rune(0x80); r <= 0x9f; r++ {
		in.WriteRune(r)
	}
	for _, r := range []rune{0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069} {
		in.WriteRune(r)
	}
	out := ShowControls(in.String())
	for _, r := range out {
		if IsControl(r) {
			t.Errorf("%U left raw in %q", r, out)
		}
	}
	for _, want := range []string{`\x00`, `\x1b`, `\x7f`, `\u009b`, `\u009d`, `\u202e`, `\u2066`, "\n", "\t"} {
		if !strings.Contains(out, want) {
			t.Errorf("%q not in %q", want, out)
		}
	}
	for _, keep := range []string{"go test ./...", "héllo wörld ✓ 日本", "a\nb\tc", ""} {
		if got := ShowControls(keep); got != keep {
			t.Errorf("ShowControls(%q) = %q", keep, got)
		}
	}
}

// Dollar figures are capped: a host's 1e308 is no 309-digit line.
func TestUSD(t *testing.T) {
	nan := 0.0
	nan /= nan
	for v, want := range map[float64]string{0: "$0.00", 0.42: "$0.42", 12345.678: "$12345.68", 999999.99: "$999999.99",
		1e6: "$1000000+", 1e308: "$1000000+", -1: "$?"} {
		if got := USD(v); got != want {
			t.Errorf("USD(%v) = %q, want %q", v, got, want)
		}
	}
	if got := USD(nan); got != "$?" {
		t.Errorf("USD(NaN) = %q", got)
	}
}
