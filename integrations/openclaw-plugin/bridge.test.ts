// The plugin's own tests: Bridge.beforeToolCall and the lifecycle hooks
// against a Ledger whose connection is a scripted stand-in for the ledger's
// NATS API (FakeLedger), and, for a refused connection, the real nats
// client against a scripted NATS server on loopback. They need no ledger
// and no OpenClaw (internal/openclawplugintest drives both):
//
//   node --test integrations/openclaw-plugin/          (Node 24; npm test in this directory)
//
// The nats client is looked for where the plugin looks (natsModule, else
// $LEDGER_NPM_DIR/node_modules/nats, else tools/npm/node_modules/nats); the
// tests that need it skip without it.
import { test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { ConfigError, parseConfig, type Config } from "./config.ts";
import { Ledger, resolveNats } from "./ledger.ts";
import { Bridge, type Block, type Origin } from "./bridge.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** What the fake answers a request: a JSON body, an API error, or a client error thrown (nats.js's code). */
type Reply = { ok: unknown } | { err: string; message?: string } | { thrown: string } | { hang: true };

interface Sent {
  subject: string;
  body: Record<string, unknown>;
}

/**
 * FakeLedger stands in for the ledger's API over a nats connection: appends
 * get sequences (a repeated id is a duplicate, a second start of a session
 * duplicate_session), a turn must be the
 * session's next (bad_turn otherwise), a session query knows the started
 * and spawned sessions and the sender their current turn is decided under
 * (context.sender: the turn's, else a root's default sender, as the
 * ledger's turnContext), a check answers the decision policy(tool, sender)
 * with a recorded sequence, and a check re-sent with the id of one that
 * landed is answered with that one (internal/api, answerLandedCheck).
 * Every answer can be replaced by script, which sees each request first.
 */
class FakeLedger {
  seq = 0;
  ids = new Map<string, number>();
  sessions = new Map<string, { turns: number; sender: string; start: string; parent?: string; external?: boolean }>();
  sent: Sent[] = [];
  /** The requests the ledger answered with a decision or a record, in order. */
  landed: Sent[] = [];
  /** Each check decided: its call, the sender it was decided under, the decision. */
  decided: { call: string; sender: string; decision: string }[] = [];
  /** The checks that landed by their event id, for a re-send. */
  checkIDs = new Map<string, { session: string; tool: unknown; call: unknown; answer: unknown }>();
  delayMs = 0;
  policy: (tool: string, sender: string) => string = () => "allow";
  script?: (r: Sent) => Reply | undefined;

  conn() {
    return {
      request: async (subject: string, data: Uint8Array, opts: { timeout: number }) => {
        const body = JSON.parse(dec.decode(data)) as Record<string, unknown>;
        const r: Sent = { subject, body };
        this.sent.push(r);
        if (this.delayMs > 0) await new Promise((res) => setTimeout(res, this.delayMs));
        const reply = this.script?.(r) ?? this.answer(r);
        if ("hang" in reply) {
          await new Promise((res) => setTimeout(res, opts.timeout));
          throw Object.assign(new Error("TIMEOUT"), { code: "TIMEOUT" });
        }
        if ("thrown" in reply) throw Object.assign(new Error(reply.thrown), { code: reply.thrown });
        if ("err" in reply) {
          return {
            data: enc.encode(JSON.stringify({ code: reply.err, message: reply.message ?? reply.err })),
            headers: { get: (k: string) => (k === "Nats-Service-Error-Code" ? reply.err : k === "Nats-Service-Error" ? (reply.message ?? "") : "") },
          };
        }
        return { data: enc.encode(JSON.stringify(reply.ok)) };
      },
      closed: () => new Promise<void>(() => undefined),
      isClosed: () => false,
      close: async () => undefined,
      flush: async () => undefined,
    };
  }

  answer(r: Sent): Reply {
    const b = r.body;
    const key = b.session as string;
    if (r.subject.includes(".append.")) {
      const id = b.id as string;
      const had = this.ids.get(id);
      if (had !== undefined) return { ok: { seq: had, id, duplicate: true } };
      const data = (b.data ?? {}) as Record<string, unknown>;
      if ((b.type === "session.started" || b.type === "session.spawned") && this.sessions.has(key)) {
        return { err: "duplicate_session", message: `session ${key} already exists` };
      }
      if (b.type === "turn.started") {
        const s = this.sessions.get(key);
        if (!s) return { err: "unknown_session", message: key };
        if (data.turn !== s.turns + 1) return { err: "bad_turn", message: `turn ${data.turn} is not the next turn of ${key} (current: ${s.turns})` };
        s.turns++;
        s.sender = (data.sender as string | undefined) || (s.parent ? "" : s.start);
        s.external = Boolean(data.sender);
      }
      if (b.type === "session.started") this.sessions.set(key, { turns: 0, start: (data.sender as string | undefined) ?? "", sender: (data.sender as string | undefined) ?? "" });
      if (b.type === "session.spawned") this.sessions.set(key, { turns: 0, start: "", sender: "", parent: data.parent as string });
      this.ids.set(id, ++this.seq);
      this.landed.push(r);
      return { ok: { seq: this.seq, id } };
    }
    if (r.subject.includes(".session.")) {
      const s = this.sessions.get(key);
      if (!s) return { err: "unknown_session", message: `${key} is not in the ledger` };
      const context = { policy_source: s.parent ? "persisted_child" : "current_request", ...(s.sender ? { sender: s.sender } : {}), ...(s.external ? { external: true } : {}) };
      return { ok: { key, agent: "main", state: "active", ...(s.parent ? { parent: s.parent } : {}), context, turns: Array.from({ length: s.turns }, (_, i) => ({ turn: i + 1, seq: 1 })), children: [] } };
    }
    if (r.subject.includes(".check.")) {
      const id = b.id as string | undefined;
      const had = id !== undefined ? this.checkIDs.get(id) : undefined;
      if (had) {
        if (had.session === key && had.tool === b.tool && had.call === b.call) return { ok: had.answer };
        return { err: "invalid_event", message: `id ${id} is the id of another record` };
      }
      const sender = this.sessions.get(key)?.sender ?? "";
      const decision = this.policy(b.tool as string, sender);
      this.landed.push(r);
      this.decided.push({ call: b.call as string, sender, decision });
      const answer = { session: key, scope: "s", seq: this.seq, tool: b.tool, decision, reason: { code: decision === "allow" ? "global:allow" : "global:deny" }, recorded: ++this.seq };
      if (id !== undefined) this.checkIDs.set(id, { session: key, tool: b.tool, call: b.call, answer });
      return { ok: answer };
    }
    return { err: "invalid_event", message: `no ${r.subject}` };
  }

  checks(): Sent[] {
    return this.sent.filter((r) => r.subject.includes(".check."));
  }
}

function setup(raw: Record<string, unknown> = {}, origin: Origin = {}) {
  const cfg: Config = parseConfig({ timeoutMs: 300, retries: 0, ...raw });
  const fake = new FakeLedger();
  const ledger = new Ledger(cfg);
  ledger.conn = Promise.resolve(fake.conn() as never);
  const warnings: string[] = [];
  const bridge = new Bridge(ledger, cfg, { warn: (m) => warnings.push(m) }, origin);
  return { cfg, fake, bridge, warnings };
}

/** restart is the gateway started again: a fresh Ledger and Bridge (nothing remembered) on the same ledger. */
function restart(cfg: Config, fake: FakeLedger): Bridge {
  const ledger = new Ledger(cfg);
  ledger.conn = Promise.resolve(fake.conn() as never);
  return new Bridge(ledger, cfg, {});
}

function call(bridge: Bridge, tool: string, key: string, id?: string, sender?: string): Promise<Block | undefined> {
  return bridge.beforeToolCall(
    { toolName: tool, ...(id !== undefined ? { toolCallId: id } : {}) },
    { sessionKey: key, agentId: "main", toolName: tool, ...(id !== undefined ? { toolCallId: id } : {}), ...(sender ? { requester: { senderId: sender } } : {}) },
  );
}

const root = "agent:main:main";

test("a recorded allow for this session and tool lets the call run", async () => {
  const { bridge, fake } = setup();
  assert.equal(await call(bridge, "exec", root, "call-1"), undefined);
  assert.equal(fake.checks().length, 1);
});

// Finding 1: the answer is validated, not only its decision.
test("an allow that is not about this call blocks", async () => {
  const answers: Record<string, unknown>[] = [
    { decision: "allow" },
    { session: "agent:other:main", tool: "read", decision: "allow", recorded: 12 },
    { session: root, tool: "exec", decision: "allow", recorded: 0 },
    { session: root, tool: "read", decision: "allow", recorded: 12 },
    { session: root, tool: "exec", decision: "allow", recorded: "12" },
  ];
  for (const a of answers) {
    const { bridge, fake } = setup();
    fake.script = (r) => (r.subject.includes(".check.") ? { ok: a } : undefined);
    const got = await call(bridge, "exec", root, "call-1");
    assert.equal(got?.block, true, `${JSON.stringify(a)} let the call run`);
    assert.match(got!.blockReason, /the ledger's answer is malformed/, JSON.stringify(a));
  }
});

// Finding 2: a connection the server refused is a setup error.
async function refusingServer(): Promise<{ url: string; close: () => void }> {
  const server = net.createServer((sock) => {
    sock.write(`INFO {"server_id":"fake","version":"2.10.0","proto":1,"max_payload":1048576,"auth_required":true,"headers":true}\r\n`);
    sock.on("data", (d) => {
      if (d.toString().startsWith("CONNECT")) {
        sock.write("-ERR 'Authorization Violation'\r\n");
        sock.end();
      }
    });
    sock.on("error", () => undefined);
  });
  await new Promise<void>((res) => server.listen(0, "127.0.0.1", res));
  const port = (server.address() as net.AddressInfo).port;
  return { url: `nats://127.0.0.1:${port}`, close: () => server.close() };
}

function natsModule(): string | undefined {
  try {
    resolveNats(undefined);
    return undefined; // found where the plugin looks
  } catch {
    return "skip";
  }
}

test("failOpen: a refused connection blocks even with failOpen", { skip: natsModule() === "skip" ? "no nats package (set LEDGER_NPM_DIR)" : false }, async () => {
  const srv = await refusingServer();
  try {
    for (const raw of [
      { natsUrl: srv.url, user: "openclaw", password: "s3cret" },
      { natsUrl: srv.url.replace("nats://", "nats://openclaw:s3cret@") },
    ]) {
      const cfg = parseConfig({ ...raw, failOpen: true, timeoutMs: 300, retries: 0 });
      const bridge = new Bridge(new Ledger(cfg), cfg, {});
      const got = await call(bridge, "exec", root, "c1");
      assert.equal(got?.block, true, "a refused connection let the call run under failOpen");
      assert.match(got!.blockReason, /Authorization Violation/);
      assert.match(got!.blockReason, /setup problem/);
      assert.doesNotMatch(got!.blockReason, /s3cret/);
      await bridge.close();
    }
  } finally {
    srv.close();
  }
});

test("failOpen: a ledger that cannot be reached lets the call through; without failOpen it blocks, naming no password", { skip: natsModule() === "skip" ? "no nats package (set LEDGER_NPM_DIR)" : false }, async () => {
  const free = net.createServer();
  await new Promise<void>((res) => free.listen(0, "127.0.0.1", res));
  const port = (free.address() as net.AddressInfo).port;
  await new Promise<void>((res) => free.close(() => res()));
  const cfg = parseConfig({ natsUrl: `nats://127.0.0.1:${port}`, failOpen: true, timeoutMs: 300, retries: 0 });
  const bridge = new Bridge(new Ledger(cfg), cfg, {});
  assert.equal(await call(bridge, "exec", root, "c1"), undefined);
  await bridge.close();
  // Without failOpen it blocks, saying so, and names no password.
  const closed = parseConfig({ natsUrl: `nats://ada:s3cret@127.0.0.1:${port}`, timeoutMs: 300, retries: 0 });
  const strict = new Bridge(new Ledger(closed), closed, {});
  const got = await call(strict, "exec", root, "c1");
  assert.match(got?.blockReason ?? "", /cannot be reached .*fails closed/);
  assert.doesNotMatch(got!.blockReason, /s3cret/);
  await strict.close();
});

test("a natsUrl that is not a URL is a configuration problem", () => {
  for (const natsUrl of ["http://[::1", "127.0.0.1:4222:99999", "nats//127.0.0.1:4222", "nats://h:4222/path"]) {
    assert.throws(() => parseConfig({ natsUrl }), (e: unknown) => e instanceof ConfigError && /natsUrl/.test(e.message), natsUrl);
  }
  for (const natsUrl of ["nats://127.0.0.1:4222", "127.0.0.1:4222", "tls://ledger.example:4222", "nats://ada:pw@10.0.0.1:4222,nats://10.0.0.2:4222", "nats://[::1]:4222"]) {
    assert.equal(parseConfig({ natsUrl }).natsUrl, natsUrl);
  }
});

// Finding 3: the plugin's own waiting never counts as unreachable.
test("failOpen: an unannounced sub-agent's queued calls are blocked with unknown_parent", async () => {
  // Each call may wait 300 ms for the spawn (timeoutMs 100, retries 2);
  // the deadline is 1050 ms: the fourth and fifth calls would pass it if
  // each waited in turn.
  const { bridge } = setup({ failOpen: true, timeoutMs: 100, retries: 2 });
  const child = "agent:main:subagent:1111";
  const started = Date.now();
  const got = await Promise.all(["c1", "c2", "c3", "c4", "c5"].map((id) => call(bridge, "exec", child, id)));
  assert.ok(Date.now() - started < 1000, `the calls took ${Date.now() - started} ms: each waited for the spawn again`);
  for (const [i, g] of got.entries()) {
    assert.equal(g?.block, true, `c${i + 1} was let through`);
    assert.match(g!.blockReason, /unknown_parent/, `c${i + 1}`);
  }
});

test("failOpen: time queued in the session's lane blocks", async () => {
  // Each answer takes 300 ms of the 1100 ms deadline (timeoutMs 400, no
  // retries): the first call's three requests fit, the second call's
  // check comes after the deadline.
  const { bridge, fake } = setup({ failOpen: true, timeoutMs: 400 });
  fake.delayMs = 300;
  const [a, b] = await Promise.all([call(bridge, "exec", root, "c1"), call(bridge, "exec", root, "c2")]);
  assert.equal(a, undefined);
  assert.equal(b?.block, true, "a call whose decision was late went ahead under failOpen");
  assert.match(b!.blockReason, /no answer within/);
  assert.match(b!.blockReason, /failOpen does not cover/);
  await bridge.lanes.idle();
});

// Finding 4: a call is checked in its own turn or not at all.
test("a lost turn is recorded before the next call's check", async () => {
  const { bridge, fake } = setup({}, {});
  const key = "agent:main:telegram:group:g1";
  await bridge.modelCallStarted({ sessionKey: key, callId: "m1" }, { sessionKey: key, senderId: "alice" });
  let failTurns = true;
  fake.script = (r) => (failTurns && r.body.type === "turn.started" ? { thrown: "TIMEOUT" } : undefined);
  await bridge.modelCallStarted({ sessionKey: key, callId: "m2" }, { sessionKey: key, senderId: "bob" });
  failTurns = false;
  assert.equal(await call(bridge, "exec", key, "c-bob", "bob"), undefined);
  const i = fake.landed.findIndex((r) => r.subject.includes(".check."));
  const turn = fake.landed.slice(0, i).filter((r) => r.body.type === "turn.started").at(-1);
  assert.deepEqual(turn?.body.data, { turn: 2, sender: "bob" }, "bob's turn was not recorded before his call's check");
});

test("a lost turn that cannot be recorded blocks the call", async () => {
  const { bridge, fake } = setup({ failOpen: false });
  const key = "agent:main:telegram:group:g1";
  await bridge.modelCallStarted({ sessionKey: key, callId: "m1" }, { sessionKey: key, senderId: "alice" });
  fake.script = (r) => (r.body.type === "turn.started" ? { err: "invalid_event", message: "refused" } : undefined);
  await bridge.modelCallStarted({ sessionKey: key, callId: "m2" }, { sessionKey: key, senderId: "bob" });
  const got = await call(bridge, "exec", key, "c-bob", "bob");
  assert.equal(got?.block, true, "bob's call was checked in alice's turn");
  assert.match(got!.blockReason, /the turn this call belongs to/);
  assert.equal(fake.checks().length, 0);
});

test("a first turn recorded at a call carries the call's sender", async () => {
  const { bridge, fake } = setup();
  await call(bridge, "exec", root, "c1", "bob");
  const turn = fake.sent.find((r) => r.body.type === "turn.started");
  assert.deepEqual(turn?.body.data, { turn: 1, sender: "bob" });
});

// Finding 5.
test("ownersOf matches OpenClaw's normalized tool name", async () => {
  const { bridge, fake } = setup({}, { pluginTools: () => ({ acme: ["MyTool"], shell: ["bash"], other: ["read"] }) });
  await call(bridge, "mytool", root, "c1");
  await call(bridge, "exec", root, "c2");
  const [a, b] = fake.checks();
  assert.deepEqual(a.body.input, { "ledger:plugin": ["acme"] });
  assert.deepEqual(b.body.input, { "ledger:plugin": ["shell"] });
});

// Finding 6.
test("a call without an id is explained by its record", async () => {
  const { bridge, fake } = setup();
  fake.policy = () => "deny";
  const got = await call(bridge, "exec", root);
  const recorded = fake.seq;
  assert.equal(got?.block, true);
  assert.match(got!.blockReason, new RegExp(`Explain it with: ledger why --nats nats://127.0.0.1:4222 --record ${recorded}$`));
});

// Finding 7.
test("a reused call id gets its own id", async () => {
  const { bridge, fake } = setup();
  let n = 0;
  fake.policy = () => (n++ === 0 ? "deny" : "allow");
  const first = await call(bridge, "exec", root, "call_0");
  assert.equal(await call(bridge, "exec", root, "call_0"), undefined);
  const [a, b] = fake.checks();
  assert.equal(a.body.call, "call_0");
  assert.equal(b.body.call, "call_0#2", "the second call recorded the first one's id: --call call_0 would explain it");
  assert.match(first!.blockReason, /--call call_0 --session agent:main:main$/);
});

// Finding 8.
test("odd answers block with what happened", async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ session: root, tool: "exec", decision: "maybe", reason: { code: "x" }, recorded: 5 }, /malformed .*decision "maybe"/],
    [{ code: "x", message: "y" }, /malformed/],
    [{ session: root, tool: "exec", decision: "ask", reason: { code: "global:ask" }, recorded: 5 }, /asks for approval of exec .*global:ask.*--call c1/],
  ];
  for (const [a, want] of cases) {
    const { bridge, fake } = setup();
    fake.script = (r) => (r.subject.includes(".check.") ? { ok: a } : undefined);
    const got = await call(bridge, "exec", root, "c1");
    assert.equal(got?.block, true);
    assert.match(got!.blockReason, want);
    assert.doesNotMatch(got!.blockReason, /denied|Cannot read properties/);
  }
});

