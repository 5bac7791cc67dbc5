package openclawdiff

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/sessionledger/ledger/envelope/openclaw"
)

// The edges family: the spellings OpenClaw normalizes, at every layer.
// Group and sender keys in every case and with white space, channel
// aliases on either side (the key, the session's channel, the document's
// channels and channel: sender keys), unknown channels, a session whose
// channel is not its key's, wildcard groups and sender keys, tool groups,
// aliases and patterns spelled every way (unknown groups, groups inside
// globs, regular-expression characters), in the global, agent, provider,
// group, sender, sandbox and sub-agent scopes, sub-agents up to and past
// the depth cap.

// edgeEntries are the policy entries the family draws besides the usual
// ones.
var edgeEntries = []string{
	"GROUP:FS", " group:fs ", "group:Runtime", "group:plugins", "GROUP:PLUGINS", "group:nope", "group:*", "group:f*",
	"*group*", "group:", "group", "group:openclaw", "group:sessions", "group:ui", "group:media", "group:automation",
	"group:agents", "group:nodes", "group:memory", "group:web", "group:messaging", "group:fs*", "group:runtime,group:fs",
	"BUNDLE-MCP", " bundle-mcp", "gh__*", "GH__ISSUE", "*__*", "gh_*", "mcp",
	"Bash", "bas*", "cron*", "CRON", "apply-patch", "apply-*", "update_plan", "update_*", "UPDATE_PLAN", "canvas", "CANVAS",
	"canv*", "show_widget", "image", "IMAGE", "view_*", "*image", "im*",
	"*", " * ", "**", "*_*", "?", "read?", "re.d", "r.*", "[ab]", "web_(fetch)", "read|exec", "^read", "read$", "\\*",
	"ls", "LS", "secrets", "sessions_*", "session*", "*spawn", "subagents", "agents_*", "conversations_*", "message", "gateway",
	"automations", "openclaw", "write", "WRITE", "exec", "process", "browser", "nodes", "mobile_ui", "computer", "slack",
	"teams", "msteams", "whatsapp", "dispatch_action", "tool_call", "skills_read", "switch_model", "tool_search",
	"Optional-Demo", "conversations_archive", "progress_card", "sessions_send", "session_status", "tts", "pdf",
	"heartbeat_respond", "sessions_spawn", "sessions_list", "sessions_history", "sessions_search", "sessions_yield",
	"VİEW_IMAGE", "İMAGE", "REΑD",
}

// edgeSenderKeys are toolsBySender keys in the spellings OpenClaw reads.
var edgeSenderKeys = []string{
	"*", " * ", "id:alice", "ID:Alice", "Id: alice ", "alice", " Alice", "@alice", "id:@alice", "channel:slack:alice",
	"channel:Slack:Alice", "CHANNEL:slack:bob", "channel: slack : bob", "channel:teams:alice", "channel:msteams:bob",
	"channel:gchat:alice", "channel:mychan:alice", "channel:webchat:bob", "channel:slack:@alice", "channel::alice",
	"channel:slack:", "channel:slack", "id:", "username:alice", "e164:+15550100", "name:alice", "bob", "id:bob",
	"chan:slack:alice", "id:slack:alice", "carol", "id:CAROL", "channel:imsg:carol", "channel:imessage:carol",
	"id:οδυσσευς", "channel:slack:ΟΔΥΣΣΕΥΣ", "id:i\u0307nci", "İnci", "channel:wechat:bob", "channel:openclaw-weixin:alice",
	"channel:wework:carol",
}

// edgeSenders are the turns' senders the family draws.
var edgeSenders = []string{"alice", "Alice", "ALICE", " alice ", "@alice", "@Alice", "bob", "Bob", "carol", "id:alice",
	"slack:alice", "@", "+15550100", "dave", "chan:slack:alice", "ΟΔΥΣΣΕΥΣ", "İnci"}

// edgeChannelKeys are the channels a document configures, as written.
var edgeChannelKeys = []string{"slack", "Slack", "msteams", "teams", "telegram", "googlechat", "gchat", "mychan", "webchat",
	"imessage", "imsg", " slack", "openclaw-weixin", "wechat", "wecom"}

