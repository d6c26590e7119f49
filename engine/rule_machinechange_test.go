package engine

import "testing"

func TestMachineChanges(t *testing.T) {
	for cmd, want := range map[string]string{
		`brew tap entireio/tap "$HOME/Work/homebrew-tap" --force 2>&1 | tail -5`: "changes Homebrew's packages (brew tap)",
		`brew install ffmpeg`:                        "changes Homebrew's packages (brew install)",
		`npm install -g typescript`:                  "changes the global npm packages",
		`git config --global user.email a@b.c`:       "changes the user's global git config",
		`echo 'export PATH=$PATH:~/bin' >> ~/.zshrc`: "writes a shell start-up file",
		`cargo install ripgrep`:                      "installs a tool for the whole machine (cargo install)",
		`brew tap`:                                   "",
		`brew list`:                                  "",
		`npm install`:                                "",
		`git config user.email a@b.c`:                "",
		`git config --global --get user.email`:       "",
		`git config --global -l`:                     "",
		`pip install -r requirements.txt`:            "",
		`go install ./cmd/tool`:                      "",
	} {
		if got := machineChanges(cmd); got != want {
			t.Errorf("machineChanges(%q) = %q, want %q", cmd, got, want)
		}
	}
}
