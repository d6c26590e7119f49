//go:build !unix

package hookrun

import "errors"

// startAdvisor is not built off Unix: the automatic advisor needs a
// detached process group to kill at the deadline. `cully advise` still runs.
func startAdvisor(string) error {
	return errors.New("the automatic advisor is not built for this system: run `cully advise`")
}
