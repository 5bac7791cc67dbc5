// groupids.mjs asks the installed openclaw package which group ids it tries
// for a session key, in order: every id of a pool is configured as a group
// of the key's channel, resolveGroupToolPolicy (the function OpenClaw's
// tool policy calls) names the one it picks, that one is removed and the
// call repeated until none is picked. The dialect's conversationGroups
// (envelope/openclaw/conversation.go) and its test table were checked
// against it:
//
//   bash tools/openclaw/run groupids.mjs < keys   one "<key> <id> <id>..." a line
//
// One JSON answer a line on stdout: {"key", "channel", "order"}; a "*"
// at the end of an order is the channel's default group, which OpenClaw
// takes when no candidate is configured.
import fs from "node:fs";
import { Locator, openclawPackage } from "./locate.mjs";

const loc = new Locator(openclawPackage().dist);
const resolveGroupToolPolicy = await loc.find("resolveGroupToolPolicy", "agent-tools.policy");

for (const line of fs.readFileSync(0, "utf8").split("\n")) {
  const [key, ...pool] = line.trim().split(/\s+/);
  if (!key) continue;
  const channel = (key.match(/^(?:agent:[^:]*:+)?([^:]+):/i) ?? [])[1]?.toLowerCase() ?? "slack";
  const groups = {};
  for (const id of pool) groups[id] = { tools: { deny: ["picked:" + id] } };
  const order = [];
  for (let i = 0; i <= pool.length; i++) {
    const policy = resolveGroupToolPolicy({ config: { channels: { [channel]: { groups } } }, sessionKey: key });
    if (!policy?.deny) break;
    const id = policy.deny[0].slice("picked:".length);
    order.push(id);
    delete groups[id];
  }
  process.stdout.write(JSON.stringify({ key, channel, order }) + "\n");
}
