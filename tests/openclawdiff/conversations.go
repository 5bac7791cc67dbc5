package openclawdiff

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/sessionledger/ledger/envelope/openclaw"
)

// The conversation family (issue 25): roots keyed as OpenClaw keys its
// channel conversations (groups and channels, forum topics, per-sender
// group sessions, threads, rooms, direct chats, keys without the agent
// prefix, an id a JavaScript object answers from its prototype), under
// configs whose
// channels configure some of the candidate group ids each key yields.

// convChannels are the channels the family draws, as a key names them:
// teams is msteams's alias.
var convChannels = []string{"slack", "telegram", "discord", "matrix", "teams"}

// convChats, convTopics and convSenders are the parts of the keys drawn.
var (
	convChats   = []string{"g1", "123", "G1", "constructor"}
	convTopics  = []string{"7", "42"}
	convSenders = []string{"bob", "alice"}
)

// conversationKey draws a root key of one of OpenClaw's conversation
// shapes for agent, with the tags of its shape.
func (g *gen) conversationKey(agent, ch string) (key string, tags []string) {
	chat, topic, sender := g.pick(convChats...), g.pick(convTopics...), g.pick(convSenders...)
	base := "agent:" + agent + ":" + ch
	switch n := g.r.IntN(20); n {
	case 0, 1:
		return base + ":group:" + chat, []string{"conv-group"}
	case 2, 3:
		return base + ":group:" + chat + ":topic:" + topic, []string{"conv-topic"}
	case 4:
		return base + ":group:" + chat + ":TOPIC:" + topic, []string{"conv-topic"}
	case 5, 6:
		return base + ":group:" + chat + ":sender:" + sender, []string{"conv-sender"}
	case 7, 8:
		return base + ":group:" + chat + ":topic:" + topic + ":sender:" + sender, []string{"conv-topic", "conv-sender"}
	case 9:
		return base + ":channel:" + chat, []string{"conv-channel"}
	case 10:
		return base + ":channel:" + chat + ":thread:" + topic, []string{"conv-channel", "conv-thread"}
	case 11:
		return base + ":group:" + chat + ":topic:" + topic + ":thread:t" + topic, []string{"conv-topic", "conv-thread"}
	case 12:
		return base + ":group:" + chat + ":thread:", []string{"conv-thread"}
	case 13, 14:
		return base + ":room:" + chat, []string{"conv-room"}
	case 15:
		return base + ":room:" + chat + ":topic:" + topic, []string{"conv-room"}
	case 16:
		return base + ":" + g.pick("direct", "dm") + ":" + sender, []string{"conv-direct"}
	case 17:
		return base + ":channel:" + chat + ":sender:" + sender, []string{"conv-channel", "conv-sender"}
	case 18:
		return ch + ":group:" + chat + ":topic:" + topic, []string{"conv-topic", "conv-unwrapped"}
	}
	return "agent:" + agent + ":main", []string{"conv-main"}
}

// conversationDoc draws a document whose channels configure groups among
// the candidates the family's keys yield.
func (g *gen) conversationDoc() map[string]any {
	doc := g.doc()
	ids := []string{"*"}
	for _, c := range convChats {
		ids = append(ids, c, c+":topic:7", c+":topic:42", c+":sender:bob", c+":topic:7:sender:bob", c+":topic:42:sender:alice")
	}
	ch := map[string]any{}
	for _, c := range convChannels {
		if c == "teams" {
			c = "msteams"
		}
		if !g.p(0.7) {
			continue
		}
		groups := g.channelGroups(ids, groupOdds{in: 0.3, tools: 0.85, allow: 0.35, also: 0.15, deny: 0.7, senders: 0.3})
		ch[c] = map[string]any{"groups": groups}
	}
	doc["channels"] = ch
	return doc
}

// GenerateConversations draws n seeded lineages of the conversation
// family.
func GenerateConversations(seed uint64, n int, release string) []*Lineage {
	rel, _ := openclaw.LookupRelease(release)
	r := rand.New(rand.NewPCG(seed, 0x636f6e766572)) // "conver"
	cat := Catalogue(release)
	out := make([]*Lineage, 0, n)
	for i := 0; i < n; i++ {
		g := &gen{r: r, cat: cat, tags: map[string]bool{"group-keys": true}, rel: rel}
		doc := g.conversationDoc()
		sessions := g.lineageWith(doc, func(root *Session) {
			ch := g.pick(convChannels...)
			key, tags := g.conversationKey(root.Agent, ch)
			for _, t := range tags {
				g.tag(t)
			}
			root.Key = key
			root.Channel, root.Group = PluginBefore25(key)
			if root.Channel == "" && g.p(0.5) {
				// A direct run the channel still names (messageProvider).
				root.Channel = ch
			}
		})
		raw, err := json.Marshal(doc)
		if err != nil {
			panic(err)
		}
		var tags []string
		for t := range g.tags {
			tags = append(tags, t)
		}
		slices.Sort(tags)
		out = append(out, &Lineage{ID: fmt.Sprintf("conv-%d-%d", seed, i), Doc: raw, Catalogue: cat, Sessions: sessions, Tags: tags})
	}
	return out
}

