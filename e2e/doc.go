// Package e2e runs the real agent clients, headless, against scripted
// loopback mocks of their model APIs, with cully installed by `cully
// install`, and asserts on what the model is sent next: that each nudge
// reaches it exactly once, and that cully's failures never do. Claude Code
// runs against a mock of the Messages API (claude_test.go); Codex, with its
// hooks trusted through its own app server by `cully install --agent
// codex`, against a mock of the Responses API (codex_test.go), where a
// hook's context arrives as a developer message; Gemini CLI against a
// Gemini API mock (GOOGLE_GEMINI_BASE_URL); opencode against an
// OpenAI-compatible one through a provider in the project's opencode.json;
// GitHub Copilot CLI against the Messages mock through its
// bring-your-own-model settings (COPILOT_PROVIDER_*, offline, no sign-in).
//
// Run with: go test -tags e2e ./e2e/   (.ci/run does). The pinned clients
// are installed from npm into a cache outside the repository on first use
// ($CULLY_E2E_CACHE, default ~/.cache/cully-e2e); $CULLY_E2E_CLAUDE,
// $CULLY_E2E_CODEX, $CULLY_E2E_GEMINI (its gemini.js), $CULLY_E2E_OPENCODE
// and $CULLY_E2E_COPILOT name a client to use instead. The mocks listen on
// 127.0.0.1 only; the Codex run turns off its update check, plugins, apps
// and analytics, so it has nothing to fetch elsewhere.
package e2e
