// Finds OpenClaw's own functions in the installed package's dist files by
// their source names. The bundler renames every export to a letter
// (export { resolveSpawnAdmission as l, ... }), so each chunk's trailing
// export statement is read to map a source name to its export; the chunk
// is then imported and the function returned as it is. Nothing here
// decides anything: it only finds code.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

/** The installed openclaw package: its directory, dist directory and version. */
export function openclawPackage() {
  const here = path.dirname(new URL(import.meta.url).pathname);
  const dir = process.env.LEDGER_OPENCLAW_DIR ||
    path.join(process.env.LEDGER_NPM_DIR || path.join(here, "..", "npm"), "node_modules", "openclaw");
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  return { dir, dist: path.join(dir, "dist"), version: pkg.version };
}

const exportRe = /\nexport \{([^}]*)\};?\s*$/;

/** A lazy index of the dist chunks' exports, by source name. */
export class Locator {
  constructor(dist) {
    this.dist = dist;
    this.files = fs.readdirSync(dist).filter((f) => f.endsWith(".mjs")).sort();
    this.exports = new Map(); // file -> Map(source name -> export name)
  }
  exportsOf(file) {
    let m = this.exports.get(file);
    if (m) return m;
    m = new Map();
    const full = path.join(this.dist, file);
    const fd = fs.openSync(full, "r");
    try {
      const size = fs.fstatSync(fd).size;
      const n = Math.min(size, 16384);
      const buf = Buffer.alloc(n);
      fs.readSync(fd, buf, 0, n, size - n);
      let tail = buf.toString("utf8");
      if (!exportRe.test(tail) && size > n) tail = fs.readFileSync(full, "utf8");
      const hit = tail.match(exportRe);
      if (hit) {
        for (const part of hit[1].split(",")) {
          const [local, as] = part.trim().split(/\s+as\s+/);
          if (local) m.set(local, as ?? local);
        }
      }
    } finally {
      fs.closeSync(fd);
    }
    this.exports.set(file, m);
    return m;
  }
  /**
   * find returns the function the package exports under the source name
   * `name`, looking first in chunks whose file name starts with one of
   * `hints` (chunk names follow source file names), then everywhere.
   */
  async find(name, ...hints) {
    const tried = new Set();
    const scan = async (files) => {
      for (const f of files) {
        if (tried.has(f)) continue;
        tried.add(f);
        const as = this.exportsOf(f).get(name);
        if (as !== undefined) {
          const ns = await import(pathToFileURL(path.join(this.dist, f)).href);
          if (typeof ns[as] !== "undefined") return { value: ns[as], file: f };
        }
      }
      return undefined;
    };
    const hinted = this.files.filter((f) => hints.some((h) => f.startsWith(h)));
    const hit = (await scan(hinted)) ?? (await scan(this.files));
    if (!hit) throw new Error(`openclaw: ${name} not found in ${this.dist}`);
    return hit.value;
  }
}
