// Package cchook maps Claude Code's hook payloads to the ledger: which
// events one payload appends (a root session started, a sub-agent spawned,
// a turn, a tool call checked and its effect started, the project's policy
// when it changed) and what the hook answers Claude Code (a PreToolUse
// denial with the reason code, the rule and the `ledger why` command that
// explains it, or nothing). `ledger hook claude-code` runs it on one payload
// read from standard input; `ledger serve --hooks ADDR` runs it on payloads
// POSTed by Claude Code's HTTP hooks and by the thin command hook
// (thinhook: `ledger-hook --hooks URL`, which adds what only a command
// hook's process knows as hookwire's headers; Handler reads them only from
// a request that carried its token, TestThinHeaders). docs/claude-code-hooks.md is the user's
// account of the mapping; this comment is the maintainer's.
//
// The package is in three parts. The mapping proper (plan.go, answer.go)
// is pure: events and answers are functions of the payload and of what the
// ledger (and Claude Code's own sub-agent metadata) said, with ids derived
// from the payload, so the same payload over the same ledger state always
// makes the same events. Hook (hook.go) drives it: it asks the ledger
// through the small Ledger interface (ClientLedger is the NATS client's),
// appends, and turns what came back into the answer. settings.go edits a
// project's .claude settings file for `ledger hook install`.
//
// Invariants:
//
//   - Fail closed for PreToolUse, never block anything else. A PreToolUse
//     whose call the ledger denies, refuses to record, or cannot decide
//     (an unknown session, an ambiguous parent, a bad key, no policy) is
//     answered with a denial; only a ledger that cannot be reached at all
//     follows Options.Unreachable. A payload that cannot be read (over
//     MaxPayload or MaxDepth, not one JSON object, a hook_event_name that is
//     not one string, a PreToolUse tool_input that is not an object or whose
//     primary field is not a string) is denied unless PeekAt tells it is
//     another event: what cannot be told may be a call (Result.Unreadable).
//     A panic in the hook's run is the hook's own failure: a call is denied
//     (PanicReason, asking for a report with the log line that holds the
//     stack), anything else goes on (Panicked, TestPanicDenies).
//     Every other event answers "{}" whatever happened, with the problem in
//     Result.Warnings.
//   - The hook only ever narrows Claude Code: an allow, and an ask, answer
//     no permissionDecision at all, so Claude Code's own permission rules
//     and prompts still apply. Only a ledger denial speaks.
//   - Keys: a root session's key is the payload's session_id; a sub-agent's
//     is session_id + ":" + agent_id. Both must be ledger keys
//     ([A-Za-z0-9_:-]{1,200}); anything else is refused, never rewritten.
//   - A spawn names the parent Claude Code spawned the sub-agent from, or is
//     not recorded. Hooks never name a parent; the parent comes from Claude
//     Code's sub-agent metadata file (agent-<id>.meta.json beside the
//     sub-agent's transcript, "parentAgentId"), or, without one, from the
//     ledger: the only session of this Claude Code session that may launch
//     that agent type. When neither settles it the spawn waits for the
//     sub-agent's next event, and a PreToolUse of an unplaced sub-agent is
//     denied.
//   - Deterministic ids: every event the hook appends, except tool.checked
//     (recorded by the ledger's check endpoint) and policy.set (the same
//     document may come back after a change), has an id derived from the
//     session key and the payload (tool_use_id, prompt_id, the batch's
//     tool_use_ids), so a payload delivered twice (a command hook and an
//     HTTP hook, a retry) is answered with its first outcome and appends
//     nothing new.
//   - Nothing completes: Claude Code can resume a stopped sub-agent
//     (SendMessage) and a whole session (--resume), while the ledger's
//     session.completed is final. Stop and SubagentStop append nothing;
//     SessionEnd ends the main session (session.ended), and the first event
//     of an ended main session reopens it (session.reopened) before anything
//     else, so a resumed session goes on under its recorded scope and
//     envelope and is never refused.
//   - Scopes: a root is started bound to a scope, Options.Scope or the one
//     ScopeOf derives from the project (its git repository's origin, read
//     from the repository's files, else its path and the host), and the
//     project's policy.set names that scope. The derivation is a function
//     of the project alone, so every hook of a project, every replica and
//     every retry names the same scope. The project's files, and who runs
//     Claude Code, are read only when a root is started or the policy
//     imported, never on a call of a known session.
//   - The catalogue of the policy.set the hook appends is Options.Catalogue
//     and, with Options.MCPTools, the tools of the project's ledger MCP
//     gateways (.mcp.json; MCPTools reads each gateway's listing when the
//     policy is imported, never at a call). It is recorded in the
//     policy.set, so the fold and replay never ask a server; a tool no
//     listing names stays unknown to the ledger, and its denial says how
//     to make it known (TestMCPTools, TestMCPCatalogue).
//
// Caveats: the sub-agent metadata file is Claude Code's own, undocumented
// state (verified against 2.1.328: it is written right after the
// SubagentStart hooks return, so a spawn is usually recorded at the
// sub-agent's first tool call); reading it needs the transcript on the
// hook's machine. A project's policy is imported from files the agent can
// edit; an operator who wants the ledger's policy to be the only word runs
// the hook with Options.Import off.
package cchook
