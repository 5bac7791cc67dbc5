// Package claudecode implements the claude-code dialect of the session
// policy ledger, as pinned in docs/dialects/claude-code.md (decided by the
// pinned Claude Code release where it and the written spec differ): the policy
// document and its validation, permission rules and grants, the tool pool of
// a session (eleven per-tool layers), the decision for one call (deny, ask or
// allow with a reason and a trace), spawn admission and the envelope a child
// captures.
//
// # Invariants
//
//   - Pure: every method is a function of its arguments. No clock, no
//     randomness, no I/O, and nothing returned depends on map iteration
//     order (maps are only used for membership).
//   - Compiled once: Compile parses the document and every rule, pattern and
//     tool-list entry; Effective appends the grants in force and caches the
//     normalized catalogue. Tools and Decide only look things up.
//   - Fail closed: a session whose agent definition vanished loses every
//     tool; a command that cannot be parsed cleanly is never approved by an
//     allow rule, the read-only list or acceptEdits; deny and ask rules see
//     every nested command and may over-match inside quoted text.
//   - Deny wins: deny rules are consulted before ask and allow rules in every
//     mode, so a deny anywhere beats an allow anywhere.
//   - A child never exceeds its envelope: layer 10 removes every tool that is
//     not in the pool captured from its parent at spawn.
//
// # Files
//
// release.go (the tables of each pinned Claude Code release: catalogue,
// built-in agents, the release layer), bashpaths.go (which words of a
// Bash command are paths, per command, as the release reads them, and
// where the line's cd commands move it),
// names.go (tool, MCP and agent names, modes, tool classes), rules.go
// (permission rules and command patterns), toollist.go (agent tools /
// disallowedTools entries), document.go (the policy document and Compile),
// effective.go (grants applied, provenance, the normalized catalogue),
// bash.go (command splitting, stripping, redirections, filesystem and
// critical commands), readonly.go and readonly_flags.go (the release's
// read-only commands and the options each accepts), paths.go (input paths
// and where a call runs, working directories, protected paths, path
// patterns), domains.go (WebFetch hosts), preapproved.go (the documentation
// sites WebFetch reads without asking), pool.go (the eleven pool
// layers), decide.go (call decisions and their trace), input.go (a call's
// input object read as written, as a decode would read it), admission.go (event
// shape, Start, Spawn, the envelope and the zero-tools refusal), dialect.go
// (the envelope.Dialect methods that glue them together).
//
// # Reasons
//
// Every removed tool and every decision carries a code "<layer>:<cause>"
// (section 13, and section 0 for the release layer), the rule as written where one matched (permissions.deny:
// "Bash", disallowedTools: "mcp__github", tools: ["Read"], mode: "plan",
// maxSubagentDepth: 3, ...) and the record that introduced it: the
// policy.set revision, the grant.added of a granted rule, the session's
// start or spawn record for facts fixed then (mode, background, coordinator,
// the captured parent pool), or the session.resumed of a continuation.
//
// # Choices beyond the spec
//
//   - A top-level document key "tools" is accepted when it is a list of valid
//     tool names and otherwise ignored: the catalogue is data.catalogue.
//   - In the comma-separated string form of an agent's tools, empty pieces
//     are dropped; in the list form an empty entry does not parse.
//   - An Agent call without a subagent_type is not refused by the main-thread
//     agent's type list (it asks about the tool in general).
//   - "No output redirection" (acceptEdits filesystem commands) means no
//     unquoted '>' at all. Any other command's output redirections are
//     decided apart from the command (redirectAsk), as Claude Code 2.1.328
//     decides them; file descriptor duplications are not redirections.
//
// # Where a call runs
//
// A check's input may carry PathsKey (the project, home, the shell's
// directory when an earlier cd left it elsewhere, and added directories).
// With it, paths are absolute, as Claude Code's tools send them (a relative
// one read from the shell's directory), and each rule anchor is matched
// against its own root; without it
// (records written before the key) a path keeps the kind it was written
// in. Nothing here reads the file system: the project and home are data.
package claudecode
