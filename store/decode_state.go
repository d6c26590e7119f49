package store

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"cully/engine"
	"cully/jsonlite"
)

// decodeState reads a state file written by AppendState (or
// encoding/json: the formats are the same). The hook loads its session's
// state on every call, so this walks the document once with jsonlite,
// switching on raw member names and building no intermediate maps: in a
// process that lives a few milliseconds, every allocation is a fresh page
// the kernel has to fault in.
func decodeState(b []byte) (*engine.State, error) {
	st, _, err := decodeStateFile(b)
	return st, err
}

// decodeStateFile is decodeState that also reads what a state file's body
// holds besides: the store's own member, the journal position, and the
// maps kept apart in binary (see appendStateFile).
func decodeStateFile(body []byte) (*engine.State, *journalPos, error) {
	b, maps, mapsAt, err := splitStateBody(body)
	if err != nil {
		return nil, nil, err
	}
	blk := &stateBlock{}
	st := &blk.st
	d := stateDecoder{blk: blk, b: body, s: string(body)}
	var pos *journalPos
	// One pass (jsonlite.MembersAt): every member is validated whole
	// (ValueAt) and then read as a value, but for the two large maps, which
	// a body written before they went binary (statemaps.go) still holds
	// in its JSON: those are walked as they are validated.
	err = jsonlite.MembersAt(b, func(k []byte, at int) (int, error) {
		if at < len(b) && b[at] == '{' {
			switch string(k) {
			case `"files"`:
				return d.files(at)
			case `"commands"`:
				return d.commands(at)
			}
		}
		end, err := jsonlite.ValueAt(b, at, 1)
		if err != nil {
			return 0, err
		}
		v := b[at:end]
		switch string(k) {
		case `"journal"`:
			if string(v) == "null" {
				break
			}
			p := &journalPos{}
			d.members(v, func(k, x []byte) {
				switch string(k) {
				case `"at"`:
					p.At = jsonlite.Int(x)
				case `"n"`:
					p.N = jsonlite.Int(x)
				case `"sum"`:
					n, err := strconv.ParseUint(d.str(x), 16, 64)
					if err != nil {
						d.errs = append(d.errs, err)
					}
					p.Sum = n
				}
			})
			pos = p
		case `"v"`:
			st.V = d.int(v)
		case `"session"`:
			st.Session = d.str(v)
		case `"agent"`:
			st.Agent = d.str(v)
		case `"cwd"`:
			st.Cwd = d.str(v)
		case `"started"`:
			st.Started = d.time(v)
		case `"last_seen"`:
			st.LastSeen = d.time(v)
		case `"events"`:
			st.Events = d.int(v)
		case `"ended"`:
			st.Ended = string(v) == "true"
		case `"attended"`:
			if string(v) != "null" {
				a := string(v) == "true"
				st.Attended = &a
			}
		case `"tmux_pane"`:
			st.Pane = d.str(v)
		case `"clock_skews"`:
			st.ClockSkews = d.int(v)
		case `"task"`:
			st.Task = d.int(v)
		case `"check_epoch"`:
			st.CheckEpoch = d.int(v)
		case `"change_seq"`:
			st.ChangeSeq = d.int(v)
		case `"reads_since_act"`:
			st.ReadsSinceAct = d.int(v)
		case `"edits_since_check"`:
			st.EditsSinceCheck = d.int(v)
		case `"edits_since_try"`:
			st.EditsSinceTry = d.int(v)
		case `"failed_check"`:
			st.FailedCheck = d.str(v)
		case `"failing_check"`:
			st.FailingCheck = d.str(v)
		case `"code_since_try"`:
			st.CodeSinceTry = d.int(v)
		case `"task_edits"`:
			st.TaskEdits = d.int(v)
		case `"task_checks"`:
			st.TaskChecks = d.int(v)
		case `"prompt_cmds"`:
			d.each(v, func(x []byte) { st.PromptCmds = append(st.PromptCmds, d.str(x)) })
		case `"task_tests"`:
			d.each(v, func(x []byte) { st.TaskTests = append(st.TaskTests, d.str(x)) })
		case `"working"`:
			st.Working = string(v) == "true"
		case `"stops_seen"`:
			st.StopsSeen = string(v) == "true"
		case `"subagent_at"`:
			st.SubagentAt = jsonlite.Int(v)
		case `"pres"`:
			st.Pres = d.int(v)
		case `"recent"`:
			// Room for the call being recorded: one allocation, where
			// growing by append took four, each a fresh heap span in a
			// process this short.
			if string(v) != "null" {
				st.Recent = blk.recent[:0]
			}
			d.each(v, func(x []byte) {
				var r engine.RecentCall
				d.members(x, func(k, v []byte) {
					switch string(k) {
					case `"c"`:
						r.Call = d.str(v)
					case `"o"`:
						r.Out = d.str(v)
					case `"p"`:
						r.Preview = d.str(v)
					case `"f"`:
						r.Failed = string(v) == "true"
					}
				})
				st.Recent = append(st.Recent, r)
			})
		case `"err_run"`:
			if string(v) == "null" {
				break
			}
			r := &engine.ErrRun{}
			d.members(v, func(k, v []byte) {
				switch string(k) {
				case `"sig"`:
					r.Sig = d.str(v)
				case `"n"`:
					r.N = d.int(v)
				case `"at"`:
					r.At = d.int(v)
				case `"cmds"`:
					if string(v) != "null" {
						r.Cmds = []string{}
						d.each(v, func(x []byte) { r.Cmds = append(r.Cmds, d.str(x)) })
					}
				}
			})
			st.ErrRun = r
		case `"searches"`:
			d.each(v, func(x []byte) { st.Searches = append(st.Searches, d.tally(x)) })
		case `"rerun"`:
			if string(v) != "null" {
				t := d.tally(v)
				st.Rerun = &t
			}
		case `"prog_fails"`:
			d.each(v, func(x []byte) { st.ProgFails = append(st.ProgFails, d.tally(x)) })
		case `"gaps"`:
			d.each(v, func(x []byte) { st.Gaps = append(st.Gaps, d.gap(x)) })
		case `"next_cp"`:
			st.NextCP = d.int(v)
		case `"counts"`:
			d.counts(v, &st.Counts)
		case `"checkpoints"`:
			d.each(v, func(x []byte) { st.Checkpoints = append(st.Checkpoints, d.checkpoint(x)) })
		case `"warnings"`:
			d.each(v, func(x []byte) { st.Warnings = append(st.Warnings, d.warning(x)) })
		case `"files"`, `"commands"`: // not an object (null): the maps stay empty
			d.errs = append(d.errs, fmt.Errorf("state member %s is %.20s, not an object", k, v))
		case `"warned"`:
			d.each(v, func(x []byte) { st.Warned = append(st.Warned, d.str(x)) })
		case `"usage"`:
			if string(v) != "null" {
				st.Usage = d.usage(v)
			}
		case `"transcript"`:
			if string(v) != "null" {
				st.Transcript = d.transcript(v)
			}
		case `"run"`:
			if string(v) != "null" {
				st.Run = d.run(v)
			}
		case `"advice"`:
			if string(v) != "null" {
				a := &engine.Advice{}
				d.members(v, func(ak, av []byte) {
					switch string(ak) {
					case `"text"`:
						a.Text = d.str(av)
					case `"at"`:
						a.At = jsonlite.Int(av)
					case `"told"`:
						a.Told = string(av) == "true"
					}
				})
				st.Advice = a
			}
		case `"advice_at"`:
			st.AdviceAt = jsonlite.Int(v)
		case `"idle"`:
			if string(v) != "null" {
				st.Idle = d.idle(v)
			}
		case `"open"`:
			if string(v) != "null" {
				st.Open = d.openCall(v)
			}
		case `"turn"`:
			st.Turn = string(v) == "true"
		}
		return end, nil
	})
	if err != nil {
		return nil, nil, err
	}
	if maps != nil {
		if err := decodeStateMaps(st, maps, mapsAt, d.s); err != nil {
			return nil, nil, err
		}
	}
	if err := errors.Join(d.errs...); err != nil {
		return st, nil, err
	}
	return st, pos, nil
}

