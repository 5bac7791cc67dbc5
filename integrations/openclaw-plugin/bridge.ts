// The mapping from OpenClaw's plugin hooks to ledger events, and the
// answer before_tool_call gives. docs/openclaw-plugin.md is the user's
// account of it; this comment is the maintainer's.
//
// Invariants:
//
//   - Fail closed for tool calls, never block anything else. A call runs
//     only on a recorded allow for its own session and tool (decide,
//     answerProblem; bridge.test.ts, "an allow that is not about this call
//     blocks"). A call the ledger denies, refuses to record, or cannot
//     decide (an unknown or finished session, an unplaced sub-agent, a bad
//     key, no policy, a turn that could not be recorded) is blocked with the
//     reason; only a request that failed in transport (Unreachable) follows
//     failOpen, never a refused connection, a setup error or the plugin's
//     own waiting (DeadlineExceeded; bridge.test.ts, "failOpen"). Lifecycle
//     hooks log what went wrong and go on.
//   - The plugin only narrows OpenClaw: an allow blocks nothing, so
//     OpenClaw's own tool policy, sandbox and approvals still apply.
//   - Lineage is OpenClaw's: a sub-agent is spawned from the
//     requesterSessionKey OpenClaw's subagent_spawned hook names, never
//     from the shape of a key.
//   - Order per session: every hook's work for a session runs in the order
//     OpenClaw invoked the hooks (a lane per session key), so a turn lands
//     before the checks of its tool calls, a spawn before its child's
//     turns, a child's completion before its requester resumes.
//   - Deterministic ids: every event but tool.checked (recorded by the
//     ledger's check endpoint) has an id derived from the session key and
//     OpenClaw's own ids (callId, toolCallId), so a hook delivered twice, or
//     replayed after a restart, is answered with its first outcome.
//   - Bounded: every request by timeoutMs and retries; a tool call's whole
//     decision, its wait in the session's lane included, by toolDeadlineMs,
//     after which it is blocked (DeadlineExceeded), failOpen or not.
//   - A call is checked in its own turn: a model call whose turn could not
//     be recorded leaves it pending (lostTurns), and the session's next
//     call records it first or is blocked, never checked in the turn before
//     (another sender's; bridge.test.ts, "a lost turn").
//   - A call is decided under its own requester's sender, as OpenClaw
//     decides it (the run's senderId, none when it names none): when the
//     session's current turn is another sender's, a turn with the call's
//     sender is recorded first (matchSender), or the call is blocked
//     (SenderMismatch; bridge.test.ts, "a call is decided under its
//     requester's sender"). A root's start names no default sender.
import { maxIdentityBytes, redactNatsUrl, type Config } from "./config.ts";
import { ConnectRefused, Ledger, LedgerError, Unreachable, eventID, randomID, errText, type CheckResult, type Reason, type TreeNode } from "./ledger.ts";

/** The logger OpenClaw gives a plugin (api.logger). */
export interface Logger {
  debug?: (msg: string) => void;
  info?: (msg: string) => void;
  warn?: (msg: string) => void;
  error?: (msg: string) => void;
}

/** before_tool_call's answer that stops the call; OpenClaw hands blockReason to the model. */
export interface Block {
  block: true;
  blockReason: string;
}

type State = "active" | "yielded" | "completed";

/** What the plugin knows of a session the ledger holds. */
interface Session {
  key: string;
  agent: string;
  /** The ledger's turn count. */
  turns: number;
  state: State;
  /** The current yield: its record's id (the batch) and children. */
  yieldID?: string;
  yieldChildren?: string[];
  /** Children spawned since the last yield or resume. */
  pending: Set<string>;
  /** How many checks this process sent for each OpenClaw call id (decide). */
  calls: Map<string, number>;
  /**
   * The sender the ledger decides the session's current turn under ("" for
   * none): the turn's, else a root's default sender (its session.started's),
   * as the ledger's session view says (context.sender); undefined when the
   * plugin does not know it, and then reads the session (matchSender).
   */
  sender?: string;
  /**
   * A root's default sender, "" for none: a child's, and a root's this
   * plugin starts (its session.started names none); undefined when not
   * known (refresh learns it from an ordinary turn's context).
   */
  defaultSender?: string;
}

/** Root session facts OpenClaw's hooks give. */
interface Hint {
  agent?: string;
  provider?: string;
  model?: string;
  channel?: string;
  sender?: string;
  /** The run's workspace directory (model_call_started's ctx.workspaceDir). */
  workspace?: string;
}

/**
 * Origin is what the plugin knows of where it runs, for the identity
 * every root's session.started carries (docs/openclaw-plugin.md,
 * "Scope and identity"). Every field may be absent: the plugin then
 * records nothing for it.
 */
