package main

import (
	"cully/engine"
	"cully/store"
)

// record stamps an event that cully itself originates (an ack, the host's
// usage figures) with the clock and appends it through the same reducer and
// locks as the hook.
func (a *app) record(h store.Home, ev *engine.Event) ([]engine.Signal, error) {
	now, _ := a.now()
	cfg := a.config()
	ev.V, ev.Time = engine.SchemaVersion, now.UTC()
	return h.Record(ev, &cfg)
}

// recordAck acknowledges checkpoints: the hook stops nudging for them.
func (a *app) recordAck(h store.Home, session string, ids []string) ([]engine.Signal, error) {
	return a.record(h, &engine.Event{Agent: "cully", Session: session, Kind: engine.KindAck, Hook: "ack", Ack: ids})
}
