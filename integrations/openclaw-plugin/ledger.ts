// The ledger's wire protocol over NATS, as the Go client (client/client.go)
// speaks it to the micro service (internal/api): JSON requests on
// <prefix>.append.<owner> and <prefix>.<query>.<owner>, errors with their
// stable code in the Nats-Service-Error-Code header (message in
// Nats-Service-Error), read-your-writes through min_seq, and event ids
// fixed before the first attempt so that a re-send never writes twice.
//
// Every wait is bounded: a connection attempt and each request attempt by
// timeoutMs, the attempts by retries, the back-off between them by the
// same schedule as the Go client's (25 ms << attempt).
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL, fileURLToPath } from "node:url";
import { redactNatsUrl, type Config } from "./config.ts";

/** A refusal or failure the ledger answered, with its stable code (SPEC section 8). */
export class LedgerError extends Error {
  readonly code: string;
  /** The message without its code. */
  readonly detail: string;
  /** The sequence of the record that decided it, when one did. */
  readonly seq: number;
  constructor(code: string, message: string, seq = 0) {
    super(`${code}: ${message}`);
    this.name = "LedgerError";
    this.code = code;
    this.detail = message;
    this.seq = seq;
  }
}

/** The ledger could not be reached: no connection, no responder, no answer in time. */
export class Unreachable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "Unreachable";
  }
}

/**
 * The connection to the ledger failed for a reason other than transport:
 * the server refused the plugin's credentials, or the URL, the TLS setup
 * or the credentials file is wrong. It is a setup error, never hidden
 * behind failOpen (bridge.test.ts, "a refused connection blocks even with
 * failOpen").
 */
export class ConnectRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConnectRefused";
  }
}

/** The answer to an append. */
export interface AppendResult {
  seq: number;
  id: string;
  duplicate?: boolean;
}

/** A reason as the ledger gives it (envelope.Reason). */
export interface Reason {
  code: string;
  rule?: string;
  record?: { seq: number; id: string; type: string };
}

/** The answer to a recorded check (internal/api.CheckResult). */
export interface CheckResult {
  session: string;
  seq: number;
  tool: string;
  decision: "allow" | "deny" | "ask";
  reason: Reason;
  recorded?: number;
}

/** One session of a spawn tree (client.TreeNode). */
export interface TreeNode {
  key: string;
  agent: string;
  state: "active" | "yielded" | "completed";
  depth: number;
  turns: number;
  children: TreeNode[] | null;
}

/** A session as the ledger shows it (client.SessionView, the fields used here). */
export interface SessionView {
  key: string;
  agent: string;
  state: "active" | "yielded" | "completed";
  parent?: string;
  /** The context the session's current turn is decided in (envelope.Context, the fields used here). */
  context?: { sender?: string; external?: boolean; continuation?: unknown };
  turns: { turn: number; seq: number }[] | null;
  children: string[] | null;
}

/** An event to append: the caller's part of a record (events.Event). */
export interface Event {
  id: string;
  type: string;
  session: string;
  data: Record<string, unknown>;
}

// Codes after which the same request is sent again (client.request).
const retryCodes = new Set(["conflict", "not_caught_up"]);

// nats.js error codes, and Node's socket error codes that nats.js passes
// on as they are, that mean the ledger was not reached: a transport
// failure. Anything else (a permissions or authorization violation,
// expired credentials, a TLS error, a URL that does not parse, a host name
// that does not exist) is a setup error and is not hidden behind failOpen
// (bridge.test.ts, "a refused connection blocks even with failOpen").
export const unreachableCodes = new Set(["TIMEOUT", "503", "CONNECTION_CLOSED", "CONNECTION_DRAINING", "CONNECTION_REFUSED",
  "CONNECTION_TIMEOUT", "DISCONNECT", "CANCELLED", "ECONNREFUSED", "ECONNRESET", "ECONNABORTED", "EHOSTUNREACH",
  "EHOSTDOWN", "ENETUNREACH", "ENETDOWN", "ETIMEDOUT", "EPIPE", "EAI_AGAIN"]);

