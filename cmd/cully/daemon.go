package main

type daemonOpts struct{ listen string }

// daemon runs cully-daemon, the binary beside this one (or on PATH) that
// serves Claude Code's http hooks: net/http, linked here, would add its
// start-up to every cully, which the status line starts on every refresh.
func (a *app) daemon(o daemonOpts) error {
	return a.runSibling("cully-daemon", []string{"--listen", o.listen})
}