// A call is decided under its own requester's sender. OpenClaw 2026.9.6's
// model_call_started names no sender (its hook context is runId,
// sessionKey, sessionId and the model), while a tool call's requester is
// the run's sender, the one OpenClaw resolves the run's tool policy with.
const group = "agent:main:telegram:group:g1";
const bobDenied = (tool: string, sender: string) => (tool === "exec" && sender === "bob" ? "deny" : "allow");

test("a call is decided under its requester's sender, not the sender of the session's turn", async () => {
  const { bridge, fake } = setup();
  fake.policy = bobDenied;
  // Alice's run: a model call (no sender, as OpenClaw gives it), then her call.
  await bridge.modelCallStarted({ sessionKey: group, callId: "m1" }, { sessionKey: group });
  assert.equal(await call(bridge, "exec", group, "c1", "alice"), undefined);
  // Bob's run in the same group session: his exec is decided as bob's.
  await bridge.modelCallStarted({ sessionKey: group, callId: "m2" }, { sessionKey: group });
  const got = await call(bridge, "exec", group, "c2", "bob");
  assert.equal(got?.block, true, "bob's exec was decided under another sender's rules");
  assert.match(got!.blockReason, /denied exec/);
  assert.equal(await call(bridge, "read", group, "c3", "bob"), undefined);
  assert.deepEqual(
    fake.decided.map((d) => [d.call, d.sender]),
    [["c1", "alice"], ["c2", "bob"], ["c3", "bob"]],
  );
  // One turn per model call, and one for the sender of its calls; none more.
  const turns = fake.landed.filter((r) => r.body.type === "turn.started").map((r) => r.body.data);
  assert.deepEqual(turns, [{ turn: 1 }, { turn: 2, sender: "alice" }, { turn: 3 }, { turn: 4, sender: "bob" }]);
  // The root's start names no default sender: a turn without one is decided with none.
  const start = fake.landed.find((r) => r.body.type === "session.started");
  assert.equal((start?.body.data as Record<string, unknown>).sender, undefined);
});

