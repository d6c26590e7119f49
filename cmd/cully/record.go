package main

import (
	"cully/engine"
	"cully/ledger"
)

// recordAck appends an ack event through the same reducer and locks as the
// hook, so the hook stops nudging for those checkpoints.
func (a *app) recordAck(h ledger.Home, session string, ids []string) ([]engine.Signal, error) {
	now, _ := a.now()
	cfg, _ := a.config(a.projectDir())
	ev := &engine.Event{V: engine.SchemaVersion, Time: now.UTC(), Agent: "cully", Session: session, Kind: engine.KindAck, Hook: "ack", Ack: ids}
	return h.Record(ev, &cfg)
}
