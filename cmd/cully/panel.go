package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"cully/engine"
	"cully/hookbridge"
	"cully/hookbridge/agents"
	"cully/runs"
	"cully/store"
	"cully/tailer"
	"cully/tui"
	"cully/usage"
)

// panelFPS caps Bubble Tea's renderer, which wakes at a fixed rate even
// when nothing changes (measured idle CPU scales with it: 60 fps cost
// 540 ms a minute, 1 fps 40 ms). 10 frames a second keeps a key press
// answered within 100 ms.
const panelFPS = 10

// minPanelWidth is the narrowest pane the panel lays out (narrower, it
// draws at this width and the terminal cuts it).
const minPanelWidth = 20

// splitWidth is the default width of `cully panel --split`: enough for the
// checkpoint lines of a side pane without crowding the agent's pane.
const splitWidth = 56

type panelOpts struct {
	session string
	split   bool
	width   int
}

func (a *app) panel(ctx context.Context, o panelOpts) error {
	session, split, width := &o.session, &o.split, &o.width
	if *split {
		if *width < minPanelWidth {
			return fmt.Errorf("%w: --width takes at least %d columns, the panel's narrowest, not %d", errUsage, minPanelWidth, *width)
		}
		return a.splitPane(*session, *width)
	}
	// Bubble Tea started without a terminal fails in its own words ("could
	// not create cancelable reader"): say what to do instead.
	if !isTerminal(a.stdin) || !isTerminal(a.stdout) {
		return fail(codeNoTerminal, nil, "cully panel needs a terminal: run it in a terminal or a tmux pane (`cully panel --split` from inside tmux); for a one-shot view use `cully status`")
	}
	h, err := a.home()
	if err != nil {
		return err
	}
	if err := checkHome(h); err != nil {
		return err
	}
	if *session != "" {
		if *session, err = a.session(h, *session); err != nil {
			return err
		}
	}
	return a.runPanel(ctx, h, *session, nil)
}

// splitPane opens `cully panel` in a tmux pane to the right of this one.
func (a *app) splitPane(session string, width int) error {
	if a.getenv("TMUX") == "" {
		return errors.New("not inside tmux: start tmux and run `cully panel --split` there, or open a side pane yourself and run `cully panel` in it")
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find cully's own binary to run in the new pane (%v): open a side pane yourself and run `cully panel` in it", err)
	}
	// -d: the new pane does not take the focus. The user's next keys belong
	// to the agent's pane; a panel that took them would read a stray `a` as
	// an acknowledgment.
	cmd := []string{"split-window", "-h", "-d", "-l", strconv.Itoa(width)}
	// In this folder, as tmux would not (it starts a pane in the tmux
	// session's folder): the panel follows the sessions of the folder
	// it starts in first.
	if wd, err := os.Getwd(); err == nil {
		cmd = append(cmd, "-c", wd)
	}
	// The new pane gets the tmux server's environment, not ours: carry over
	// what decides which state cully shows and how.
	for _, k := range []string{"CULLY_HOME", "CULLY_CONFIG", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "HOME", "NO_COLOR", "VTE_VERSION"} {
		if v := a.getenv(k); v != "" {
			cmd = append(cmd, "-e", k+"="+v)
		}
	}
	cmd = append(cmd, "--", self, "panel")
	if session != "" {
		cmd = append(cmd, "--session", session)
	}
	if out, err := exec.Command("tmux", cmd...).CombinedOutput(); err != nil {
		why := strings.TrimSpace(string(out))
		if why == "" {
			why = err.Error()
		}
		return fmt.Errorf("tmux could not open the pane (%s): open a side pane yourself and run `cully panel` in it", why)
	}
	fmt.Fprintln(a.stdout, "cully panel opened in a pane to the right (the focus stays here; switch to it with your tmux prefix and an arrow)")
	return nil
}

