package redact

import (
	"os"
	"strings"
	"testing"
	"time"
)

// The hook redacts commands of up to 16 MiB, so no input may make
// redaction superlinear: ten times the input may cost about ten times the
// time. A quadratic scan costs a hundred times; 60 leaves room for noise
// and for buffers outgrowing the caches.
func TestRedactLinear(t *testing.T) {
	if testing.Short() || os.Getenv("CULLY_TIMING_TESTS") == "" {
		t.Skip("a timing comparison: .ci/run runs it on its own, without the race detector (CULLY_TIMING_TESTS=1)")
	}
	unit := map[string]string{
		"json-one-line":    `{"a":"b","password":"x1"},`,
		"quoted-equals":    `X="a" `,
		"closing-quote":    `grep "TOKEN=" . `,
		"failing-tokens":   "ghp_a_",
		"pem-without-end":  "-----BEGIN PRIVATE KEY----- ",
		"urls-in-one-word": "a://b:c@@",
		"colon-values":     "token: (",
		"sql-unclosed":     "PASSWORD '",
		"many-flags":       "-p ",
		"secrets-set":      "secrets set A=b ",
		"quoted-commands":  `"a b" `,
		"heredocs":         "<<EOF ",
		"substitutions":    "$(a ",
		"jwt-pieces":       "eyJaaaaaaaaaaaa.eyJ",
		"cred-calls":       "login('a', '",
		"cred-pairs":       "auth=('",
		"short-p-flags":    "-p Aa1aaaaa ",
		"letter-runs":      "sk-aaaaaaaaaa-",
	}
	prefix := map[string]string{"many-flags": "docker login ", "secrets-set": "fly ", "short-p-flags": "./x "}
	for name, u := range unit {
		cost := func(n int) time.Duration {
			in := prefix[name] + strings.Repeat(u, n)
			best := time.Duration(1 << 62)
			for range 3 {
				start := time.Now()
				Text(in)
				best = min(best, time.Since(start))
			}
			return best
		}
		// A superlinear scan is slow every time; a machine busy with
		// something else only some of the time: a case fails when three
		// measurements in a row all do.
		var small, large time.Duration
		for range 3 {
			small, large = max(cost(2000), 50*time.Microsecond), cost(20000)
			if large <= 60*small {
				break
			}
		}
		if large > 60*small {
			t.Errorf("%s: %d bytes take %v, ten times as many %v (three times over)", name, 2000*len(u), small, large)
		}
	}
}
