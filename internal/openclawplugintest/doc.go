// Package openclawplugintest tests the session-ledger OpenClaw plugin
// (integrations/openclaw-plugin) against the real OpenClaw, at the version
// tools/npm/pins.json pins, and a real ledger.
//
// Two ways in, both through OpenClaw's own code:
//
//   - TestAgentRun drives a whole agent run: `ledger serve` (the built
//     binary) on loopback, an OpenClaw gateway that loads the plugin from
//     plugins.load.paths with its own loader, and `openclaw agent` against a
//     scripted OpenAI-compatible model on loopback (Model). The main agent
//     spawns a sub-agent through sessions_spawn and yields; the sub-agent
//     reads a file, an operator denies exec to sub-agents, and its exec call
//     is blocked inside OpenClaw with the ledger's reason; the sub-agent
//     ends, the main agent resumes. The test then reads the ledger with the
//     Go client and the CLI: sessions, spawn lineage, turns, checks,
//     `ledger why` and `ledger verify`.
//   - TestHookRunner loads the plugin with OpenClaw's plugin loader
//     (loadOpenClawPlugins from the dist files) and fires OpenClaw's global
//     hook runner with real-shaped events (hookrunner.mjs), for what a
//     short scripted run does not reach: an unreachable ledger (blocked, or
//     let through with failOpen), a bad configuration, a sub-agent whose
//     spawn OpenClaw never announced, a nested spawn, a timed-out child, a
//     hook delivered twice.
//
// Both check that a root's session.started names the plugin's scope (a
// configured one in TestAgentRun, the one derived from where openclaw.json
// is in TestHookRunner, DefaultScope) and carries the identity the plugin
// can know (runtime, OpenClaw's version, the workspace, user, host), and
// the operator's policy.set names that scope. TestConfig runs the
// plugin's own parseConfig (configcheck.mjs) over a table of settings.
//
// # Invariants
//
//   - Only loopback: the model is the scripted server on 127.0.0.1, the
//     ledger and the gateway listen on 127.0.0.1; OpenClaw's update check and
//     remote model catalogue are off, and its environment holds no inherited
//     credentials or proxies (HOME, state, config, log file and TMPDIR are
//     the test's).
//   - Bounded: every process runs under a deadline; the gateway's whole
//     process group is killed when the test ends.
//   - Scripted, never guessed: the model answers each conversation from the
//     script its first user message names ("script:NAME"), by how many
//     assistant messages it holds; past the script it answers "done".
//   - Node 24 or the package missing fails the test under CI=true and skips
//     it elsewhere (run bash tools/npm/install).
//   - No timing is asserted; integrations/openclaw-plugin/bench.mjs measures
//     (TestBenchScript runs it for a few calls: it must run and compose its
//     floor, a raw request plus a raw durable publish).
package openclawplugintest