// edgeGroupIDs are the group ids a channel configures, as written.
var edgeGroupIDs = []string{"g1", "G1", "g2", "*", " * ", "constructor", "toString", " g1", "g1:topic:7", "G1:topic:7",
	"g1:sender:bob", "c1"}

// edgeKeyChannels are channel segments of the roots' keys.
var edgeKeyChannels = []string{"slack", "Slack", "SLACK", "teams", "msteams", "telegram", "gchat", "googlechat", "mychan",
	"webchat", "imsg", "wechat", "WeChat", "wework", "openclaw-weixin"}

// edgeSessionChannels are the sessions' channels when they are not their
// key's.
var edgeSessionChannels = []string{"", "slack", "Slack", " slack ", "teams", "MSTeams", "telegram", "gchat", "mychan",
	"webchat", "imsg", "whatsapp", "wechat", "微信", "qywx", "yb"}

// edgeProviderKeys are byProvider keys in the spellings OpenClaw reads
// (normalizeToolProviderPolicyKey: trimmed, lower-cased, the provider
// before a "/" trimmed, the model not).
var edgeProviderKeys = []string{" OpenAI ", "openai / gpt-5", "openai/ GPT-5", "OPENROUTER/anthropic/claude", "openrouter/anthropic",
	"anthropic/", "/claude", "Anthropic/Claude ", "openai/gpt-5/mini", "ΟΔΥΣΣΕΥΣ"}

// edgeProviders are the sessions' providers and models the family draws.
var edgeProviders = [][2]string{{" openai ", " GPT-5 "}, {"OpenRouter", "Anthropic/Claude"}, {"openrouter/anthropic", "claude"},
	{"anthropic", ""}, {"ANTHROPIC", "Claude "}, {"openai", "gpt-5/mini"}, {"ΟΔΥΣΣΕΥΣ", ""}, {"", "gpt-5"}, {"openai", " gpt-5"}}

// edgeKey draws a root key for agent, and the channel segment it names.
func (g *gen) edgeKey(agent string) (key, ch string) {
	ch = g.pick(edgeKeyChannels...)
	gid := g.pick("g1", "G1", "g2", "constructor", "toString", "c1", "hasOwnProperty", "__proto__")
	base := "agent:" + agent + ":" + ch
	switch g.r.IntN(13) {
	case 0, 1, 2:
		return base + ":" + g.pick("group", "group", "GROUP", "Group", "channel") + ":" + gid, ch
	case 3:
		return base + ":group:" + gid + ":topic:7", ch
	case 4:
		return base + ":group:" + gid + ":sender:" + g.pick("bob", "alice", "Alice"), ch
	case 5:
		return base + ":channel:" + gid + ":thread:" + g.pick("9", "x"), ch
	case 6:
		return base + ":" + g.pick("direct", "dm") + ":" + g.pick("alice", "bob"), ch
	case 7:
		return base + ":acct1:direct:" + g.pick("alice", "bob"), ch
	case 8:
		return base + ":room:" + gid, ch
	case 9:
		return ch + ":group:" + gid, ch
	case 10:
		return "agent:" + agent + ":main", ""
	case 11:
		return "agent:" + agent + ":run-" + fmt.Sprint(g.r.IntN(9)), ""
	}
	return base + ":group:" + gid + ":topic:7:sender:" + g.pick("bob", "alice"), ch
}

// edgeChannels draws a document's channels.
func (g *gen) edgeChannels() map[string]any {
	g.tag("edge-channels")
	ch := map[string]any{}
	for _, c := range edgeChannelKeys {
		if !g.p(0.3) {
			continue
		}
		groups := g.channelGroups(edgeGroupIDs, groupOdds{in: 0.3, empty: 0.1, tools: 0.85, allow: 0.35, also: 0.2, deny: 0.7, senders: 0.35})
		ch[c] = map[string]any{"groups": groups}
	}
	return ch
}

