package engine

import "testing"

func TestEditsGitInternals(t *testing.T) {
	for cmd, want := range map[string]bool{
		`grep -rl "pkg/gitsync" . | xargs sed -i '' 's|pkg/gitsync|gitsync|g'`: true,
		`grep -Rl old /home/dev/app | xargs -I{} sed -i 's/old/new/' {}`:       true,
		`find . -type f -exec sed -i 's/a/b/g' {} +`:                           true,
		`grep -rl --include='*.go' old . | xargs sed -i 's/old/new/'`:          false,
		`grep -rl --exclude-dir=.git old . | xargs sed -i 's/old/new/'`:        false,
		`find . -type f -name '*.go' -exec sed -i '' 's|a|b|g' {} +`:           false,
		`find . -type f -not -path './.git/*' -exec sed -i 's/a/b/' {} +`:      false,
		`rg -l old | xargs sed -i 's/old/new/'`:                                false,
		`git grep -l old | xargs sed -i 's/old/new/'`:                          false,
		`grep -rn old . | head`:                                                false,
		`grep -rl old . | xargs wc -l`:                                         false,
		`grep -rl old . | xargs perl -pi -e 's/old/new/'`:                      true,
	} {
		if got := editsGitInternals(splitShell(cmd)); got != want {
			t.Errorf("editsGitInternals(%q) = %v, want %v", cmd, got, want)
		}
	}
}