/**
 * eventID is the id of an event derived from what identifies it, so that a
 * hook delivered twice, or an event re-sent after a restart, is answered
 * with its first outcome: a ULID whose time part is zero (the ledger stamps
 * the record's time) and whose 80 random bits are the first bytes of
 * SHA-256 over the parts (the scheme of internal/cchook.EventID, in this
 * plugin's own namespace).
 */
export function eventID(...parts: string[]): string {
  const sum = createHash("sha256").update("openclaw-plugin\x00" + parts.join("\x00")).digest();
  const bytes = Buffer.alloc(16);
  sum.copy(bytes, 6, 0, 10);
  return ulidString(bytes);
}

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** ulidString encodes 16 bytes as the 26 Crockford base-32 characters of a ULID. */
export function ulidString(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let s = "";
  for (let i = 0; i < 26; i++) {
    s = crockford[Number(n & 31n)] + s;
    n >>= 5n;
  }
  return s;
}

let randomCounter = 0;

/** randomID is a fresh ULID for an event that has nothing stable to derive one from. */
export function randomID(): string {
  const bytes = Buffer.alloc(16);
  const now = BigInt(Date.now());
  for (let i = 0; i < 6; i++) bytes[5 - i] = Number((now >> BigInt(8 * i)) & 0xffn);
  createHash("sha256").update(`${process.pid}:${Date.now()}:${randomCounter++}:${Math.random()}`).digest().copy(bytes, 6, 0, 10);
  return ulidString(bytes);
}

type Nats = {
  connect: (opts: Record<string, unknown>) => Promise<Conn>;
  credsAuthenticator: (creds: Uint8Array) => unknown;
};
type Msg = { data: Uint8Array; headers?: { get(k: string): string } };
type Conn = {
  request(subject: string, data: Uint8Array, opts: { timeout: number }): Promise<Msg>;
  closed(): Promise<void | Error>;
  isClosed(): boolean;
  close(): Promise<void>;
  flush(): Promise<void>;
};

let natsPromise: Promise<Nats> | undefined;

/** The nats npm package is not where the plugin looks; the message says what to set. */
export class NatsMissing extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NatsMissing";
  }
}

/**
 * resolveNats finds the file to import for the nats npm package, without
 * importing it, so that register can refuse to load the plugin: the
 * natsModule setting when it is given (and then only it: a path the
 * operator wrote that holds no package is a mistake to report, not to
 * work around), else as Node resolves it from this directory, else
 * $LEDGER_NPM_DIR/node_modules/nats, else tools/npm/node_modules/nats
 * of the repository this directory is in (where tools/npm/install puts the pinned one, when
 * OpenClaw loads the plugin from the repository itself rather than from a
 * copy). It throws NatsMissing naming every place it tried and the
 * settings that fix it.
 */
export function resolveNats(natsModule?: string, env: NodeJS.ProcessEnv = process.env): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates: string[] = [];
  if (natsModule) {
    candidates.push(path.resolve(natsModule));
  } else {
    try {
      candidates.push(createRequire(path.join(here, "index.ts")).resolve("nats"));
    } catch {
      // not resolvable from here: the places below
    }
    if (env.LEDGER_NPM_DIR) candidates.push(path.join(env.LEDGER_NPM_DIR, "node_modules", "nats"));
    candidates.push(path.join(here, "..", "..", "tools", "npm", "node_modules", "nats"));
  }
  for (const c of candidates) {
    if (fs.statSync(c, { throwIfNoEntry: false })?.isFile()) return c; // Node resolved it
    if (!fs.existsSync(path.join(c, "package.json"))) continue;
    try {
      return createRequire(path.join(c, "package.json")).resolve(c);
    } catch {
      // a package.json without a loadable entry: not the package
    }
  }
  const fix = natsModule
    ? `set plugins.entries.session-ledger.config.natsModule in openclaw.json to the absolute path of an installed nats package directory`
    : `set plugins.entries.session-ledger.config.natsModule in openclaw.json to the absolute path of an installed nats package directory, or start the gateway with LEDGER_NPM_DIR set to the directory whose node_modules holds nats`;
  throw new NatsMissing(
    `the session-ledger plugin is not loaded: the nats npm package is not in ${candidates.map((c) => JSON.stringify(c)).join(", ")}. ` +
      `To fix it, ${fix} (bash tools/npm/install in the ledger's repository installs the pinned nats 2.29.3 in tools/npm/node_modules/nats, ` +
      `so natsModule "<repository>/tools/npm/node_modules/nats" or LEDGER_NPM_DIR "<repository>/tools/npm"), then restart the gateway.`,
  );
}

