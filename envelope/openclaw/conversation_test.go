package openclaw

import (
	"slices"
	"testing"
)

// TestConversationGroups: the channel and candidate group ids of OpenClaw
// session keys. Each want is what OpenClaw 2026.9.6 tried for the key
// (resolveGroupToolPolicy with every candidate configured, the one it
// picked removed and the call repeated, until none was left):
// bash tools/openclaw/run groupids.mjs < tools/openclaw/testdata/groupids.keys
// prints them (the :: key's trailing * is the channel's default group).
// The differential (internal/openclawtest, the conversation family) holds
// the dialect to it on generated keys.
func TestConversationGroups(t *testing.T) {
	tests := []struct {
		key     string
		channel string
		ids     []string
	}{
		{"agent:main:telegram:group:g1", "telegram", []string{"g1"}},
		{"agent:main:telegram:group:g1:topic:7", "telegram", []string{"g1:topic:7", "g1"}},
		{"agent:main:telegram:group:g1:TOPIC:7", "telegram", []string{"g1:topic:7", "g1", "g1:TOPIC:7"}},
		{"agent:main:telegram:group:123:sender:bob", "telegram", []string{"123:sender:bob", "123"}},
		{"agent:main:telegram:group:g1:topic:7:sender:bob", "telegram", []string{"g1:topic:7:sender:bob", "g1:topic:7", "g1"}},
		{"agent:main:slack:channel:c1", "slack", []string{"c1"}},
		{"agent:main:slack:channel:c1:thread:1700", "slack", []string{"c1"}},
		{"agent:main:slack:group:g1:topic:7:thread:t7", "slack", []string{"g1:topic:7", "g1"}},
		{"agent:main:slack:group:g1:thread:", "slack", []string{"g1:thread:", "g1"}},
		{"agent:main:slack:group:g1:sender:a:thread:", "slack", []string{"g1:sender:a:thread:", "g1:sender:a"}},
		{"agent:main:Slack:GROUP:g1", "slack", []string{"g1"}},
		{"slack:group:g1:topic:7", "slack", []string{"g1:topic:7", "g1"}},
		{"agent:main:matrix:room:r1", "", nil},
		{"agent:main:slack:direct:bob", "", nil},
		{"agent:main:slack:dm:bob", "", nil},
		{"agent:main:main", "", nil},
		{"agent:main:slack:group", "", nil},
		{"agent:main:slack:group:thread:x", "", nil},
		{"agent:main::slack:group:g1", "slack", []string{"g1"}},
		{"agent:main::slack:GROUP:g1", "", nil},
		{"", "", nil},
	}
	for _, tt := range tests {
		ch, ids := conversationGroups(tt.key)
		if ch != tt.channel || !slices.Equal(ids, tt.ids) {
			t.Errorf("conversationGroups(%q) = %q, %q; want %q, %q", tt.key, ch, ids, tt.channel, tt.ids)
		}
	}
}

// FuzzConversationGroups: any key reads without a panic, gives ids only
// with a channel, and never an empty or repeated id.
func FuzzConversationGroups(f *testing.F) {
	for _, k := range []string{"agent:main:telegram:group:g1:topic:7:sender:bob", "a:group:b:thread:", ":::", "agent:x:y:channel::sender:z"} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, key string) {
		ch, ids := conversationGroups(key)
		if len(ids) > 0 && ch == "" {
			t.Fatalf("%q: ids %q without a channel", key, ids)
		}
		for i, id := range ids {
			if id == "" || slices.Contains(ids[:i], id) {
				t.Fatalf("%q: ids %q", key, ids)
			}
		}
	})
}
