package openclaw

import (
	"slices"
	"testing"

	"github.com/sessionledger/ledger/events"
)

// TestConversationGroups: the channel and candidate group ids of OpenClaw
// session keys. Each want is what OpenClaw 2026.9.6 tried for the key
// (resolveGroupToolPolicy with every candidate configured, the one it
// picked removed and the call repeated, until none was left):
// bash tools/openclaw/run groupids.mjs < tools/openclaw/testdata/groupids.keys
// prints them (the :: key's trailing * is the channel's default group).
// The differential (tests/openclawdiff, the conversation family) holds
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

// TestDeliveryRouteChannel: the channel OpenClaw 2026.9.6's
// parseSessionDeliveryRoute reads from a session key (null is ""), each
// want printed by the installed package for the key.
func TestDeliveryRouteChannel(t *testing.T) {
	tests := []struct{ key, channel string }{
		{"agent:main:slack:acct1:direct:bob", "slack"},
		{"agent:main:slack:direct:bob", "slack"},
		{"agent:main:slack:dm:bob", "slack"},
		{"agent:main:Slack:GROUP:g1", "slack"},
		{"agent:main:teams:channel:c1:thread:9", "teams"},
		{"agent:main:slack:group:g1:thread:", "slack"},
		{"agent:main:slack:room:r1", ""},
		{"agent:main:main", ""},
		{"agent:main:run-3", ""},
		{"slack:group:g1", ""},
		{"agent:main::slack:group:g1", ""},
		{"agent:main:slack::direct:bob", ""},
		{"agent:main:slack:acct:direct:", ""},
		{"agent:main:slack:group:", ""},
		{"agent:main:agent:x:slack:group:g1", ""},
		{"AGENT:main:slack:group:g1", "slack"},
		{"agent:main:slack:group", ""},
		{"agent:main:slack:x:room:y", ""},
		{"agent:main:slack:x:DM:y", "slack"},
		{"agent:main:matrix:GROUP:Room1", "matrix"},
		{"agent::slack:group:g1", ""},
		{"agent:main:subagent:c1", ""},
	}
	for _, tt := range tests {
		if got := deliveryRouteChannel(tt.key); got != tt.channel {
			t.Errorf("deliveryRouteChannel(%q) = %q, want %q", tt.key, got, tt.channel)
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

// TestGroupLayerFromConversation: the group layer takes the first
// candidate the channel configures, under either release (the legacy one
// looks the channel up as written), and a root that names only a group
// decides with that group, as it always did.
func TestGroupLayerFromConversation(t *testing.T) {
	doc := `{"channels": {"telegram": {"groups": {"g1": {"tools": {"deny": ["exec"]}}, "g1:topic:7": {"tools": {"deny": ["read"]}}}},
		"matrix": {"groups": {"r1": {"tools": {"deny": ["exec"]}}}}}}`
	for _, rel := range []string{LegacyRelease, NewestRelease()} {
		w := newWorldRelease(t, rel, doc, "read", "exec", "write")
		for _, tc := range []struct {
			key    string
			start  events.StartedData
			denied []string
		}{
			{"agent:main:telegram:group:g1:topic:7", events.StartedData{Agent: "main", Channel: "telegram", Conversation: "agent:main:telegram:group:g1:topic:7"}, []string{"read"}},
			{"agent:main:telegram:group:g1:topic:8", events.StartedData{Agent: "main", Channel: "telegram", Conversation: "agent:main:telegram:group:g1:topic:8"}, []string{"exec"}},
			{"agent:main:telegram:group:g1:topic:7:old", events.StartedData{Agent: "main", Channel: "telegram", Group: "g1"}, []string{"exec"}},
			{"agent:main:matrix:room:r1", events.StartedData{Agent: "main", Channel: "matrix", Conversation: "agent:main:matrix:room:r1"}, nil},
			{"agent:main:matrix:room:r1:old", events.StartedData{Agent: "main", Channel: "matrix", Group: "r1"}, []string{"exec"}},
		} {
			w.start(tc.key, tc.start)
			w.turn(tc.key, "", false)
			var denied []string
			for _, d := range w.tools(tc.key).Denied {
				denied = append(denied, d.Tool)
			}
			if !slices.Equal(denied, tc.denied) {
				t.Errorf("%s, %s: denied %q, want %q", rel, tc.key, denied, tc.denied)
			}
		}
	}
}