// stateDecoder collects the errors of nested values (a bad time, a
// malformed nested object) so one pass can report them all.
type stateDecoder struct {
	errs []error
	blk  *stateBlock
	// b is the body being decoded and s one copy of it: a string with no
	// escape is a slice of s, where a copy of its own was an allocation of
	// its size, and the state's dozens of strings of every size a fresh
	// heap span of each size class in a process this short.
	b []byte
	s string
}

// str is jsonlite.Str for a value of the body: an escape-free string is
// a slice of the body's copy.
func (d *stateDecoder) str(v []byte) string {
	if n := len(v); d.s != "" && n >= 2 && v[0] == '"' && v[n-1] == '"' {
		off := cap(d.b) - cap(v) // v is a slice of b: its offset
		if off >= 0 && off+n <= len(d.b) && &d.b[off] == &v[0] {
			if in := v[1 : n-1]; bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
				return d.s[off+1 : off+n-1]
			}
		}
	}
	return jsonlite.Str(v)
}

// stateBlock is one allocation for a state and the parts nearly every
// state has: its run and its recent calls, with room for the call being
// recorded (growing them by append took four allocations). Made apart,
// the three were three size classes of the heap, each a fresh span and
// its page faults in a process this short; together they are one
// (1,304 bytes, the 1,408-byte class).
type stateBlock struct {
	st     engine.State
	run    engine.Run
	recent [engine.MaxRecent + 1]engine.RecentCall
}