/**
 * loadNats imports the nats npm package from where resolveNats finds it.
 */
export function loadNats(natsModule?: string): Promise<Nats> {
  natsPromise ??= (async () => {
    const file = resolveNats(natsModule);
    const ns = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    const mod = (typeof ns.connect === "function" ? ns : ns.default) as Nats;
    if (typeof mod?.connect !== "function") throw new NatsMissing(`${file} is not the nats npm package (it exports no connect)`);
    return mod;
  })();
  natsPromise.catch(() => {
    natsPromise = undefined;
  });
  return natsPromise;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Ledger is one orchestrator's connection to the ledger service. */
export class Ledger {
  readonly cfg: Config;
  // conn is the connection (or the attempt to make it); a failed attempt is
  // forgotten so that the next request tries again.
  conn: Promise<Conn> | undefined;
  // token is the highest sequence appended through this connection: every
  // query asks the answering replica to have applied it.
  token = 0;

  constructor(cfg: Config) {
    this.cfg = cfg;
  }

  private connect(): Promise<Conn> {
    if (this.conn) return this.conn;
    const attempt = (async () => {
      const nats = await loadNats(this.cfg.natsModule);
      const opts: Record<string, unknown> = {
        servers: this.cfg.natsUrl.split(",").map((s) => s.trim()).filter(Boolean),
        name: `openclaw-session-ledger:${this.cfg.owner}`,
        timeout: this.cfg.timeoutMs,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        noEcho: true,
      };
      if (this.cfg.user !== undefined) {
        opts.user = this.cfg.user;
        opts.pass = this.cfg.password ?? "";
        // Under the roles 'ledger serve --gen-auth' writes, a user may only
        // receive replies on its own inbox prefix (client.InboxPrefix).
        opts.inboxPrefix = `_INBOX_${this.cfg.user}`;
      }
      try {
        if (this.cfg.credsFile !== undefined) opts.authenticator = nats.credsAuthenticator(fs.readFileSync(this.cfg.credsFile));
        const c = await nats.connect(opts);
        c.closed().then(() => {
          if (this.conn === attempt) this.conn = undefined;
        });
        return c;
      } catch (e) {
        const code = (e as { code?: unknown })?.code;
        if (typeof code === "string" && unreachableCodes.has(code)) {
          throw new Unreachable(`cannot connect to ${redactNatsUrl(this.cfg.natsUrl).url}: ${errText(e)}`);
        }
        throw new ConnectRefused(`cannot connect to ${redactNatsUrl(this.cfg.natsUrl).url}: ${errText(e)}${typeof code === "string" && code !== "" ? ` (${code})` : ""}`);
      }
    })();
    this.conn = attempt;
    attempt.catch(() => {
      if (this.conn === attempt) this.conn = undefined;
    });
    return attempt;
  }

  /** close ends the connection. */
  async close(): Promise<void> {
    const c = this.conn;
    this.conn = undefined;
    if (c) await (await c.catch(() => undefined))?.close();
  }

  private observe(seq: unknown): void {
    if (typeof seq === "number" && Number.isInteger(seq) && seq > this.token) this.token = seq;
  }

  /**
   * request sends body to subject and decodes the answer, re-sending it
   * (the same bytes) after a timeout, no responders, a conflict or
   * not_caught_up, at most retries times.
   */
  async request<T>(subject: string, body: unknown): Promise<T> {
    const data = enc.encode(JSON.stringify(body));
    let last: Error = new Unreachable("no attempt");
    for (let attempt = 0; attempt <= this.cfg.retries; attempt++) {
      if (attempt > 0) await sleep(25 << (attempt - 1));
      let msg: Msg;
      try {
        const c = await this.connect();
        msg = await c.request(subject, data, { timeout: this.cfg.timeoutMs });
      } catch (e) {
        if (e instanceof Unreachable) {
          last = e;
          continue;
        }
        if (e instanceof ConnectRefused) throw e;
        const code = (e as { code?: string }).code ?? "";
        if (unreachableCodes.has(code)) {
          last = new Unreachable(`${subject}: ${code === "503" ? "no ledger is serving (no responders)" : errText(e)}`);
          continue;
        }
        throw new Error(`${subject}: ${errText(e)}`);
      }
      const code = msg.headers?.get("Nats-Service-Error-Code") ?? "";
      if (code !== "") {
        let seq = 0;
        let message = msg.headers?.get("Nats-Service-Error") ?? "";
        try {
          const b = JSON.parse(dec.decode(msg.data));
          seq = b.seq ?? 0;
          message = b.message ?? message;
        } catch {
          // the headers alone say it
        }
        last = new LedgerError(code, message, seq);
        if (retryCodes.has(code) && attempt < this.cfg.retries) continue;
        throw last;
      }
      try {
        return JSON.parse(dec.decode(msg.data)) as T;
      } catch (e) {
        throw new Error(`${subject}: the answer does not decode: ${errText(e)}`);
      }
    }
    throw last;
  }

  /** append appends one session event as this orchestrator. */
  async append(ev: Event): Promise<AppendResult> {
    const body = { id: ev.id, type: ev.type, v: 1, session: ev.session, actor: this.cfg.owner, data: ev.data };
    try {
      const r = await this.request<AppendResult>(`${this.cfg.prefix}.append.${this.cfg.owner}`, body);
      this.observe(r.seq);
      return r;
    } catch (e) {
      if (e instanceof LedgerError) this.observe(e.seq);
      throw e;
    }
  }

  private ask<T>(endpoint: string, q: Record<string, unknown>): Promise<T> {
    return this.request<T>(`${this.cfg.prefix}.${endpoint}.${this.cfg.owner}`, { ...q, min_seq: this.token || undefined });
  }

  /**
   * checkAndStart decides a call at the head at the moment it is to run,
   * and records, in one durable record, its check and the start of its
   * effect: a tool.checked with effect: true for the session's current
   * turn (docs/records.md). When the decision is allow the effect has
   * started; no tool.effect_started follows. Each attempt waits timeoutMs
   * for its answer, and tells the ledger so (within_ms): a check the ledger
   * decides later is refused (deadline_passed) and records nothing, so an
   * attempt given up on never leaves a call recorded as started. The check
   * carries an event id of its own, the same on every attempt (request
   * re-sends the same bytes), so an attempt whose answer was lost records
   * nothing more: its retry is answered with the check that landed
   * (docs/api.md, check's "id"). The id is drawn fresh for each call, never
   * derived from the call id: the ledger answers a check with the id of one
   * that landed with that one's decision, so a call that reuses an earlier
   * call's toolCallId (after a restart, when the plugin's #n numbering
   * starts again) would get the earlier call's allow (bridge.test.ts, "a
   * reused call id after a restart gets its own decision"). A ledger from
   * before such ids refuses the field; the check then goes again without it.
   */
  async checkAndStart(session: string, tool: string, call: string, input?: Record<string, unknown>): Promise<CheckResult> {
    const body: Record<string, unknown> = { session, tool, record: true, call, effect: true, within_ms: this.cfg.timeoutMs, id: randomID() };
    if (input !== undefined) body.input = input;
    let r: CheckResult;
    try {
      r = await this.ask<CheckResult>("check", body);
    } catch (e) {
      if (!(e instanceof LedgerError && e.code === "invalid_event" && e.message.includes('unknown field "id"'))) throw e;
      delete body.id;
      r = await this.ask<CheckResult>("check", body);
    }
    // The answer is checked by the caller (bridge.ts, answerProblem).
    this.observe((r as Partial<CheckResult> | null)?.recorded);
    return r;
  }

  /** tree returns the spawn tree under root. */
  async tree(root: string): Promise<TreeNode | undefined> {
    const r = await this.ask<TreeNode[]>("tree", { session: root });
    return r?.[0];
  }

  /** session returns a session's view. */
  session(key: string): Promise<SessionView> {
    return this.ask<SessionView>("session", { session: key });
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
