package main

type daemonOpts struct {
	listen string
	token  bool
}

// daemon runs cully-daemon, the binary beside this one (or on PATH) that
// serves hook calls over HTTP: net/http, linked here, would add its
// start-up to every cully, which the status line starts on every refresh.
func (a *app) daemon(o daemonOpts) error {
	var args []string
	if o.listen != "" {
		args = append(args, "--listen", o.listen)
	}
	if o.token {
		args = append(args, "--token")
	}
	return a.runSibling("cully-daemon", args)
}
