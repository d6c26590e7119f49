package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"cully/engine"
)

type ackOpts struct {
	which
	all bool
}

func (a *app) ack(o ackOpts, ids []string) error {
	all := &o.all
	if !*all && len(ids) == 0 {
		return fmt.Errorf("%w: name the checkpoints to acknowledge (cully ack c1 c2) or pass --all; `cully status` lists the open ones", errUsage)
	}
	h, err := a.home()
	if err != nil {
		return err
	}
	p, err := a.sessionFor(h, o.which, changes)
	if err != nil {
		return err
	}
	id := p.id
	st, err := h.ReadState(id, nil)
	if errors.Is(err, os.ErrNotExist) { // gone since it was found
		return unknownSession(h, id, nil)
	}
	if err != nil {
		return fail(codeState, err, "cannot read session %s: %s (run `cully status --rebuild` to rebuild it from the journal)", shortID(id), plain(err))
	}
	open := map[string]bool{}
	var openIDs []string
	for _, c := range st.OpenCheckpoints() {
		open[c.ID] = true
		openIDs = append(openIDs, c.ID)
	}
	for _, x := range ids {
		if !open[x] {
			which := "none is open"
			if len(openIDs) > 0 {
				which = "open: " + strings.Join(openIDs, ", ")
			}
			return fmt.Errorf("no open checkpoint %q in session %s (%s; `cully status` lists them all)", x, shortID(id), which)
		}
	}
	if *all {
		if len(open) == 0 {
			fmt.Fprintf(a.stdout, "no open checkpoints in session %s\n", shortID(id))
			return nil
		}
		ids = []string{"*"}
	}
	sigs, err := a.recordAck(h, id, ids)
	if err != nil {
		return fail(errorCode(err), err, "cannot record the acknowledgment: %s", plain(err))
	}
	for _, s := range sigs {
		if s.Kind == engine.SignalAck {
			fmt.Fprintf(a.stdout, "acknowledged %s (%s)\n", s.ID, s.Reason)
		}
	}
	return nil
}