// runPanel runs the panel on a state dir until the user quits or ctx
// ends. feed, when set, runs beside it (the demo's scripted session) and
// can send the panel messages; runPanel returns once it has stopped, so
// that nothing writes to the state dir after, and with its error when it
// failed (the panel then closes).
func (a *app) runPanel(ctx context.Context, h store.Home, session string, feed func(ctx context.Context, send func(tea.Msg)) error) error {
	if err := h.Ensure(); err != nil {
		return stateDirError(h, err)
	}
	// The tailer opens the journal itself: refuse a FIFO or a link there
	// before it does, so the panel never hangs on one.
	start, err := h.JournalSize()
	if err != nil {
		return fail(codeJournal, err, "cannot read the journal: %s (`cully doctor` checks it)", plain(err))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	ch := make(chan tailer.Batch, 64)
	wg.Add(1)
	go func() { defer wg.Done(); _ = tailer.New(h.Journal(), start).Run(ctx, ch) }()
	ld := a.loadConfig() // the configuration as the panel starts: a change shows at its next start
	backend := tui.HomeBackend{Home: h, Record: func(ev *engine.Event) error {
		_, err := a.record(h, ev)
		return err
	}, Hint: usageHint, Read: func(st *engine.State) *usage.Cache {
		now, _ := a.now()
		return recordFigures(h, st, a.getenv, now)
	},
		// The advisor's commands as the panel starts: a config changed
		// meanwhile shows at its next start.
		Workers: ld.Workers, DiscoveryOff: a.getenv("CULLY_DISCOVERY") == "off", Cache: &tui.ReadCache{}, Rules: &ld.Config,
		PauseRun: func(session string) (string, error) { return a.panelPause(h, session) },
		ResumeRun: func(session string, raise bool, reason string) (string, error) {
			return a.panelResume(h, session, raise, reason)
		},
		Select: selectPane,
		RollbackRun: func(session string, dry bool) (*runs.Plan, error) {
			return a.panelRollback(h, session, dry)
		}}
	m := tui.New(tui.Options{Backend: backend, Journal: ch, Session: session, Here: a.folder(), Dark: true, Rules: &ld.Config,
		NoColor: a.getenv("NO_COLOR") != "", Now: time.Now,
		Tmux: a.getenv("TMUX") != "", Notify: notifyProtocol(a.getenv)})
	p := tea.NewProgram(m, tea.WithInput(a.stdin), tea.WithOutput(a.stdout), tea.WithFPS(panelFPS))
	// ctx ending (a signal) quits the panel as q does. Killing it instead
	// (tea.WithContext) leaves its input reader running, which then eats
	// the terminal's answers meant for whoever reads them next.
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-ctx.Done()
		p.Quit()
	}()
	var feedErr error
	if feed != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := feed(ctx, p.Send); err != nil && ctx.Err() == nil {
				feedErr = err
				p.Quit()
			}
		}()
	}
	_, err = p.Run()
	cancel()
	wg.Wait()
	if feedErr != nil {
		return feedErr
	}
	return err
}

// panelRun reads a session's state and its run for the panel's keys.
func panelRun(h store.Home, session string) (*engine.State, error) {
	st, err := h.ReadState(session, nil)
	if err != nil {
		return nil, fmt.Errorf("cannot read session %s: %s", shortID(session), plain(err))
	}
	if st.Run == nil {
		return nil, fmt.Errorf("session %s has no run yet", shortID(session))
	}
	return st, nil
}

// panelPause is the panel's p: what `cully stop` does, the summary aside.
func (a *app) panelPause(h store.Home, session string) (string, error) {
	st, err := panelRun(h, session)
	if err != nil {
		return "", err
	}
	if err := a.pauseRun(h, st, false, "cully panel"); err != nil {
		return "", err
	}
	now, _ := a.now()
	done := fmt.Sprintf("stopped run %s: the agent's next tool call is refused · r resumes", shortID(st.Run.ID))
	snap, err := a.finalSnapshot(h, st, now)
	if err != nil {
		return "", fmt.Errorf("%s; %v", done, err)
	}
	return fmt.Sprintf("%s (final snapshot %d)", done, snap.Step), nil
}

