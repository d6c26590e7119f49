// cully's plugin for opencode: it forwards each tool call and the session's
// events to cully's hook, and appends what the hook answers to the tool's
// result, which is what opencode shows the model. When the hook answers a
// call with a block (a halted run), the plugin throws it, opencode's way
// to refuse the call; it never throws for anything else, cully's own
// failures included.
// cully-plugin-version: 3
// `cully install --agent opencode` wrote this file; `cully uninstall --agent
// opencode` removes it. An edited copy is yours: install leaves it alone.
import { spawn } from "node:child_process"

// HOOK is the hook's command line, as install wrote it.
const HOOK = "cully-hook"
// TIMEOUT_MS: a hook call takes milliseconds, so one stuck this long is
// broken, and opencode goes on without it.
const TIMEOUT_MS = 5000

// callHook runs the hook with one payload on its stdin and resolves to its
// answer (an object), or to null on any failure: the hook never breaks
// opencode.
function callHook(payload, projectDir) {
  return new Promise((resolve) => {
    let child
    try {
      child = spawn(HOOK + " --agent opencode", {
        shell: true,
        stdio: ["pipe", "pipe", "ignore"],
        // GOMAXPROCS=1: the hook's one processor from the runtime's start
        // (cully's install.HookEnv: 0.08 ms less a call).
        env: { ...process.env, GOMAXPROCS: "1", OPENCODE_PROJECT_DIR: projectDir },
      })
    } catch {
      resolve(null)
      return
    }
    let out = ""
    let done = false
    const finish = (v) => {
      if (!done) {
        done = true
        clearTimeout(timer)
        resolve(v)
      }
    }
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      finish(null)
    }, TIMEOUT_MS)
    child.stdout.on("data", (d) => {
      out += d
    })
    child.on("error", () => finish(null))
    child.on("close", () => {
      try {
        finish(out.trim() ? JSON.parse(out) : null)
      } catch {
        finish(null)
      }
    })
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(payload))
  })
}

export const CullyPlugin = async ({ directory, worktree }) => {
  const project = worktree && worktree !== "/" ? worktree : directory
  const send = (event, fields) => callHook({ hook_event_name: event, cwd: directory, ...fields }, project)
  const errored = new Set() // calls whose error was already sent
  return {
    "tool.execute.before": async (input, output) => {
      const answer = await send("tool.execute.before", {
        session_id: input.sessionID,
        tool_name: input.tool,
        tool_use_id: input.callID,
        tool_input: output.args,
      })
      if (answer && typeof answer.block === "string" && answer.block !== "") {
        throw new Error(answer.block)
      }
    },
    "tool.execute.after": async (input, output) => {
      const meta = (output && output.metadata) || {}
      const text = output && typeof output.output === "string" ? output.output : ""
      const answer = await send("tool.execute.after", {
        session_id: input.sessionID,
        tool_name: input.tool,
        tool_use_id: input.callID,
        tool_input: input.args,
        tool_response: { output: text, metadata: { exit: meta.exit ?? null, truncated: meta.truncated ?? false } },
      })
      if (answer && typeof answer.context === "string" && answer.context !== "") {
        output.output = text + "\n\n" + answer.context
      }
    },
    "chat.message": async (input) => {
      await send("chat.message", { session_id: input.sessionID })
    },
    event: async ({ event }) => {
      const p = event.properties || {}
      switch (event.type) {
        case "session.created":
        case "session.deleted":
          if (p.info && !p.info.parentID) await send(event.type, { session_id: p.info.id })
          break
        case "session.idle":
        case "session.compacted":
          await send(event.type, { session_id: p.sessionID })
          break
        case "message.part.updated": {
          // A tool that throws gets no tool.execute.after: its error shows
          // here, once, as the part's final state.
          const part = p.part
          if (part && part.type === "tool" && part.state && part.state.status === "error" && !errored.has(part.callID)) {
            errored.add(part.callID)
            await send("tool.error", {
              session_id: part.sessionID,
              tool_name: part.tool,
              tool_use_id: part.callID,
              tool_input: part.state.input,
              error: String(part.state.error),
            })
          }
          break
        }
      }
    },
  }
}