func (d *stateDecoder) int(v []byte) int { return int(jsonlite.Int(v)) }

func (d *stateDecoder) time(v []byte) time.Time {
	s := d.str(v)
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		d.errs = append(d.errs, err)
	}
	return t
}

// files and commands read the state's two large maps at b[at] in the
// top-level walk's one pass: each entry's members are validated as they
// are read (jsonlite.ObjectAt, ValueAt), never skipped first.
func (d *stateDecoder) files(at int) (int, error) {
	st := &d.blk.st
	st.Files = map[string]*engine.FileSeen{}
	var f *engine.FileSeen
	return d.entries(at, func(k []byte) {
		f = &engine.FileSeen{}
		st.Files[d.str(k)] = f
	}, func(fk, fv []byte) {
		switch string(fk) {
		case `"n"`:
			f.Reads = d.int(fv)
		case `"wa"`:
			f.WholeAt = jsonlite.Int(fv)
		case `"wm"`:
			f.WholeMod = jsonlite.Int(fv)
		case `"ws"`:
			f.WholeSize = jsonlite.Int(fv)
		case `"s"`:
			f.Seen = jsonlite.Int(fv)
		}
	})
}

func (d *stateDecoder) commands(at int) (int, error) {
	st := &d.blk.st
	st.Commands = map[string]*engine.CmdSeen{}
	var c *engine.CmdSeen
	return d.entries(at, func(k []byte) {
		c = &engine.CmdSeen{}
		st.Commands[d.str(k)] = c
	}, func(ck, cv []byte) {
		switch string(ck) {
		case `"preview"`:
			c.Preview = d.str(cv)
		case `"runs"`:
			c.Runs = d.int(cv)
		case `"seen"`:
			c.LastSeen = jsonlite.Int(cv)
		case `"fails"`:
			c.Fails = d.int(cv)
		case `"sig_streak"`:
			c.SigStreak = d.int(cv)
		case `"last_sig"`:
			c.LastSig = d.str(cv)
		case `"change_at"`:
			d.each(cv, func(n []byte) { c.ChangeAt = append(c.ChangeAt, d.int(n)) })
		case `"edit"`:
			c.Edit = d.str(cv)
		}
	})
}

