package store

import (
	"slices"
	"strconv"

	"cully/engine"
)

// AppendState appends the state exactly as encoding/json would write it
// (a test holds the two byte-equal). The hook saves the state on every
// call; writing it by hand spares each short-lived hook process
// encoding/json's reflection warm-up.
func AppendState(b []byte, s *engine.State) []byte { return appendState(b, s, true) }

// appendState is AppendState, its two large maps left out unless maps is
// set (a state file keeps them apart: statemaps.go).
func appendState(b []byte, s *engine.State, maps bool) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(s.V), 10)
	b = appendStr(b, "session", s.Session, false)
	b = appendStr(b, "agent", s.Agent, true)
	b = appendStr(b, "cwd", s.Cwd, true)
	b = appendTime(appendField(b, "started"), s.Started)
	b = appendTime(appendField(b, "last_seen"), s.LastSeen)
	b = appendInt(b, "events", s.Events, false)
	if s.Ended {
		b = append(b, `,"ended":true`...)
	}
	if s.Attended != nil {
		b = strconv.AppendBool(appendField(b, "attended"), *s.Attended)
	}
	b = appendStr(b, "tmux_pane", s.Pane, true)
	b = appendInt(b, "clock_skews", s.ClockSkews, true)
	b = appendInt(b, "task", s.Task, false)
	b = appendInt(b, "check_epoch", s.CheckEpoch, false)
	b = appendInt(b, "change_seq", s.ChangeSeq, false)
	b = appendInt(b, "reads_since_act", s.ReadsSinceAct, false)
	b = appendInt(b, "edits_since_check", s.EditsSinceCheck, false)
	b = appendInt(b, "edits_since_try", s.EditsSinceTry, true)
	b = appendStr(b, "failed_check", s.FailedCheck, true)
	b = appendStr(b, "failing_check", s.FailingCheck, true)
	b = appendInt(b, "code_since_try", s.CodeSinceTry, true)
	b = appendInt(b, "task_edits", s.TaskEdits, true)
	b = appendInt(b, "task_checks", s.TaskChecks, true)
	b = appendList(b, "prompt_cmds", s.PromptCmds, appendQuoted)
	b = appendList(b, "task_tests", s.TaskTests, appendQuoted)
	if s.Working {
		b = append(b, `,"working":true`...)
	}
	if s.StopsSeen {
		b = append(b, `,"stops_seen":true`...)
	}
	b = appendCounts(appendField(b, "counts"), &s.Counts)
	b = appendList(b, "checkpoints", s.Checkpoints, func(b []byte, c engine.Checkpoint) []byte {
		b = append(b, `{"id":`...)
		b = appendQuoted(b, c.ID)
		b = appendStr(b, "reason", string(c.Reason), false)
		b = appendInt(b, "task", c.Task, false)
		b = appendInt(b, "epoch", c.Epoch, false)
		b = appendTime(appendField(b, "raised"), c.Raised)
		b = appendStr(b, "evidence", c.Evidence, false)
		b = appendStr(b, "status", string(c.Status), false)
		if c.Nudged {
			b = append(b, `,"nudged":true`...)
		}
		if c.Closed != nil {
			b = appendTime(appendField(b, "closed"), *c.Closed)
		}
		b = appendStr(b, "key", c.Key, true)
		if c.Carried {
			b = append(b, `,"carried":true`...)
		}
		if c.Asked {
			b = append(b, `,"asked":true`...)
		}
		return append(b, '}')
	})
	b = appendList(b, "warnings", s.Warnings, func(b []byte, w engine.Warning) []byte {
		b = append(b, `{"reason":`...)
		b = appendQuoted(b, string(w.Reason))
		b = appendTime(appendField(b, "ts"), w.Time)
		b = appendInt(b, "task", w.Task, false)
		b = appendStr(b, "target", w.Target, true)
		b = appendStr(b, "evidence", w.Evidence, false)
		if w.Nudged {
			b = append(b, `,"nudged":true`...)
		}
		if w.Held {
			b = append(b, `,"held":true`...)
		}
		return append(b, '}')
	})
	if maps {
		b = appendMaps(b, s)
	}
	b = appendList(b, "warned", s.Warned, appendQuoted)
	if s.Usage != nil {
		b = appendUsage(appendField(b, "usage"), s.Usage)
	}
	if s.Transcript != nil {
		b = appendTranscript(appendField(b, "transcript"), s.Transcript)
	}
	b = appendInt64(b, "subagent_at", s.SubagentAt, true)
	b = appendInt(b, "pres", s.Pres, true)
	b = appendList(b, "recent", s.Recent, func(b []byte, r engine.RecentCall) []byte {
		b = appendQuoted(append(b, `{"c":`...), r.Call)
		b = appendStr(b, "o", r.Out, false)
		b = appendStr(b, "p", r.Preview, false)
		if r.Failed {
			b = append(b, `,"f":true`...)
		}
		return append(b, '}')
	})
	if r := s.ErrRun; r != nil {
		b = appendQuoted(append(b, `,"err_run":{"sig":`...), r.Sig)
		b = appendInt(b, "n", r.N, false)
		if r.Cmds == nil {
			b = append(b, `,"cmds":null`...)
		} else {
			b = append(appendField(b, "cmds"), '[')
			for i, c := range r.Cmds {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendQuoted(b, c)
			}
			b = append(b, ']')
		}
		b = appendInt(b, "at", r.At, true)
		b = append(b, '}')
	}
	b = appendList(b, "searches", s.Searches, appendTally)
	if s.Rerun != nil {
		b = appendTally(appendField(b, "rerun"), *s.Rerun)
	}
	b = appendList(b, "prog_fails", s.ProgFails, appendTally)
	b = appendList(b, "gaps", s.Gaps, appendGap)
	if a := s.Advice; a != nil {
		b = appendQuoted(append(b, `,"advice":{"text":`...), a.Text)
		b = appendInt64(b, "at", a.At, false)
		if a.Told {
			b = append(b, `,"told":true`...)
		}
		b = append(b, '}')
	}
	b = appendInt64(b, "advice_at", s.AdviceAt, true)
	b = appendInt(b, "next_cp", s.NextCP, false)
	if s.Run != nil {
		b = appendRun(appendField(b, "run"), s.Run)
	}
	if i := s.Idle; i != nil {
		b = appendIdle(appendField(b, "idle"), i)
	}
	if c := s.Open; c != nil {
		b = strconv.AppendInt(append(b, `,"open":{"at":`...), c.At, 10)
		b = appendStr(b, "tool", c.Tool, true)
		b = appendStr(b, "id", c.ID, true)
		b = appendStr(b, "class", string(c.Class), true)
		b = appendStr(b, "asked", c.Asked, true)
		b = append(b, '}')
	}
	if s.Turn {
		b = append(b, `,"turn":true`...)
	}
	return append(b, '}')
}