// GenerateEdges draws n seeded lineages of the edges family.
func GenerateEdges(seed uint64, n int, release string) []*Lineage {
	rel, _ := openclaw.LookupRelease(release)
	r := rand.New(rand.NewPCG(seed, 0x6564676573)) // "edges"
	cat := Catalogue(release)
	out := make([]*Lineage, 0, n)
	for i := 0; i < n; i++ {
		g := &gen{r: r, cat: cat, tags: map[string]bool{"edges": true}, rel: rel, edges: true}
		if g.p(0.25) {
			// Plugin tools too, their ids spelled every way.
			g.tag("plugin-tools")
			g.plugins = true
			g.cat = append(slices.Clone(cat), PluginTools...)
			if g.p(0.5) {
				g.tag("bundled-plugins")
				for i, t := range g.cat {
					if p, ok := BundledPluginTools[t.Name]; ok {
						g.cat[i].Plugin = p
					}
				}
			}
		}
		doc := g.doc()
		if g.p(0.7) {
			doc["channels"] = g.edgeChannels()
		}
		sessions := g.lineageWith(doc, func(root *Session) {
			key, ch := g.edgeKey(root.Agent)
			root.Key = key
			root.Channel = ch
			// The group the plugin once sent (OpenClaw trusts it only
			// when the key yields it).
			_, root.Group = PluginBefore25(key)
			if g.p(0.35) {
				g.tag("edge-session-channel")
				root.Channel = g.pick(edgeSessionChannels...)
			}
		})
		for i := range sessions {
			if sessions[i].Sender != "" && g.p(0.6) {
				sessions[i].Sender = g.pick(edgeSenders...)
			}
		}
		raw, err := json.Marshal(doc)
		if err != nil {
			panic(err)
		}
		var tags []string
		for t := range g.tags {
			tags = append(tags, t)
		}
		slices.Sort(tags)
		out = append(out, &Lineage{ID: fmt.Sprintf("edge-%d-%d", seed, i), Doc: raw, Catalogue: g.cat, Sessions: sessions, Tags: tags})
	}
	return out
}

// edgeEntry draws an entry of edgeEntries, sometimes with white space
// around it or in another case.
func (g *gen) edgeEntry() string {
	g.tag("edge-entries")
	e := g.pick(edgeEntries...)
	if g.plugins && g.p(0.3) {
		e = g.pick(" voice-call ", "VOICE-CALL", "Memory-LanceDB", "lobster*", "group:plugins*", "*call", "XAI", "memory-core ")
	}
	switch g.r.IntN(8) {
	case 0:
		e = strings.ToUpper(e)
	case 1:
		e = " " + e + "\u00a0"
	}
	return e
}

// edgeSenderMap draws a toolsBySender map of edgeSenderKeys.
func (g *gen) edgeSenderMap() map[string]any {
	g.tag("edge-senders")
	out := map[string]any{}
	used := map[string]bool{}
	for _, k := range edgeSenderKeys {
		if !g.p(0.15) {
			continue
		}
		// Keys that select the same sender are a deliberate refusal
		// (D1); keep them rare.
		if c := g.senderCanon(k); c != "" {
			if used[c] && !g.p(0.05) {
				continue
			}
			used[c] = true
		}
		e := map[string]any{}
		if g.p(0.1) {
			out[k] = e
			continue
		}
		g.scope(e, 0.3, 0.2, 0.6)
		out[k] = e
	}
	return out
}

// senderCanon is roughly the sender a toolsBySender key selects (its
// bucket and value as OpenClaw's parseSenderPolicyKey reads them), ""
// for a key that never applies.
func (g *gen) senderCanon(k string) string {
	// JavaScript lower-cases İ to i and a combining dot above.
	t := strings.ReplaceAll(strings.TrimSpace(k), "İ", "i\u0307")
	if t == "*" {
		return "*"
	}
	l := strings.ToLower(t)
	for _, typ := range []string{"channel", "id", "e164", "username", "name"} {
		v, ok := strings.CutPrefix(l, typ+":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if typ == "username" {
			v = strings.TrimPrefix(v, "@")
		}
		if typ == "channel" {
			c, id, ok := strings.Cut(v, ":")
			c, id = strings.TrimSpace(c), strings.TrimSpace(id)
			if !ok || c == "" || id == "" {
				return ""
			}
			if a, ok := g.rel.ChannelAliases[c]; ok {
				c = a
			}
			v = c + ":" + id
		}
		if v == "" {
			return ""
		}
		return typ + ":" + v
	}
	v := strings.TrimSpace(strings.TrimPrefix(l, "@"))
	if v == "" {
		return ""
	}
	return "id:" + v
}