export interface Origin {
  /** OpenClaw's version (api.runtime.version). */
  runtimeVersion?: string;
  /** The configured identity, else the OS user the gateway runs as. */
  user?: string;
  /** The gateway's host name. */
  host?: string;
  /** An agent's workspace directory as OpenClaw's configuration resolves it. */
  workspace?: (agent: string) => string | undefined;
  /**
   * The gateway's plugins' tools, plugin id to tool names (index.ts,
   * pluginTools), recorded as every root's session.started plugin_tools;
   * it throws when they cannot be read, and the root is then not started
   * (its calls are blocked, naming why).
   */
  pluginTools?: () => Record<string, string[]>;
}

/** fits reports whether v can be an identity field of session.started (at most 1024 bytes). */
function fits(v: string | undefined): v is string {
  return v !== undefined && v !== "" && Buffer.byteLength(v, "utf8") <= maxIdentityBytes;
}

// The OpenClaw call ids a session remembers for telling a reused id apart
// (decide).
const maxCallIDs = 4096;

// The ledger's session keys (events.ValidKey).
const keyPattern = /^[A-Za-z0-9_:-]{1,200}$/;

// subagent_ended outcomes as session.completed statuses (ok, error,
// killed, timeout); a reset or deleted child was stopped.
const statuses: Record<string, string> = { ok: "ok", error: "error", timeout: "timeout", killed: "killed", reset: "killed", deleted: "killed" };

/** isSubagentKey reports whether OpenClaw made key for a sub-agent (agent:<id>:subagent:<x>). */
export function isSubagentKey(key: string): boolean {
  return key.split(":").some((seg) => seg.toLowerCase() === "subagent");
}

/** agentOf is the agent id of an OpenClaw session key (agent:<id>:...). */
export function agentOf(key: string): string | undefined {
  const m = /^agent:([^:]+):/.exec(key);
  return m ? m[1] : undefined;
}

/**
 * channelOf reads the channel OpenClaw's key names for a channel
 * conversation (agent:<id>:<channel>:group|channel|room|direct|dm:...),
 * for a root whose hooks name none. The group is not read here: the whole
 * key goes to the ledger as the root's conversation, and the dialect
 * reads OpenClaw's candidate group ids from it (a forum topic's
 * <chat>:topic:<t> before <chat>, a sender-suffixed group's own id
 * before the chat's; rooms and direct chats name no group), as OpenClaw
 * does.
 */
export function channelOf(key: string): string | undefined {
  const m = /^agent:[^:]+:([^:]+):(group|channel|room|direct|dm):/.exec(key);
  return m ? m[1] : undefined;
}

/** quote renders args as one shell command line (internal/cchook.Quote). */
export function quote(args: string[]): string {
  return args
    .map((a) => {
      if (a === "") return "''";
      if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a)) return a;
      return "'" + a.replaceAll("'", `'\\''`) + "'";
    })
    .join(" ");
}

/**
 * whyCommand is the `ledger why` line that explains the decision recorded
 * for a call: --call with the call id its check recorded (the decision
 * recorded for it and the record that caused it), else, when OpenClaw gave
 * the call no id, --record with the sequence of its tool.checked
 * (bridge.test.ts, "a call without an id is explained by its record").
 */
export function whyCommand(prefix: string[], call: string, seq?: number, session?: string): string {
  const args = [...prefix];
  if (call) {
    args.push("--call", call);
    // Two sessions may use one call id: --session names this one.
    if (session) args.push("--session", session);
  } else if (seq) args.push("--record", String(seq));
  return quote(args);
}

/** denialReason is what a ledger denial tells the model and the reader of the transcript. */
export function denialReason(key: string, tool: string, r: Reason, why: string): string {
  let s = `The session policy ledger denied ${tool} for session ${key}: ${r.code}`;
  const detail: string[] = [];
  if (r.rule) detail.push(`rule ${r.rule}`);
  if (r.record) detail.push(`from ${r.record.type} at sequence ${r.record.seq}`);
  if (detail.length > 0) s += ` (${detail.join(", ")})`;
  return s + `. Explain it with: ${why}`;
}

/** askReason blocks a call the ledger answered ask for: the plugin has no one to ask. */
export function askReason(key: string, tool: string, r: Reason | undefined, why: string): string {
  const code = typeof r?.code === "string" && r.code !== "" ? r.code : "no reason code";
  return `The session policy ledger asks for approval of ${tool} for session ${key} (${code}), and the session-ledger plugin cannot ask anyone, so it blocks the call. Grant it in the ledger (or change the policy) and retry. Explain it with: ${why}`;
}

/** malformedReason blocks a call whose check answer is not a recorded decision about that call. */
export function malformedReason(key: string, tool: string, problem: string, where: string): string {
  return `The session-ledger plugin blocks ${tool} for session ${key}: the ledger's answer is malformed (${problem}), so no allow was recorded for this call. Check that natsUrl (${where}) and prefix reach the session policy ledger and that it is up to date, then retry.`;
}

/** refusalReason blocks a call the ledger could not decide because it refused what had to be recorded first. */
export function refusalReason(key: string, tool: string, e: unknown): string {
  const what = e instanceof LedgerError ? `${e.code}: ${e.detail}` : errText(e);
  return `The session policy ledger could not decide ${tool} for session ${key}, so the session-ledger plugin blocks it: ${what}`;
}

