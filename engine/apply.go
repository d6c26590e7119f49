package engine

import "strings"

// Apply folds one event into the session state and returns the signals it
// raised: checkpoints, guard warnings, acknowledgments and at most one nudge
// for the agent. It sets ev.Task. It never reads a clock or a file.
func Apply(s *State, ev *Event, cfg *Config) []Signal {
	s.ensure()
	if s.V == 0 {
		s.V = StateVersion
	}
	if s.Session == "" {
		s.Session = ev.Session
	}
	if s.Started.IsZero() {
		s.Started = ev.Time
	}
	if ev.Time.Before(s.LastSeen) {
		s.ClockSkews++
	} else {
		s.LastSeen = ev.Time
	}
	s.Events++
	if ev.Agent != "" && !byCully(ev.Kind) {
		s.Agent = ev.Agent
	}
	if ev.Cwd != "" && ev.Subagent == "" {
		s.Cwd = ev.Cwd
	}
	if ev.Attended != nil {
		s.Attended = ev.Attended
	}
	if ev.Pane != "" && ev.Subagent == "" {
		s.Pane = ev.Pane
	}
	// The host's own figures, from a status line or from its record of the
	// session read by the hook, whatever the event.
	if ev.Usage != nil {
		s.Usage = s.mergeUsage(ev)
	}
	if ev.Transcript != nil {
		s.Transcript = ev.Transcript.Clone()
	}

	var sigs []Signal
	switch ev.Kind {
	case KindPrompt:
		sigs = s.idlePrompt(ev, cfg) // told before the new task supersedes what is open
		sigs = append(append(sigs, s.newTask(ev, cfg)...), s.startRun(ev)...)
		sigs = append(sigs, s.halt()...) // a halted run takes no new task: the host refuses the prompt where it can
		s.Open, s.Turn = nil, true
	case KindSessionStart:
		s.Ended, s.Open, s.Turn = false, nil, false
		if ev.Source == "compact" || ev.Source == "clear" { // the agent's context was replaced
			s.forgetReads()
		}
	case KindCompact:
		s.Counts.Compactions++
		s.forgetReads()
	case KindSessionEnd:
		s.Ended, s.Open, s.Turn = true, nil, false
	case KindNotify:
		s.notified(ev)
	case KindSubagent:
		if ev.Source == "start" {
			s.Counts.Subagents++
		}
	case KindAck:
		sigs = s.ack(ev)
	case KindTell:
		s.tell(ev)
	case KindAdvice:
		s.AdviceAt = ev.Time.Unix()
		if ev.Advice != "" {
			s.Advice = &Advice{Text: ev.Advice, At: ev.Time.Unix()}
		}
	case KindPreTool:
		s.idleActed()
		if ev.Subagent == "" {
			s.Pres++
		}
		if s.Run == nil { // cully saw no prompt: the run starts before this call
			sigs = s.startRun(ev)
		}
		sigs = append(sigs, s.preTool(ev, cfg)...)
		if h := s.halt(); h != nil {
			sigs = append(sigs, h...) // subagents' calls too: the run is halted
		} else if text := s.summaryOnly(ev, cfg); text != "" {
			sigs = append(sigs, Signal{Kind: SignalHalt, Reason: RefuseCall, Text: text})
		}
		if s.rollbackTo != nil {
			sigs = append(sigs, Signal{Kind: SignalRollback, ID: s.Run.ID, N: *s.rollbackTo})
			s.rollbackTo = nil
		}
		sigs = append(sigs, s.mark(ev, "pre")...)
		s.openCall(ev, sigs)
		s.Turn = s.Turn || ev.Subagent == ""
	case KindPostTool:
		s.idleActed()
		s.closeCall(ev)
		s.Turn = s.Turn || ev.Subagent == ""
		sigs = append(s.postTool(ev, cfg), s.runCall(ev)...)
		sigs = append(sigs, s.mark(ev, "post")...)
		sigs = append(sigs, s.halt()...) // the call in flight when the run was halted: the host ends the loop where it can
	case KindBatch:
		if len(ev.Rejected) > 0 {
			s.idleActed()
		}
		sigs = s.rejected(ev, cfg)
		s.Open = nil // every call of the message resolved
	case KindStop:
		if ev.Subagent == "" {
			s.Working, s.StopsSeen = false, true
			s.Open, s.Turn = nil, false
		}
		sigs = append(s.runCheckpoints(ev, nil, "", cfg, false), s.runEnd(ev, cfg)...)
		sigs = append(sigs, s.idleEnd(ev, cfg)...)
		sigs = append(sigs, s.halt()...) // ends the turn whatever another hook asked
	case KindSnapshot, KindPause, KindResume, KindRollback:
		s.runEvent(ev, cfg)
	}
	// The host's own figures ride on any event: the status line's, or a
	// turn's end that read them from the host's session log.
	if ev.Usage != nil {
		s.Usage = s.mergeUsage(ev)
	}
	s.budgetUsage()
	ev.Task = s.Task
	return sigs
}

