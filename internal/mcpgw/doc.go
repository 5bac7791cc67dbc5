// Package mcpgw is the MCP gateway ('ledger mcp'): an MCP server to its
// clients and an MCP client to the upstream servers of its configuration
// (stdio commands and streamable-HTTP URLs), which enforces and records
// every session's tool set through the ledger (docs/mcp-gateway.md).
//
// # What a session maps to
//
// Every downstream MCP session maps to one ledger session: the key given
// on the command line (stdio, Config.Session.From "key"), the value of a
// header of the client's HTTP requests (From "header", default header
// Ledger-Session), or the SessionMeta entry of the _meta of its
// initialize request (From "initialize"). All MCP sessions that map to the same ledger session
// share one MCP server and one tool set. The gateway is an orchestrator
// of the ledger: its client's Owner (the NATS user) owns the sessions it
// serves. It either joins a session that orchestrator already reports
// (for example through Claude Code's hooks, with the same owner) or, with
// Options.Start, starts it itself (session.started, turn.started 1). It
// talks to the ledger through package client only, never JetStream.
//
// # Scope and identity
//
// A session the gateway starts is bound to Options.Scope (ScopeOf:
// 'ledger mcp --scope', else the config's "scope", else DefaultScope of
// the config file's name) and carries the gateway's identity: Runtime,
// the MCP client's "name/version" (ClientVersion) as runtime_version,
// Options.User and Host (TestStartedSessionsCarryScopeAndIdentity,
// TestScope). The client is read from the new MCP session's first
// request (an initialize's clientInfo, or the 2026-07-28 protocol's
// _meta entry on server/discover) before its server is made, on HTTP and
// on stdio alike, so the session is started, and its tools registered,
// before the client asks for them. A session the gateway joins keeps the
// scope and identity it was started with; the gateway appends no policy.
//
// # Names
//
// A client sees upstream server S's tool T as "S__T" (Exposed). The ledger
// knows it in the policy's dialect (LedgerName): claude-code "mcp__S__T",
// openclaw the normalized (lower-cased) "S__T". Server names have no "__"
// and do not end in "_", so the exposed name splits back unambiguously
// (TestNames, TestConfigRefuses). With Config.Expose "bare" (one server)
// the client sees the upstream's own names instead, so that a client
// which prefixes names itself under an entry named as the server (Claude
// Code: mcp__S__T) shows the ledger's own claude-code names (TestBareNames).
//
// # Invariants
//
//   - tools/list answers exactly the upstream tools whose ledger names are
//     allowed in the session's tool set read at the head, which is the set
//     resolved at its current turn's start; denied and unknown ones are
//     hidden (TestToolsListIsTheLedgersToolSet).
//   - Every tools/call, shown or not, is decided by a recorded check
//     (tool.checked with a fresh call id, or the client's tool_use id,
//     below); only an allowed one is
//     recorded as started (tool.effect_started prepared by the check) and
//     then forwarded. A denial (or an ask, which the gateway cannot
//     answer) is a tool error carrying the reason code, the rule, the
//     record and the shell-quoted 'ledger why' command, in its text and in
//     its _meta DenialMeta (TestDeniedCallIsRefusedAndRecorded,
//     TestAskIsRefused, TestAllowedCallIsRecordedAndForwarded). When the
//     ledger cannot decide, the call is refused (fail closed;
//     TestUnknownSessionFailsClosed), and so is an allow the ledger did
//     not record for this session and tool: no recorded sequence, or
//     another session or tool named (TestUnrecordedAllowIsRefused).
//   - A call naming Claude Code's tool_use id (ToolUseMeta) is recorded
//     under that id, once per session, only when the hook checked the
//     same tool under it: its effect is then appended first, prepared by
//     the hook's check, and the ledger re-decides the tool at the head.
//     A call whose id the hook checked for another tool (or not at all)
//     gets a fresh id and a check and effect of its own, so a call never
//     rides on another call's effect (TestAdoptedIDDoesNotBorrowAnEffect,
//     TestToolUseIDIsAdoptedOnce, TestClaudeCodeCLIWithHooks).
//   - The gateway follows each session's Watch feed (not polling); a
//     turn whose tool set changes what the session is shown makes the
//     gateway send notifications/tools/list_changed
//     (TestRevocationSendsListChanged, TestGrantChangesReachClients; the
//     real Claude Code CLI: TestClaudeCodeCLI).
//   - What an upstream answers passes through unchanged, tool errors and
//     JSON-RPC errors alike (TestUpstreamErrorsPassThrough). An upstream
//     that dies or cannot be reached makes only the calls to it fail (a
//     tool error naming it); a stdio upstream is restarted on its next
//     use, with backoff (TestUpstreamCrashIsSurvived); an HTTP one is
//     connected again on its next use (TestHTTPUpstreamFailureIsReported).
//     Every upstream is opened when the gateway is made, in the
//     background, so a first call does not wait for it; one that cannot
//     be then is connected on first use, no backoff charged
//     (TestUpstreamsAreOpenedAtStart).
//     An upstream's own list_changed makes the gateway list it again and
//     resync every session (TestUpstreamListChanged).
//   - An upstream's list_changed notifications are coalesced: one is
//     pending at most, and follow lists the upstream once for however
//     many came, never on the goroutine that reads the upstream
//     (TestUpstreamListChangedIsCoalesced). A call has a deadline
//     (Options.CallTimeout; DeadlineError) and its answer a size bound
//     (Options.MaxResultBytes; ResultTooLargeError), each a tool error
//     naming the bound, the upstream kept (TestUpstreamCallDeadline,
//     TestOversizedResult).
//   - MCP sessions of different ledger sessions never share a tool set
//     (TestSessionsAreIsolated).
//   - A GET of a path ending in ListingPath answers the Listing: every
//     upstream tool before any policy, and the upstreams not listed, for
//     the catalogue Claude Code's hook records (cchook.MCPTools); it names
//     no session and needs a client's token when the config has clients
//     (TestListing, TestHookListsTheGateway).
//   - With Config.Clients, every HTTP request carries a client's token,
//     a new MCP session names only a ledger session its client may, and
//     an MCP session is its client's (TestClientTokens). A ledger session
//     is made, joined or started only by a new MCP session's first POST,
//     under the key checked against its client: a request on an
//     Mcp-Session-Id, even one the gateway never gave, starts nothing
//     whatever its header names (TestMadeUpMcpSessionStartsNothing). That
//     first POST's token is checked before its body is read, and a body
//     over the SDK's limit is 413 (TestOversizedFirstPostIs413). CheckListen
//     keeps a gateway without tokens on loopback unless told otherwise
//     (TestListenBeyondLoopback). The sessions the gateway starts are
//     bounded (Options.MaxStarted; TestStartIsBounded). Upstream names
//     equal but for case are refused (TestConfigRefuses).
//
// # Decisions
//
// A refusal is a tool result with isError rather than a JSON-RPC error:
// MCP clients hand a tool error to the model as the call's result, so the
// model (and the transcript) reads the reason and the why command, where
// a JSON-RPC error is often shown only as a failure of the server. A name
// that is no configured server's ("x__y" with no server x, or no "__") is
// a JSON-RPC invalid-params error, as the SDK answers an unknown tool:
// there is nothing to decide. The call's arguments are forwarded but not
// sent to the ledger (neither dialect's rules read an MCP tool's input).
package mcpgw
