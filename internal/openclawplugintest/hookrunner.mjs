// hookrunner.mjs loads the session-ledger plugin into OpenClaw's real
// plugin runtime and fires OpenClaw's real hook runner with the events it
// reads, for TestHookRunner:
//
//   node hookrunner.mjs ANSWERS < scenario.json
//
// scenario.json: {"plugin": {...plugin config...}, "workspace": DIR, "also": [bundled plugin ids],
//                 "steps": [{"hook": "before_tool_call", "event": {...}, "ctx": {...}}, ...]}
//
// The plugin is loaded from integrations/openclaw-plugin by loadOpenClawPlugins
// (the loader the gateway uses, found in the dist files by its source name,
// tools/openclaw/locate.mjs) with plugins.load.paths, and every step goes
// through getGlobalHookRunner()'s run<Hook> method, which awaits the
// plugin's handlers as OpenClaw does. ANSWERS gets one JSON line per step:
// {"hook", "result"} (before_tool_call's merged result: block and
// blockReason), or {"hook", "error"}. Nothing here decides anything.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Locator, openclawPackage } from "../../tools/openclaw/locate.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const scenario = JSON.parse(fs.readFileSync(0, "utf8"));
const answers = fs.openSync(process.argv[2], "w");

const loc = new Locator(openclawPackage().dist);
const loadOpenClawPlugins = await loc.find("loadOpenClawPlugins", "loader-runtime-load");
const getGlobalHookRunner = await loc.find("getGlobalHookRunner", "hook-runner-global");

const pluginID = "session-ledger";
// scenario.also: bundled plugins to load beside it (their ids), enabled.
const also = scenario.also ?? [];
const config = {
  plugins: {
    allow: [pluginID, ...also],
    slots: { memory: "none" },
    load: { paths: [path.join(here, "..", "..", "integrations", "openclaw-plugin")] },
    entries: { [pluginID]: { enabled: true, config: scenario.plugin }, ...Object.fromEntries(also.map((id) => [id, { enabled: true }])) },
  },
};
const registry = await loadOpenClawPlugins({ config, workspaceDir: scenario.workspace, activate: true, cache: false });
const record = registry.plugins.find((p) => p.id === pluginID);
fs.writeSync(answers, JSON.stringify({ hook: "load", result: { status: record?.status, error: record?.error ?? null, hooks: registry.typedHooks.filter((h) => h.pluginId === pluginID).map((h) => h.hookName),
  also: also.map((id) => ({ id, status: registry.plugins.find((p) => p.id === id)?.status ?? null })), tools: registry.tools.map((t) => ({ pluginId: t.pluginId, names: t.names })) } }) + "\n");
const runner = getGlobalHookRunner();

const methods = {
  session_start: "runSessionStart",
  session_end: "runSessionEnd",
  model_call_started: "runModelCallStarted",
  subagent_spawned: "runSubagentSpawned",
  subagent_ended: "runSubagentEnded",
  before_tool_call: "runBeforeToolCall",
  after_tool_call: "runAfterToolCall",
  gateway_stop: "runGatewayStop",
};

for (const step of scenario.steps) {
  const m = methods[step.hook];
  let line;
  try {
    if (!m) throw new Error(`no runner method for ${step.hook}`);
    const r = await runner[m](step.event, step.ctx);
    line = { hook: step.hook, result: r === undefined ? null : { block: r.block ?? null, blockReason: r.blockReason ?? null } };
  } catch (e) {
    line = { hook: step.hook, error: String(e?.stack ?? e) };
  }
  fs.writeSync(answers, JSON.stringify(line) + "\n");
}
fs.closeSync(answers);
// OpenClaw's runtime keeps timers and handles open; the answers are out.
process.exit(0);
