// The session-ledger OpenClaw plugin: it records OpenClaw's sessions,
// sub-agent spawns, model turns, yields, completions and tool calls in the
// session policy ledger over NATS (the ledger's micro service API, as the
// Go client speaks it), and blocks every tool call the ledger denies, with
// the reason and the `ledger why` command that explains it.
// docs/openclaw-plugin.md says how to install and configure it.
//
// OpenClaw loads this TypeScript file as it is (its plugin loader runs
// local plugins' .ts entries through jiti); Node 24 imports it as it is
// too (type stripping), which is how tools/openclaw-plugin/bench.mjs and
// the tests drive it. So the sources use only erasable TypeScript, import
// each other with their .ts names, and import nothing from openclaw at run
// time.
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { parseConfig } from "./config.ts";
import { Ledger, errText } from "./ledger.ts";
import { Bridge } from "./bridge.ts";

export const id = "session-ledger";

/**
 * register wires the plugin's hooks (OpenClaw calls it once per plugin
 * runtime). A configuration that does not parse blocks every tool call
 * with the problem: a ledger plugin that cannot run must not let calls go
 * unchecked.
 */
export function register(api: OpenClawPluginApi): Bridge | undefined {
  let cfg;
  try {
    cfg = parseConfig(api.pluginConfig);
  } catch (e) {
    api.logger?.error?.(errText(e));
    api.on(
      "before_tool_call",
      () => ({ block: true, blockReason: `The session-ledger plugin is misconfigured, so it blocks every tool call: ${errText(e)}` }),
      { priority: 1000 },
    );
    return undefined;
  }
  const bridge = new Bridge(new Ledger(cfg), cfg, api.logger ?? {});
  api.on("session_start", (ev, ctx) => bridge.sessionStart(ev, ctx));
  api.on("model_call_started", (ev, ctx) => bridge.modelCallStarted(ev, ctx));
  api.on("subagent_spawned", (ev, ctx) => bridge.subagentSpawned(ev, ctx));
  api.on("subagent_ended", (ev) => bridge.subagentEnded(ev));
  // First (highest priority), and with a budget that covers the plugin's
  // own bound, so that its answer, not the runner's timeout, decides.
  api.on("before_tool_call", (ev, ctx) => bridge.beforeToolCall(ev, ctx), { priority: 1000, timeoutMs: bridge.toolDeadlineMs + 1000 });
  api.on("after_tool_call", (ev, ctx) => bridge.afterToolCall(ev, ctx));
  api.on("gateway_stop", () => bridge.close());
  return bridge;
}

export default {
  id,
  name: "Session policy ledger",
  description: "Records sessions, sub-agent spawns, turns, yields, completions and tool calls in the session policy ledger over NATS, and blocks the tool calls it denies.",
  // OpenClaw expects registration to return nothing.
  register(api: OpenClawPluginApi): void {
    register(api);
  },
};