/** unreachableReason blocks a call made while the ledger cannot be reached (failOpen off). */
export function unreachableReason(where: string, tool: string, e: unknown): string {
  return `The session policy ledger at ${where} cannot be reached (${errText(e)}), so the session-ledger plugin blocks ${tool} (it fails closed). Start the ledger, or set failOpen in the plugin's config to let OpenClaw decide alone while it is down.`;
}

/** connectRefusedReason blocks a call when the ledger's server refused the connection: a setup error, failOpen or not. */
export function connectRefusedReason(tool: string, e: unknown): string {
  return `The session-ledger plugin blocks ${tool}: ${errText(e)}. The server answered, so this is a setup problem, not an outage, and failOpen does not apply: check the plugin's natsUrl, user and password or credsFile (the orchestrator role of ledger serve --gen-auth), then restart the gateway.`;
}

/** deadlineReason blocks a call that got no decision within the plugin's bound: its own waiting, failOpen or not. */
export function deadlineReason(tool: string, key: string, e: unknown): string {
  return `The session-ledger plugin blocks ${tool} for session ${key}: ${errText(e)} (the session's earlier hooks, or the ledger's answers, took too long), and failOpen does not cover the plugin's own waiting. Retry the call; if it keeps happening, check the ledger's load and the plugin's log.`;
}

/** DeadlineExceeded is the plugin's own bound on a wait expiring (withDeadline): never an unreachable ledger. */
export class DeadlineExceeded extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DeadlineExceeded";
  }
}

/**
 * SenderMismatch blocks a call that has to be decided under a sender the
 * session's current turn cannot take: a call without a sender in a root
 * whose session.started named a default sender (matchSender).
 */
export class SenderMismatch extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SenderMismatch";
  }
}

/** TurnNotRecorded blocks a call whose session's current turn could not be recorded (lostTurns). */
export class TurnNotRecorded extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TurnNotRecorded";
  }
}

/**
 * answerProblem says what is wrong with a check's answer for an allow to
 * stand, or "" when nothing is: the answer must be about this session and
 * this tool, with a known decision and the sequence of its recorded
 * tool.checked (bridge.test.ts, "an allow that is not about this call
 * blocks").
 */
export function answerProblem(chk: unknown, key: string, tool: string): string {
  if (typeof chk !== "object" || chk === null || Array.isArray(chk)) return `not an object: ${JSON.stringify(chk)}`.slice(0, 200);
  const c = chk as Record<string, unknown>;
  const problems: string[] = [];
  if (c.session !== key) problems.push(`it is about session ${JSON.stringify(c.session)}`);
  if (c.tool !== tool) problems.push(`it is about tool ${JSON.stringify(c.tool)}`);
  if (c.decision !== "allow" && c.decision !== "deny" && c.decision !== "ask") problems.push(`decision ${JSON.stringify(c.decision)} is none of allow, deny, ask`);
  if (!(typeof c.recorded === "number" && Number.isInteger(c.recorded) && c.recorded > 0)) problems.push(`no record of the check (recorded ${JSON.stringify(c.recorded)})`);
  return problems.join("; ");
}

/**
 * policyName is a tool name as OpenClaw 2026.9.6's normalizeToolPolicyName
 * makes it before before_tool_call (trimmed, lower-cased, its aliases
 * resolved), so that a registry name is compared with the hook's toolName
 * as OpenClaw compares them (bridge.test.ts, "ownersOf matches OpenClaw's
 * normalized tool name").
 */
const toolAliases: Record<string, string> = { bash: "exec", "apply-patch": "apply_patch", cron: "automations" };
export function policyName(name: string): string {
  const n = name.trim().toLowerCase();
  return toolAliases[n] ?? n;
}

/** Lanes runs work in order per key: a task starts once every earlier task on any of its keys settled. */
export class Lanes {
  private tails = new Map<string, Promise<unknown>>();

  run<T>(keys: string[], fn: () => Promise<T>): Promise<T> {
    const uniq = [...new Set(keys.filter((k) => k !== ""))];
    const before = uniq.map((k) => this.tails.get(k)).filter((p) => p !== undefined);
    const p = Promise.allSettled(before).then(fn);
    const tail = p.then(
      () => undefined,
      () => undefined,
    );
    for (const k of uniq) this.tails.set(k, tail);
    void tail.then(() => {
      for (const k of uniq) if (this.tails.get(k) === tail) this.tails.delete(k);
    });
    return p;
  }

  /** idle resolves once every task queued so far settled. */
  async idle(): Promise<void> {
    while (this.tails.size > 0) await Promise.allSettled([...this.tails.values()]);
  }
}

/** A spawn OpenClaw announced, which the child's first events wait for. */
interface Spawn {
  done: Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** withDeadline rejects with DeadlineExceeded when p has not settled within ms. */
export function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, expired]).finally(() => clearTimeout(timer));
}

