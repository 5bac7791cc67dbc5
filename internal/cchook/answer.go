package cchook

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/cchook/hookwire"
	"github.com/sessionledger/ledger/internal/shellquote"
)

// DenyOutput is the PreToolUse answer that blocks the call; Claude Code
// hands reason to the model as the call's error result.
func DenyOutput(reason string) []byte { return hookwire.DenyOutput(reason) }

// PassOutput is every other answer: no decision, so Claude Code goes on
// under its own rules. A non-empty warning is shown to the user as a
// systemMessage.
func PassOutput(warning string) []byte { return hookwire.PassOutput(warning) }

// Quote renders args as one shell command line (shellquote.Join).
func Quote(args ...string) string { return shellquote.Join(args...) }

// WhyCommand is the command that explains a call's decision: `why --call
// ID --session KEY` for a call with an id (the Claude Code tool_use_id, as
// Claude Code's own permission_denials name it), else `why --record SEQ`
// for its record, else a why at the head for the session, tool and input.
func WhyCommand(prefix []string, key events.SessionKey, tool string, input json.RawMessage, call string, seq uint64) string {
	args := append([]string{}, prefix...)
	if call != "" && len(call) <= maxParam && validAgentID(call) {
		return Quote(append(args, "--call", call, "--session", string(key))...)
	}
	if seq > 0 {
		return Quote(append(args, "--record", fmt.Sprint(seq))...)
	}
	args = append(args, "--session", string(key), "--tool", tool)
	if len(input) > 0 {
		args = append(args, "--input", string(input))
	}
	return Quote(args...)
}

// DenialReason is what a ledger denial tells the model (and the person
// reading the transcript): the tool, the session, the reason code, the rule
// and the record that introduced it, and the command that explains it all.
// A tool the catalogue does not name (catalogue:unknown) is also told
// how to make it known.
func DenialReason(key events.SessionKey, tool string, r envelope.Reason, why string) string {
	text := envelope.DenialText(key, tool, r, why)
	if r.Code == CodeCatalogueUnknown {
		text += " " + UnknownToolHint(tool)
	}
	return text
}

// CodeCatalogueUnknown is the claude-code dialect's reason code for a tool
// its policy's catalogue does not name.
const CodeCatalogueUnknown = "catalogue:unknown"

// UnknownToolHint says how a tool the catalogue does not name becomes
// known: an MCP tool through the project's ledger gateway, any tool with
// the hook's --catalogue.
func UnknownToolHint(tool string) string {
	if strings.HasPrefix(tool, "mcp__") {
		return fmt.Sprintf("The policy's catalogue does not name %s. The hook adds the tools of the project's MCP servers that are 'ledger mcp' gateways reached over HTTP (.mcp.json, \"type\": \"http\"), listed when it imports the project's policy (a session's start, each prompt): run the server behind a gateway and submit a prompt again (the hook's warning names a server it could not list), or give the hook --catalogue FILE naming every tool Claude Code may call.", tool)
	}
	return fmt.Sprintf("The policy's catalogue does not name %s: give the hook --catalogue FILE naming every tool Claude Code may call (without it, Claude Code's built-in tools and the project's MCP gateways' tools).", tool)
}

// RefusalReason is what the model is told when the ledger could not decide
// the call because it refused what the hook had to record first (an unknown
// or finished session, no policy, an unplaced sub-agent, ...): the hook
// fails closed.
//
// A request over the NATS server's max_payload never reached the ledger,
// which therefore did not judge the call: the reason says so and how to
// make a call the hook can send (TestOverMaxPayloadDenies).
func RefusalReason(key events.SessionKey, tool string, err error) string {
	if errors.Is(err, nats.ErrMaxPayload) {
		return fmt.Sprintf("The session policy ledger could not decide %s for session %s, so the hook denies it: the call's input is over the max_payload of the ledger's NATS server, so its check could not be sent (%v). Make the call again with a smaller input (split a long command or a large patch into several calls).", tool, key, err)
	}
	code, msg := events.CodeOf(err), errMsg(err)
	if code == "" {
		return fmt.Sprintf("The session policy ledger could not decide %s for session %s, so the hook denies it: %s", tool, key, msg)
	}
	return fmt.Sprintf("The session policy ledger could not decide %s for session %s, so the hook denies it: %s: %s", tool, key, code, msg)
}

// UnreachableReason is the denial of a call made while the ledger cannot be
// reached (the hook's --unreachable deny, its default); hookwire's, which
// the thin hook answers with too.
func UnreachableReason(where, tool string, err error) string {
	return hookwire.UnreachableReason(where, tool, err)
}

// UnreadableReason is what the model is told of a call whose payload the
// hook could not read (told: it could tell the payload was a PreToolUse).
func UnreadableReason(told bool, err error) string { return hookwire.UnreadableReason(told, err) }