// appendIdle writes the idle-loop rule's count: every member omitted when
// zero, as encoding/json writes it.
func appendIdle(b []byte, i *engine.IdleRun) []byte {
	b = append(b, '{')
	n := len(b)
	b = appendInt(b, "same", i.Same, true)
	b = appendInt(b, "stuck", i.Stuck, true)
	b = appendInt(b, "forced", i.Forced, true)
	b = appendStr(b, "fp", i.FP, true)
	b = appendStr(b, "sketch", i.Sketch, true)
	b = appendStr(b, "says", i.Says, true)
	b = appendStr(b, "prompt", i.Prompt, true)
	for _, f := range []struct {
		k string
		v bool
	}{{"acted", i.Acted}, {"raised", i.Raised}, {"tell", i.Tell}, {"told", i.Told}} {
		if f.v {
			b = append(appendField(b, f.k), "true"...)
		}
	}
	if len(b) > n && b[n] == ',' { // the first field needs no comma
		b = append(b[:n], b[n+1:]...)
	}
	return append(b, '}')
}

// appendMaps appends the files and commands members, sorted by key as
// encoding/json writes them.
func appendMaps(b []byte, s *engine.State) []byte {
	b = appendMap(b, "files", s.Files, func(b []byte, f *engine.FileSeen) []byte {
		b = strconv.AppendInt(append(b, `{"n":`...), int64(f.Reads), 10)
		b = appendInt64(b, "wa", f.WholeAt, true)
		b = appendInt64(b, "wm", f.WholeMod, true)
		b = appendInt64(b, "ws", f.WholeSize, true)
		b = appendInt64(b, "s", f.Seen, false)
		return append(b, '}')
	})
	b = appendMap(b, "commands", s.Commands, func(b []byte, c *engine.CmdSeen) []byte {
		b = appendQuoted(append(b, `{"preview":`...), c.Preview)
		b = appendInt(b, "runs", c.Runs, false)
		b = appendInt64(b, "seen", c.LastSeen, false)
		b = appendInt(b, "fails", c.Fails, false)
		b = appendInt(b, "sig_streak", c.SigStreak, false)
		b = appendStr(b, "last_sig", c.LastSig, true)
		b = appendList(b, "change_at", c.ChangeAt, func(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) })
		b = appendStr(b, "edit", c.Edit, true)
		return append(b, '}')
	})
	return b
}

