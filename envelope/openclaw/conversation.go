package openclaw

import (
	"strings"
)

// conversationGroups reads the channel and the candidate group ids of an
// OpenClaw session key, in the order OpenClaw tries them, as 2026.9.6's
// resolveGroupContextFromSessionKey does (agent-tools.policy.ts) when no
// channel plugin resolves the conversation itself:
//
//   - a trailing :thread:<id> is cut off (parseThreadSessionSuffix);
//   - the key is read as [agent:<id>:]<channel>:<kind>:<rawId>
//     (parseRawSessionConversationRef); only the kinds group and channel
//     name a group, so room, direct and dm keys have no group ids;
//   - the ids are rawId's scoped candidates (buildScopedGroupIdCandidates:
//     <chat>:topic:<t>:sender:<s> tries itself, <chat>:topic:<t>, <chat>;
//     <chat>:topic:<t> tries itself, <chat>; <chat>:sender:<s> tries
//     itself, <chat>; anything else only itself), then rawId less a
//     :thread:<id> of its own (the generic conversation resolution);
//   - a key that does not read so, because of an empty segment, is read
//     again with the empty segments dropped, with the kind compared
//     exactly (the fallback of resolveGroupContextFromSessionKey).
//
// Duplicates are dropped, the first kept. key has the shape of a session
// key (events.ValidKey: ASCII, no white space), so OpenClaw's trims change
// nothing and its lower-casing is ASCII's. The channel is lower-cased, not
// yet read as a channel id (Release.channelID).
func conversationGroups(key string) (channel string, ids []string) {
	if key == "" {
		return "", nil
	}
	convKey := key
	if i := lastIndexFold(key, ":thread:"); i >= 0 && key[i+len(":thread:"):] != "" {
		convKey = key[:i]
	}
	if ch, rawID, ok := rawConversation(convKey); ok {
		ids = scopedGroupIDs(rawID, nil)
		if id := genericConversationID(rawID); id != "" {
			ids = appendUnique(ids, id)
		}
		return ch, ids
	}
	var parts []string
	for _, p := range strings.Split(convKey, ":") {
		if p != "" {
			parts = append(parts, p)
		}
	}
	body := parts
	if len(body) > 0 && body[0] == "agent" {
		body = body[min(2, len(body)):]
	}
	if len(body) > 0 && body[0] == "subagent" {
		body = body[1:]
	}
	if len(body) < 3 || body[1] != "group" && body[1] != "channel" {
		return "", nil
	}
	return strings.ToLower(body[0]), scopedGroupIDs(strings.Join(body[2:], ":"), nil)
}

// rawConversation is parseRawSessionConversationRef: the channel and raw
// conversation id of [agent:<id>:]<channel>:group|channel:<rawId>.
func rawConversation(key string) (channel, rawID string, ok bool) {
	raw := strings.Split(key, ":")
	start := 0
	if strings.EqualFold(raw[0], "agent") {
		if len(raw) < 3 || raw[1] == "" {
			return "", "", false
		}
		start = 2
	}
	parts := raw[start:]
	if strings.EqualFold(parts[0], "agent") || len(parts) < 3 || parts[2] == "" {
		return "", "", false
	}
	channel, kind := strings.ToLower(parts[0]), strings.ToLower(parts[1])
	if channel == "" || kind != "group" && kind != "channel" {
		return "", "", false
	}
	return channel, strings.Join(parts[2:], ":"), true
}

// genericConversationID is the id OpenClaw's generic conversation
// resolution gives a raw id (buildGenericConversationResolution): the raw
// id less a trailing :thread:<id>, "" when nothing is left.
func genericConversationID(rawID string) string {
	if i := lastIndexFold(rawID, ":thread:"); i >= 0 {
		return rawID[:i]
	}
	return rawID
}

// scopedGroupIDs appends to out the candidates of buildScopedGroupIdCandidates
// for id, skipping duplicates.
func scopedGroupIDs(id string, out []string) []string {
	if id == "" {
		return out
	}
	if head, _, ok := cutScope(id, "sender"); ok {
		if chat, topic, ok := cutScope(head, "topic"); ok {
			return appendUnique(out, id, chat+":topic:"+topic, chat)
		}
	}
	if chat, topic, ok := cutScope(id, "topic"); ok {
		return appendUnique(out, chat+":topic:"+topic, chat)
	}
	if chat, _, ok := cutScope(id, "sender"); ok {
		return appendUnique(out, id, chat)
	}
	return appendUnique(out, id)
}

// cutScope matches s against /^(.+):<word>:([^:]+)$/i: it returns the
// head (one character or more) and the value after ":<word>:" (one or
// more, no ':').
func cutScope(s, word string) (head, value string, ok bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 || i == len(s)-1 {
		return "", "", false
	}
	rest, w := s[:i], ":"+word
	if len(rest) <= len(w) || !strings.EqualFold(rest[len(rest)-len(w):], w) {
		return "", "", false
	}
	return rest[:len(rest)-len(w)], s[i+1:], true
}

// lastIndexFold is the last index of sub (lower-case ASCII) in s, compared
// without ASCII case, or -1.
func lastIndexFold(s, sub string) int {
	for i := len(s) - len(sub); i >= 0; i-- {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

func appendUnique(out []string, vs ...string) []string {
	for _, v := range vs {
		if v != "" && !contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// deliveryRouteChannel is the channel of an OpenClaw session key read as a
// delivery route, as 2026.9.6's parseSessionDeliveryRoute reads it
// (session-key-utils.ts), "" when the key is not one: a trailing
// :thread:<id> cut off (whatever follows the marker), the key read as
// agent:<id>:<rest> (parseAgentSessionKey, lower-cased), and rest as
// <channel>:<account>:direct|dm:<peer> or <channel>:<kind>:<peer> with the
// kind channel, direct, dm or group. OpenClaw's sender layer
// (resolveSenderToolPolicy) matches channel: keys against this channel when
// the session's key has one, before the message's provider. key has the
// shape of a session key (no white space), so OpenClaw's trims change
// nothing.
func deliveryRouteChannel(key string) string {
	base := key
	if i := lastIndexFold(key, ":thread:"); i >= 0 {
		base = key[:i]
	}
	if len(base) < len("agent:") || !strings.EqualFold(base[:len("agent:")], "agent:") {
		return ""
	}
	body := base[len("agent:"):]
	j := strings.IndexByte(body, ':')
	if j <= 0 {
		return ""
	}
	rest := body[j+1:]
	if rest == "" || rest[0] == ':' {
		return ""
	}
	parts := strings.Split(strings.ToLower(rest), ":")
	if parts[0] == "agent" || len(parts) < 3 || parts[0] == "" {
		return ""
	}
	if len(parts) >= 4 && (parts[2] == "direct" || parts[2] == "dm") {
		if parts[1] == "" || parts[3] == "" {
			return ""
		}
		return parts[0]
	}
	switch parts[1] {
	case "channel", "direct", "dm", "group":
	default:
		return ""
	}
	if parts[2] == "" {
		return ""
	}
	return parts[0]
}
