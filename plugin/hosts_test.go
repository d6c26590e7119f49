package plugin

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cully/hookbridge/claude"
	"cully/hookbridge/gemini"
	"cully/install"
)

// The plugins in the repository are exactly what Shipped writes: no file
// kept by hand beside them, none out of date. After a change to an
// adapter's install, a skill or the opencode plugin, `go generate
// ./plugin` writes them again.
func TestShippedFilesAreGenerated(t *testing.T) {
	files, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, f := range files {
		want[f.Path] = true
		got, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(f.Path)))
		if err != nil {
			t.Errorf("%s: %v (go generate ./plugin writes it)", f.Path, err)
			continue
		}
		if !bytes.Equal(got, f.Data) {
			t.Errorf("%s differs from what the generator writes: run go generate ./plugin", f.Path)
		}
	}
	for _, dir := range []string{ClaudeDir, GeminiDir, OpencodeDir} {
		filepath.WalkDir(filepath.Join("..", dir), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel("..", p)
				if !want[filepath.ToSlash(rel)] {
					t.Errorf("%s is in a shipped plugin but the generator does not write it: go generate ./plugin removes it", rel)
				}
			}
			return nil
		})
	}
}

// What each host reads: Claude Code's marketplace names the plugin's
// folder, whose manifest has the same name; the hooks files wire every
// event the adapter installs, with a command on PATH naming the agent
// where cully needs it; Gemini CLI's manifest has the name and version it
// requires; the npm package's main file is the opencode plugin.
func TestShippedManifests(t *testing.T) {
	files, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	by := map[string][]byte{}
	for _, f := range files {
		by[f.Path] = f.Data
	}
	var mk struct {
		Name    string `json:"name"`
		Owner   struct{ Name string }
		Plugins []struct{ Name, Source string }
	}
	if err := json.Unmarshal(by[Marketplace], &mk); err != nil || mk.Owner.Name == "" || len(mk.Plugins) != 1 || mk.Plugins[0].Source != "./"+ClaudeDir || mk.Plugins[0].Name != Name {
		t.Errorf("marketplace: %v %+v", err, mk)
	}
	var pj struct{ Name, Version string }
	if err := json.Unmarshal(by[ClaudeDir+"/.claude-plugin/plugin.json"], &pj); err != nil || pj.Name != Name || pj.Version != Version {
		t.Errorf("plugin.json: %v %+v", err, pj)
	}
	if err := json.Unmarshal(by[GeminiDir+"/gemini-extension.json"], &pj); err != nil || pj.Name != Name || pj.Version != Version {
		t.Errorf("gemini-extension.json: %v %+v", err, pj)
	}
	for _, c := range []struct {
		file   string
		events []string
		cmd    string
	}{
		{ClaudeDir + "/hooks/hooks.json", claude.Events, install.WithHookEnv(HookCommand)},
		{GeminiDir + "/hooks/hooks.json", gemini.Events, HookCommand + " --agent gemini"},
	} {
		var h struct {
			Hooks map[string][]struct {
				Hooks []struct{ Type, Command string }
			}
		}
		if err := json.Unmarshal(by[c.file], &h); err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		var got []string
		for ev, groups := range h.Hooks {
			got = append(got, ev)
			if len(groups) != 1 || len(groups[0].Hooks) != 1 || groups[0].Hooks[0].Command != c.cmd || groups[0].Hooks[0].Type != "command" {
				t.Errorf("%s: %s: %+v, want one command %q", c.file, ev, groups, c.cmd)
			}
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(c.events))
		if !slices.Equal(got, want) {
			t.Errorf("%s wires %v, want %v", c.file, got, want)
		}
	}
	var pkg struct{ Name, Main, Type string }
	if err := json.Unmarshal(by[OpencodeDir+"/package.json"], &pkg); err != nil || pkg.Name != NpmName || pkg.Type != "module" || by[OpencodeDir+"/"+pkg.Main] == nil {
		t.Errorf("package.json: %v %+v", err, pkg)
	}
	if js := string(by[OpencodeDir+"/cully.js"]); !strings.Contains(js, `const HOOK = "cully-hook"`) || !strings.Contains(js, "export const CullyPlugin") {
		t.Errorf("cully.js is not the plugin with the hook on PATH:\n%.400s", js)
	}
	for _, dir := range []string{ClaudeDir, GeminiDir} {
		for _, sk := range []string{"cully", "cully-run-control"} {
			if !bytes.HasPrefix(by[dir+"/skills/"+sk+"/SKILL.md"], []byte("---\n")) {
				t.Errorf("%s: no skill %s with its front matter", dir, sk)
			}
		}
	}
}
