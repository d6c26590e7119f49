// Package e2e runs the real clients, headless, against scripted loopback
// mocks of their model APIs, with cully installed by `cully install`, and
// asserts on what the model is sent next: that each nudge reaches it
// exactly once, and that cully's failures never do. Claude Code speaks to
// a Messages API mock, Gemini CLI to a Gemini API mock
// (GOOGLE_GEMINI_BASE_URL), and opencode to an OpenAI-compatible one
// through a provider in the project's opencode.json.
//
// Run with: go test -tags e2e ./e2e/   (.ci/run does). The pinned
// clients are installed from npm into a cache outside the repository on
// first use ($CULLY_E2E_CACHE, default ~/.cache/cully-e2e);
// $CULLY_E2E_CLAUDE, $CULLY_E2E_GEMINI (its gemini.js) and
// $CULLY_E2E_OPENCODE name a client to use instead.
package e2e
