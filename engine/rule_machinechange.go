package engine

import (
	"fmt"
	"strings"
)

// ReasonMachineChange: a command that changes the user's machine outside
// the project.
const ReasonMachineChange Reason = "changes-machine"

// machineChange warns before a foreground shell call changes the user's
// machine beyond the project (machineChanges): a package manager's global
// install or removal, a Homebrew tap, the user's global git config, a
// login item, a shell start-up file. A rollback of the run does not undo
// it, and other projects and sessions share what it changed; the host's
// permission prompt, where there is one, shows the command, not that.
// Dedup key: the command.
var machineChange = guardRule{
	reason: ReasonMachineChange,
	advice: "Ask the user first, unless they asked for it: a rollback of the run does not undo it.",
	check: func(s *State, ev *Event, _ *Config) (string, string, bool) {
		if ev.Subagent != "" || !IsShellTool(ev.Tool) {
			return "", "", false
		}
		what := machineChanges(ev.Cmd)
		if what == "" {
			return "", "", false
		}
		return "machine\x00" + ev.CmdFP, fmt.Sprintf("`%s` %s, outside the project", preview(ev), what), true
	},
}

// machineChanges says what a command line changes on the machine beyond
// the project ("" for nothing it knows).
func machineChanges(cmd string) string {
	if !mentions(cmd, "brew", "install", " -g", "global", "git config", "defaults", "launchctl", "systemctl", "crontab", "chsh",
		"rc", "profile", "zshenv", "config.fish") {
		return "" // most calls: no lexing
	}
	for _, sg := range splitShell(cmd) {
		for _, r := range sg.redirs {
			if startupFile(r) {
				return "writes a shell start-up file"
			}
		}
		w := stripWrappers(sg.words)
		if len(w) < 2 {
			continue
		}
		prog, sub, rest := progName(w[0]), w[1], w[2:]
		switch {
		case prog == "brew" && (sub == "install" || sub == "uninstall" || sub == "remove" || sub == "reinstall" || sub == "upgrade" ||
			sub == "tap" && len(rest) > 0 || sub == "untap" || sub == "link" || sub == "unlink" || sub == "services"):
			return "changes Homebrew's packages (brew " + sub + ")"
		case (prog == "npm" || prog == "pnpm" || prog == "bun") && (sub == "install" || sub == "i" || sub == "add" || sub == "uninstall" || sub == "remove" || sub == "link") && hasFlag(rest, "-g", "--global"),
			prog == "yarn" && sub == "global":
			return "changes the global " + prog + " packages"
		case (prog == "pip" || prog == "pip3") && sub == "install" && hasFlag(rest, "--user", "--break-system-packages"),
			(prog == "gem" || prog == "cargo" || prog == "pipx") && sub == "install",
			prog == "uv" && sub == "tool" && len(rest) > 0 && rest[0] == "install":
			return "installs a tool for the whole machine (" + prog + " " + sub + ")"
		case prog == "git" && gitSub(w[1:]) == "config" && hasFlag(w[2:], "--global", "--system") && !gitConfigRead(w[2:]):
			return "changes the user's global git config"
		case prog == "defaults" && (sub == "write" || sub == "delete"),
			prog == "launchctl" && (sub == "load" || sub == "unload" || sub == "bootstrap" || sub == "bootout"),
			prog == "systemctl" && (sub == "enable" || sub == "disable" || sub == "mask") && !hasFlag(rest, "--user"),
			prog == "crontab" && !hasFlag(w[1:], "-l"),
			prog == "chsh":
			return "changes the system's settings (" + prog + " " + sub + ")"
		case (prog == "tee" || prog == "cp" || prog == "mv" || prog == "ln") && startupFile(w[len(w)-1]):
			return "writes a shell start-up file"
		}
	}
	return ""
}

// gitConfigRead: a `git config` that only reads (--get, --list, -l …).
func gitConfigRead(args []string) bool {
	for _, a := range args {
		if a == "-l" || a == "--list" || strings.HasPrefix(a, "--get") || a == "--show-origin" && len(args) <= 2 {
			return true
		}
	}
	return false
}

// startupFile: a shell's start-up file in the home folder.
func startupFile(p string) bool {
	p = strings.Trim(p, `"'`)
	if !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, "$HOME/") && !strings.HasPrefix(p, "${HOME}/") {
		return false
	}
	switch progName(p) {
	case ".bashrc", ".bash_profile", ".profile", ".zshrc", ".zprofile", ".zshenv", ".config/fish/config.fish", "config.fish":
		return true
	}
	return false
}