// halt is the signal that a halted run's host refuses the event (a call, a
// prompt) or ends the agent's loop with (a call's result, a turn's end).
func (s *State) halt() []Signal {
	if s.Run == nil || s.Run.Halted == nil {
		return nil
	}
	return []Signal{{Kind: SignalHalt, Text: HaltText(s.Run.Halted)}}
}

// newTask opens a fresh observation boundary: a new task, and everything a
// boundary restarts.
func (s *State) newTask(ev *Event, cfg *Config) []Signal {
	s.Task++
	s.Counts.Prompts++
	s.TaskEdits, s.TaskChecks = 0, 0
	s.PromptCmds = append([]string(nil), ev.PromptCmds...)
	s.TaskTests = nil
	// A prompt while the agent was still working (no turn's end since its
	// last call) interrupts it: the checkpoints due to be told are carried
	// into the new task, told once at its first call (carry).
	interrupted := s.Working && s.StopsSeen // a host that never says a turn ended interrupts nothing
	s.Working = false
	return s.boundary(ev, interrupted, cfg)
}

// boundary is a point where the user steered — a prompt, an answered
// question, an accepted plan: the activity counts and every command's
// failure history restart (what came before is the user's to judge, not a
// streak to continue). A checkpoint the agent was told about is taken as
// answered; one that never reached it is superseded — unless the boundary
// is a prompt that interrupted the agent mid-turn (interrupted) and the
// checkpoint was due to be told: the user broke in with something else
// before the agent could hear it, so it is carried, once, to the next call.
func (s *State) boundary(ev *Event, interrupted bool, cfg *Config) []Signal {
	if interrupted {
		for i := range s.Checkpoints {
			c := &s.Checkpoints[i]
			if r := rule(c.Reason); c.Status == StatusOpen && !c.Nudged && !c.Carried && r != nil && (r.tell == nil || r.tell(s, cfg)) {
				c.Carried = true
				if r.told != nil { // the figures as they were when the user broke in
					c.Evidence = r.told(s, cfg)
				}
			}
		}
	}
	s.ReadsSinceAct = 0
	s.FailedCheck, s.FailingCheck = "", ""
	s.EditsSinceCheck, s.EditsSinceTry, s.CodeSinceTry = 0, 0, 0
	clear(s.Commands)
	s.Recent, s.ErrRun = nil, nil
	s.Searches, s.Rerun, s.ProgFails, s.Gaps = nil, nil, nil, nil
	if s.Advice != nil && !s.Advice.Told { // advice on the last task's evidence is stale
		s.Advice = nil
	}
	var sigs []Signal
	for i := range s.Checkpoints {
		c := &s.Checkpoints[i]
		if c.Status != StatusOpen || c.Carried && !c.Nudged && c.Task == s.Task-1 && ev.Kind == KindPrompt {
			continue
		}
		c.Status = StatusSuperseded
		if c.Nudged {
			c.Status = StatusAnswered
		}
		t := ev.Time
		c.Closed = &t
		sigs = append(sigs, Signal{Kind: SignalAck, ID: c.ID, Reason: c.Reason, Evidence: string(c.Status)})
	}
	return sigs
}

func (s *State) ack(ev *Event) []Signal {
	all := len(ev.Ack) == 1 && ev.Ack[0] == "*"
	var sigs []Signal
	for i := range s.Checkpoints {
		c := &s.Checkpoints[i]
		if c.Status != StatusOpen || !all && !contains(ev.Ack, c.ID) {
			continue
		}
		c.Status = StatusAcked
		t := ev.Time
		c.Closed = &t
		sigs = append(sigs, Signal{Kind: SignalAck, ID: c.ID, Reason: c.Reason, Evidence: string(c.Status)})
	}
	return sigs
}

