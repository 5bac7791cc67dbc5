package events

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds on the names and texts events carry (README, "Limits"). They apply
// to new events only (CheckNames, CheckActor, run before a record is made):
// a record already in a log is folded as it was accepted, so tightening
// them never makes an old log unreadable.
const (
	// MaxNameLen bounds a tool name wherever one is written (tool.checked,
	// tool.effect_started, catalogues, grant and session tool lists).
	// Neither runtime comes near it: claude-code names are at most 64
	// characters, and MCP names (<server>__<tool>) the runtimes build from
	// two identifiers stay well under 128. 256 leaves room for a longer
	// plugin prefix while keeping one decision record, a projection key and a
	// report line small.
	MaxNameLen = 256
	// MaxAgentIDLen bounds an agent id: both runtimes cut or refuse longer
	// ones (OpenClaw's normalizeAgentId keeps 64 characters, claude-code's
	// agent names are at most 64).
	MaxAgentIDLen = 64
	// MaxActorLen bounds an actor (the orchestrator or operator name).
	MaxActorLen = 256
	// MaxRuleLen bounds one permission rule's text.
	MaxRuleLen = 4096
	// MaxTextLen bounds the other short strings of data: labels, channels,
	// groups, senders, providers, models, call ids, kinds and behaviors.
	MaxTextLen = 1024
	// MaxSpawnDepth bounds a depth limit a policy may set: the ledger never
	// grows a spawn tree deeper than this (projection.MaxTreeDepth), so a
	// larger limit could only mislead.
	MaxSpawnDepth = 64
)

// IsControl reports a control character: C0 (U+0000-U+001F), DEL (U+007F)
// or C1 (U+0080-U+009F).
func IsControl(r rune) bool { return r < 0x20 || r >= 0x7f && r <= 0x9f }

// HasControl reports whether s holds a control character (IsControl).
func HasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return true
		}
		if s[i] >= 0x80 {
			r, n := utf8.DecodeRuneInString(s[i:])
			if IsControl(r) {
				return true
			}
			i += n - 1
		}
	}
	return false
}

// IsTokenSpecial reports a character that NATS gives a meaning in a
// subject, or that ends a token: the separator '.', the wildcards '*' and
// '>', and white space.
func IsTokenSpecial(r rune) bool {
	return r == '.' || r == '*' || r == '>' || unicode.IsSpace(r)
}

// CheckText refuses a string of data that is longer than max bytes or holds
// a control character; what names the field in the message.
func CheckText(what, s string, max int) error {
	if len(s) > max {
		return Errorf(CodeInvalidEvent, "%s is %d bytes; the limit is %d", what, len(s), max)
	}
	if HasControl(s) {
		return Errorf(CodeInvalidEvent, "%s %s holds a control character (U+0000-U+001F, U+007F-U+009F); remove it", what, quoteShort(s))
	}
	return nil
}

// CheckToken is CheckText for a name that becomes a subject token or a key:
// it must also be non-empty and hold none of '.', '*', '>' or white space,
// except that wildcard, when set, lets the whole name be exactly "*".
func CheckToken(what, s string, max int, wildcard bool) error {
	return checkName(what, s, max, wildcard, true)
}

// CheckAgent refuses an agent id that is empty, longer than MaxAgentIDLen,
// or holds a control character, a NATS wildcard ('*', '>') or white space;
// wildcard lets the whole id be exactly "*" (a grant's "any agent"). A dot
// is the dialect's to refuse: claude-code agent names may hold one, and
// there an agent name never becomes part of a key.
func CheckAgent(what, s string, wildcard bool) error {
	return checkName(what, s, MaxAgentIDLen, wildcard, false)
}

func checkName(what, s string, max int, wildcard, dot bool) error {
	if s == "" {
		return Errorf(CodeInvalidEvent, "%s must not be empty", what)
	}
	if err := CheckText(what, s, max); err != nil {
		return err
	}
	if wildcard && s == "*" {
		return nil
	}
	for _, r := range s {
		if !IsTokenSpecial(r) || r == '.' && !dot {
			continue
		}
		if dot {
			return Errorf(CodeInvalidEvent, "%s %s holds %q; it may not hold '.', '*', '>' or white space", what, quoteShort(s), r)
		}
		return Errorf(CodeInvalidEvent, "%s %s holds %q; it may not hold '*', '>' or white space", what, quoteShort(s), r)
	}
	return nil
}

// CheckActor refuses an actor that is empty, a wildcard, longer than
// MaxActorLen, or not one subject token (an orchestrator's actor is the
// last token of its append subject).
func CheckActor(actor string) error {
	return CheckToken("actor", actor, MaxActorLen, false)
}

// CheckNames runs the bounds above on an event's typed payload (from
// Payload): tool names, agent ids, rules and the other strings of data.
// Dialects call it first from their CheckEvent, and may be stricter.
// Agent ids are checked with CheckAgent; a grant's agent and target may be
// "*". Each payload type has its checker below, which reports the first
// problem in the order of its checks (TestCheckNames); none allocates
// when there is no problem (TestCheckNamesAllocationFree).
func CheckNames(payload any) error {
	switch d := payload.(type) {
	case *PolicySetData:
		return checkPolicySetNames(d)
	case *GrantData:
		return checkGrantNames(d)
	case *StartedData:
		return checkStartedNames(d)
	case *DenyData:
		return checkDenyNames(d)
	case *EndedData:
		return checkTexts("reason", d.Reason)
	case *ReopenedData:
		return checkTexts("reason", d.Reason)
	case *SpawnedData:
		return firstError(
			CheckAgent("agent", d.Agent, false),
			checkTexts("label", d.Label),
			checkTools("a session tool", d.Tools))
	case *TurnData:
		return checkTexts("sender", d.Sender)
	case *CheckedData:
		return firstError(
			CheckText("tool", d.Tool, MaxNameLen),
			checkTexts("call", d.Call))
	case *EffectData:
		return firstError(
			CheckText("tool", d.Tool, MaxNameLen),
			checkTexts("call", d.Call))
	}
	return nil
}