// entries walks a map of objects at b[at] (a top-level member, one deep):
// entry is called with each key, then member with each of that entry's
// members (two deep, each validated whole and handed over as a value).
// Two functions for the whole map rather than a reader made per entry:
// a closure per entry was an allocation per entry (798 against 477 for a
// state at its caps).
func (d *stateDecoder) entries(at int, entry func(k []byte), member func(k, v []byte)) (int, error) {
	b := d.b
	return jsonlite.ObjectAt(b, at, 1, func(k []byte, at int) (int, error) {
		entry(k)
		if at >= len(b) || b[at] != '{' {
			end, err := jsonlite.ValueAt(b, at, 2)
			if err == nil {
				d.errs = append(d.errs, fmt.Errorf("state entry %s is %.20s, not an object", k, b[at:end]))
			}
			return end, err
		}
		return jsonlite.ObjectAt(b, at, 2, func(mk []byte, at int) (int, error) {
			end, err := jsonlite.ValueAt(b, at, 3)
			if err != nil {
				return 0, err
			}
			member(mk, b[at:end])
			return end, nil
		})
	})
}

// members and each walk a nested value, which the top-level walk already
// validated whole (see jsonlite.ValidMembers).
func (d *stateDecoder) members(v []byte, fn func(k, v []byte)) {
	if err := jsonlite.ValidMembers(v, fn); err != nil {
		d.errs = append(d.errs, err)
	}
}

func (d *stateDecoder) each(v []byte, fn func(v []byte)) {
	if string(v) == "null" {
		return
	}
	if err := jsonlite.ValidElements(v, fn); err != nil {
		d.errs = append(d.errs, err)
	}
}

func (d *stateDecoder) counts(v []byte, c *engine.Counts) {
	d.members(v, func(k, x []byte) {
		switch string(k) {
		case `"tool_calls"`:
			c.ToolCalls = d.int(x)
		case `"by_class"`:
			if string(x) != "null" {
				c.ByClass = map[engine.Class]int{}
				d.members(x, func(ck, cv []byte) { c.ByClass[engine.Class(d.str(ck))] = d.int(cv) })
			}
		case `"failures"`:
			c.Failures = d.int(x)
		case `"unknown_outcomes"`:
			c.UnknownOut = d.int(x)
		case `"edits"`:
			c.Edits = d.int(x)
		case `"checks"`:
			c.Checks = d.int(x)
		case `"checks_ok"`:
			c.ChecksOK = d.int(x)
		case `"checks_failed"`:
			c.ChecksFailed = d.int(x)
		case `"checks_unknown"`:
			c.ChecksUnknown = d.int(x)
		case `"files_read"`:
			c.FilesRead = d.int(x)
		case `"prompts"`:
			c.Prompts = d.int(x)
		case `"compactions"`:
			c.Compactions = d.int(x)
		case `"subagents"`:
			c.Subagents = d.int(x)
		case `"nudges"`:
			c.Nudges = d.int(x)
		}
	})
}

func (d *stateDecoder) checkpoint(v []byte) engine.Checkpoint {
	var c engine.Checkpoint
	d.members(v, func(k, x []byte) {
		switch string(k) {
		case `"id"`:
			c.ID = d.str(x)
		case `"reason"`:
			c.Reason = engine.Reason(d.str(x))
		case `"task"`:
			c.Task = d.int(x)
		case `"epoch"`:
			c.Epoch = d.int(x)
		case `"raised"`:
			c.Raised = d.time(x)
		case `"evidence"`:
			c.Evidence = d.str(x)
		case `"status"`:
			c.Status = engine.CheckpointStatus(d.str(x))
		case `"nudged"`:
			c.Nudged = string(x) == "true"
		case `"closed"`:
			if string(x) != "null" {
				t := d.time(x)
				c.Closed = &t
			}
		case `"key"`:
			c.Key = d.str(x)
		case `"carried"`:
			c.Carried = string(x) == "true"
		case `"asked"`:
			c.Asked = string(x) == "true"
		}
	})
	return c
}

