package advisor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
	"unicode"

	"cully/redact"
)

// maxOutput is what is kept of a worker's stdout: advice is three
// sentences, research five lines.
const maxOutput = 16 << 10

// maxAdvice bounds the advice the agent is handed (bytes, cut at a rune).
const maxAdvice = 1200

// WorkerEnv marks a worker's environment: a hook running inside a worker
// (a headless agent with cully installed) never starts another advisor.
const WorkerEnv = "CULLY_ADVISOR_WORKER"

// Outcomes of a worker run.
const (
	OutcomeOK      = "ok"
	OutcomeEmpty   = "empty"   // exit 0 with nothing on stdout
	OutcomeFailed  = "failed"  // a non-zero exit, or it could not start
	OutcomeTimeout = "timeout" // killed at its deadline, with its process group
)

// Run runs argv with the prompt on stdin under the deadline and returns
// what it printed (bounded) and how it ended. The worker inherits cully's
// environment (CULLY_NOW included) plus WorkerEnv=1. At the deadline its
// whole process group is killed.
func Run(argv []string, prompt string, deadline time.Duration) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), WorkerEnv+"=1")
	cmd.Stdin = strings.NewReader(prompt)
	var out limited
	cmd.Stdout = &out
	ownGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = 2 * time.Second // a grandchild that left the group and holds stdout open is not waited for
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		if cmd.Process != nil {
			_ = killGroup(cmd)
		}
		return out.String(), OutcomeTimeout, fmt.Errorf("worker %s passed its %v deadline: killed with its process group", argv[0], deadline)
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out.String(), OutcomeFailed, fmt.Errorf("worker %s: %v", argv[0], ee)
		}
		return "", OutcomeFailed, fmt.Errorf("worker %s: %w", argv[0], err)
	case strings.TrimSpace(out.String()) == "":
		return "", OutcomeEmpty, nil
	}
	return out.String(), OutcomeOK, nil
}

// limited keeps the first maxOutput bytes written to it.
type limited struct{ bytes.Buffer }

func (l *limited) Write(p []byte) (int, error) {
	if room := maxOutput - l.Len(); room > 0 {
		l.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// Tidy turns a worker's output into text for the journal and the agent:
// redacted, control characters dropped, lines joined, bounded.
func Tidy(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(redact.Text(s)), " ")
	if len(s) > maxAdvice {
		cut := maxAdvice
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