// tell marks the open checkpoints the user asked to tell (Asked): the
// agent's next call tells them, once. One already told, or closed, is
// left as it is.
func (s *State) tell(ev *Event) {
	for i := range s.Checkpoints {
		if c := &s.Checkpoints[i]; c.Status == StatusOpen && !c.Nudged && contains(ev.Tell, c.ID) {
			c.Asked = true
		}
	}
}

// forgetReads resets what counts as already read: after a compaction the
// agent no longer holds those files in its context.
func (s *State) forgetReads() {
	for _, f := range s.Files {
		f.WholeAt, f.WholeMod, f.WholeSize = 0, 0, 0
	}
}

func fileKey(ev *Event) string {
	if ev.Subagent != "" {
		return ev.Subagent + "\x00" + ev.Target
	}
	return ev.Target
}

// preTool evaluates the guards for the call about to run and composes the
// one nudge the agent gets: pending checkpoints first, then guard warnings.
func (s *State) preTool(ev *Event, cfg *Config) []Signal {
	var sigs []Signal
	warned := s.runGuards(ev, cfg)
	for _, w := range warned {
		sigs = append(sigs, Signal{Kind: SignalGuard, Reason: w.Reason, Evidence: w.Evidence})
		if w.Reason == ReasonRepeat {
			s.bookRepeat(ev, w, cfg)
		}
	}
	s.judgeBudgets(ev, cfg)
	s.enforceAlerts(cfg)
	if ev.Defer { // this answer reaches no one: the call's post-tool event says it
		if !ev.Quiet {
			for i := len(s.Warnings) - len(warned); i < len(s.Warnings); i++ {
				s.Warnings[i].Held = true
			}
		}
		return sigs
	}

	// Checkpoints reach the foreground agent only: a subagent cannot ask the user.
	var pending []*Checkpoint
	if ev.Subagent == "" {
		for i := range s.Checkpoints {
			c := &s.Checkpoints[i]
			if c.Status != StatusOpen || c.Nudged {
				continue
			}
			// Revalidated at delivery: the call about to run may be the one
			// that ends the condition; the checkpoint waits for its outcome.
			if r := rule(c.Reason); r != nil && !c.Asked && (r.holds != nil && r.holds(ev) || !c.Carried && r.tell != nil && !r.tell(s, cfg)) {
				continue
			}
			pending = append(pending, c)
		}
	}
	if ev.Quiet {
		return sigs
	}
	notes := s.runNotes(ev, cfg)
	adv := s.unseenAdvice(ev)
	if notes == "" && len(pending) == 0 && len(warned) == 0 && adv == nil {
		return sigs
	}
	for _, c := range pending {
		if r := rule(c.Reason); r != nil && r.told != nil && !c.Carried { // a carried one keeps the figures it was due with
			c.Evidence = r.told(s, cfg)
		}
	}
	text := composeNudge(pending, warned, adv, s.attended(), cfg)
	if adv != nil {
		adv.Told = true
	}
	if notes != "" { // run control first: a paused run outranks any checkpoint
		text = strings.TrimRight(notes+"\n"+text, "\n")
	}
	for _, c := range pending {
		c.Nudged = true
	}
	for i := len(s.Warnings) - len(warned); i < len(s.Warnings); i++ {
		s.Warnings[i].Nudged = true
	}
	s.Counts.Nudges++
	return append(sigs, Signal{Kind: SignalNudge, Text: text})
}

// mergeUsage is the state's host figures after an event's. The token
// totals read from the host's own record (they split cache reads out)
// outlive a status line's, which counts differently: from a status line
// only the cost, the context and the model are taken then.
func (s *State) mergeUsage(ev *Event) *HostUsage {
	u := *ev.Usage
	if ev.Kind == KindHostUsage && s.Usage != nil && s.Usage.CacheReadTokens != nil && u.CacheReadTokens == nil {
		u.InputTokens, u.OutputTokens = s.Usage.InputTokens, s.Usage.OutputTokens
		u.CacheReadTokens, u.CacheWriteTokens = s.Usage.CacheReadTokens, s.Usage.CacheWriteTokens
	}
	return &u
}

