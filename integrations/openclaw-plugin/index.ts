// The session-ledger OpenClaw plugin: it records OpenClaw's sessions,
// sub-agent spawns, model turns, yields, completions and tool calls in the
// session policy ledger over NATS (the ledger's micro service API, as the
// Go client speaks it), and blocks every tool call the ledger denies, with
// the reason and the `ledger why` command that explains it.
// docs/openclaw-plugin.md says how to install and configure it.
//
// OpenClaw loads this TypeScript file as it is (its plugin loader runs
// local plugins' .ts entries through jiti); Node 24 imports it as it is
// too (type stripping), which is how integrations/openclaw-plugin/bench.mjs and
// the tests drive it. So the sources use only erasable TypeScript, import
// each other with their .ts names, and import nothing from openclaw at run
// time.
import os from "node:os";
import path from "node:path";
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { parseConfig, type Place } from "./config.ts";
import { Ledger, errText, resolveNats } from "./ledger.ts";
import { Bridge, type Origin } from "./bridge.ts";

export const id = "session-ledger";

/**
 * place is where the gateway's configuration lives, for the default
 * scope: the directory of $OPENCLAW_CONFIG_PATH (what `openclaw` reads
 * when it is set), else OpenClaw's state directory (where openclaw.json
 * is otherwise, ~/.openclaw or a profile's ~/.openclaw-<profile>).
 */
export function place(api: Pick<OpenClawPluginApi, "runtime">, env: NodeJS.ProcessEnv = process.env): Place {
  const configPath = env.OPENCLAW_CONFIG_PATH?.trim();
  if (configPath) return { configDir: path.dirname(configPath) };
  try {
    const dir = api.runtime?.state?.resolveStateDir?.(env);
    if (dir) return { configDir: dir };
  } catch {
    // The default's default below.
  }
  return { configDir: path.join(os.homedir(), ".openclaw") };
}

/**
 * origin is what the plugin can learn of where it runs (bridge.Origin):
 * OpenClaw's version and agents' workspaces from its runtime, the OS user
 * and host from Node. Whatever cannot be read is left out.
 */
export function origin(api: Pick<OpenClawPluginApi, "runtime" | "config">): Origin {
  const o: Origin = {};
  const v = api.runtime?.version;
  if (typeof v === "string" && v !== "" && v !== "unknown") o.runtimeVersion = v;
  try {
    o.user = os.userInfo().username || undefined;
  } catch {
    // No passwd entry for the uid (a container's): no user.
  }
  o.host = os.hostname() || undefined;
  const resolve = api.runtime?.agent?.resolveAgentWorkspaceDir;
  if (typeof resolve === "function" && api.config) {
    o.workspace = (agent) => resolve(api.config, agent) || undefined;
  }
  return o;
}

// OpenClaw 2026.9.6 keeps its plugin registry in a process-wide singleton
// under this symbol (src/plugins/runtime-state-key.ts, resolveGlobalSingleton);
// its activeRegistry.tools holds one entry per registerTool call, with the
// plugin's id and its declared tool names (the manifest's contracts.tools,
// which every tool a plugin registers must be in). No SDK function returns
// it: tools.catalog leaves out the plugin tools named like core tools,
// which are the ones that matter here, and the hooks name no plugin.
const registryState = Symbol.for("openclaw.pluginRegistryState");

type ToolRegistration = { pluginId?: unknown; names?: unknown; declaredNames?: unknown };

/**
 * pluginTools reads which tools the gateway's plugins own from OpenClaw's
 * active plugin registry: plugin id to tool names (the names each
 * registration gives and the plugin's declared contracts.tools), ids and
 * names sorted. It throws when the registry cannot be read (another
 * OpenClaw than the plugin knows): a root whose plugin tools are not known
 * is not started, so its calls are blocked rather than decided as if no
 * plugin owned a tool.
 */
export function pluginTools(g: Record<symbol, unknown> = globalThis as unknown as Record<symbol, unknown>): Record<string, string[]> {
  const state = g[registryState] as { activeRegistry?: { tools?: unknown } | null } | undefined;
  const tools = state?.activeRegistry?.tools;
  if (!Array.isArray(tools)) {
    throw new Error(
      "OpenClaw's plugin registry cannot be read (globalThis[Symbol.for(\"openclaw.pluginRegistryState\")].activeRegistry.tools, as OpenClaw 2026.9.6 keeps it), so which tools its plugins own is not known and the session is not started",
    );
  }
  const owned = new Map<string, Set<string>>();
  for (const entry of tools as ToolRegistration[]) {
    if (typeof entry?.pluginId !== "string" || entry.pluginId === "") continue;
    const set = owned.get(entry.pluginId) ?? new Set<string>();
    for (const list of [entry.names, entry.declaredNames]) {
      if (!Array.isArray(list)) continue;
      for (const n of list) if (typeof n === "string" && n.trim() !== "") set.add(n.trim());
    }
    owned.set(entry.pluginId, set);
  }
  const out: Record<string, string[]> = {};
  for (const id of [...owned.keys()].sort()) out[id] = [...owned.get(id)!].sort();
  return out;
}

/**
 * register wires the plugin's hooks (OpenClaw calls it once per plugin
 * runtime). A configuration that does not parse blocks every tool call
 * with the problem: a ledger plugin that cannot run must not let calls go
 * unchecked. A missing nats package is different: nothing the plugin could
 * do later would work, so register throws before it registers anything,
 * and OpenClaw reports the plugin as failed at load (status "error", "failed
 * during register", with the message naming the fix) instead of a plugin
 * that loaded and blocks every call.
 */
export function register(api: OpenClawPluginApi): Bridge | undefined {
  let cfg;
  try {
    cfg = parseConfig(api.pluginConfig, place(api));
  } catch (e) {
    api.logger?.error?.(errText(e));
    api.on(
      "before_tool_call",
      () => ({ block: true, blockReason: `The session-ledger plugin is misconfigured, so it blocks every tool call: ${errText(e)}` }),
      { priority: 1000 },
    );
    return undefined;
  }
  resolveNats(cfg.natsModule);
  const bridge = new Bridge(new Ledger(cfg), cfg, api.logger ?? {}, { ...origin(api), pluginTools: () => pluginTools() });
  api.logger?.info?.(`session-ledger: sessions are recorded in scope ${cfg.scope} as orchestrator ${cfg.owner}`);
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
