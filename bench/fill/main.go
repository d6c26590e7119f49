// Command fill writes a large journal and its session states by the same
// code the hook uses, so benchmarks can show the hook cost is flat in
// journal size.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"cully/engine"
	"cully/store"
)

func main() {
	events := flag.Int("events", 1_000_000, "events to write")
	sessions := flag.Int("sessions", 50, "sessions to spread them over")
	hot := flag.String("hot", "0e9b095a-15ce-4954-9bab-4ee72ac1d24e", "one session id among them (the captured fixtures' session)")
	flag.Parse()
	h := store.Home{Dir: os.Getenv("CULLY_HOME")}
	if err := h.Ensure(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cfg := engine.DefaultConfig()
	states := map[string]*engine.State{}
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	batch := make([][]byte, 0, 4096)
	for i := 0; i < *events; i++ {
		sid := fmt.Sprintf("fill-%03d", i%*sessions)
		if i%*sessions == 0 {
			sid = *hot // the session the benchmark's payloads belong to
		}
		st := states[sid]
		if st == nil {
			st = engine.NewState(sid)
			states[sid] = st
		}
		// Many distinct files whole-read, and a failing command every seventh
		// call or so, so every session's state sits at its caps: the worst case for
		// the hook's state load.
		at := t0.Add(time.Duration(i) * time.Second)
		size, mt := int64(8000), at.Add(-time.Hour)
		ev := &engine.Event{V: 1, Time: at, Agent: "claude", Session: sid,
			Hook: "PostToolUse", Kind: engine.KindPostTool, Tool: "Read", Class: engine.ClassRead,
			Target: fmt.Sprintf("src/pkg%02d/file%04d.go", i%17, (i/(*sessions))%3000), Outcome: engine.OutcomeOK, Size: &size, Mtime: &mt}
		if i%7 == 0 { // 7 is coprime with the session count, so every session gets both kinds
			one := 1
			ev = &engine.Event{V: 1, Time: at, Agent: "claude", Session: sid, Hook: "PostToolUseFailure", Kind: engine.KindPostTool,
				Tool: "Bash", Class: engine.ClassRun, Cmd: fmt.Sprintf("make target%d", (i/350)%500), CmdFP: fmt.Sprint("fp", (i/350)%500),
				Outcome: engine.OutcomeFailed, Exit: &one, FailSig: "sig"}
		}
		ev.Signals = engine.Apply(st, ev, &cfg)
		batch = append(batch, store.AppendEvent(nil, ev))
		if len(batch) == cap(batch) {
			if err := h.Append(batch...); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			batch = batch[:0]
		}
	}
	if len(batch) > 0 {
		h.Append(batch...)
	}
	for _, st := range states {
		if err := h.SaveState(st); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
