package install

import "testing"

func TestIsCullyCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/usr/local/bin/cully-hook": true, "cully-hook --agent claude": true, "'/my dir/cully-hook'": true,
		"/x/cully hook": true, "cully statusline": true, "cully status": false, "other-hook": false, "echo cully-hook": false,
	} {
		if got := IsCullyCommand(cmd); got != want {
			t.Errorf("IsCullyCommand(%q) = %v", cmd, got)
		}
	}
}
