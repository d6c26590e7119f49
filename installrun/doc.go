// Package installrun is one `cully install` or `cully uninstall` for one
// agent: where it works (New: the scope's target, the project of the
// current directory), the steps it plans (PlanInstall: the settings merge,
// Codex's trust, the git exclude line, the skills, the record of what it
// created; PlanUninstall: exactly what install added, the folders it
// created once empty), and their run (Execute), or for --dry-run the diff
// and what each step would do. The file edits themselves are package
// install's; each agent's settings shape is its adapter's.
package installrun
