// oracle.mjs answers, with OpenClaw's own code, what the installed openclaw
// package decides for a config and a lineage of sessions: whether the
// config validates, which tools each session ends up with, and whether each
// spawn is admitted. tests/openclawdiff drives it and compares the
// answers with the ledger's openclaw dialect.
//
//   node oracle.mjs 3<>answers   cases on stdin, one JSON object a line;
//                                one answer a line on fd 3 (stdout and
//                                stderr carry whatever OpenClaw logs)
//
// It must not decide anything itself. Every verdict comes from a package
// function, found by its source name (locate.mjs) and called as OpenClaw's
// runtime calls it; the glue below only builds the inputs those functions
// take (a session entry for a spawned child, tool objects for a fixed
// catalogue) the way the package's own callers do, and names the caller
// each step copies.
//
// A case:
//
//   {"id": "...",
//    "config": {...openclaw.json...},
//    "tools": [{"name": "read"}, {"name": "gh__issue", "plugin": "bundle-mcp"}],
//    "sessions": [
//      {"agent": "main", "key": "agent:main:main", "provider": "openai", "model": "gpt-5",
//       "channel": "slack", "group": "g1", "sender": "alice"},
//      {"agent": "coder", "parent": 0, "sender": "bob"}
//    ]}
//
// A session with "parent" (the index of an earlier session) is spawned by
// that session (whose children created so far are all still running). Its
// answer carries the admission with the agent id named
// ("explicit") and, for a spawn of the requester's own agent, also with it
// left out ("omitted"), since sessions_spawn takes both.
//
// An answer:
//
//   {"id": "...", "version": "2026.9.6", "valid": true, "issues": [],
//    "sessions": [{"key": "...", "sandboxed": false, "source": "current-request",
//                  "admission": {"explicit": {"ok": true}, "omitted": {...}},
//                  "tools": ["read", ...], "reachable": true}]}
//
// With "trace": true, each session's answer also lists, step by step, what
// the pipeline removed (applyToolPolicyPipeline's onFilter), for reading a
// disagreement.
//
// A child is only created when its admission (explicit, or omitted when
// "omitted": true is set on the session) passes and its requester holds
// sessions_spawn; otherwise it has no tools and "reachable" says why.
import fs from "node:fs";
import readline from "node:readline";
import { Locator, openclawPackage } from "./locate.mjs";

const pkg = openclawPackage();
const loc = new Locator(pkg.dist);

// OpenClaw's functions, by source name; the hints are the chunk names the
// 2026.9 builds put them in (a miss falls back to a full scan).
const oc = {
  validateConfigObject: await loc.find("validateConfigObject", "validation-core"),
  listAgentIds: await loc.find("listAgentIds", "agent-scope-config"),
  resolveSandboxRuntimeStatus: await loc.find("resolveSandboxRuntimeStatus", "runtime-status"),
  resolveConversationCapabilityProfile: await loc.find("resolveConversationCapabilityProfile", "conversation-capability-profile"),
  resolveConversationToolPolicies: await loc.find("resolveConversationToolPolicies", "conversation-tool-policy-pipeline"),
  buildConversationToolPolicyPipelineSteps: await loc.find("buildConversationToolPolicyPipelineSteps", "conversation-tool-policy-pipeline"),
  applyToolPolicyPipeline: await loc.find("applyToolPolicyPipeline", "tool-policy-pipeline"),
  hasRestrictiveAllowPolicy: await loc.find("hasRestrictiveAllowPolicy", "tool-policy-"),
  resolveSpawnAdmission: await loc.find("resolveSpawnAdmission", "subagent-spawn-ownership"),
  resolveSpawnSandboxError: await loc.find("resolveSpawnSandboxError", "subagent-spawn-ownership"),
  inheritedToolAllowPatch: await loc.find("inheritedToolAllowPatch", "subagent-capabilities"),
  inheritedToolDenyPatch: await loc.find("inheritedToolDenyPatch", "subagent-capabilities"),
  setPluginToolMeta: await loc.find("setPluginToolMeta", "tool-metadata"),
  getPluginToolMeta: await loc.find("getPluginToolMeta", "tool-metadata"),
};

