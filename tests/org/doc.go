// Package org is the acceptance test of scopes (issue 23): one ledger
// serving a whole organization, many policies of both dialects at once,
// and the ledger's own revocations above them.
//
// TestOrganization runs, against ONE `ledger serve` (the built binary, NATS
// on loopback) and all at the same time:
//
//   - two Claude Code projects in two temporary directories, each with the
//     ledger's hooks installed by `ledger hook install` and driven by the
//     real Claude Code CLI (tools/npm/pins.json's version) offline against
//     its own scripted model (internal/claudecodetest's Run): project A's
//     .claude/settings.json denies Read, project B's allows it, so the hook
//     puts them in two scopes (internal/cchook's ScopeOf) with two policies;
//   - an OpenClaw gateway (the pinned openclaw) with the session-ledger
//     plugin (integrations/openclaw-plugin) bound to the scope "openclaw:org",
//     whose openclaw policy the operator sets, driven by `openclaw agent`
//     against a scripted model (internal/openclawplugintest's helpers).
//
// It checks that each session is decided by its own scope's policy in its
// own dialect (A's Read refused, B's run, OpenClaw's write blocked by the
// plugin with the openclaw dialect's global:deny), and that each scope
// holds its own policy.set only; that an operator's deny.added of Bash
// for A's session and its sub-agents (client.Deny, session + subtree)
// blocks A's next Bash and its sub-agent's inside Claude Code with
// revocation:deny as the cause (and the printed `ledger why` names the
// deny.added), while B's Bash runs in the same window, and that
// deny.lifted restores Bash at the next check; the same for exec in the
// OpenClaw session, revoked and lifted with the real `ledger deny` as an
// operator over the API, the two revocations in force together; that
// `ledger tree --scope`, `ledger export --scope` and `ledger report
// --scope` show each scope's sessions alone, every one with its scope and
// its root's identity (runtime, user, host, project); and that `ledger
// verify` passes on the log.
//
// The parts wait for each other only through the scripted models (a
// request is answered once what it must follow has happened), with a
// deadline: B's Bash turn waits for A's revocation, A's lift waits for B's
// Bash and OpenClaw's revoked exec, OpenClaw's lift for A's lift.
//
// TestPreScopeLogReplays folds the golden logs written before scopes
// (replay/testdata/golden/records) into the golden dumps they always
// folded into, and verifies them without drift; replay's
// TestGoldenRecordsAndDumps checks that the current code still writes
// those records for the same scenarios.
//
// Run it with the runtimes tools/npm/install put in place (about 80 s on
// the 2-core build machine):
//
//	LEDGER_NPM_DIR=/path/to/npm go test ./tests/org/ -v -count=1
//
// # Invariants
//
//   - Only loopback: the ledger, both scripted models and the gateway
//     listen on 127.0.0.1; the runtimes' environments are the ones their
//     suites give them (no inherited credentials or proxies).
//   - Bounded: every run, wait and command has a deadline; conditions are
//     polled with a deadline, never slept for.
//   - The runtimes are the reference: a missing Claude Code CLI, Node 24,
//     openclaw or nats package fails the test under CI=true and skips it
//     elsewhere (run bash tools/npm/install; LEDGER_NPM_DIR names another
//     install).
//
// # Caveats
//
// Claude Code removes a tool that a bare deny rule names (project A's
// "Read") from the model's pool, so A's Read call never reaches the hook:
// Claude Code refuses it itself, from the same settings the hook imported
// into A's scope. The ledger's side of that decision is read from the
// ledger (why on A's session); B's Read is the one the hook decides
// inside Claude Code.
package org
