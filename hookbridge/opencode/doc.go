// Package opencode is opencode's adapter: the payloads cully's opencode
// plugin sends (its tool.execute.before/after hooks and session events,
// forwarded as JSON to `cully-hook --agent opencode`), the answers the
// plugin hands back to the model, and the plugin file's installation.
//
// opencode runs no hook commands of its own: it loads JavaScript plugins
// from its config folders, so cully installs one (the text is in package
// cully/plugin, which only the CLI links). Its tool.execute.before hook can
// only rewrite a call's arguments or throw, so tool events are deferred
// and the engine hands what is due to tool.execute.after, whose output the
// plugin extends. A tool that throws gets no tool.execute.after: the plugin
// reports its error from the session's message events instead.
package opencode