// before25 is the pattern integrations/openclaw-plugin's conversationOf read keys
// with before issue 25.
var before25 = regexp.MustCompile(`^agent:[^:]+:([^:]+):(group|channel|room|direct|dm):([^:]+)`)

// PluginBefore25 is the channel and group the plugin sent for a root key
// before issue 25: the channel segment, and for a group, channel or room
// key the segment after its kind, cut at the first ':'. It is also the
// group id the differential gives OpenClaw as the caller's (which OpenClaw
// trusts only when the key yields it).
func PluginBefore25(key string) (channel, group string) {
	m := before25.FindStringSubmatch(key)
	if m == nil {
		return "", ""
	}
	if m[2] == "direct" || m[2] == "dm" {
		return m[1], ""
	}
	return m[1], m[3]
}

// HandWritten reads the hand-written lineages of dir (one JSON file each:
// id, doc, extra catalogue tools, sessions, tags), each with the
// differential catalogue joined by its own tools.
func HandWritten(dir, release string) ([]*Lineage, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	var out []*Lineage
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var c struct {
			Doc      json.RawMessage `json:"doc"`
			Tools    []Tool          `json:"tools"`
			Sessions []Session       `json:"sessions"`
			Tags     []string        `json:"tags"`
			Note     string          `json:"note"`
		}
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if len(c.Sessions) == 0 || c.Note == "" {
			return nil, fmt.Errorf("%s: a hand-written case needs sessions and a note saying what it pins", f)
		}
		cat := Catalogue(release)
		for _, t := range c.Tools {
			if !slices.ContainsFunc(cat, func(x Tool) bool { return x.Name == t.Name }) {
				cat = append(cat, t)
			}
		}
		id := strings.TrimSuffix(filepath.Base(f), ".json")
		out = append(out, &Lineage{ID: id, Doc: c.Doc, Catalogue: cat, Sessions: c.Sessions, Tags: append([]string{"hand-written"}, c.Tags...)})
	}
	return out, nil
}

// The plugin-tools family (issue 25): a catalogue with tools that OpenClaw
// plugins register (each marked with its plugin, as OpenClaw's plugin
// loader marks it), under policies that name them, their plugins,
// group:plugins and bundle-mcp.

// PluginTools are the family's plugin tools, each with the plugin that
// registers it.
var PluginTools = []Tool{
	{Name: "lobster", Plugin: "lobster"},
	{Name: "voice_call", Plugin: "voice-call"},
	{Name: "memory_recall", Plugin: "memory-lancedb"},
	{Name: "memory_store", Plugin: "memory-lancedb"},
	{Name: "diffs", Plugin: "diffs-viewer"},
}

// BundledPluginTools are tools of the core catalogue that OpenClaw
// 2026.9.6's bundled plugins declare as their own (each manifest's
// contracts.tools, dist/extensions/*/openclaw.plugin.json): in a gateway
// that loads the plugin, the tool carries its plugin's metadata. Half the
// family's lineages mark them so, as such a gateway would.
var BundledPluginTools = map[string]string{
	"browser": "browser", "canvas": "canvas", "code_execution": "xai", "x_search": "xai",
	"memory_get": "memory-core", "memory_search": "memory-core",
}

// pluginEntries are the policy entries the family draws besides the usual
// ones: plugin ids (as written and in another case), plugin tools, the
// plugin groups, and a plugin id with no tool here.
var pluginEntries = []string{"group:plugins", "group:plugins", "lobster", "voice-call", "Voice-Call", "memory-lancedb",
	"memory_recall", "diffs-viewer", "diffs", "bundle-mcp", "memory_*", "llm-task", "xai", "memory-core", "canvas", "browser"}

// GeneratePluginTools draws n seeded lineages of the plugin-tools family.
func GeneratePluginTools(seed uint64, n int, release string) []*Lineage {
	rel, _ := openclaw.LookupRelease(release)
	r := rand.New(rand.NewPCG(seed, 0x706c7567696e)) // "plugin"
	cat := append(Catalogue(release), PluginTools...)
	out := make([]*Lineage, 0, n)
	for i := 0; i < n; i++ {
		lcat := cat
		g := &gen{r: r, cat: cat, tags: map[string]bool{"plugin-tools": true}, rel: rel, plugins: true}
		if g.p(0.5) {
			g.tag("bundled-plugins")
			lcat = slices.Clone(cat)
			for i, t := range lcat {
				if p, ok := BundledPluginTools[t.Name]; ok {
					lcat[i].Plugin = p
				}
			}
			g.cat = lcat
		}
		doc := g.doc()
		sessions := g.lineage(doc)
		raw, err := json.Marshal(doc)
		if err != nil {
			panic(err)
		}
		var tags []string
		for t := range g.tags {
			tags = append(tags, t)
		}
		slices.Sort(tags)
		out = append(out, &Lineage{ID: fmt.Sprintf("plug-%d-%d", seed, i), Doc: raw, Catalogue: lcat, Sessions: sessions, Tags: tags})
	}
	return out
}