/** Bridge holds the plugin's view of the sessions and turns hooks into ledger events. */
export class Bridge {
  readonly ledger: Ledger;
  readonly cfg: Config;
  readonly log: Logger;
  readonly origin: Origin;
  readonly lanes = new Lanes();
  /** The longest a tool call waits for its decision. */
  readonly toolDeadlineMs: number;
  /** natsUrl as reasons and the log name it: no user or password (config.ts, redactNatsUrl). */
  private readonly where: string;
  private sessions = new Map<string, Session>();
  private spawns = new Map<string, Spawn>();
  /** Agent ids session_start named, for roots started later. */
  private agents = new Map<string, string>();
  /**
   * Turns a model call started but the plugin could not record, by session
   * key: the session's next tool call records it first (the same event id,
   * so a turn that did land is not recorded twice) or is blocked.
   */
  private lostTurns = new Map<string, { basis: string; sender?: string; error: string }>();

  constructor(ledger: Ledger, cfg: Config, log: Logger = {}, origin: Origin = {}) {
    this.ledger = ledger;
    this.cfg = cfg;
    this.log = log;
    this.origin = origin;
    this.where = redactNatsUrl(cfg.natsUrl).url;
    // One request's attempts and back-offs, twice over: a call may first
    // have to start its session or turn.
    this.toolDeadlineMs = 2 * (cfg.timeoutMs * (cfg.retries + 1) + (25 << cfg.retries)) + 250;
  }

  private warn(msg: string): void {
    (this.log.warn ?? this.log.info)?.(`session-ledger: ${msg}`);
  }

  /** close waits for queued work and ends the connection. */
  async close(): Promise<void> {
    await withDeadline(this.lanes.idle(), this.toolDeadlineMs, "flushing the queued ledger events").catch(() => undefined);
    await this.ledger.close();
  }

  private spawnOf(child: string): Spawn {
    let s = this.spawns.get(child);
    if (!s) {
      let resolve: () => void = () => undefined;
      let reject: (e: unknown) => void = () => undefined;
      const done = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      done.catch(() => undefined);
      s = { done, resolve, reject };
      this.spawns.set(child, s);
    }
    return s;
  }

  /**
   * refresh reads the session's turn count, state and the sender its
   * current turn is decided under from the ledger; a root's default sender
   * is that sender when the turn is an ordinary one (not external, no
   * continuation in force: the dialect's section 10.1), and a child has
   * none.
   */
  private async refresh(s: Session): Promise<void> {
    const v = await this.ledger.session(s.key);
    s.turns = v.turns?.length ?? 0;
    s.state = v.state;
    if (v.agent) s.agent = v.agent;
    const c = v.context ?? {};
    s.sender = c.sender ?? "";
    if (v.parent) s.defaultSender = "";
    else if (!c.external && !c.continuation) s.defaultSender = s.sender;
  }

  /** adopt takes a session the ledger already holds (recorded before this process started). */
  private async adopt(key: string): Promise<Session> {
    const s: Session = { key, agent: agentOf(key) ?? "", turns: 0, state: "active", pending: new Set(), calls: new Map() };
    await this.refresh(s);
    this.sessions.set(key, s);
    return s;
  }

  /**
   * ensure returns the session, recording it first when the ledger does
   * not hold it yet: a root is started (session.started); a sub-agent must
   * have been spawned by its requester (subagent_spawned), which this
   * waits for, boundedly.
   */
  private async ensure(key: string, hint: Hint): Promise<Session> {
    const known = this.sessions.get(key);
    if (known) return known;
    if (!keyPattern.test(key)) {
      throw new LedgerError("bad_session_key", `OpenClaw's session key ${JSON.stringify(key)} is not a ledger key ([A-Za-z0-9_:-]{1,200}); the plugin never rewrites keys`);
    }
    if (isSubagentKey(key)) {
      let sp = this.spawns.get(key);
      if (!sp) {
        try {
          return await this.adopt(key);
        } catch (e) {
          if (!(e instanceof LedgerError && e.code === "unknown_session")) throw e;
        }
        sp = this.spawnOf(key);
      }
      try {
        await withDeadline(sp.done, this.cfg.timeoutMs * (this.cfg.retries + 1), `waiting for OpenClaw's subagent_spawned of ${key}`);
      } catch (e) {
        if (e instanceof DeadlineExceeded) {
          // The wait is over for every later call too: they fail at once
          // rather than each wait again (bridge.test.ts, "an unannounced
          // sub-agent's queued calls are blocked with unknown_parent").
          const err = new LedgerError("unknown_parent", `sub-agent ${key} is not in the ledger: OpenClaw's subagent_spawned for it was not seen, so its requester is not known`);
          sp.reject(err);
          throw err;
        }
        throw e;
      }
      const s = this.sessions.get(key);
      if (!s) throw new LedgerError("unknown_parent", `sub-agent ${key} is not in the ledger`);
      return s;
    }
    const agent = hint.agent ?? this.agents.get(key) ?? agentOf(key) ?? "main";
    const data: Record<string, unknown> = { agent };
    if (hint.provider) data.provider = hint.provider;
    if (hint.model) data.model = hint.model;
    const channel = hint.channel ?? channelOf(key);
    if (channel) data.channel = channel;
    // OpenClaw's own session key: the ledger reads the group ids from it.
    data.conversation = key;
    // No default sender: OpenClaw decides each run by its own sender, none
    // when it names none, and a turn without a sender in a root with a
    // default one would be decided under that one (matchSender).
    Object.assign(data, this.identity(agent, hint));
    // Which tools the gateway's plugins own, as its plugin registry says:
    // the ledger decides group:plugins and plugin ids with it (and fails
    // closed where the policy's pluginTools disagrees).
    if (this.origin.pluginTools) data.plugin_tools = this.origin.pluginTools();
    const s: Session = { key, agent, turns: 0, state: "active", pending: new Set(), calls: new Map(), sender: "", defaultSender: "" };
    let existed = false;
    try {
      const r = await this.ledger.append({ id: eventID(key, "start"), type: "session.started", session: key, data });
      existed = r.duplicate === true;
    } catch (e) {
      if (!(e instanceof LedgerError && e.code === "duplicate_session")) throw e;
      existed = true;
    }
    if (existed) {
      // Started before (by this plugin earlier, or another version of
      // it): its default sender is the ledger's to say.
      s.sender = s.defaultSender = undefined;
      await this.refresh(s);
    }
    this.sessions.set(key, s);
    return s;
  }

