package hookbridge

import (
	"bytes"
	"encoding/json"
	"fmt"

	"cully/engine"
	"cully/redact"
)

// DecodeOversize salvages what it can from the head of a payload too large
// to decode whole: the top-level scalar fields that come before the first
// large value (the agents write session_id, hook_event_name and tool_name
// first; kind maps the agent's hook event names). The tool call is still counted, with an unknown outcome, so a huge
// payload never makes the journal lose a call.
func DecodeOversize(agent string, head []byte, total int64, env Env, kind func(hook string) engine.Kind) *engine.Event {
	fields := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err == nil && t == json.Delim('{') {
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				break
			}
			key, _ := kt.(string)
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				break
			}
			var s string
			if json.Unmarshal(v, &s) == nil {
				fields[key] = s
			}
		}
	}
	ev := &engine.Event{
		V:         engine.SchemaVersion,
		Time:      env.Now.UTC(),
		Agent:     agent,
		Session:   fields["session_id"],
		Hook:      fields["hook_event_name"],
		Tool:      fields["tool_name"],
		ToolUseID: fields["tool_use_id"],
		Cwd:       redact.Path(fields["cwd"]),
		Kind:      engine.KindOther,
		Note:      fmt.Sprintf("payload too large (%d bytes)", total),
		Quiet:     env.Quiet,
	}
	switch k := kind(ev.Hook); k {
	case engine.KindPreTool:
		ev.Kind = k
	case engine.KindPostTool:
		ev.Kind, ev.Outcome = k, engine.OutcomeUnknown
	}
	if ev.Tool != "" {
		ev.Class = engine.ClassifyTool(ev.Tool)
		if engine.IsShellTool(ev.Tool) {
			ev.Class = engine.ClassRun
		}
	}
	if ev.Hook == "" {
		ev.Hook = "unknown"
	}
	return ev
}
