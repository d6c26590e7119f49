// Package agents is the registry of the agents cully watches: one line per
// adapter. Adding an agent is a new folder under hookbridge/ and a line in
// All; everything else (the hook, install, doctor, statusline, replay)
// takes the adapter from here.
package agents