// firstError is the first of errs that is not nil. Its callers' checks all
// run (they are pure and cheap), and the first problem in their order is
// the one reported.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkTools bounds each of a list of tool names.
func checkTools(what string, list []string) error {
	for _, t := range list {
		if err := CheckText(what, t, MaxNameLen); err != nil {
			return err
		}
	}
	return nil
}

// checkTexts bounds free texts, given as name, value pairs.
func checkTexts(kv ...string) error {
	for i := 0; i < len(kv); i += 2 {
		if err := CheckText(kv[i], kv[i+1], MaxTextLen); err != nil {
			return err
		}
	}
	return nil
}

// checkPolicySetNames bounds the catalogue. A policy's problems are
// invalid_policy, as the dialects' own catalogue checks report them.
func checkPolicySetNames(d *PolicySetData) error {
	if err := checkTools("a catalogue entry", d.Catalogue); err != nil {
		return &Error{Code: CodeInvalidPolicy, Msg: err.(*Error).Msg}
	}
	return nil
}

func checkGrantNames(d *GrantData) error {
	return firstError(
		checkTexts("kind", string(d.Kind), "behavior", d.Behavior),
		CheckAgent("agent", d.Agent, true),
		CheckAgent("target", d.Target, true),
		CheckText("rule", d.Rule, MaxRuleLen),
		checkTools("a grant's tool", d.Tools))
}

func checkStartedNames(d *StartedData) error {
	return firstError(
		CheckAgent("agent", d.Agent, false),
		checkTexts("provider", d.Provider, "model", d.Model, "channel", d.Channel,
			"group", d.Group, "sender", d.Sender, "mode", d.Mode, "runtime", d.Runtime,
			"runtime_version", d.RuntimeVersion, "project", d.Project, "repository", d.Repository,
			"branch", d.Branch, "user", d.User, "host", d.Host),
		checkConversation(d),
		checkTools("a session tool", d.Tools),
		checkPluginTools(d))
}

// checkPluginTools bounds the plugin ids and tool names of a root's
// reported plugin tools, in plugin id order.
func checkPluginTools(d *StartedData) error {
	if len(d.PluginTools) == 0 {
		return nil
	}
	pt, err := DecodePluginTools(d.PluginTools)
	if err != nil {
		return err
	}
	for _, id := range slices.Sorted(maps.Keys(pt)) {
		if strings.TrimSpace(id) == "" {
			return Errorf(CodeInvalidEvent, "plugin_tools: a plugin id is empty")
		}
		if err := CheckText("a plugin id", id, MaxNameLen); err != nil {
			return err
		}
		if err := checkTools("a plugin tool", pt[id]); err != nil {
			return err
		}
	}
	return nil
}

// checkConversation refuses a conversation that is not a session key, and
// one given with a group: two sources for the group layer would leave a
// reader guessing which one decided.
func checkConversation(d *StartedData) error {
	switch {
	case d.Conversation == "":
		return nil
	case !ValidKey(SessionKey(d.Conversation)):
		return Errorf(CodeInvalidEvent, "conversation %s is not a session key ([A-Za-z0-9_:-]{1,200})", quoteShort(d.Conversation))
	case d.Group != "":
		return Errorf(CodeInvalidEvent, "give either group or conversation, not both: the group ids are read from the conversation")
	}
	return nil
}

// checkDenyNames bounds a deny rule's texts; its agent is optional.
func checkDenyNames(d *DenyData) error {
	var agent error
	if d.Agent != "" {
		agent = CheckAgent("agent", d.Agent, false)
	}
	return firstError(
		CheckText("rule", d.Rule, MaxRuleLen),
		agent,
		checkTexts("user", d.User, "project", d.Project, "note", d.Note))
}

// quoteShort quotes s for a message, cut to 60 bytes.
func quoteShort(s string) string {
	if len(s) > 60 {
		cut := 57
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut]) + "..."
	}
	return strconv.Quote(s)
}

// WalkDocument calls fn on every object key and every string value of a
// policy document (an object's keys in sorted order), with a path naming it
// (document.agents.list[0].id; a key's path is its object's path and the
// key). It stops at fn's first error. A document that does not decode is
// left to the dialect's own checks: WalkDocument returns nil.
func WalkDocument(doc []byte, fn func(path, s string, key bool) error) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return walk("document", v, fn)
}

func walk(path string, v any, fn func(path, s string, key bool) error) error {
	switch v := v.(type) {
	case string:
		return fn(path, v, false)
	case []any:
		for i, e := range v {
			if err := walk(path+"["+strconv.Itoa(i)+"]", e, fn); err != nil {
				return err
			}
		}
	case map[string]any:
		// Sorted, so that the first problem reported does not depend on
		// map order.
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := fn(path, k, true); err != nil {
				return err
			}
			if err := walk(path+"."+k, v[k], fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// DecodePluginTools reads session.started's plugin_tools: an object from
// plugin id to a list of tool names (null lists are empty).
func DecodePluginTools(raw json.RawMessage) (map[string][]string, error) {
	var pt map[string][]string
	if err := strictUnmarshal(raw, &pt); err != nil || pt == nil {
		return nil, Errorf(CodeInvalidEvent, "plugin_tools must be an object from plugin id to a list of tool names, like {\"memory-core\": [\"memory_get\", \"memory_search\"]}")
	}
	return pt, nil
}
