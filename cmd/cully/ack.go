package main

import (
	"fmt"

	"cully/engine"
)

type ackOpts struct {
	session string
	all     bool
}

func (a *app) ack(o ackOpts, ids []string) error {
	session, all := &o.session, &o.all
	if !*all && len(ids) == 0 {
		return fmt.Errorf("%w: name checkpoint ids or pass --all", errUsage)
	}
	h, err := a.home()
	if err != nil {
		return err
	}
	id, err := a.session(h, *session)
	if err != nil {
		return err
	}
	st, err := h.ReadState(id)
	if err != nil {
		return fmt.Errorf("load session %s: %w", id, err)
	}
	open := map[string]bool{}
	for _, c := range st.OpenCheckpoints() {
		open[c.ID] = true
	}
	for _, x := range ids {
		if !open[x] {
			return fmt.Errorf("no open checkpoint %q in session %s", x, shortID(id))
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
		return err
	}
	for _, s := range sigs {
		if s.Kind == engine.SignalAck {
			fmt.Fprintf(a.stdout, "acknowledged %s (%s)\n", s.ID, s.Reason)
		}
	}
	return nil
}