func (d *stateDecoder) warning(v []byte) engine.Warning {
	var w engine.Warning
	d.members(v, func(k, x []byte) {
		switch string(k) {
		case `"reason"`:
			w.Reason = engine.Reason(d.str(x))
		case `"ts"`:
			w.Time = d.time(x)
		case `"task"`:
			w.Task = d.int(x)
		case `"target"`:
			w.Target = d.str(x)
		case `"evidence"`:
			w.Evidence = d.str(x)
		case `"nudged"`:
			w.Nudged = string(x) == "true"
		case `"held"`:
			w.Held = string(x) == "true"
		}
	})
	return w
}

func (d *stateDecoder) usage(v []byte) *engine.HostUsage {
	u := &engine.HostUsage{}
	opt := func(x []byte) *int64 {
		if string(x) == "null" {
			return nil
		}
		n := jsonlite.Int(x)
		return &n
	}
	d.members(v, func(k, x []byte) {
		switch string(k) {
		case `"cost_usd"`:
			if f, err := strconv.ParseFloat(string(x), 64); err == nil {
				u.CostUSD = &f
			}
		case `"input_tokens"`:
			u.InputTokens = opt(x)
		case `"output_tokens"`:
			u.OutputTokens = opt(x)
		case `"cache_read_tokens"`:
			u.CacheReadTokens = opt(x)
		case `"cache_write_tokens"`:
			u.CacheWriteTokens = opt(x)
		case `"context_tokens"`:
			u.ContextTokens = opt(x)
		case `"context_window"`:
			u.ContextWindow = opt(x)
		case `"model"`:
			u.Model = d.str(x)
		}
	})
	return u
}

func (d *stateDecoder) transcript(v []byte) *engine.TranscriptPos {
	p := &engine.TranscriptPos{}
	d.members(v, func(k, x []byte) {
		switch string(k) {
		case `"file"`:
			p.File = d.str(x)
		case `"off"`:
			p.Off = jsonlite.Int(x)
		case `"exits"`:
			d.each(x, func(e []byte) {
				var c engine.CallExit
				d.members(e, func(k, v []byte) {
					switch string(k) {
					case `"id"`:
						c.ID = d.str(v)
					case `"exit"`:
						if string(v) != "null" {
							n := d.int(v)
							c.Exit = &n
						}
					case `"status"`:
						c.Status = d.str(v)
					}
				})
				p.Exits = append(p.Exits, c)
			})
		case `"seen"`:
			d.each(x, func(e []byte) { p.Seen = append(p.Seen, d.str(e)) })
		case `"seen_usage"`:
			d.each(x, func(e []byte) { p.SeenUsage = append(p.SeenUsage, jsonlite.Int(e)) })
		}
	})
	return p
}