// panelResume is the panel's r and +: what `cully resume [--raise]
// --reason` does, refusals in the panel's words.
func (a *app) panelResume(h store.Home, session string, raise bool, reason string) (string, error) {
	st, err := panelRun(h, session)
	if err != nil {
		return "", err
	}
	r := st.Run
	exceeded, err := a.resumeRun(h, st, raise, reason, func(no resumeRefusal, exceeded []string) error {
		switch no {
		case refuseNotStopped:
			return fmt.Errorf("run %s is not stopped: p stops it", shortID(r.ID))
		case refuseRaiseNoReason:
			return errors.New("not raised: + needs a reason, why the run may use more (it is recorded)")
		case refuseHaltNoReason:
			return fmt.Errorf("not resumed: cully halted this run (%s); type why it may go on (it is recorded)", engine.HaltCause(r.Halted))
		}
		return fmt.Errorf("not resumed: run %s stopped at its budget (%s): + doubles it and resumes", shortID(r.ID), strings.Join(exceeded, ", "))
	})
	if err != nil {
		return "", err
	}
	done := fmt.Sprintf("resumed run %s: the agent's calls run again", shortID(r.ID))
	switch {
	case raise && len(exceeded) > 0:
		done += "; doubled: " + strings.Join(exceeded, ", ")
	case raise:
		done += "; no budget was reached, so none was raised"
	case len(exceeded) > 0:
		done += "; still past its budget: " + strings.Join(exceeded, ", ") + " (+ doubles it)"
	}
	return done, nil
}

// panelRollback is the panel's R (dry) and y: what `cully rollback --to 0
// [--dry-run]` does, recorded as it records it.
func (a *app) panelRollback(h store.Home, session string, dry bool) (*runs.Plan, error) {
	st, err := panelRun(h, session)
	if err != nil {
		return nil, err
	}
	now, _ := a.now()
	r := st.Run
	plan, err := runs.Rollback(h, runs.RollbackRequest{
		Request: runs.Request{Session: st.Session, Run: r.ID, Task: r.Task, Reason: string(engine.SnapRollback), Calls: r.Calls, Now: now, Policy: a.policy(h)},
		To:      0, DryRun: dry,
	})
	return plan, a.afterRollback(h, st, plan, err, now, string(engine.SnapRollback))
}

// selectPane is the panel's g: it shows the agent's tmux pane (its
// session, its window, the pane), in the tmux server the panel runs in.
func selectPane(pane string) error {
	// switch-client fails without a client attached to the server (a
	// detached session): the window and the pane are selected all the same.
	_ = exec.Command("tmux", "switch-client", "-t", pane).Run()
	for _, verb := range []string{"select-window", "select-pane"} {
		if out, err := exec.Command("tmux", verb, "-t", pane).CombinedOutput(); err != nil {
			why := strings.TrimSpace(string(out))
			if why == "" {
				why = err.Error()
			}
			return fmt.Errorf("tmux could not select pane %s (%s): the agent may run in another tmux server, or its pane is closed", pane, why)
		}
	}
	return nil
}

// usageHint says how to get an agent's cost and context figures into
// cully: its adapter serves a status line, which the host feeds them to.
func usageHint(agent string) string {
	if agent == "" {
		return ""
	}
	ad, err := agents.Lookup(agent)
	if err != nil {
		return ""
	}
	if _, ok := ad.(hookbridge.StatusLiner); !ok {
		return ""
	}
	return "cully install --statusline"
}

// notifyProtocol picks the desktop notification the terminal understands:
// OSC 777 for VTE terminals (GNOME Terminal, Tilix…), urxvt and foot, OSC 9
// (iTerm2, kitty, WezTerm, Ghostty, Windows Terminal) for the rest.
func notifyProtocol(getenv func(string) string) string {
	term := getenv("TERM")
	if getenv("VTE_VERSION") != "" || strings.HasPrefix(term, "rxvt") || strings.HasPrefix(term, "foot") {
		return "osc777"
	}
	return "osc9"
}

// isTerminal reports whether w is a terminal (the panel needs one).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}
