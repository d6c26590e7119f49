package main

type exportOpts struct {
	from string
	once bool
}

// export runs cully-export, the binary beside this one (or on PATH) that
// links the OpenTelemetry SDK: linked here, its package initialisation
// would cost every start of cully about 1.3 ms (cmd/cully-export).
func (a *app) export(o exportOpts) error {
	args := []string{"--from", o.from}
	if o.once {
		args = append(args, "--once")
	}
	return a.runSibling("cully-export", args)
}