func appendRun(b []byte, r *engine.Run) []byte {
	b = appendQuoted(append(b, `{"id":`...), r.ID)
	b = appendInt(b, "task", r.Task, false)
	b = appendTime(appendField(b, "started"), r.Started)
	b = appendInt(b, "calls", r.Calls, false)
	b = appendInt(b, "edits", r.Edits, true)
	b = appendInt(b, "snap_calls", r.SnapCalls, false)
	b = appendInt64(b, "snap_at", r.SnapAt, false)
	b = appendInt(b, "asked", r.Asked, true)
	b = appendInt(b, "done", r.Done, true)
	b = appendInt(b, "snapshots", r.Snapshots, true)
	b = appendInt(b, "last_step", r.LastStep, true)
	b = appendInt64(b, "last_at", r.LastAt, true)
	b = appendInt(b, "last_files", r.LastFiles, true)
	if r.Failed != nil {
		b = appendRunFailure(appendField(b, "failed"), r.Failed)
	}
	b = appendList(b, "checks", r.Checks, func(b []byte, c engine.RunCheck) []byte {
		b = appendQuoted(append(b, `{"cmd":`...), c.Cmd)
		b = appendStr(b, "outcome", string(c.Outcome), false)
		b = appendInt(b, "runs", c.Runs, false)
		b = appendInt64(b, "at", c.At, false)
		if t := c.Base; t != nil {
			b = appendTestCounts(append(b, `,"base":`...), t)
		}
		b = appendInt(b, "bad", c.Bad, true)
		return append(b, '}')
	})
	if r.Paused != nil {
		b = appendRunNote(appendField(b, "paused"), r.Paused)
	}
	if r.Resumed != nil {
		b = appendRunNote(appendField(b, "resumed"), r.Resumed)
	}
	if r.RollbackFailed != nil {
		b = appendRunFailure(appendField(b, "rollback_failed"), r.RollbackFailed)
	}
	if r.Halted != nil {
		b = appendRunNote(appendField(b, "halted"), r.Halted)
	}
	b = appendStr(b, "notice", r.Notice, true)
	b = appendRunBudget(appendField(b, "budget"), &r.Budget)
	if rc := r.Recoverable; rc != nil {
		b = strconv.AppendInt(append(appendField(b, "recoverable"), `{"step":`...), int64(rc.Step), 10)
		b = appendInt64(b, "at", rc.At, false)
		b = append(b, '}')
	}
	b = appendInt(b, "good_step", r.GoodStep, true)
	return append(b, '}')
}

