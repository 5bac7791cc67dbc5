// schema.mjs writes the JSON Schema of the installed openclaw package's own
// config schema (OpenClawSchema, the zod schema validateConfigObject checks
// openclaw.json against), for the ledger's importer:
//
//   node schema.mjs <dir>        writes <dir>/openclaw_schema_<version>.json
//
// (internal/importer/openclaw runs it through go generate.) The schema is zod's own
// toJSONSchema of the input side. JSON Schema has no regular-expression
// flags, so a pattern compiled with flags (agent ids are /i) carries them in
// "x-flags". What zod checks in code (refinements) is not in the schema:
// the importer implements the ones of the sections it reads.
import fs from "node:fs";
import path from "node:path";
import { Locator, openclawPackage } from "./locate.mjs";

const pkg = openclawPackage();
const loc = new Locator(pkg.dist);
const OpenClawSchema = await loc.find("OpenClawSchema", "zod-schema");
const schema = OpenClawSchema.toJSONSchema({
  io: "input",
  unrepresentable: "any",
  override: (ctx) => {
    for (const c of ctx.zodSchema?._zod?.def?.checks ?? []) {
      const d = c._zod?.def;
      if (d?.format === "regex" && d.pattern?.flags) ctx.jsonSchema["x-flags"] = d.pattern.flags;
    }
  },
});
schema["x-openclaw-version"] = pkg.version;
const dir = process.argv[2] ?? ".";
const file = path.join(dir, `openclaw_schema_${pkg.version.replace(/[^0-9A-Za-z]+/g, "_")}.json`);
fs.writeFileSync(file, JSON.stringify(schema, null, 1) + "\n");
process.stdout.write(`schema.mjs: wrote ${file}\n`);
