package tui

import (
	"github.com/charmbracelet/x/ansi"

	"cully/engine"
	"cully/tailer"
)

func displayWidth(s string) int { return ansi.StringWidth(s) }

func batchOf(evs ...*engine.Event) tailer.Batch { return tailer.Batch{Events: evs} }