test("a sender's turn is recorded once: its id is the same when its answer was lost", async () => {
  const { bridge, fake } = setup();
  fake.policy = bobDenied;
  await bridge.modelCallStarted({ sessionKey: group, callId: "m1" }, { sessionKey: group });
  // Bob's turn lands, but its answer is lost: his call is blocked (the ledger cannot be reached).
  let lose = true;
  fake.script = (r) => {
    if (!lose || r.body.type !== "turn.started") return undefined;
    lose = false;
    fake.answer(r);
    return { thrown: "TIMEOUT" };
  };
  const first = await call(bridge, "exec", group, "c1", "bob");
  assert.match(first?.blockReason ?? "", /cannot be reached/);
  assert.equal(fake.checks().length, 0);
  // His next call finds that turn (a duplicate) rather than recording another.
  const got = await call(bridge, "exec", group, "c2", "bob");
  assert.match(got?.blockReason ?? "", /denied exec/);
  const turns = fake.landed.filter((r) => r.body.type === "turn.started").map((r) => r.body.data);
  assert.deepEqual(turns, [{ turn: 1 }, { turn: 2, sender: "bob" }]);
  // After a restart the ledger says whose turn it is: bob's next call records none.
  const again = restart(setup().cfg, fake);
  assert.match((await call(again, "exec", group, "c3", "bob"))?.blockReason ?? "", /denied exec/);
  assert.equal(fake.landed.filter((r) => r.body.type === "turn.started").length, 2);
  assert.deepEqual(fake.decided.map((d) => d.sender), ["bob", "bob"]);
});

