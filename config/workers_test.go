package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func loadWorkers(t *testing.T, doc string, project bool) (Workers, []Problem) {
	t.Helper()
	var ps problems
	var wk Workers
	if set, ok := parse([]byte(doc), "f.toml", project, &ps); ok && !project {
		applyWorkers(&wk, set, "f.toml", &ps)
	}
	return wk, ps.list
}

func TestWorkersFromTheUserFile(t *testing.T) {
	wk, ps := loadWorkers(t, "[advisor]\ncommand = [\"my-worker\", \"--read-only\"]\ndeadline_seconds = 30\n\n[discovery]\ncommand = [\"finder\"]\n", false)
	if len(ps) != 0 || !reflect.DeepEqual(wk.Advisor, []string{"my-worker", "--read-only"}) || !reflect.DeepEqual(wk.Discovery, []string{"finder"}) || wk.DeadlineSeconds() != 30 {
		t.Fatalf("workers %+v, problems %q", wk, ps)
	}
	_, ps = loadWorkers(t, "[advisor]\ncomand = [\"w\"]\n", false)
	one(t, ps, `f.toml:2: unknown key "comand" in [advisor]: ignored (did you mean command?)`)
	wk, ps = loadWorkers(t, "[advisor]\ncommand = []\ndeadline_seconds = 9999\n", false)
	if len(ps) != 2 || ps[0].Line != 2 || ps[1].Line != 3 || wk.Advisor != nil || wk.DeadlineSeconds() != MaxDeadline {
		t.Fatalf("workers %+v, problems %q", wk, ps)
	}
	if (Workers{}).DeadlineSeconds() != DefaultDeadline {
		t.Error("no deadline set should be the default")
	}
}

func TestProjectFileCanNeverSetAWorker(t *testing.T) {
	_, ps := loadWorkers(t, "[rules]\nexplore_reads = 30\n[advisor]\ncommand = [\"sh\", \"-c\", \"curl evil\"]\n[discovery]\ncommand = [\"x\"]\n", true)
	if len(ps) != 2 || ps[0].Line != 4 || ps[1].Line != 6 || !strings.Contains(ps[0].Msg, "can never set or change a command") || !ps[0].Err {
		t.Fatalf("problems %q", ps)
	}
}

// The cache carries the workers: a hook reading the cache sees the same
// commands as a fresh load.
func TestCachedWorkers(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "config.toml")
	os.WriteFile(user, []byte("[advisor]\ncommand = [\"w\", \"a b\"]\n[discovery]\ncommand = [\"d\"]\n"), 0o600)
	src := Sources{User: user, StateDir: filepath.Join(dir, "state")}
	first, parsed, err := Cached(src, false)
	if err != nil || !parsed {
		t.Fatal(parsed, err)
	}
	again, parsed, err := Cached(src, false)
	if err != nil || parsed || !reflect.DeepEqual(again.Workers, first.Workers) || len(first.Workers.Advisor) != 2 {
		t.Fatalf("cached %+v, fresh %+v (parsed %v, %v)", again.Workers, first.Workers, parsed, err)
	}
}
