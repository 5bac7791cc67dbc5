// tables.mjs reads the built-in tool-policy tables out of the installed
// openclaw package and writes them as a Go file of the openclaw dialect,
// keyed by the package's version:
//
//   node tables.mjs <dir>        writes <dir>/tables_<version>.go
//
// (envelope/openclaw runs it through go generate; see generate.go there.)
// Every table is read from the package itself: from the values its modules
// export where they export them, and otherwise from the literal in the
// chunk that defines it, which is then checked against the package's own
// function that uses it (an alias table is checked with
// normalizeToolPolicyName, a rename table with
// expandShippedCoreToolPolicyNames, ...). A table that cannot be read or
// does not check out stops the generator: a new release whose code moved
// on must be looked at, not silently tabulated.
import fs from "node:fs";
import path from "node:path";
import { Locator, openclawPackage } from "./locate.mjs";

const pkg = openclawPackage();
const loc = new Locator(pkg.dist);

function fail(msg) {
  process.stderr.write(`tables.mjs: ${msg}\n`);
  process.exit(1);
}

// literal finds `const <name> = ... <open>` in a chunk whose file name
// starts with hint and returns the literal that follows, evaluated. Only
// JSON-like literals (strings, numbers, arrays, plain objects with
// identifier keys) are evaluated; anything else (an identifier, a call)
// stops the generator.
function literal(name, hint, open) {
  for (const f of loc.files.filter((f) => f.startsWith(hint))) {
    const src = fs.readFileSync(path.join(pkg.dist, f), "utf8");
    const at = src.indexOf(`const ${name} = `);
    if (at < 0) continue;
    const start = src.indexOf(open, at);
    const closeOf = { "[": "]", "(": ")", "{": "}" };
    let depth = 0;
    let inStr = false;
    let end = -1;
    for (let i = start; i < src.length; i++) {
      const c = src[i];
      if (inStr) {
        if (c === "\\") i++;
        else if (c === '"') inStr = false;
        continue;
      }
      if (c === '"') inStr = true;
      else if (c === open) depth++;
      else if (c === closeOf[open]) {
        depth--;
        if (depth === 0) {
          end = i + 1;
          break;
        }
      }
    }
    if (end < 0) fail(`${name}: unterminated literal in ${f}`);
    let text = src.slice(start, end);
    if (open === "(") text = text.slice(1, -1);
    const stripped = text.replace(/"(?:[^"\\]|\\.)*"/g, '""');
    if (!/^[\s\[\]{}(),:0-9a-zA-Z_""]*$/.test(stripped) || /[a-zA-Z_]\s*\(/.test(stripped)) {
      fail(`${name} in ${f} is not a plain literal; read it by hand: ${text.slice(0, 200)}`);
    }
    // Bare identifiers are only allowed as object keys.
    if (/[\[,]\s*[a-zA-Z_]/.test(stripped.replace(/([{,]\s*)[a-zA-Z_]\w*\s*:/g, "$1\"\":"))) {
      fail(`${name} in ${f} refers to a value by name; read it by hand: ${text.slice(0, 200)}`);
    }
    return { value: new Function(`return (${text});`)(), file: f };
  }
  fail(`${name} not found in ${hint}*`);
}

const sameList = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// The core tool catalogue, its groups and profiles (tool-catalog.ts).
const listCoreToolSections = await loc.find("listCoreToolSections", "tool-catalog");
const resolveCoreToolProfilePolicy = await loc.find("resolveCoreToolProfilePolicy", "tool-catalog");
const PROFILE_OPTIONS = await loc.find("PROFILE_OPTIONS", "tool-catalog");
const TOOL_GROUPS = await loc.find("TOOL_GROUPS", "tool-policy-shared");
const catalogue = listCoreToolSections({ swarmEnabled: true, githubPublicationAvailable: true }).flatMap((s) => s.tools.map((t) => t.id));
const profiles = {};
for (const { id } of PROFILE_OPTIONS) {
  const p = resolveCoreToolProfilePolicy(id);
  if (!p || p.deny || !Array.isArray(p.allow)) fail(`profile ${id} is not an allow list: ${JSON.stringify(p)}`);
  profiles[id] = p.allow;
}
const groups = {};
for (const [g, members] of Object.entries(TOOL_GROUPS)) groups[g] = [...members];

// Aliases (tool-policy-shared.ts), checked with normalizeToolPolicyName.
const normalizeToolPolicyName = await loc.find("normalizeToolPolicyName", "tool-policy-shared");
const aliases = Object.fromEntries(literal("TOOL_NAME_ALIASES", "tool-policy-shared", "(").value);
const probes = new Set([...catalogue, ...Object.keys(groups), ...Object.keys(aliases), "tool_call", "update_plan", "image", "cron", "bash"]);
for (const n of probes) {
  const want = aliases[n] ?? n;
  if (normalizeToolPolicyName(n) !== want) fail(`normalizeToolPolicyName(${n}) = ${normalizeToolPolicyName(n)}, the alias table says ${want}`);
}

// Names a policy list rewrites (tool-policy.ts), checked with
// expandShippedCoreToolPolicyNames.
const expandShipped = await loc.find("expandShippedCoreToolPolicyNames", "tool-policy-");
const renames = Object.fromEntries(literal("SHIPPED_CORE_POLICY_RENAMES", "tool-policy-", "(").value);
const families = Object.fromEntries(literal("SHIPPED_PLUGIN_POLICY_FAMILY_CORE_TOOLS", "tool-policy-", "(").value);
for (const n of probes) {
  const want = [...new Set([renames[n] ?? normalizeToolPolicyName(n), ...(families[n] ?? [])])];
  const got = expandShipped([n]);
  if (!sameList(got, want)) fail(`expandShippedCoreToolPolicyNames([${n}]) = ${JSON.stringify(got)}, the tables say ${JSON.stringify(want)}`);
}

// The sub-agent layer's fixed deny lists (agent-tools.policy.ts), read
// through resolveSubagentToolPolicyForSession for an orchestrator and a
// leaf.
const resolveSubagentToolPolicyForSession = await loc.find("resolveSubagentToolPolicyForSession", "agent-tools.policy");
const cfg = { agents: { defaults: { subagents: { maxSpawnDepth: 2 } } } };
const key = "agent:main:subagent:tables";
const orchestrator = resolveSubagentToolPolicyForSession(cfg, key, { store: { [key]: { spawnDepth: 1, spawnedBy: "agent:main:main" } } });
const leaf = resolveSubagentToolPolicyForSession(cfg, key, { store: { [key]: { spawnDepth: 2, spawnedBy: "agent:main:main" } } });
const hardDeny = orchestrator.deny;
if (!sameList(leaf.deny.slice(0, hardDeny.length), hardDeny)) fail(`the leaf deny list does not start with the hard deny list: ${JSON.stringify(leaf.deny)}`);
const depthCapDeny = leaf.deny.slice(hardDeny.length);
if (orchestrator.allow !== undefined || leaf.allow !== undefined) fail("the sub-agent layer has an allow list without configuration");

// Sandbox defaults (sandbox/constants.ts).
const sandboxAllow = await loc.find("DEFAULT_TOOL_ALLOW", "constants-");
const sandboxDeny = await loc.find("DEFAULT_TOOL_DENY", "constants-");

// toolsBySender key types (config/types.tools.ts).
const senderKeyTypes = await loc.find("TOOLS_BY_SENDER_KEY_TYPES", "types.tools");

// Chat channel ids and their aliases (channels/bundled-channel-ids), checked
// with normalizeChatChannelId.
const normalizeChatChannelId = await loc.find("normalizeChatChannelId", "ids-");
const channelAliases = {};
for (const entry of literal("GENERATED_BUNDLED_CHANNEL_IDS", "ids-", "[").value) {
  for (const a of entry.aliases ?? []) channelAliases[a] = entry.channelId;
}
for (const [a, id] of Object.entries(channelAliases)) {
  if (normalizeChatChannelId(a) !== id) fail(`normalizeChatChannelId(${a}) = ${normalizeChatChannelId(a)}, the table says ${id}`);
}
// normalizeChatChannelId falls back on the runtime's bundled channel
// catalog (the bundled extensions' and the official external channels'
// metadata, listBundledChannelCatalogEntries): its aliases map too
// (wechat is openclaw-weixin, wework is wecom, ...), after the table's.
// Checked with normalizeMessageChannel, which the dialect's channel ids
// follow.
const listBundledChannelCatalogEntries = await loc.find("listBundledChannelCatalogEntries", "bundled-channel-catalog-read");
const normalizeMessageChannel = await loc.find("normalizeMessageChannel", "message-channel-core");
for (const entry of listBundledChannelCatalogEntries()) {
  for (const a of entry.aliases ?? []) {
    const alias = a.trim().toLowerCase();
    if (alias === entry.id || alias in channelAliases) continue;
    channelAliases[alias] = entry.id;
  }
}
for (const [a, id] of Object.entries(channelAliases)) {
  if (normalizeMessageChannel(a) !== id) fail(`normalizeMessageChannel(${a}) = ${normalizeMessageChannel(a)}, the table says ${id}`);
}

// The Go file.
const q = (s) => JSON.stringify(s);
const list = (l, indent) => {
  if (l.length === 0) return "{}";
  const lines = [];
  let line = "";
  for (const s of l) {
    const item = q(s) + ",";
    if (line && (indent + line.length + 1 + item.length) > 100) {
      lines.push(line);
      line = item;
    } else line = line ? line + " " + item : item;
  }
  if (line) lines.push(line);
  const pad = "\t".repeat(indent);
  return "{\n" + lines.map((l) => pad + "\t" + l).join("\n") + "\n" + pad + "}";
};
const strMap = (m, indent) => {
  const pad = "\t".repeat(indent);
  const keys = Object.keys(m).sort();
  if (keys.length === 0) return "{}";
  const w = Math.max(...keys.map((k) => q(k).length + 1));
  return "{\n" + keys.map((k) => `${pad}\t${(q(k) + ":").padEnd(w)} ${q(m[k])},`).join("\n") + "\n" + pad + "}";
};
const listMap = (m, indent) => {
  const pad = "\t".repeat(indent);
  const keys = Object.keys(m).sort();
  if (keys.length === 0) return "{}";
  return "{\n" + keys.map((k) => `${pad}\t${q(k)}: ${list(m[k], indent + 1)},`).join("\n") + "\n" + pad + "}";
};
const ident = "release" + pkg.version.replace(/[^0-9A-Za-z]+/g, "_");
const out = `// Code generated by tools/openclaw/tables.mjs from openclaw ${pkg.version}; DO NOT EDIT.

package openclaw

// ${ident} holds the built-in tables of openclaw ${pkg.version}, read from
// the installed package.
var ${ident} = &Release{
	Name:  ${q(pkg.version)},
	Rules: rulesPackage,
	Catalogue: []string${list(catalogue, 1)},
	Aliases: map[string]string${strMap(aliases, 1)},
	Renames: map[string]string${strMap(renames, 1)},
	Families: map[string][]string${listMap(families, 1)},
	Groups: map[string][]string${listMap(groups, 1)},
	Profiles: map[string][]string${listMap(profiles, 1)},
	HardDeny: []string${list(hardDeny, 1)},
	DepthCapDeny: []string${list(depthCapDeny, 1)},
	SandboxAllow: []string${list(sandboxAllow, 1)},
	SandboxDeny: []string${list(sandboxDeny, 1)},
	SenderKeyTypes: []string${list(senderKeyTypes, 1)},
	ChannelAliases: map[string]string${strMap(channelAliases, 1)},
}

func init() { register(${ident}) }
`;
const dir = process.argv[2] ?? ".";
const file = path.join(dir, `tables_${pkg.version.replace(/[^0-9A-Za-z]+/g, "_")}.go`);
fs.writeFileSync(file, out);
process.stdout.write(`tables.mjs: wrote ${file}\n`);