test("a call without a sender is decided with none, as OpenClaw decides it", async () => {
  // The wildcard denies exec; bob may run it (toolsBySender "*" and "id:bob").
  const { bridge, fake } = setup();
  fake.policy = (tool, sender) => (tool === "exec" && sender !== "bob" ? "deny" : "allow");
  // The root starts at bob's call (a model call the plugin did not see).
  assert.equal(await call(bridge, "exec", group, "c1", "bob"), undefined);
  // A run with no requester sender (a cron or CLI run) in the same session.
  const got = await call(bridge, "exec", group, "c2");
  assert.equal(got?.block, true, "a call without a sender was decided as bob's");
  assert.deepEqual(fake.decided.map((d) => d.sender), ["bob", ""]);
});

test("a root whose start named a default sender blocks a call without one (sender_mismatch)", async () => {
  // Recorded by an earlier version of the plugin: its session.started names alice.
  const { cfg, fake } = setup();
  fake.sessions.set(group, { turns: 1, start: "alice", sender: "alice" });
  const bridge = restart(cfg, fake);
  await bridge.modelCallStarted({ sessionKey: group, callId: "m1" }, { sessionKey: group });
  const got = await call(bridge, "exec", group, "c1");
  assert.equal(got?.block, true, "a call without a sender was decided as alice's");
  assert.match(got!.blockReason, /sender_mismatch/);
  assert.match(got!.blockReason, /alice/);
  assert.equal(fake.checks().length, 0);
  // A call that names its sender is decided under it.
  assert.equal(await call(bridge, "exec", group, "c2", "bob"), undefined);
  assert.deepEqual(fake.decided.map((d) => d.sender), ["bob"]);
  // Restarted in bob's turn, the plugin does not know the default sender:
  // a turn without a sender shows it, and the call is blocked.
  const again = restart(cfg, fake);
  const late = await call(again, "exec", group, "c3");
  assert.match(late?.blockReason ?? "", /sender_mismatch.*sender alice, the default sender/);
  assert.deepEqual(fake.decided.map((d) => d.sender), ["bob"]);
});

// A reused call id after a restart: the check's event id is the plugin's
// own, fresh for every call (ledger.ts, checkAndStart), and the ledger
// answers an earlier check only for a re-send of its id (internal/api,
// answerLandedCheck), so the new call gets its own decision.
test("a reused call id after a restart gets its own decision", async () => {
  const { cfg, bridge, fake } = setup();
  let n = 0;
  fake.policy = () => (n++ === 0 ? "allow" : "deny");
  assert.equal(await call(bridge, "exec", root, "call_0"), undefined);
  const again = restart(cfg, fake);
  const got = await call(again, "exec", root, "call_0");
  assert.equal(got?.block, true, "the call after the restart was answered with the earlier call's allow");
  assert.match(got!.blockReason, /denied exec/);
  const [a, b] = fake.checks();
  assert.equal(a.body.call, "call_0");
  assert.equal(b.body.call, "call_0");
  assert.notEqual(a.body.id, b.body.id);
  assert.deepEqual(fake.decided.map((d) => d.decision), ["allow", "deny"]);
});
