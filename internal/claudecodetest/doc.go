// Package claudecodetest drives the real Claude Code CLI, at the version
// tools/npm/pins.json pins, as the reference for the claude-code dialect.
//
// Run starts the CLI in -p mode in a temporary project and HOME against a
// scripted Messages API server on loopback, and returns what the CLI did:
// each request's tool pool (its tools and the deferred tools its system text
// announces), the agent types it offered, every tool_use the script issued
// with the tool_result the CLI sent back, every hook payload, and the
// result's permission_denials. The tests of the package compare that with
// what the dialect decides for the same policy (TestDifferential), record the
// pools of every kind of session (TestPools), check what an HTTP hook sees
// and decides (TestHTTPHook), replay the recorded cases as scenarios
// without the CLI (TestRecorded), and attach the ledger to the CLI through
// 'ledger hook install' against a built 'ledger serve' (TestEndToEnd: an
// operator's grant blocking a sub-agent mid-run, 'ledger why', a --resume
// keeping the envelope, verify and the report), and run README's MCP
// example as written (TestReadmeMCP: the hooks, a 'ledger mcp' gateway in
// the project's .mcp.json, the pinned server-filesystem), and check that
// the CLI ignores a whole settings file for a key's wrong value exactly
// when ccimport.CheckSettings says so (TestSettingsSchema). A case's MCP
// servers are otherwise the test binary itself serving stdio MCP
// (ServeMCP), so no other process is installed.
//
// Flags: -update records each case run under testdata/claude-code-cli;
// -gen.lines N adds the generated cases (about N calls each, drawn by
// seeded grammars: gen-*, assignments, wrappers, commands that read, write
// and remove, redirections, operators, groups and shell scripts in default
// mode, acceptEdits and bypassPermissions; gen-ro-*, the read-only list's
// commands with options and paths; gen-w-*, acceptEdits' writes and their
// targets; gen-flags-*, read-only commands with options the release
// accepts and ones it should not; gen-paths*, random Read and Edit deny
// patterns against reads and writes in several spellings; gen-rules*,
// random Bash allow, ask and deny patterns against commands near them;
// gen-allow*, random allow rules, wrappers and launchers among them,
// against commands built around what they name; gen-evade*, denied
// commands, reads and writes spelled and carried the ways a shell allows;
// gen-files*, random Read and Edit allow, ask and deny rules and an added
// directory against the file tools' reads, writes, globs and greps;
// gen-tools*, random rules over MCP tools, WebFetch domains, WebSearch and
// TodoWrite, well-formed and not, against their calls in every mode;
// gen-params*, random parameter rules (tool(p:v)) against calls that set
// those parameters or not; gen-skills*, random Skill rules against project
// skills spelled several ways; gen-agents*, four custom agents with random
// tools, disallowedTools and permissionMode under random rules and a
// random session mode, each making random calls, one spawned by another
// in half the cases, read as 'ledger policy import' reads their files;
// gen-user*, random Read and Edit rules, HOME's and the user's directory's
// among them, each in the user's settings or the project's, against reads,
// writes, globs and Bash reads in the project and under HOME; gen-scopes*,
// random rules, modes and added directories spread over the user's, the
// project's and the local settings, the dialect's permissions imported
// from the three files as 'ledger policy import' reads them) and
// -gen.seed S picks them. Each generated case calls pwd first, so
// that the CLI's shell has run a command (genProbes). A disagreement says whether the dialect was
// looser (fail-open) or stricter (fail-closed) than the release.
// They explore and are not recorded: a difference they find becomes a case
// of its own (envpaths-* came from seed 1).
//
// # Invariants
//
//   - Only loopback: the CLI's model is the scripted server on 127.0.0.1;
//     its environment holds no inherited credentials or proxies, and
//     nonessential traffic and WebFetch's domain preflight are off.
//   - Bounded: every run has a deadline; on it the CLI's whole process group
//     is killed and the test fails.
//   - Scripted, never guessed: the server answers each request from the
//     script its conversation names ("script:NAME" in its prompt; the main
//     thread's prompt is "script:main"), by how many assistant turns the
//     conversation holds since; past the script's end it answers "done".
//   - The CLI is the reference: a missing or mismatched CLI fails the test
//     under CI=true and skips it elsewhere; nothing here restates policy.
//
// # How a case maps to the dialect
//
// --tools is policy, not an agent: the policy.set's catalogue is exactly its
// list and the document's top-level "tools" is the same list (the dialect
// reads it as the flag when the document names a release). --agent is the
// main session's agent. DeferredToolPlaceholder, which 2.1.328 puts in a
// request's tools, is an internal stand-in and no tool: it is left out of
// the CLI's side of every pool and of every catalogue given to the dialect.
// testdata/deliberate.json lists the only differences accepted, each one
// where the dialect is stricter than the CLI.
//
// # How an outcome is read
//
// A call ran (allow) when a PostToolUse or PostToolUseFailure hook fired for
// its tool_use_id. It was refused when it is in permission_denials: an ask
// when a PermissionRequest hook fired for it first (in -p mode nobody
// answers, so the CLI refuses it; the tool_result says "Claude requested
// permissions to ..."), a deny otherwise (the tool_result says "Permission
// to use ... has been denied", or "File is in a directory that is denied by
// your permission settings" for a Read path rule, which fires no PreToolUse
// at all; dontAsk's refusals of what would ask fire no PermissionRequest and
// count as deny). A tool outside the session's pool is answered "No such
// tool available" with no hook at all. PermissionRequest names no
// tool_use_id, so it is paired with a call by agent_id, tool and input,
// the calls the CLI refused first (a call that ran with less of the same
// input would take it otherwise).
//
// # Caveats
//
// The CLI merges consecutive assistant messages that share a message id, so
// the server gives every response its own. Sub-agents run in the background
// unless their Agent call says run_in_background: false; the suites always
// say it, so a run ends only after every sub-agent has. bypassPermissions
// as root needs IS_SANDBOX=1, which the differential suite sets only for
// cases where bypass is in play. An Agent call whose type the CLI does not
// offer "runs" (no permission refusal) and answers "Agent type ... not
// found": the outcome is read as allow, because permission allowed it.
package claudecodetest