const quiet = () => undefined;

// The session key OpenClaw would know a child by. Its keys are flat
// (agent:<id>:subagent:<uuid>) and its depth comes from the session store;
// resolveSpawnAdmission reads the requester's depth from the store on disk,
// which this process never writes, and then falls back to counting
// subagent: segments of the key. So a child at depth d is keyed with d
// segments: the fallback then reads the depth the store would hold.
function childKey(agent, depth, index) {
  return `agent:${agent}:` + "subagent:p:".repeat(depth - 1) + `subagent:c${index}`;
}

// tools builds the fixed catalogue as tool objects; a tool a plugin owns
// carries that plugin's metadata, as the plugin loader attaches it
// (setPluginToolMeta), so that the pipeline's plugin groups see it.
function tools(list) {
  return list.map((t) => {
    const tool = { name: t.name };
    if (t.plugin) oc.setPluginToolMeta(tool, { pluginId: t.plugin });
    return tool;
  });
}

// resolve runs one session through the conversation pipeline the embedded
// runner applies (agent-tools.ts createEmbeddedMessageInvocationPolicy:
// resolveConversationToolPolicies, buildConversationToolPolicyPipelineSteps
// with the runtime step, applyToolPolicyPipeline over the catalogue). The
// owner-only step is left out: no sender here is a known non-owner.
function resolve(cfg, s, catalogue, trace) {
  const runtime = oc.resolveSandboxRuntimeStatus({ cfg, sessionKey: s.ocKey, agentId: s.agent });
  const profile = oc.resolveConversationCapabilityProfile({
    config: cfg,
    sessionKey: s.ocKey,
    agentId: s.agent,
    modelProvider: s.provider || undefined,
    modelId: s.model || undefined,
    messageProvider: s.channel || undefined,
    groupId: s.group || undefined,
    spawnedBy: s.spawnedBy,
    senderId: s.sender || undefined,
    sandboxToolPolicy: runtime.sandboxed ? { allow: runtime.toolPolicy.allow, deny: runtime.toolPolicy.deny } : undefined,
    preparedSessionEntry: s.entry ? { sessionKey: s.ocKey, entry: s.entry } : undefined,
  });
  const policies = oc.resolveConversationToolPolicies({ capabilityProfile: profile });
  const steps = oc.buildConversationToolPolicyPipelineSteps({ capabilityProfile: profile, policies, includeRuntimeToolPolicy: true });
  const removed = [];
  const allowed = oc.applyToolPolicyPipeline({
    tools: catalogue,
    toolMeta: (tool) => oc.getPluginToolMeta(tool),
    warn: quiet,
    steps,
    onFilter: trace
      ? ({ step, policy, before, after }) => {
          const kept = new Set(after);
          const gone = before.filter((t) => !kept.has(t)).map((t) => t.name);
          if (gone.length > 0) removed.push({ step: step.label, allow: policy.allow, deny: policy.deny, removed: gone });
        }
      : undefined,
  });
  return { runtime, profile, allowed, removed };
}

// admit runs sessions_spawn's admission (resolveSpawnAdmission, then
// resolveSpawnSandboxError, as runSubagentSpawn orders them) for a child of
// parent running as agent.
function admit(cfg, parent, child, requestedAgentId) {
  const configuredAgentIds = oc.listAgentIds(cfg);
  const a = oc.resolveSpawnAdmission({
    cfg,
    requesterSessionKey: parent.ocKey,
    requesterAgentId: parent.agent,
    targetAgentId: child.agent,
    requestedAgentId,
    configuredAgentIds,
    additionalActiveChildren: parent.children,
  });
  if (!a.ok) return { ok: false, error: a.error, patch: undefined };
  const childRuntime = oc.resolveSandboxRuntimeStatus({ cfg, sessionKey: child.ocKey });
  const err = oc.resolveSpawnSandboxError({
    backend: "subagent",
    requesterSandboxed: parent.sandboxed,
    childSandboxed: childRuntime.sandboxed,
  });
  if (err) return { ok: false, error: err, patch: undefined };
  return { ok: true, patch: a.childSessionPatch };
}

