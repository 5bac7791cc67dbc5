// configcheck.mjs parses plugin configurations with the plugin's own
// parseConfig and derives default scopes with defaultScope, for
// TestConfig:
//
//   node configcheck.mjs < cases.json
//
// cases.json: [{"raw": {...plugin config...}, "configDir": DIR}, ...];
// standard output: one JSON line per case, {"config": {...}} or
// {"problems": [...]}. Nothing here decides anything.
import fs from "node:fs";
import { parseConfig, ConfigError } from "../../integrations/openclaw-plugin/config.ts";

for (const c of JSON.parse(fs.readFileSync(0, "utf8"))) {
  let line;
  try {
    line = { config: parseConfig(c.raw, { configDir: c.configDir }) };
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    line = { problems: e.problems };
  }
  process.stdout.write(JSON.stringify(line) + "\n");
}