func appendRunBudget(b []byte, g *engine.RunBudget) []byte {
	b = append(b, '{')
	n := len(b)
	b = appendList(b, "files", g.Files, func(b []byte, f string) []byte { return appendQuoted(b, f) })
	b = appendInt(b, "last_mod", g.LastMod, true)
	b = appendInt(b, "last_progress", g.LastProgress, true)
	b = appendList(b, "verified", g.Verified, func(b []byte, f string) []byte { return appendQuoted(b, f) })
	b = appendInt(b, "stall", g.Stall, true)
	b = appendOptInt(b, "tok_base", g.TokBase)
	if g.CostBase != nil {
		b = strconv.AppendFloat(appendField(b, "cost_base"), *g.CostBase, 'f', -1, 64)
	}
	b = appendList(b, "doubled", g.Doubled, func(b []byte, d engine.Doubling) []byte {
		b = appendQuoted(append(b, `{"res":`...), string(d.Res))
		b = appendInt(b, "n", d.N, false)
		return append(b, '}')
	})
	if p := g.Plan; p != nil {
		b = strconv.AppendInt(append(appendField(b, "plan"), `{"done":`...), int64(p.Done), 10)
		b = appendInt(b, "total", p.Total, false)
		b = append(b, '}')
	}
	b = appendList(b, "alerts", g.Alerts, func(b []byte, a engine.BudgetAlert) []byte {
		b = appendQuoted(append(b, `{"kind":`...), a.Kind)
		b = appendStr(b, "key", a.Key, false)
		b = appendInt64(b, "at", a.At, false)
		b = appendStr(b, "text", a.Text, false)
		if a.Told {
			b = append(b, `,"told":true`...)
		}
		return append(b, '}')
	})
	if len(b) > n && b[n] == ',' { // the first field needs no comma
		b = append(b[:n], b[n+1:]...)
	}
	return append(b, '}')
}

func appendRunNote(b []byte, n *engine.RunNote) []byte {
	b = strconv.AppendInt(append(b, `{"at":`...), n.At, 10)
	b = appendStr(b, "note", n.Note, true)
	b = appendStr(b, "by", n.By, true)
	b = appendList(b, "doubled", n.Doubled, func(b []byte, r engine.Resource) []byte { return appendQuoted(b, string(r)) })
	return append(b, '}')
}

func appendRunFailure(b []byte, f *engine.RunFailure) []byte {
	b = strconv.AppendInt(append(b, `{"step":`...), int64(f.Step), 10)
	b = appendInt64(b, "at", f.At, false)
	b = appendStr(b, "error", f.Error, false)
	if f.Told {
		b = append(b, `,"told":true`...)
	}
	return append(b, '}')
}

// appendStateFile writes a state body: the state as AppendState writes it
// but for its two large maps, with one member of the store's own at the
// end, the journal position of the last line the state is complete up to,
//
//	"journal":{"at":OFFSET,"n":LENGTH,"sum":"FNV-1a 64 of the line, hex"}
//
// and then the maps in binary and the whole body's sum (statemaps.go). A state without the journal
// member (written before states carried one) is rebuilt if it ever needs
// catching up.
func appendStateFile(b []byte, s *engine.State, pos *journalPos) []byte {
	return appendStateMaps(appendJournalPos(appendState(b, s, false), pos), len(b), s)
}

// appendJournalPos adds the journal member to the JSON object that ends b
// (nothing for a nil position).
func appendJournalPos(b []byte, pos *journalPos) []byte {
	if pos == nil {
		return b
	}
	b = append(b[:len(b)-1], `,"journal":{"at":`...)
	b = strconv.AppendInt(b, pos.At, 10)
	b = strconv.AppendInt(append(b, `,"n":`...), pos.N, 10)
	b = strconv.AppendUint(append(b, `,"sum":"`...), pos.Sum, 16)
	return append(b, `"}}`...)
}

