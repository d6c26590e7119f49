package skill

import (
	"embed"
	"io/fs"
)

// SKILL is the text of SKILL.md.
//
//go:embed SKILL.md
var SKILL string

//go:embed run-control
var runControl embed.FS

// RunControlFolder is the run-control skill's folder name, a sibling of
// cully's own skill folder (…/skills/cully beside …/skills/cully-run-control):
// agents find skills one folder each under the same skills folder.
const RunControlFolder = "cully-run-control"

// File is one file of a skill: its path inside the skill's folder
// (slash-separated) and its text.
type File struct {
	Path string
	Text string
}

// RunControl is the run-control skill's files, SKILL.md first, then its
// references in path order. Each call reads them afresh.
func RunControl() []File {
	var out []File
	err := fs.WalkDir(runControl, "run-control", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := runControl.ReadFile(p)
		if err != nil {
			return err
		}
		rel := p[len("run-control/"):]
		out = append(out, File{Path: rel, Text: string(b)})
		return nil
	})
	if err != nil { // the files are embedded: only a build without them fails here
		panic("skill: read embedded run-control skill: " + err.Error())
	}
	return out // WalkDir goes in lexical order: SKILL.md sorts before references/
}
