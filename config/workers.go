package config

import (
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// Workers are the external commands the advisor runs, from the user's own
// config only: [advisor] command and [discovery] command. A project file
// can never set or change one (parse refuses the keys there, with its
// line). No command means that part of the advisor is off.
type Workers struct {
	Advisor   []string `json:"advisor,omitempty"`
	Discovery []string `json:"discovery,omitempty"`
	// Deadline is the advisor worker's deadline in seconds ([advisor]
	// deadline_seconds; 0: DefaultDeadline).
	Deadline int `json:"deadline_seconds,omitempty"`
}

// DefaultDeadline is the advisor worker's deadline when the config sets
// none: long enough for a headless agent CLI to read a short prompt and
// answer, short enough that a hung worker frees its slot within minutes.
const DefaultDeadline = 120

// MaxDeadline bounds deadline_seconds: a worker slot held longer than ten
// minutes starves every other session of advice.
const MaxDeadline = 600

// workerTable reports whether a [table] holds a worker's settings.
func workerTable(name string) bool { return name == "advisor" || name == "discovery" }

// workerSpec is a worker table's key: every one of them is user-only.
func workerSpec(table, key string) (spec, bool) {
	switch {
	case key == "command":
		return spec{kind: unstable.Array, userOnly: true}, true
	case table == "advisor" && key == "deadline_seconds":
		return spec{kind: unstable.Integer, userOnly: true}, true
	}
	return spec{}, false
}

func workerKeys(table string) []string {
	if table == "advisor" {
		return []string{"command", "deadline_seconds"}
	}
	return []string{"command"}
}

// applyWorkers takes the worker settings of the user's file.
func applyWorkers(wk *Workers, set map[string]setting, file string, ps *problems) {
	for _, t := range []struct {
		key string
		dst *[]string
	}{{"advisor.command", &wk.Advisor}, {"discovery.command", &wk.Discovery}} {
		s, ok := set[t.key]
		if !ok {
			continue
		}
		if len(s.list) == 0 || strings.TrimSpace(s.list[0]) == "" {
			ps.add(Problem{File: file, Line: s.line, Err: true, Msg: t.key + " is empty: it needs the program to run first, e.g. [\"my-worker\", \"--flag\"]; that worker is off"})
			continue
		}
		*t.dst = s.list
	}
	if s, ok := set["advisor.deadline_seconds"]; ok {
		v := min(max(s.n, 1), MaxDeadline)
		if v != s.n {
			ps.add(Problem{File: file, Line: s.line, Msg: fmt.Sprintf("advisor.deadline_seconds = %d is outside 1–%d: %d is used", s.n, MaxDeadline, v)})
		}
		wk.Deadline = int(v)
	}
}

// DeadlineSeconds is the advisor worker's deadline.
func (w Workers) DeadlineSeconds() int {
	if w.Deadline > 0 {
		return w.Deadline
	}
	return DefaultDeadline
}
