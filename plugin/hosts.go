package plugin

//go:generate go run ./gen -root ../

import (
	"encoding/json"
	"path"
	"sort"

	"cully/hookbridge"
	"cully/hookbridge/claude"
	"cully/hookbridge/gemini"
	"cully/hookbridge/opencode"
	"cully/skill"
)

// Version is the version the shipped plugins carry (Gemini CLI requires
// one; Claude Code compares it to offer an update).
const Version = "0.1.0"

// HookCommand is the hook command the shipped plugins run: cully-hook on
// PATH, by name, since a plugin cannot know where a machine keeps it.
const HookCommand = "cully-hook"

// Name is the plugin's name in every host: `/plugin install cully@cully`,
// the Gemini CLI extension `cully`.
const Name = "cully"

// NpmName is the opencode plugin's npm package, the name opencode.json's
// "plugin" list gives.
const NpmName = "opencode-cully"

// Folders of the shipped plugins, from the repository root.
const (
	ClaudeDir   = "plugins/claude"
	GeminiDir   = "plugins/gemini"
	OpencodeDir = "plugins/opencode"
	// Marketplace is Claude Code's marketplace manifest at the repository
	// root, where `/plugin marketplace add <repository>` looks for it.
	Marketplace = ".claude-plugin/marketplace.json"
)

const description = "cully watches the coding agent through its hooks: it records every tool call in one journal, applies local rules (no model call) and nudges the agent when it loops or retries a failed command blindly. Needs cully-hook on PATH."

// File is one file of the shipped plugins: its path from the repository
// root (slash-separated) and its bytes.
type File struct {
	Path string
	Data []byte
}

// Shipped is every file of the plugins the repository ships, in path
// order: Claude Code's plugin and its marketplace, the Gemini CLI
// extension, the opencode npm package. Their hook files come from the
// same adapters `cully install` writes settings with (each agent's Install,
// given HookCommand and no file before), their skills from package skill,
// the opencode plugin from Opencode: nothing here is kept by hand, and a
// test holds the files in the repository equal to what this returns (`go
// generate ./plugin` writes them).
func Shipped() ([]File, error) {
	var out []File
	add := func(p string, b []byte) { out = append(out, File{p, b}) }

	// Claude Code: the plugin, and the marketplace that lists it.
	add(Marketplace, manifest(map[string]any{
		"name":     Name,
		"owner":    map[string]any{"name": Name},
		"metadata": map[string]any{"description": "cully, shipped as a Claude Code plugin"},
		"plugins": []any{map[string]any{
			"name":        Name,
			"source":      "./" + ClaudeDir,
			"description": description,
			"version":     Version,
		}},
	}))
	add(ClaudeDir+"/.claude-plugin/plugin.json", manifest(map[string]any{
		"name": Name, "version": Version, "description": description,
		"author": map[string]any{"name": Name}, // the project, as the marketplace's owner
	}))
	hooks, err := hooksFile(claude.Agent{}, ClaudeDir)
	if err != nil {
		return nil, err
	}
	add(ClaudeDir+"/hooks/hooks.json", hooks)
	out = append(out, skills(claude.Agent{}, ClaudeDir)...)

	// Gemini CLI: the extension.
	add(GeminiDir+"/gemini-extension.json", manifest(map[string]any{
		"name": Name, "version": Version, "description": description,
	}))
	if hooks, err = hooksFile(gemini.Agent{}, GeminiDir); err != nil {
		return nil, err
	}
	add(GeminiDir+"/hooks/hooks.json", hooks)
	out = append(out, skills(gemini.Agent{}, GeminiDir)...)

	// opencode: the npm package.
	add(OpencodeDir+"/package.json", manifest(map[string]any{
		"name":        NpmName,
		"version":     Version,
		"description": description,
		"type":        "module",
		"main":        "cully.js",
		"files":       []string{"cully.js"},
		"keywords":    []string{"opencode", "opencode-plugin", "cully"},
	}))
	p, err := opencode.Agent{}.Install(hookbridge.Target{Settings: OpencodeDir + "/cully.js"}, nil, hookbridge.InstallOptions{HookCommand: HookCommand, Plugin: Opencode})
	if err != nil {
		return nil, err
	}
	add(OpencodeDir+"/cully.js", p.After)

	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// hooksFile is an agent's hooks file in a plugin: exactly the settings its
// install writes into a file of nothing else ({"hooks": {…}}), which is
// the shape both Claude Code's plugins and Gemini CLI's extensions read.
func hooksFile(in hookbridge.Installer, dir string) ([]byte, error) {
	p, err := in.Install(hookbridge.Target{Scope: hookbridge.ScopeShared, Settings: dir + "/hooks/hooks.json"}, nil, hookbridge.InstallOptions{HookCommand: HookCommand})
	if err != nil {
		return nil, err
	}
	return p.After, nil
}

// skills are cully's skill and run control's, one folder each under the
// plugin's skills/, as install writes them beside an agent's settings.
func skills(in hookbridge.Installer, dir string) []File {
	base := path.Join(dir, "skills")
	out := []File{{path.Join(base, "cully", "SKILL.md"), []byte(hookbridge.SkillFor(in, skill.SKILL))}}
	for _, f := range skill.RunControl() {
		out = append(out, File{path.Join(base, skill.RunControlFolder, f.Path), []byte(f.Text)})
	}
	return out
}

// manifest is a JSON manifest as the shipped files hold it: two-space
// indent, keys sorted, a final newline.
func manifest(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil { // maps of strings and lists: cannot fail
		panic(err)
	}
	return append(b, '\n')
}