func appendCounts(b []byte, c *engine.Counts) []byte {
	b = append(b, `{"tool_calls":`...)
	b = strconv.AppendInt(b, int64(c.ToolCalls), 10)
	if c.ByClass == nil {
		b = append(b, `,"by_class":null`...)
	} else {
		b = appendObject(appendField(b, "by_class"), c.ByClass, func(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) })
	}
	for _, f := range []struct {
		k string
		v int
	}{{"failures", c.Failures}, {"unknown_outcomes", c.UnknownOut}, {"edits", c.Edits}, {"checks", c.Checks},
		{"checks_ok", c.ChecksOK}, {"checks_failed", c.ChecksFailed}, {"checks_unknown", c.ChecksUnknown},
		{"files_read", c.FilesRead}, {"prompts", c.Prompts}, {"compactions", c.Compactions},
		{"subagents", c.Subagents}, {"nudges", c.Nudges}} {
		b = appendInt(b, f.k, f.v, false)
	}
	return append(b, '}')
}

func appendUsage(b []byte, u *engine.HostUsage) []byte {
	b = append(b, '{')
	n := len(b)
	if u.CostUSD != nil {
		b = strconv.AppendFloat(appendField(b, "cost_usd"), *u.CostUSD, 'f', -1, 64)
	}
	b = appendOptInt(b, "input_tokens", u.InputTokens)
	b = appendOptInt(b, "output_tokens", u.OutputTokens)
	b = appendOptInt(b, "cache_read_tokens", u.CacheReadTokens)
	b = appendOptInt(b, "cache_write_tokens", u.CacheWriteTokens)
	b = appendOptInt(b, "context_tokens", u.ContextTokens)
	b = appendOptInt(b, "context_window", u.ContextWindow)
	b = appendStr(b, "model", u.Model, true)
	if len(b) > n && b[n] == ',' { // the first field needs no comma
		b = append(b[:n], b[n+1:]...)
	}
	return append(b, '}')
}

func appendTranscript(b []byte, p *engine.TranscriptPos) []byte {
	b = appendQuoted(append(b, `{"file":`...), p.File)
	b = appendInt64(b, "off", p.Off, false)
	b = appendList(b, "exits", p.Exits, func(b []byte, x engine.CallExit) []byte {
		b = appendQuoted(append(b, `{"id":`...), x.ID)
		if x.Exit != nil {
			b = appendInt(b, "exit", *x.Exit, false)
		}
		b = appendStr(b, "status", x.Status, true)
		return append(b, '}')
	})
	b = appendList(b, "seen", p.Seen, appendQuoted)
	b = appendList(b, "seen_usage", p.SeenUsage, func(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) })
	return append(b, '}')
}

func appendInt(b []byte, k string, v int, omitZero bool) []byte {
	return appendInt64(b, k, int64(v), omitZero)
}

func appendInt64(b []byte, k string, v int64, omitZero bool) []byte {
	if omitZero && v == 0 {
		return b
	}
	return strconv.AppendInt(appendField(b, k), v, 10)
}

// appendMap writes a non-empty map as an object field with sorted keys, as
// encoding/json does (omitempty).
func appendMap[K ~string, V any](b []byte, k string, m map[K]V, item func([]byte, V) []byte) []byte {
	if len(m) == 0 {
		return b
	}
	return appendObject(appendField(b, k), m, item)
}

func appendObject[K ~string, V any](b []byte, m map[K]V, item func([]byte, V) []byte) []byte {
	b = append(b, '{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = item(append(appendQuoted(b, string(k)), ':'), m[k])
	}
	return append(b, '}')
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// appendTally writes one of the detectors' tallies (engine.Tally).
func appendGap(b []byte, g engine.ToolGap) []byte {
	b = appendQuoted(append(b, `{"name":`...), g.Name)
	b = appendInt(b, "missing", g.Missing, true)
	b = appendInt(b, "lookups", g.Lookups, true)
	b = appendList(b, "forms", g.Forms, appendQuoted)
	b = appendInt(b, "due", g.Due, true)
	return append(b, '}')
}

func appendTally(b []byte, t engine.Tally) []byte {
	b = appendQuoted(append(b, `{"k":`...), t.Key)
	b = appendInt(b, "n", t.N, false)
	b = appendInt(b, "q", t.Seq, true)
	b = appendList(b, "f", t.Forms, appendQuoted)
	b = appendStr(b, "t", t.Note, true)
	if t.Due {
		b = append(b, `,"x":true`...)
	}
	return append(b, '}')
}
