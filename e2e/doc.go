// Package e2e runs the real agent clients, headless, against a scripted
// loopback mock of the Messages API, with cully installed by `cully
// install`, and asserts on what the model is sent next: that each nudge
// reaches it exactly once, and that cully's failures never do. Claude Code
// talks to the mock as its API; GitHub Copilot CLI through its
// bring-your-own-model settings (COPILOT_PROVIDER_*, offline, no sign-in).
//
// Run with: go test -tags e2e ./e2e/   (.ci/run does). The pinned clients
// are installed from npm into a cache outside the repository on first use
// ($CULLY_E2E_CACHE, default ~/.cache/cully-e2e); $CULLY_E2E_CLAUDE and
// $CULLY_E2E_COPILOT name binaries to use instead.
package e2e
