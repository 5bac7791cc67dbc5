// Package ledgerpolicy is the ledger dialect: the ledger's own small policy
// language for scopes whose runtime has no dialect of its own (Codex CLI,
// Gemini CLI). Its rules are Claude Code's permission rules (Tool,
// Tool(pattern); deny, then ask, then allow), read against a built-in
// table of the tools one runtime release offers the model, where each tool
// has one argument kind (command, path, patch, url or none) that gives its
// patterns their meaning. Above the global layer sit per-agent-type layers
// that only narrow, applied root-first as OpenClaw's layers are; spawns are
// admitted against a depth cap and an agent list, and a child runs under
// the tool-level ceiling its parent had at the spawn.
//
// docs/dialects/ledger.md is the reference. Every method is a pure
// function of its arguments, safe for concurrent use; nothing decided,
// hashed or printed depends on map order.
package ledgerpolicy
