package openclaw

import (
	"regexp"
	"strings"
)

// The packaged releases read sender keys, channel ids and agent ids the way
// OpenClaw's config helpers do (config/tools-by-sender.ts,
// utils/message-channel-core.ts, normalization-core/agent-id.ts).

// senderKey is a toolsBySender key as OpenClaw compiles it: its bucket
// (channel, id, e164, username, name; "*" for the wildcard) and its
// normalized value.
type senderKey struct{ typ, key string }

// canon is the key's canonical spelling, the one the packaged releases'
// sender maps are keyed by: "*", or "<type>:<value>".
func (k senderKey) canon() string {
	if k.typ == "*" {
		return "*"
	}
	return k.typ + ":" + k.key
}

// parseSenderKey reads a toolsBySender key (parseSenderPolicyKey). ok is
// false for a key OpenClaw skips (blank, or a typed key with a blank
// value): such an entry never applies.
func (r *Release) parseSenderKey(raw string) (senderKey, bool) {
	t := r.trim(raw)
	if t == "" {
		return senderKey{}, false
	}
	if t == "*" {
		return senderKey{typ: "*"}, true
	}
	lowered := r.lower(t)
	for _, typ := range r.SenderKeyTypes {
		prefix := typ + ":"
		if !strings.HasPrefix(lowered, prefix) {
			continue
		}
		k := r.typedSenderValue(t[len(prefix):], typ)
		if k == "" {
			return senderKey{}, false
		}
		return senderKey{typ: typ, key: k}, true
	}
	// An unprefixed key is a legacy id key.
	k := r.senderValue(t, true)
	if k == "" {
		return senderKey{}, false
	}
	return senderKey{typ: "id", key: k}, true
}

// senderValue is normalizeSenderKey: trimmed, a leading @ dropped when
// stripAt, lower-cased.
func (r *Release) senderValue(v string, stripAt bool) string {
	t := r.trim(v)
	if t == "" {
		return ""
	}
	if stripAt {
		t = strings.TrimPrefix(t, "@")
	}
	return r.lower(r.trim(t))
}

// typedSenderValue is normalizeTypedSenderKey.
func (r *Release) typedSenderValue(v, typ string) string {
	if typ != "channel" {
		return r.senderValue(v, typ == "username")
	}
	t := r.trim(v)
	i := strings.IndexByte(t, ':')
	if i <= 0 || i == len(t)-1 {
		return ""
	}
	ch := r.senderChannel(t[:i])
	id := r.senderValue(t[i+1:], false)
	if ch == "" || id == "" {
		return ""
	}
	return ch + ":" + id
}

// senderChannel is normalizeSenderPolicyChannel.
func (r *Release) senderChannel(v string) string {
	if r.trim(v) == "" {
		return ""
	}
	return r.channelID(v)
}

// channelID is a channel id as OpenClaw normalizes it (normalizeMessageChannel
// with no channel plugin loaded): trimmed, lower-cased, an alias mapped to
// its channel.
func (r *Release) channelID(v string) string {
	c := r.lower(r.trim(v))
	if a, ok := r.ChannelAliases[c]; ok {
		return a
	}
	return c
}

// senderCandidates are the id-bucket values a turn's sender is looked up
// by (normalizeSenderIdCandidates): as typed, then as a legacy key reads it.
func (r *Release) senderCandidates(s string) []string {
	if r.trim(s) == "" {
		return nil
	}
	typed := r.senderValue(s, false)
	leg := r.senderValue(s, true)
	switch {
	case typed == "" && leg == "":
		return nil
	case typed == "":
		return []string{leg}
	case leg == "" || leg == typed:
		return []string{typed}
	}
	return []string{typed, leg}
}

var (
	validAgentID  = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$`)
	agentIDStrays = regexp.MustCompile(`[^a-z0-9_-]+`)
)

// normalizeAgentID is OpenClaw's normalizeAgentId: a valid id lower-cased,
// anything else reduced to a filesystem-safe id, "main" when nothing is
// left.
func normalizeAgentID(v string) string {
	t := strings.TrimFunc(v, isJSSpace)
	n := jsLower(t)
	if validAgentID.MatchString(t) {
		return n
	}
	id := agentIDStrays.ReplaceAllString(n, "-")
	id = strings.TrimLeft(id, "-")
	id = strings.TrimRight(id, "-")
	if len(id) > 64 {
		id = id[:64]
	}
	if id == "" {
		return "main"
	}
	return id
}

// agentID is an agent id as the release compares it: the packaged releases
// normalize ids (OpenClaw resolves every agent id it reads through
// normalizeAgentId), the legacy release compares them exactly.
func (r *Release) agentID(id string) string {
	if r.Rules == rulesPackage {
		return normalizeAgentID(id)
	}
	return id
}

// NormalizeAgentID is OpenClaw's normalizeAgentId (for the importer, which
// reads agents.entries keys as OpenClaw does).
func NormalizeAgentID(id string) string { return normalizeAgentID(id) }