// unseenAdvice is the advisor's advice the foreground agent has not been
// told yet (a subagent cannot act on it), or nil.
func (s *State) unseenAdvice(ev *Event) *Advice {
	if ev.Subagent != "" || s.Advice == nil || s.Advice.Told {
		return nil
	}
	return s.Advice
}

func (s *State) attended() bool { return s.Attended == nil || *s.Attended }

// postTool books a finished call (counts, command history, files read,
// activity since the last edit or check), then raises the checkpoints due.
func (s *State) postTool(ev *Event, cfg *Config) []Signal {
	c := &s.Counts
	c.ToolCalls++
	if ev.Subagent != "" {
		s.SubagentAt = ev.Time.Unix()
	} else {
		s.Working = true
	}
	c.ByClass[ev.Class]++
	switch ev.Outcome {
	case OutcomeFailed:
		c.Failures++
	case OutcomeUnknown:
		c.UnknownOut++
	}
	switch ev.Note { // the user refused the call: nothing ran, nothing to book
	case NoteSteered:
		if ev.Subagent == "" {
			return s.boundary(ev, false, cfg)
		}
		return nil
	case NoteRejected:
		return nil
	}

	var cmd *CmdSeen
	key := ev.CmdFP
	if tracksCommand(ev) {
		cmd = s.trackCommand(ev, ev.CmdFP)
		// Re-runs of one check with other narrowing flags are one family:
		// its history is the loop when it is longer than the command's own.
		if ev.FamilyFP != "" {
			if fam := s.trackCommand(ev, familyKey(ev)); fam != nil && (cmd == nil || fam.SigStreak > cmd.SigStreak) {
				cmd, key = fam, familyKey(ev)
			}
		}
	}
	s.bookRecent(ev)
	s.bookTallies(ev, cfg)
	s.bookGaps(ev)
	switch ev.Class {
	case ClassRead:
		s.noteRead(ev)
		if ev.Subagent == "" {
			s.ReadsSinceAct++
		}
	case ClassEdit:
		c.Edits++
		if ev.Outcome != OutcomeFailed {
			s.changed(ev)
			if !proseEdit(ev) { // plans and notes have nothing to test
				s.EditsSinceCheck++
				s.EditsSinceTry++
			}
		}
	case ClassCheck:
		c.Checks++
		s.EditsSinceTry = 0
		s.ReadsSinceAct = 0
		if ev.Changes {
			s.changed(ev)
		}
		switch ev.Outcome {
		case OutcomeOK:
			c.ChecksOK++
			s.CheckEpoch++
			s.EditsSinceCheck = 0
		case OutcomeFailed:
			c.ChecksFailed++
		default:
			c.ChecksUnknown++
		}
	case ClassPoll:
		// Waiting lets the world change (a server comes up, a job
		// finishes): a retry after a wait is not blind.
		s.ChangeSeq++
	case ClassAsk:
		if ev.Outcome == OutcomeOK && ev.Subagent == "" { // the user answered: they are steering
			return s.boundary(ev, false, cfg)
		}
	default:
		if ev.Changes {
			s.changed(ev)
		}
	}
	s.bookReported(ev, cfg)
	s.bookFailingCheck(ev)
	s.bookCodeEdit(ev)
	sigs := append(s.settle(ev), s.runCheckpoints(ev, cmd, key, cfg, false)...)
	s.bookFailedCheck(ev)
	if ev.Defer {
		sigs = s.deliverHeld(ev, sigs, cfg)
	}
	return sigs
}

