// Package e2e runs the real Claude Code client, headless, against a
// scripted loopback mock of the Messages API, with cully installed by
// `cully install`, and asserts on what the model is sent next: that each
// nudge reaches it exactly once, and that cully's failures never do.
//
// Run with: go test -tags e2e ./e2e/   (.ci/run does). The pinned client is
// installed from npm into a cache outside the repository on first use
// ($CULLY_E2E_CACHE, default ~/.cache/cully-e2e); $CULLY_E2E_CLAUDE names
// a claude binary to use instead.
package e2e