  /**
   * identity is the scope and identity a root's session.started carries:
   * the plugin's scope, runtime "openclaw", OpenClaw's version, the
   * workspace (the run's, else the agent's as OpenClaw's configuration
   * resolves it) as the project, the user and the host. A value over the
   * ledger's bound is left out (and logged) rather than cut: a cut path
   * would name another project.
   */
  identity(agent: string, hint: Hint): Record<string, string> {
    const out: Record<string, string> = { scope: this.cfg.scope, runtime: "openclaw" };
    let workspace = hint.workspace;
    if (!workspace) {
      try {
        workspace = this.origin.workspace?.(agent);
      } catch (e) {
        this.warn(`the workspace of agent ${agent} is not known: ${errText(e)}`);
      }
    }
    const fields: [string, string | undefined][] = [
      ["runtime_version", this.origin.runtimeVersion],
      ["project", workspace],
      ["user", this.cfg.identity ?? this.origin.user],
      ["host", this.origin.host],
    ];
    for (const [k, v] of fields) {
      if (fits(v)) out[k] = v;
      else if (v) this.warn(`session.started's ${k} is over ${maxIdentityBytes} bytes and is left out`);
    }
    return out;
  }

  /**
   * startTurn appends turn.started for the session's next turn; basis names
   * what started it (its id, unless id is given).
   */
  private async startTurn(s: Session, basis: string, sender?: string, id = eventID(s.key, "turn", basis)): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const data: Record<string, unknown> = { turn: s.turns + 1 };
      if (sender) data.sender = sender;
      try {
        const r = await this.ledger.append({ id, type: "turn.started", session: s.key, data });
        if (r.duplicate) await this.refresh(s);
        else {
          s.turns++;
          // A turn with a sender is decided under it; one without, under
          // the root's default sender, which only the ledger may know.
          s.sender = sender ? sender : s.defaultSender === "" ? "" : undefined;
        }
        return;
      } catch (e) {
        // Another writer (or a restart) moved the session on: read it and
        // number the turn again, once.
        if (attempt === 0 && e instanceof LedgerError && e.code === "bad_turn") {
          await this.refresh(s);
          continue;
        }
        throw e;
      }
    }
  }

  /** resume records that a yielded session goes on: its yield's batch settled, or one child's completion. */
  private async resume(s: Session): Promise<void> {
    let data: Record<string, unknown>;
    let id: string;
    if (s.yieldID && s.yieldChildren && s.yieldChildren.length > 0) {
      data = { handoff: "settle_batch", batch: s.yieldID, from: s.yieldChildren };
      id = eventID(s.key, "resume", s.yieldID);
    } else {
      // The yield was recorded before this process started: its batch id
      // is not known here, so the continuation is a completion handoff
      // from a child that completed.
      const tree = await this.ledger.tree(s.key);
      const done = (tree?.children ?? []).filter((c) => c.state === "completed").map((c) => c.key);
      if (done.length === 0) throw new LedgerError("session_not_active", `${s.key} is yielded and none of its children completed`);
      data = { handoff: "completion", from: [done[done.length - 1]] };
      id = eventID(s.key, "resume", done[done.length - 1]);
    }
    await this.ledger.append({ id, type: "session.resumed", session: s.key, data });
    s.state = "active";
    // A continuation never infers a sender (the dialect's section 10.1).
    s.sender = "";
    s.yieldID = undefined;
    s.yieldChildren = undefined;
    s.pending.clear();
  }

  /** sessionStart (session_start) remembers the agent a root runs as. */
  sessionStart(ev: { sessionKey?: string }, ctx: { agentId?: string; sessionKey?: string }): void {
    const key = ev.sessionKey ?? ctx.sessionKey;
    if (key && ctx.agentId) this.agents.set(key, ctx.agentId);
  }

  /**
   * modelCallStarted (model_call_started) starts a turn: every model call
   * of a run is one ledger turn, at whose start the ledger resolves the
   * session's tool set. A root is started at its first call (whose
   * provider and model the dialect's provider layers read); a yielded
   * session is resumed first.
   */
  modelCallStarted(
    ev: { sessionKey?: string; callId?: string; runId?: string; provider?: string; model?: string },
    ctx: { sessionKey?: string; agentId?: string; channel?: string; messageProvider?: string; senderId?: string; workspaceDir?: string },
  ): Promise<void> {
    const key = ev.sessionKey ?? ctx.sessionKey;
    if (!key) return Promise.resolve();
    const known = this.sessions.get(key);
    const keys = [key, ...(known?.state === "yielded" ? (known.yieldChildren ?? []) : [])];
    const basis = ev.callId ?? (ev.runId ? `${ev.runId}:${randomID()}` : randomID());
    return this.lanes
      .run(keys, async () => {
        const s = await this.ensure(key, {
          agent: ctx.agentId,
          provider: ev.provider,
          model: ev.model,
          channel: ctx.channel ?? ctx.messageProvider,
          sender: ctx.senderId,
          workspace: ctx.workspaceDir,
        });
        if (s.state === "completed") {
          this.warn(`${key} is completed in the ledger; its model call starts no turn there (its tool calls are blocked)`);
          return;
        }
        await this.beginTurn(s, basis, ctx.senderId);
        this.lostTurns.delete(key);
      })
      .catch((e) => {
        this.lostTurns.set(key, { basis, sender: ctx.senderId, error: errText(e) });
        this.warn(`turn of ${key} not recorded (its tool calls record it first, or are blocked): ${errText(e)}`);
      });
  }

  /** beginTurn starts a model call's turn: a yielded session is resumed first. */
  private async beginTurn(s: Session, basis: string, sender?: string): Promise<void> {
    if (s.state === "yielded") await this.resume(s);
    await this.startTurn(s, basis, sender);
  }

  /**
   * recoverTurn records the session's lost turn (lostTurns), if it has one,
   * before a call is checked; when it cannot, the call is blocked rather
   * than checked in the turn before (bridge.test.ts, "a lost turn"). A
   * transport failure stays Unreachable.
   */
  private async recoverTurn(s: Session): Promise<void> {
    const lost = this.lostTurns.get(s.key);
    if (!lost) return;
    try {
      await this.beginTurn(s, lost.basis, lost.sender);
    } catch (e) {
      const what = `the turn this call belongs to (OpenClaw's model call ${lost.basis}${lost.sender ? `, sender ${lost.sender}` : ""}) could not be recorded (${errText(e)}; at the model call: ${lost.error})`;
      if (e instanceof Unreachable) throw new Unreachable(what);
      throw new TurnNotRecorded(`${what}, so the call is not checked in the session's earlier turn. Retry once the ledger records turns again (the next model call starts a new one)`);
    }
    this.lostTurns.delete(s.key);
  }

  /**
   * matchSender makes the session's current turn one the ledger decides
   * under sender (the call's requester's, "" for none) before the call is
   * checked. OpenClaw resolves a run's tool policy (toolsBySender, a
   * group's sender policies) with the run's sender, which before_tool_call's
   * requester names, and with none when it names none; a model call's turn
   * names no sender (2026.9.6's model_call_started gives none). So when the
   * current turn is another sender's, a turn with the call's sender is
   * recorded first, its id derived from the turn count and the sender, so
   * a turn that did land is not recorded twice. A root whose
   * session.started named a default sender (an earlier version of the
   * plugin recorded one) cannot get a turn without one: there a call
   * without a sender is blocked rather than decided as the default
   * sender's.
   */
  private async matchSender(s: Session, sender: string): Promise<void> {
    if (s.sender === undefined) await this.refresh(s);
    if (s.sender === sender) return;
    const was = s.sender ? `sender ${s.sender}'s` : "without a sender";
    if (sender === "" && s.defaultSender) throw this.defaultSenderMismatch(s.defaultSender);
    try {
      await this.startTurn(s, "sender", sender, eventID(s.key, "turn-sender", String(s.turns), sender));
      // A turn without a sender in a root whose default sender is not
      // known: the ledger says whose it is.
      if (s.sender === undefined) await this.refresh(s);
    } catch (e) {
      const what = `the turn of ${sender ? `sender ${sender}` : "no sender"} this call runs for could not be recorded (${errText(e)})`;
      if (e instanceof Unreachable) throw new Unreachable(what);
      throw new TurnNotRecorded(`${what}, so the call is not checked in the session's current turn, ${was}. Retry the call`);
    }
    if (s.sender === sender) return;
    if (sender === "" && s.defaultSender) throw this.defaultSenderMismatch(s.defaultSender);
    throw new SenderMismatch(
      `sender_mismatch: the ledger decides the session's current turn ${s.sender ? `under sender ${s.sender}` : "without a sender"} after a turn of ${sender ? `sender ${sender}` : "no sender"} was recorded for this call, so the call is not checked there. Retry the call`,
    );
  }

  /** defaultSenderMismatch blocks a call without a sender in a root whose session.started named one. */
  private defaultSenderMismatch(dflt: string): SenderMismatch {
    return new SenderMismatch(
      `sender_mismatch: OpenClaw runs this call without a sender (its requester names none, so OpenClaw decides it by its "*" sender rules), but the ledger would decide it under sender ${dflt}, the default sender this root's session.started recorded (an earlier version of the plugin recorded one), and no turn can take that default away. Calls that name their sender are decided under it; run calls without one in a session this version of the plugin started (its start names no default sender)`,
    );
  }

  /** subagentSpawned (subagent_spawned) spawns the child from the requester OpenClaw names. */
  subagentSpawned(
    ev: { childSessionKey: string; agentId: string; label?: string },
    ctx: { requesterSessionKey?: string },
  ): Promise<void> {
    const child = ev.childSessionKey;
    const parent = ctx.requesterSessionKey;
    const sp = this.spawnOf(child);
    if (!parent) {
      const e = new LedgerError("unknown_parent", `OpenClaw named no requester for sub-agent ${child}`);
      sp.reject(e);
      this.warn(e.message);
      return Promise.resolve();
    }
    return this.lanes
      .run([parent], async () => {
        const p = await this.ensure(parent, {});
        const data: Record<string, unknown> = { parent, agent: ev.agentId };
        if (ev.label) data.label = ev.label;
        const r = await this.ledger.append({ id: eventID(child, "spawn"), type: "session.spawned", session: child, data });
        const s: Session = { key: child, agent: ev.agentId, turns: 0, state: "active", pending: new Set(), calls: new Map(), sender: "", defaultSender: "" };
        if (r.duplicate) await this.refresh(s);
        this.sessions.set(child, s);
        p.pending.add(child);
        sp.resolve();
      })
      .catch((e) => {
        sp.reject(e);
        this.warn(`spawn of ${child} from ${parent} not recorded: ${errText(e)}`);
      });
  }

  /** subagentEnded (subagent_ended) completes the child with OpenClaw's outcome. */
  subagentEnded(ev: { targetSessionKey: string; targetKind?: string; outcome?: string; reason?: string }): Promise<void> {
    const key = ev.targetSessionKey;
    if (ev.targetKind && ev.targetKind !== "subagent") return Promise.resolve();
    return this.lanes
      .run([key], async () => {
        let s = this.sessions.get(key);
        if (!s) {
          const sp = this.spawns.get(key);
          if (sp) {
            await withDeadline(sp.done, this.cfg.timeoutMs * (this.cfg.retries + 1), `waiting for the spawn of ${key}`);
            s = this.sessions.get(key);
          } else {
            s = await this.adopt(key);
          }
        }
        if (!s || s.state === "completed") return;
        const status = statuses[ev.outcome ?? ""] ?? "error";
        await this.ledger.append({ id: eventID(key, "completed"), type: "session.completed", session: key, data: { status } });
        s.state = "completed";
      })
      .catch((e) => this.warn(`completion of ${key} not recorded: ${errText(e)}`));
  }

  /**
   * afterToolCall (after_tool_call) records a yield: sessions_yield that
   * OpenClaw answered "yielded" ends the turn until the session's children
   * report back. The batch is every child of the session the ledger holds
   * as not completed, and every child spawned since its last yield.
   */
  afterToolCall(
    ev: { toolName: string; toolCallId?: string; result?: unknown; error?: string },
    ctx: { sessionKey?: string },
  ): Promise<void> {
    const key = ctx.sessionKey;
    const details = (ev.result as { details?: { status?: string } } | undefined)?.details;
    if (ev.toolName !== "sessions_yield" || details?.status !== "yielded" || !key) return Promise.resolve();
    const call = ev.toolCallId ?? randomID();
    return this.lanes
      .run([key], async () => {
        const s = await this.ensure(key, {});
        const tree: TreeNode | undefined = await this.ledger.tree(key);
        const mine = new Set((tree?.children ?? []).map((c) => c.key));
        const children = [
          ...new Set([...(tree?.children ?? []).filter((c) => c.state !== "completed").map((c) => c.key), ...[...s.pending].filter((c) => mine.has(c))]),
        ].sort();
        if (children.length === 0) {
          this.warn(`${key} yielded with no child the ledger knows; no session.yielded recorded`);
          return;
        }
        const id = eventID(key, "yield", call);
        await this.ledger.append({ id, type: "session.yielded", session: key, data: { children } });
        s.state = "yielded";
        // A yield gives the session an ordinary turn's context.
        s.sender = s.defaultSender;
        s.yieldID = id;
        s.yieldChildren = children;
        s.pending.clear();
      })
      .catch((e) => this.warn(`yield of ${key} not recorded: ${errText(e)}`));
  }

  /**
   * beforeToolCall (before_tool_call) decides the call with one record:
   * the ledger's check that starts the call's effect (tool.checked with
   * effect: true, for the session's current turn, decided at the head). A
   * denial, a refusal or an unreachable ledger (unless failOpen) blocks
   * the call with the reason.
   */
  async beforeToolCall(
    ev: { toolName: string; toolCallId?: string },
    ctx: { sessionKey?: string; agentId?: string; toolName?: string; toolCallId?: string; requester?: { senderId?: string; channel?: string } },
  ): Promise<Block | undefined> {
    const tool = ev.toolName ?? ctx.toolName;
    const key = ctx.sessionKey;
    // OpenClaw's id for the call; "" when it gave none (then the check
    // carries a fresh one, and a denial names its record).
    const callID = ev.toolCallId ?? ctx.toolCallId ?? "";
    if (!key) {
      return { block: true, blockReason: `OpenClaw gave the ${tool} call no session key, so the session policy ledger cannot decide it and the session-ledger plugin blocks it` };
    }
    try {
      const work = this.lanes.run([key], () => this.decide(key, tool, callID, { agent: ctx.agentId, sender: ctx.requester?.senderId, channel: ctx.requester?.channel }));
      return await withDeadline(work, this.toolDeadlineMs, `deciding ${tool} for ${key}`);
    } catch (e) {
      // Only a transport failure follows failOpen (bridge.test.ts,
      // "failOpen"): the deadline is the plugin's own waiting, and a
      // refused connection is a setup error.
      if (e instanceof Unreachable) {
        if (this.cfg.failOpen) {
          this.warn(`the ledger at ${this.where} cannot be reached (${e.message}): ${tool} of ${key} goes ahead unchecked (failOpen)`);
          return undefined;
        }
        return { block: true, blockReason: unreachableReason(this.where, tool, e) };
      }
      if (e instanceof DeadlineExceeded) return { block: true, blockReason: deadlineReason(tool, key, e) };
      if (e instanceof ConnectRefused) return { block: true, blockReason: connectRefusedReason(tool, e) };
      return { block: true, blockReason: refusalReason(key, tool, e) };
    }
  }

  /**
   * ownersOf returns the plugin ids that own tool in the gateway's plugin
   * registry now (sorted); none when the registry is not read (an origin
   * without pluginTools). A registry that cannot be read at the call
   * throws, and the call is blocked with the reason.
   */
  private ownersOf(tool: string): string[] {
    if (!this.origin.pluginTools) return [];
    const tools = this.origin.pluginTools();
    const want = policyName(tool);
    return Object.keys(tools)
      .filter((id) => tools[id].some((n) => policyName(n) === want))
      .sort();
  }

  private async decide(key: string, tool: string, callID: string, hint: Hint): Promise<Block | undefined> {
    const s = await this.ensure(key, hint);
    await this.recoverTurn(s);
    // A call before any model call this plugin saw (a hook it missed):
    // the check needs a current turn, with the sender the call names.
    if (s.turns === 0 && s.state === "active") await this.startTurn(s, "first", hint.sender);
    // The call is decided under its own requester's sender, as OpenClaw
    // decides it (bridge.test.ts, "a call is decided under its requester's
    // sender").
    if (s.state === "active") await this.matchSender(s, hint.sender ?? "");
    // The call id the check records: OpenClaw's, made unique in the
    // session, so that `ledger why --call` (the last record of an id)
    // explains this decision even when OpenClaw reuses the id for a later
    // call (bridge.test.ts, "a reused call id gets its own id").
    let call = callID;
    if (call === "") call = randomID();
    else {
      const n = (s.calls.get(callID) ?? 0) + 1;
      s.calls.delete(callID);
      s.calls.set(callID, n);
      // Bounded: the ids least recently used are forgotten first.
      if (s.calls.size > maxCallIDs) s.calls.delete(s.calls.keys().next().value!);
      if (n > 1) call = `${callID}#${n}`;
    }
    // The plugins that own the tool now: a plugin enabled after the root
    // started is in no start report, so the call reports them itself
    // ("ledger:plugin", read by the openclaw dialect's CallPluginKey).
    const owners = this.ownersOf(tool);
    // One record decides the call and starts its effect: before_tool_call
    // runs at the moment the tool would, so nothing can change between a
    // check and a start (TestAgentRun).
    const chk: CheckResult = await this.ledger.checkAndStart(key, tool, call, owners.length > 0 ? { "ledger:plugin": owners } : undefined);
    // Only a recorded allow of this session's call lets it run.
    const problem = answerProblem(chk, key, tool);
    if (problem !== "") return { block: true, blockReason: malformedReason(key, tool, problem, this.where) };
    const why = whyCommand(this.cfg.why, callID === "" ? "" : call, chk.recorded, key);
    if (chk.decision === "allow") return undefined;
    if (chk.decision === "ask") return { block: true, blockReason: askReason(key, tool, chk.reason, why) };
    const reason: Reason = typeof chk.reason?.code === "string" ? chk.reason : { code: "no reason given" };
    return { block: true, blockReason: denialReason(key, tool, reason, why) };
  }
}