// deliverHeld composes, for a host whose pre-tool answers never reach the
// model, the nudge its post-tool answer carries: the checkpoints due (the
// call has run and been booked, so they hold as of now) and the guard
// warnings held from the pre-tool events since the last delivery.
func (s *State) deliverHeld(ev *Event, sigs []Signal, cfg *Config) []Signal {
	var pending []*Checkpoint
	if ev.Subagent == "" { // a subagent cannot ask the user
		for i := range s.Checkpoints {
			c := &s.Checkpoints[i]
			if c.Status != StatusOpen || c.Nudged {
				continue
			}
			if r := rule(c.Reason); r != nil && !c.Carried && !c.Asked && r.tell != nil && !r.tell(s, cfg) {
				continue
			}
			pending = append(pending, c)
		}
	}
	var held []Warning
	var heldAt []int
	for i := range s.Warnings {
		if w := &s.Warnings[i]; w.Held && !w.Nudged {
			held, heldAt = append(held, *w), append(heldAt, i)
		}
	}
	adv := s.unseenAdvice(ev)
	if ev.Quiet {
		return sigs
	}
	notes := strings.Join(s.budgetNotes(ev, cfg), "\n")
	if notes == "" && len(pending) == 0 && len(held) == 0 && adv == nil {
		return sigs
	}
	for _, c := range pending {
		if r := rule(c.Reason); r != nil && r.told != nil && !c.Carried { // a carried one keeps the figures it was due with
			c.Evidence = r.told(s, cfg)
		}
	}
	text := composeNudge(pending, held, adv, s.attended(), cfg)
	if adv != nil {
		adv.Told = true
	}
	if notes != "" {
		text = strings.TrimRight(notes+"\n"+text, "\n")
	}
	for _, c := range pending {
		c.Nudged = true
	}
	for _, i := range heldAt {
		s.Warnings[i].Nudged, s.Warnings[i].Held = true, false
	}
	s.Counts.Nudges++
	return append(sigs, Signal{Kind: SignalNudge, Text: text})
}

// rejected counts the calls the host refused before any tool hook: failed
// calls, tracked like failed commands, so the same refusal three times is a
// failure loop (an Edit whose old_string keeps not matching).
func (s *State) rejected(ev *Event, cfg *Config) []Signal {
	var sigs []Signal
	for _, r := range ev.Rejected {
		s.Counts.ToolCalls++
		s.Counts.ByClass[r.Class]++
		s.Counts.Failures++
		call := Event{Time: ev.Time, Tool: r.Tool, Class: r.Class, Target: r.Target, CmdFP: r.FP,
			Cmd: callPreview(r.Tool, r.Target), Outcome: OutcomeFailed, FailSig: r.Sig, Subagent: ev.Subagent}
		cmd := s.trackCommand(&call, call.CmdFP)
		sigs = append(sigs, s.runCheckpoints(&call, cmd, call.CmdFP, cfg, true)...)
	}
	return sigs
}

// callPreview names a non-shell call in evidence: "Edit parser.go".
func callPreview(tool, target string) string {
	if target == "" {
		return tool
	}
	return tool + " " + target
}

// changed notes a file change: it resets the exploration count, makes later
// retries informed rather than blind and forgets the changed file's read.
func (s *State) changed(ev *Event) {
	s.ChangeSeq++
	s.ReadsSinceAct = 0
	forget := func(target string) {
		if target == "" {
			return
		}
		e := Event{Subagent: ev.Subagent, Target: target}
		if f := s.Files[fileKey(&e)]; f != nil {
			f.WholeAt, f.WholeMod, f.WholeSize = 0, 0, 0
		}
	}
	forget(ev.Target)
	for _, t := range ev.Files {
		forget(t)
	}
}

func (s *State) noteRead(ev *Event) {
	if ev.Target == "" {
		return
	}
	k := fileKey(ev)
	f := s.Files[k]
	if f == nil {
		f = &FileSeen{}
		s.Files[k] = f
		s.Counts.FilesRead++
		if len(s.Files) > maxFiles {
			evictOldest(s.Files, k, func(f *FileSeen) int64 { return f.Seen })
		}
	}
	f.Reads++
	f.Seen = ev.Time.Unix()
	if ev.Outcome == OutcomeOK {
		// The agent looked at the file its edits failed on: the next try
		// is informed, not blind (the same error again still counts
		// toward a failure loop).
		for _, c := range s.Commands {
			if c.Edit == k {
				c.ChangeAt = nil
			}
		}
	}
	if ev.Outcome == OutcomeOK && !ev.Ranged && ev.Mtime != nil {
		f.WholeAt, f.WholeMod = max(ev.Time.Unix(), 1), ev.Mtime.UnixNano() // WholeAt 0 means no whole read
		if ev.Size != nil {
			f.WholeSize = *ev.Size
		}
	}
}

// tracksCommand reports whether the reducer keeps a history of ev's command:
// polls (waiting on a background task) repeat on purpose and are no retry.
func tracksCommand(ev *Event) bool { return ev.CmdFP != "" && ev.Class != ClassPoll }

