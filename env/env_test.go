package env

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cully/store"
)

func of(m map[string]string) Env { return Env{Getenv: func(k string) string { return m[k] }} }

func TestConfigPath(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"explicit", map[string]string{"CULLY_CONFIG": "/c.toml", "XDG_CONFIG_HOME": "/x"}, "/c.toml"},
		{"xdg", map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/cully/config.toml"},
		{"relative xdg ignored", map[string]string{"XDG_CONFIG_HOME": "x", "HOME": "/h"}, "/h/.config/cully/config.toml"},
		{"home", map[string]string{"HOME": "/h"}, "/h/.config/cully/config.toml"},
		{"nothing", map[string]string{}, ""},
	}
	for _, c := range cases {
		if got := of(c.env).ConfigPath(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestStateDirAndHome(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"cully home", map[string]string{"CULLY_HOME": "/s", "XDG_STATE_HOME": "/x"}, "/s"},
		{"xdg", map[string]string{"XDG_STATE_HOME": "/x", "HOME": "/h"}, "/x/cully"},
		{"home", map[string]string{"HOME": "/h"}, "/h/.local/state/cully"},
	}
	for _, c := range cases {
		got, err := of(c.env).StateDir()
		if err != nil || got != filepath.FromSlash(c.want) {
			t.Errorf("%s: %q %v, want %q", c.name, got, err, c.want)
		}
	}
	for _, bad := range []map[string]string{
		{"CULLY_HOME": "state", "HOME": "/h"},
		{"CULLY_HOME": "./state", "HOME": "/h"},
		{"CULLY_HOME": "../x"},
		{"HOME": "h"},
	} {
		if got, err := of(bad).StateDir(); err == nil {
			t.Errorf("%v: a relative state dir must be an error, got %q", bad, got)
		}
		if _, err := of(bad).Home(); err == nil {
			t.Errorf("%v: Home must refuse a relative state dir", bad)
		}
	}
	if got, _ := of(map[string]string{"CULLY_HOME": "/s/../t/"}).StateDir(); got != filepath.FromSlash("/t") {
		t.Errorf("CULLY_HOME is cleaned: %q", got)
	}
	h, err := of(map[string]string{"CULLY_HOME": "/s", "CULLY_LOCK_TIMEOUT": "250ms"}).Home()
	if err != nil || h.Dir != "/s" || h.LockWait != 250*time.Millisecond {
		t.Errorf("home %+v %v", h, err)
	}
	if h.Now == nil {
		t.Error("Home carries the clock")
	}
	h, _ = of(map[string]string{"CULLY_HOME": "/s", "CULLY_NOW": "2026-11-30T12:00:00Z"}).Home()
	if h.Now == nil || !h.Now().Equal(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)) {
		t.Error("Home's clock is CULLY_NOW when set")
	}
	h, _ = of(map[string]string{"CULLY_HOME": "/s", "CULLY_LOCK_TIMEOUT": "-1s"}).Home()
	if h.LockWait != store.DefaultLockWait {
		t.Errorf("a nonsense lock wait falls back to the default: %v", h.LockWait)
	}
}

// CULLY_LOCK_TIMEOUT: a positive duration up to MaxLockWait; anything else
// is an error that says what applies instead, and a wait that can be used.
func TestLockWait(t *testing.T) {
	cases := []struct {
		v    string
		want time.Duration
		bad  bool
	}{
		{"", store.DefaultLockWait, false},
		{"250ms", 250 * time.Millisecond, false},
		{"3s", MaxLockWait, false},
		{"abc", store.DefaultLockWait, true},
		{"-5s", store.DefaultLockWait, true},
		{"0", store.DefaultLockWait, true},
		{"5", store.DefaultLockWait, true}, // no unit
		{"1ns", store.DefaultLockWait, true},
		{"10s", MaxLockWait, true},
		{"87600h", MaxLockWait, true},
		{"9999999999999999h", store.DefaultLockWait, true}, // overflows
	}
	for _, c := range cases {
		d, err := of(map[string]string{"CULLY_LOCK_TIMEOUT": c.v}).LockWait()
		if d != c.want || (err != nil) != c.bad {
			t.Errorf("CULLY_LOCK_TIMEOUT=%q: %v, %v; want %v, error %v", c.v, d, err, c.want, c.bad)
		}
		if err != nil && !strings.Contains(err.Error(), "CULLY_LOCK_TIMEOUT") {
			t.Errorf("CULLY_LOCK_TIMEOUT=%q: the error does not name the variable: %v", c.v, err)
		}
	}
	if MaxLockWait >= 5*time.Second {
		t.Errorf("MaxLockWait %v is not under the hosts' 5s hook timeout", MaxLockWait)
	}
}

func TestNow(t *testing.T) {
	got, err := of(map[string]string{"CULLY_NOW": "2026-11-30T12:00:00Z"}).Now()
	if err != nil || !got.Equal(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("fixed clock: %v %v", got, err)
	}
	if _, err := of(map[string]string{"CULLY_NOW": "noon"}).Now(); err == nil {
		t.Error("a bad CULLY_NOW must be reported")
	}
}

func TestProjectDir(t *testing.T) {
	e := of(map[string]string{"B_DIR": "/b"})
	if got := e.ProjectDir("A_DIR", "B_DIR"); got != "/b" {
		t.Errorf("host variable: %q", got)
	}
	if got := e.ProjectDir("A_DIR"); got == "" || got == "/b" {
		t.Errorf("working directory fallback: %q", got)
	}
}

func TestConfigSources(t *testing.T) {
	src := of(map[string]string{"CULLY_HOME": "/s", "CULLY_CONFIG": "/c.toml"}).ConfigSources("/p")
	if src.User != "/c.toml" || src.ProjectDir != "/p" || src.StateDir != filepath.FromSlash("/s") || src.ProjectPath() != filepath.Join("/p", ".cully.toml") {
		t.Errorf("%+v", src)
	}
}
