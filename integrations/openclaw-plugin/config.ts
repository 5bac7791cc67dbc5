// The plugin's settings (plugins.entries.session-ledger.config in
// openclaw.json). Every field is optional: an absent field means its
// default, and parseConfig reports every problem at once.
import path from "node:path";

/** The settings, with every default filled in. */
export interface Config {
  /** NATS server URL(s) of the ledger, comma-separated. */
  natsUrl: string;
  /** The orchestrator the sessions belong to: ledger.v1.append.<owner>. */
  owner: string;
  user?: string;
  password?: string;
  credsFile?: string;
  /** Bound on each request attempt, in milliseconds. */
  timeoutMs: number;
  /** Re-sends after a timeout, no responders or a conflict. */
  retries: number;
  /** Let a tool call go ahead unchecked while the ledger cannot be reached. */
  failOpen: boolean;
  /** The API subject prefix. */
  prefix: string;
  /** The command line a denial names, before --session. */
  why: string[];
  /** Where the nats npm package is, when Node cannot resolve it. */
  natsModule?: string;
  /**
   * The ledger scope every root this plugin starts is bound to (and every
   * sub-agent under it): the configured scope, else defaultScope of the
   * gateway's configuration directory.
   */
  scope: string;
  /** The configured identity recorded as session.started's user, if any. */
  identity?: string;
}

export const defaults = {
  natsUrl: "nats://127.0.0.1:4222",
  owner: "openclaw",
  timeoutMs: 2000,
  retries: 2,
  prefix: "ledger.v1",
} as const;

// A scope name (events.ValidScope): one subject token of the ledger's
// scoped subjects.
export const scopePattern = /^[A-Za-z0-9_:-]{1,128}$/;

// The bound on each identity field of session.started, in UTF-8 bytes
// (events.MaxIdentityLen).
export const maxIdentityBytes = 1024;

/**
 * defaultScope is the scope of a plugin whose configuration names none,
 * derived from the directory that holds the gateway's openclaw.json (or
 * its state directory): "openclaw:" and that directory's base name,
 * leading dots dropped and every character outside [A-Za-z0-9_-] made
 * "-". So ~/.openclaw gives "openclaw:openclaw", a profile's
 * ~/.openclaw-work "openclaw:openclaw-work", /etc/openclaw/gw1
 * "openclaw:gw1"; a directory with no usable name gives
 * "openclaw:gateway".
 */
export function defaultScope(configDir: string | undefined): string {
  let base = configDir ? path.basename(path.resolve(configDir)) : "";
  base = base.replace(/^\.+/, "").replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 128 - "openclaw:".length);
  if (base === "" || /^-+$/.test(base)) base = "gateway";
  return "openclaw:" + base;
}

// An owner is one subject token, never the auditors' scope "all"
// (internal/api.ValidOwner).
const ownerPattern = /^[A-Za-z0-9_-]{1,64}$/;

const known = new Set(["natsUrl", "owner", "user", "password", "credsFile", "timeoutMs", "retries", "failOpen", "prefix", "why", "natsModule", "scope", "identity"]);

/** ConfigError lists every problem of a configuration. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super("session-ledger plugin configuration: " + problems.join("; "));
    this.name = "ConfigError";
    this.problems = problems;
  }
}

/** Where the plugin runs, for the defaults that depend on it. */
export interface Place {
  /** The directory of the gateway's openclaw.json (or its state directory). */
  configDir?: string;
}

/**
 * parseConfig fills in the defaults, or throws a ConfigError naming every
 * problem. The default scope comes from place (defaultScope).
 */
