package hookrun

import (
	"os/signal"
	"syscall"
)

// IgnoreSIGPIPE keeps a host that closed its end of the pipe early from
// killing the hook mid-record: the answer's write then fails with EPIPE,
// which the hook ignores, and the record is still written.
func IgnoreSIGPIPE() { signal.Ignore(syscall.SIGPIPE) }