func (d *stateDecoder) run(v []byte) *engine.Run {
	var r *engine.Run
	if d.blk != nil && d.blk.st.Run == nil {
		r = &d.blk.run // the first run member: in the state's block
	} else {
		r = &engine.Run{}
	}
	d.members(v, func(k, x []byte) {
		switch string(k) {
		case `"id"`:
			r.ID = d.str(x)
		case `"task"`:
			r.Task = d.int(x)
		case `"started"`:
			r.Started = d.time(x)
		case `"calls"`:
			r.Calls = d.int(x)
		case `"edits"`:
			r.Edits = d.int(x)
		case `"snap_calls"`:
			r.SnapCalls = d.int(x)
		case `"snap_at"`:
			r.SnapAt = jsonlite.Int(x)
		case `"asked"`:
			r.Asked = d.int(x)
		case `"done"`:
			r.Done = d.int(x)
		case `"snapshots"`:
			r.Snapshots = d.int(x)
		case `"last_step"`:
			r.LastStep = d.int(x)
		case `"last_at"`:
			r.LastAt = jsonlite.Int(x)
		case `"last_files"`:
			r.LastFiles = d.int(x)
		case `"failed"`:
			r.Failed = d.runFailure(x)
		case `"checks"`:
			d.each(x, func(c []byte) {
				var rc engine.RunCheck
				d.members(c, func(ck, cv []byte) {
					switch string(ck) {
					case `"cmd"`:
						rc.Cmd = d.str(cv)
					case `"outcome"`:
						rc.Outcome = engine.Outcome(d.str(cv))
					case `"runs"`:
						rc.Runs = d.int(cv)
					case `"at"`:
						rc.At = jsonlite.Int(cv)
					case `"base"`:
						t := &engine.TestCounts{}
						d.members(cv, func(tk, tv []byte) {
							switch string(tk) {
							case `"runner"`:
								t.Runner = d.str(tv)
							case `"passed"`:
								t.Passed = d.int(tv)
							case `"failed"`:
								t.Failed = d.int(tv)
							case `"errors"`:
								t.Errors = d.int(tv)
							case `"skipped"`:
								t.Skipped = d.int(tv)
							case `"counted"`:
								t.Counted = string(tv) == "true"
							}
						})
						rc.Base = t
					case `"bad"`:
						rc.Bad = d.int(cv)
					}
				})
				r.Checks = append(r.Checks, rc)
			})
		case `"paused"`:
			r.Paused = d.runNote(x)
		case `"resumed"`:
			r.Resumed = d.runNote(x)
		case `"rollback_failed"`:
			r.RollbackFailed = d.runFailure(x)
		case `"halted"`:
			r.Halted = d.runNote(x)
		case `"notice"`:
			r.Notice = d.str(x)
		case `"recoverable"`:
			if string(x) != "null" {
				rc := &engine.Recoverable{}
				d.members(x, func(k, v []byte) {
					switch string(k) {
					case `"step"`:
						rc.Step = d.int(v)
					case `"at"`:
						rc.At = int64(d.int(v))
					}
				})
				r.Recoverable = rc
			}
		case `"budget"`:
			d.runBudget(x, &r.Budget)
		case `"good_step"`:
			r.GoodStep = d.int(x)
		}
	})
	return r
}

func (d *stateDecoder) plan(v []byte) *engine.PlanProgress {
	if string(v) == "null" {
		return nil
	}
	p := &engine.PlanProgress{}
	d.members(v, func(k, x []byte) {
		switch string(k) {
		case `"done"`:
			p.Done = d.int(x)
		case `"total"`:
			p.Total = d.int(x)
		}
	})
	return p
}

func (d *stateDecoder) runBudget(v []byte, g *engine.RunBudget) {
	d.members(v, func(k, x []byte) {
		switch string(k) {
		case `"files"`:
			d.each(x, func(f []byte) { g.Files = append(g.Files, d.str(f)) })
		case `"last_mod"`:
			g.LastMod = d.int(x)
		case `"last_progress"`:
			g.LastProgress = d.int(x)
		case `"verified"`:
			d.each(x, func(f []byte) { g.Verified = append(g.Verified, d.str(f)) })
		case `"stall"`:
			g.Stall = d.int(x)
		case `"tok_base"`:
			if string(x) != "null" {
				n := jsonlite.Int(x)
				g.TokBase = &n
			}
		case `"cost_base"`:
			if f, err := strconv.ParseFloat(string(x), 64); err == nil {
				g.CostBase = &f
			}
		case `"doubled"`:
			d.each(x, func(e []byte) {
				var db engine.Doubling
				d.members(e, func(ek, ev []byte) {
					switch string(ek) {
					case `"res"`:
						db.Res = engine.Resource(d.str(ev))
					case `"n"`:
						db.N = d.int(ev)
					}
				})
				g.Doubled = append(g.Doubled, db)
			})
		case `"plan"`:
			g.Plan = d.plan(x)
		case `"alerts"`:
			if string(x) != "null" {
				g.Alerts = make([]engine.BudgetAlert, 0, 4) // the usual few, in one allocation
			}
			d.each(x, func(e []byte) {
				var a engine.BudgetAlert
				d.members(e, func(ek, ev []byte) {
					switch string(ek) {
					case `"kind"`:
						a.Kind = d.str(ev)
					case `"key"`:
						a.Key = d.str(ev)
					case `"at"`:
						a.At = jsonlite.Int(ev)
					case `"text"`:
						a.Text = d.str(ev)
					case `"told"`:
						a.Told = string(ev) == "true"
					}
				})
				g.Alerts = append(g.Alerts, a)
			})
		}
	})
}