export function parseConfig(raw: unknown, place: Place = {}): Config {
  const problems: string[] = [];
  const o = (raw ?? {}) as Record<string, unknown>;
  if (typeof o !== "object" || Array.isArray(o)) {
    throw new ConfigError(["the configuration is not an object"]);
  }
  for (const k of Object.keys(o)) {
    if (!known.has(k)) problems.push(`${k} is not a setting (known: ${[...known].join(", ")})`);
  }
  const str = (k: string): string | undefined => {
    const v = o[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string" || v.trim() === "") {
      problems.push(`${k} must be a non-empty string`);
      return undefined;
    }
    return v;
  };
  const int = (k: string, min: number, max: number, def: number): number => {
    const v = o[k];
    if (v === undefined || v === null) return def;
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
      problems.push(`${k} must be an integer from ${min} to ${max}`);
      return def;
    }
    return v;
  };
  const natsUrl = str("natsUrl") ?? defaults.natsUrl;
  for (const problem of natsUrlProblems(natsUrl)) problems.push(problem);
  const owner = str("owner") ?? defaults.owner;
  if (!ownerPattern.test(owner) || owner === "all") {
    problems.push(`owner ${JSON.stringify(owner)} must be 1 to 64 of [A-Za-z0-9_-] and not "all"`);
  }
  const user = str("user");
  // An empty password is a password; only its type is checked.
  let password: string | undefined;
  if (o.password !== undefined && o.password !== null) {
    if (typeof o.password !== "string") problems.push("password must be a string");
    else password = o.password;
  }
  const credsFile = str("credsFile");
  if (password !== undefined && user === undefined) problems.push("password needs user");
  if (credsFile !== undefined && user !== undefined) problems.push("give either credsFile or user and password, not both");
  const timeoutMs = int("timeoutMs", 1, 60000, defaults.timeoutMs);
  const retries = int("retries", 0, 10, defaults.retries);
  let failOpen = false;
  if (o.failOpen !== undefined && o.failOpen !== null) {
    if (typeof o.failOpen !== "boolean") problems.push("failOpen must be true or false");
    else failOpen = o.failOpen;
  }
  const prefix = str("prefix") ?? defaults.prefix;
  // The printed why carries the plugin's connection, never a secret: a
  // URL's user and password are dropped (its user becomes --user), and a
  // command that needs a password reads NATS_PASSWORD, as every ledger
  // command does.
  const redacted = redactNatsUrl(natsUrl);
  let why: string[] = ["ledger", "why", "--nats", redacted.url];
  if (credsFile !== undefined) why.push("--creds", credsFile);
  const whyUser = user ?? redacted.user;
  if (whyUser !== undefined) why.push("--user", whyUser);
  if (o.why !== undefined && o.why !== null) {
    if (!Array.isArray(o.why) || o.why.length === 0 || !o.why.every((w) => typeof w === "string")) {
      problems.push("why must be a non-empty list of strings");
    } else {
      why = o.why as string[];
    }
  }
  const natsModule = str("natsModule");
  let scope = defaultScope(place.configDir);
  if (o.scope !== undefined && o.scope !== null) {
    if (typeof o.scope !== "string" || !scopePattern.test(o.scope)) {
      problems.push(`scope ${JSON.stringify(o.scope)} must be 1 to 128 of [A-Za-z0-9_:-] (a ledger scope name, like "openclaw:gw1")`);
    } else {
      scope = o.scope;
    }
  }
  const identity = str("identity");
  if (identity !== undefined && Buffer.byteLength(identity, "utf8") > maxIdentityBytes) {
    problems.push(`identity must be at most ${maxIdentityBytes} bytes`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { natsUrl, owner, user, password, credsFile, timeoutMs, retries, failOpen, prefix, why, natsModule, scope, identity };
}

/**
 * natsUrlProblems checks each entry of a comma-separated natsUrl as the
 * nats client reads it: nats://host[:port] or tls://host[:port] (with
 * user info if wanted), or host[:port] with no scheme; nothing after the
 * port. A URL the client cannot parse or connect with is a setup error
 * that blocks every call, never an unreachable ledger that failOpen lets
 * through (bridge.test.ts, "a natsUrl that is not a URL is a configuration
 * problem").
 */
export function natsUrlProblems(list: string): string[] {
  const problems: string[] = [];
  const entries = list.split(",").map((s) => s.trim());
  if (entries.every((e) => e === "")) return ["natsUrl names no server"];
  for (const entry of entries) {
    if (entry === "") continue;
    const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(entry)?.[1]?.toLowerCase();
    if (scheme !== undefined && scheme !== "nats" && scheme !== "tls") {
      problems.push(`natsUrl ${JSON.stringify(redactNatsUrl(entry).url)} must use nats:// or tls://`);
      continue;
    }
    let u: URL;
    try {
      u = new URL(scheme !== undefined ? entry : `nats://${entry}`);
    } catch {
      problems.push(`natsUrl ${JSON.stringify(redactNatsUrl(entry).url)} is not a URL (nats://host:port)`);
      continue;
    }
    if (u.hostname === "" || (u.pathname !== "" && u.pathname !== "/") || u.search !== "" || u.hash !== "") {
      problems.push(`natsUrl ${JSON.stringify(redactNatsUrl(entry).url)} is not a server URL (nats://host:port, nothing after the port)`);
    }
  }
  return problems;
}

/**
 * redactNatsUrl drops the user info of each URL of a comma-separated NATS
 * URL list, and returns the first user name it held (for --user). A URL
 * that does not parse is kept as it is.
 */
export function redactNatsUrl(list: string): { url: string; user?: string } {
  let user: string | undefined;
  const urls = list.split(",").map((raw) => {
    const u = raw.trim();
    const m = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^@/]*)@(.*)$/.exec(u);
    if (!m) return u;
    const info = m[2];
    const name = decodeURIComponentSafe(info.split(":")[0]);
    if (user === undefined && name !== "") user = name;
    return m[1] + m[3];
  });
  return { url: urls.join(","), user };
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