function answer(c) {
  const out = { id: c.id, version: pkg.version, valid: false, issues: [], sessions: [] };
  const v = oc.validateConfigObject(c.config);
  if (!v.ok) {
    out.issues = v.issues.map((i) => ({ path: i.path, message: i.message }));
    return out;
  }
  out.valid = true;
  const cfg = v.config;
  const catalogue = tools(c.tools ?? []);
  const done = [];
  for (const [i, s0] of (c.sessions ?? []).entries()) {
    const s = { ...s0, index: i, children: 0 };
    const res = { key: s.key };
    if (s.parent === undefined || s.parent === null) {
      s.ocKey = s.key;
      s.depth = 0;
    } else {
      const parent = done[s.parent];
      s.depth = parent.depth + 1;
      s.ocKey = childKey(s.agent, s.depth, i);
      s.spawnedBy = parent.ocKey;
      const explicit = admit(cfg, parent, s, s.agent);
      res.admission = { explicit: { ok: explicit.ok, ...(explicit.ok ? {} : { error: explicit.error }) } };
      let chosen = explicit;
      if (s.agent === parent.agent) {
        const omitted = admit(cfg, parent, s, undefined);
        res.admission.omitted = { ok: omitted.ok, ...(omitted.ok ? {} : { error: omitted.error }) };
        if (s.omitted) chosen = omitted;
      }
      if (!parent.created) {
        res.reachable = "the requester was not created";
      } else if (!parent.allowedNames.includes("sessions_spawn")) {
        res.reachable = "the requester does not hold sessions_spawn";
      } else if (!chosen.ok) {
        res.reachable = "refused";
      }
      if (res.reachable) {
        s.created = false;
        out.sessions.push(res);
        done.push(s);
        continue;
      }
      // The child's session entry, as createInitialSubagentSession builds
      // it from the admission's patch and the requester's inherited lists
      // (agent-tools.ts: the deny list is the requester's explicit
      // denylist; the allow list its effective tool names, kept only when
      // one of its inheritance policies is a restrictive allowlist).
      s.entry = {
        spawnedBy: parent.ocKey,
        parentSessionKey: parent.ocKey,
        ...chosen.patch,
        inheritedToolPolicyVersion: 1,
        ...oc.inheritedToolAllowPatch(parent.inheritAllow ? parent.allowedNames : []),
        ...oc.inheritedToolDenyPatch(parent.inheritDeny),
      };
    }
    const r = resolve(cfg, s, catalogue, c.trace);
    s.created = true;
    if (s.parent !== undefined && s.parent !== null) done[s.parent].children++;
    s.sandboxed = r.runtime.sandboxed;
    s.allowedNames = r.allowed.map((t) => t.name);
    s.inheritDeny = [...r.profile.policy.explicitToolDenylist];
    s.inheritAllow = r.profile.policy.inheritancePolicies.some(oc.hasRestrictiveAllowPolicy);
    res.sandboxed = s.sandboxed;
    res.source = r.profile.policy.requesterPolicySource;
    res.tools = s.allowedNames;
    if (c.trace) res.trace = r.removed;
    out.sessions.push(res);
    done.push(s);
  }
  return out;
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
const outFd = Number(process.env.ORACLE_FD ?? 3);
for await (const line of rl) {
  if (!line.trim()) continue;
  let reply;
  try {
    reply = answer(JSON.parse(line));
  } catch (e) {
    let id;
    try {
      id = JSON.parse(line).id;
    } catch {}
    reply = { id, error: String(e?.stack ?? e) };
  }
  fs.writeSync(outFd, JSON.stringify(reply) + "\n");
}