func (d *stateDecoder) runNote(v []byte) *engine.RunNote {
	if string(v) == "null" {
		return nil
	}
	n := &engine.RunNote{}
	d.members(v, func(k, x []byte) {
		switch string(k) {
		case `"at"`:
			n.At = jsonlite.Int(x)
		case `"note"`:
			n.Note = d.str(x)
		case `"by"`:
			n.By = d.str(x)
		case `"doubled"`:
			d.each(x, func(r []byte) { n.Doubled = append(n.Doubled, engine.Resource(d.str(r))) })
		}
	})
	return n
}

func (d *stateDecoder) runFailure(v []byte) *engine.RunFailure {
	if string(v) == "null" {
		return nil
	}
	f := &engine.RunFailure{}
	d.members(v, func(k, x []byte) {
		switch string(k) {
		case `"step"`:
			f.Step = d.int(x)
		case `"at"`:
			f.At = jsonlite.Int(x)
		case `"error"`:
			f.Error = d.str(x)
		case `"told"`:
			f.Told = string(x) == "true"
		}
	})
	return f
}

func (d *stateDecoder) openCall(v []byte) *engine.OpenCall {
	c := &engine.OpenCall{}
	d.members(v, func(k, v []byte) {
		switch string(k) {
		case `"at"`:
			c.At = jsonlite.Int(v)
		case `"tool"`:
			c.Tool = d.str(v)
		case `"id"`:
			c.ID = d.str(v)
		case `"class"`:
			c.Class = engine.Class(d.str(v))
		case `"asked"`:
			c.Asked = d.str(v)
		}
	})
	return c
}

func (d *stateDecoder) idle(v []byte) *engine.IdleRun {
	i := &engine.IdleRun{}
	d.members(v, func(k, v []byte) {
		switch string(k) {
		case `"same"`:
			i.Same = d.int(v)
		case `"stuck"`:
			i.Stuck = d.int(v)
		case `"forced"`:
			i.Forced = d.int(v)
		case `"fp"`:
			i.FP = d.str(v)
		case `"sketch"`:
			i.Sketch = d.str(v)
		case `"says"`:
			i.Says = d.str(v)
		case `"prompt"`:
			i.Prompt = d.str(v)
		case `"acted"`:
			i.Acted = string(v) == "true"
		case `"raised"`:
			i.Raised = string(v) == "true"
		case `"tell"`:
			i.Tell = string(v) == "true"
		case `"told"`:
			i.Told = string(v) == "true"
		}
	})
	return i
}

// tally decodes one of the detectors' tallies (engine.Tally).
func (d *stateDecoder) gap(v []byte) engine.ToolGap {
	var g engine.ToolGap
	d.members(v, func(k, v []byte) {
		switch string(k) {
		case `"name"`:
			g.Name = d.str(v)
		case `"missing"`:
			g.Missing = d.int(v)
		case `"lookups"`:
			g.Lookups = d.int(v)
		case `"forms"`:
			d.each(v, func(x []byte) { g.Forms = append(g.Forms, d.str(x)) })
		case `"due"`:
			g.Due = d.int(v)
		}
	})
	return g
}

func (d *stateDecoder) tally(v []byte) engine.Tally {
	var t engine.Tally
	d.members(v, func(k, v []byte) {
		switch string(k) {
		case `"k"`:
			t.Key = d.str(v)
		case `"n"`:
			t.N = d.int(v)
		case `"q"`:
			t.Seq = d.int(v)
		case `"f"`:
			d.each(v, func(x []byte) { t.Forms = append(t.Forms, d.str(x)) })
		case `"t"`:
			t.Note = d.str(v)
		case `"x"`:
			t.Due = string(v) == "true"
		}
	})
	return t
}