// trackCommand books a run of ev's command and returns its history, or nil
// when it has none: only failures start a history, successes alone say nothing.
func (s *State) trackCommand(ev *Event, key string) *CmdSeen {
	cs := s.Commands[key]
	if cs == nil && ev.Outcome != OutcomeFailed {
		return nil
	}
	if cs == nil {
		cs = &CmdSeen{}
		s.Commands[key] = cs
		if len(s.Commands) > maxCommands {
			evictOldest(s.Commands, key, func(c *CmdSeen) int64 { return c.LastSeen })
		}
	}
	cs.Runs++
	cs.LastSeen = ev.Time.Unix()
	if ev.Class == ClassEdit && !IsShellTool(ev.Tool) {
		cs.Edit = fileKey(ev)
	}
	if ev.Cmd != "" {
		cs.Preview = ev.Cmd
	} else if cs.Preview == "" {
		cs.Preview = callPreview(ev.Tool, ev.Target)
	}
	switch ev.Outcome {
	case OutcomeOK:
		cs.Fails, cs.SigStreak, cs.LastSig, cs.ChangeAt = 0, 0, "", nil
	case OutcomeFailed:
		cs.Fails++
		if ev.FailSig != "" && ev.FailSig == cs.LastSig {
			cs.SigStreak++
		} else {
			cs.SigStreak = 1
		}
		cs.LastSig = ev.FailSig
		cs.ChangeAt = append(cs.ChangeAt, s.ChangeSeq)
		if len(cs.ChangeAt) > maxFailChanges {
			cs.ChangeAt = cs.ChangeAt[len(cs.ChangeAt)-maxFailChanges:]
		}
	}
	return cs
}

// evictOldest deletes the entry seen longest ago, never keep (the entry
// just added, which may share its time with older ones).
func evictOldest[T any](m map[string]T, keep string, at func(T) int64) {
	var oldK string
	var oldT int64
	first := true
	for k, v := range m {
		if k == keep {
			continue
		}
		if t := at(v); first || t < oldT {
			oldK, oldT, first = k, t, false
		}
	}
	delete(m, oldK)
}

// familyKey is where a check family's history lives in State.Commands.
func familyKey(ev *Event) string { return "family:" + ev.FamilyFP }

// preview is a call's short name in the repetition rules' evidence.
func preview(ev *Event) string {
	p := ev.Cmd
	if p == "" {
		p = callPreview(ev.Tool, ev.Target)
	}
	if r := []rune(p); len(r) > maxPreview {
		p = string(r[:maxPreview-1]) + "…"
	}
	return p
}

// bookRecent keeps the foreground agent's last calls and the current run
// of one error across commands. A poll (a sleep, a background task's
// output) is waiting: it breaks any repetition, since the same status
// query between waits is how an agent follows a job.
func (s *State) bookRecent(ev *Event) {
	if ev.Subagent != "" {
		return
	}
	if ev.Class == ClassPoll {
		s.Recent = nil
		return
	}
	if ev.CallFP != "" {
		s.Recent = append(s.Recent, RecentCall{Call: ev.CallFP, Out: ev.OutFP, Preview: preview(ev), Failed: ev.Outcome == OutcomeFailed})
		if len(s.Recent) > maxRecent {
			s.Recent = s.Recent[len(s.Recent)-maxRecent:]
		}
	}
	switch {
	case ev.Outcome == OutcomeFailed && ev.ErrSig != "":
		if s.ErrRun == nil || s.ErrRun.Sig != ev.ErrSig {
			s.ErrRun = &ErrRun{Sig: ev.ErrSig}
		} else if ev.Kind == KindPostTool && s.ErrRun.At > 0 && s.Pres == s.ErrRun.At {
			return // started beside the failure counted last: the same attempt
		}
		s.ErrRun.N++
		s.ErrRun.At = s.Pres
		if p := preview(ev); !contains(s.ErrRun.Cmds, p) && len(s.ErrRun.Cmds) < maxErrCmds {
			s.ErrRun.Cmds = append(s.ErrRun.Cmds, p)
		}
	case ev.Outcome == OutcomeOK && (ev.Class == ClassRun || ev.Class == ClassCheck || ev.Class == ClassEdit):
		s.ErrRun = nil // a command or an edit that worked ends the run
	}
}

// byCully reports whether events of this kind come from cully's own
// commands (whose Agent is "cully"), not from the agent's host.
func byCully(k Kind) bool {
	switch k {
	case KindAck, KindTell, KindSnapshot, KindPause, KindResume, KindRollback:
		return true
	}
	return false
}
