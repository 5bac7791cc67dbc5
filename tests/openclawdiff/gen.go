package openclawdiff

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/sessionledger/ledger/envelope/openclaw"
)

// Catalogue is the differential's catalogue: the core tools of the
// release, three MCP tools and names that probe aliases, renames and the
// legacy tables (tool_call and update_plan, aliases of the legacy release;
// skills_read and dispatch_action, its compatibility names; a
// conversations_ tool outside the hard-deny list).
func Catalogue(release string) []Tool {
	rel, _ := openclaw.LookupRelease(release)
	var out []Tool
	if rel != nil {
		for _, t := range rel.Catalogue {
			out = append(out, Tool{Name: t})
		}
	}
	for _, t := range []string{"gh__issue", "gh__pr", "mail__send"} {
		out = append(out, Tool{Name: t, Plugin: "bundle-mcp"})
	}
	for _, t := range []string{"image", "skills_read", "dispatch_action", "tool_call", "update_plan",
		"switch_model", "optional-demo", "conversations_archive", "tool_search"} {
		out = append(out, Tool{Name: t})
	}
	return out
}

// gen draws one config and lineage from a seeded source.
type gen struct {
	r    *rand.Rand
	cat  []Tool
	tags map[string]bool
	rel  *openclaw.Release
	// plugins draws plugin entries too (the plugin-tools family).
	plugins bool
	// edges draws the edges family's entries and sender keys too.
	edges bool
}

func (g *gen) p(x float64) bool { return g.r.Float64() < x }

// q is p with the odds doubled in the edges family (one draw either way,
// so the other families draw as before): the scopes it adds are the
// ones whose entries the family spells every way.
func (g *gen) q(x float64) bool {
	if g.edges {
		x = min(1, 2*x)
	}
	return g.p(x)
}

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *gen) tag(t string) { g.tags[t] = true }

// entry draws one policy list entry.
func (g *gen) entry() string {
	if g.edges && g.p(0.4) {
		return g.edgeEntry()
	}
	if g.plugins && g.p(0.3) {
		g.tag("plugin-entries")
		return g.pick(pluginEntries...)
	}
	switch n := g.r.IntN(100); {
	case n < 45:
		return g.cat[g.r.IntN(len(g.cat))].Name
	case n < 60:
		g.tag("groups")
		groups := []string{"group:plugins", "group:nope"}
		for k := range g.rel.Groups {
			groups = append(groups, k)
		}
		slices.Sort(groups)
		return g.pick(groups...)
	case n < 72:
		g.tag("globs")
		return g.pick("web_*", "sessions_*", "*", "gh__*", "mail__*", "conversations_*", "*_generate", "apply_*", "tool_*", "*image*")
	case n < 88:
		g.tag("aliases")
		return g.pick("bash", "BASH", "cron", "apply-patch", "update_plan", "canvas", "tool_call", "image", "view_image", " Read ", "EXEC")
	case n < 95:
		g.tag("mcp")
		return "bundle-mcp"
	}
	return g.pick("", "  ", "nonexistent")
}

func (g *gen) list(max int) []string {
	n := g.r.IntN(max + 1)
	out := []string{}
	for i := 0; i < n; i++ {
		out = append(out, g.entry())
	}
	return out
}

// scope fills allow, alsoAllow and deny; exclusive keeps allow and
// alsoAllow from both being non-empty, except rarely (an invalid case).
func (g *gen) scope(m map[string]any, pAllow, pAlso, pDeny float64) {
	if g.p(pAllow) {
		m["allow"] = g.list(4)
	}
	if g.p(pAlso) {
		if a, ok := m["allow"].([]string); ok && len(a) > 0 && !g.p(0.04) {
			if g.p(0.5) {
				m["alsoAllow"] = []string{}
			}
		} else {
			m["alsoAllow"] = g.list(3)
		}
	}
	if g.p(pDeny) {
		m["deny"] = g.list(3)
	}
}

func (g *gen) profile() string {
	g.tag("profile")
	if g.p(0.03) {
		return "nope"
	}
	return g.pick("minimal", "coding", "coding", "messaging", "full")
}

func (g *gen) byProvider() map[string]any {
	g.tag("provider")
	out := map[string]any{}
	keys := []string{"openai", "anthropic/claude", "openrouter", "openai/gpt-5"}
	if g.edges && g.p(0.5) {
		keys = edgeProviderKeys
	}
	for _, k := range keys {
		if !g.p(0.35) {
			continue
		}
		e := map[string]any{}
		if g.p(0.4) {
			e["profile"] = g.profile()
		}
		g.scope(e, 0.3, 0.3, 0.4)
		out[k] = e
	}
	return out
}

func (g *gen) sandboxTools() map[string]any {
	g.tag("sandbox")
	s := map[string]any{}
	g.scope(s, 0.4, 0.4, 0.4)
	return map[string]any{"tools": s}
}

// groupOdds are the odds channelGroups draws with: each id is a group with
// in; its tools are empty with empty (0 draws nothing), else a scope (allow,
// also and deny, as scope takes them) with tools; its toolsBySender with
// senders.
type groupOdds struct{ in, empty, tools, allow, also, deny, senders float64 }

// channelGroups draws one channel's groups among ids, in the order the
// families have always drawn them (a family's seeded lineages do not
// change with it).
func (g *gen) channelGroups(ids []string, o groupOdds) map[string]any {
	groups := map[string]any{}
	for _, gid := range ids {
		if !g.p(o.in) {
			continue
		}
		e := map[string]any{}
		switch {
		case o.empty > 0 && g.p(o.empty):
			e["tools"] = map[string]any{}
		case g.p(o.tools):
			t := map[string]any{}
			g.scope(t, o.allow, o.also, o.deny)
			e["tools"] = t
		}
		if g.p(o.senders) {
			e["toolsBySender"] = g.senders()
		}
		groups[gid] = e
	}
	return groups
}

func (g *gen) senders() map[string]any {
	if g.edges && g.p(0.7) {
		return g.edgeSenderMap()
	}
	g.tag("senders")
	out := map[string]any{}
	keys := []string{"*", "id:alice", "alice", "ID:Bob", "channel:slack:alice", "channel:telegram:bob", "username:@carol", "e164:+15550100", "name:Al", "@dave"}
	used := map[string]bool{}
	for _, k := range keys {
		if !g.p(0.25) {
			continue
		}
		// Keys that select the same sender are a deliberate refusal; keep
		// them rare.
		norm := strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(strings.ToLower(k), "id:"), "@"))
		if used[norm] && !g.p(0.1) {
			continue
		}
		used[norm] = true
		e := map[string]any{}
		g.scope(e, 0.3, 0.2, 0.6)
		out[k] = e
	}
	return out
}

var agentIDs = []string{"main", "coder", "reviewer", "ops"}

// doc draws a policy document.
func (g *gen) doc() map[string]any {
	doc := map[string]any{}
	if g.p(0.85) {
		t := map[string]any{}
		if g.p(0.5) {
			t["profile"] = g.profile()
		}
		g.scope(t, 0.2, 0.3, 0.45)
		if g.q(0.2) {
			t["byProvider"] = g.byProvider()
		}
		if g.q(0.3) {
			t["sandbox"] = g.sandboxTools()
		}
		if g.q(0.35) {
			g.tag("subagents.tools")
			s := map[string]any{}
			switch {
			case g.p(0.25):
				s["allow"], s["alsoAllow"] = []string{}, g.list(3)
			default:
				g.scope(s, 0.35, 0.3, 0.5)
			}
			t["subagents"] = map[string]any{"tools": s}
		}
		if g.q(0.25) {
			t["toolsBySender"] = g.senders()
		}
		if g.p(0.05) {
			t["exec"], t["fs"] = map[string]any{}, map[string]any{}
		}
		doc["tools"] = t
	}
	if g.p(0.75) {
		agents := map[string]any{}
		if g.p(0.6) {
			d := map[string]any{}
			sub := map[string]any{}
			if g.p(0.5) {
				g.tag("subagent-depth")
				sub["maxSpawnDepth"] = 1 + g.r.IntN(5)
			}
			if g.p(0.3) {
				sub["maxChildrenPerAgent"] = 1 + g.r.IntN(3)
			}
			if g.p(0.3) {
				sub["allowAgents"] = g.allowAgents()
			}
			if g.p(0.2) {
				sub["requireAgentId"] = g.p(0.5)
			}
			if len(sub) > 0 {
				d["subagents"] = sub
			}
			if g.q(0.35) {
				g.tag("sandbox")
				d["sandbox"] = map[string]any{"mode": g.pick("off", "non-main", "all")}
			}
			agents["defaults"] = d
		}
		if g.p(0.75) {
			n := 1 + g.r.IntN(3)
			ids := slices.Clone(agentIDs)
			g.r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
			var list []any
			for _, id := range ids[:n] {
				if g.p(0.02) {
					id = strings.ToUpper(id[:1]) + id[1:]
				}
				a := map[string]any{"id": id}
				if g.p(0.6) {
					g.tag("agent-scope")
					t := map[string]any{}
					if g.p(0.4) {
						t["profile"] = g.profile()
					}
					g.scope(t, 0.25, 0.3, 0.45)
					if g.q(0.15) {
						t["byProvider"] = g.byProvider()
					}
					if g.q(0.2) {
						t["sandbox"] = g.sandboxTools()
					}
					if g.q(0.15) {
						t["toolsBySender"] = g.senders()
					}
					a["tools"] = t
				}
				if g.p(0.5) {
					s := map[string]any{}
					if g.p(0.7) {
						s["allowAgents"] = g.allowAgents()
					}
					if g.p(0.3) {
						s["requireAgentId"] = g.p(0.5)
					}
					a["subagents"] = s
				}
				if g.p(0.3) {
					g.tag("sandbox")
					a["sandbox"] = map[string]any{"mode": g.pick("off", "non-main", "all")}
				}
				list = append(list, a)
			}
			agents["list"] = list
		}
		doc["agents"] = agents
	}
	if g.p(0.2) {
		g.tag("senders")
		ch := map[string]any{}
		for _, c := range []string{"slack", "telegram"} {
			if !g.p(0.6) {
				continue
			}
			groups := g.channelGroups([]string{"g1", "*"}, groupOdds{in: 0.6, tools: 0.8, allow: 0.3, also: 0.2, deny: 0.6, senders: 0.3})
			ch[c] = map[string]any{"groups": groups}
		}
		doc["channels"] = ch
	}
	return doc
}

func (g *gen) allowAgents() []string {
	out := []string{}
	for _, id := range []string{"*", "main", "coder", "reviewer", "ops", "ghost", "Coder"} {
		if g.p(0.25) {
			out = append(out, id)
		}
	}
	return out
}

// lineage draws the sessions of a case under doc.
func (g *gen) lineage(doc map[string]any) []Session {
	return g.lineageWith(doc, func(root *Session) {
		switch n := g.r.IntN(100); {
		case n < 60:
			root.Key = "agent:" + root.Agent + ":main"
		case n < 85:
			root.Channel, root.Group = g.pick("slack", "telegram"), g.pick("g1", "g2")
			root.Key = "agent:" + root.Agent + ":" + root.Channel + ":group:" + root.Group
			g.tag("senders")
		default:
			root.Key = "agent:" + root.Agent + ":run-" + fmt.Sprint(g.r.IntN(9))
		}
	})
}

// lineageWith draws the sessions of a case under doc, the root's key,
// channel and group drawn by keyed.
func (g *gen) lineageWith(doc map[string]any, keyed func(root *Session)) []Session {
	listed := listedIDs(doc)
	rootAgents := append(slices.Clone(listed), "main", "ghost")
	root := Session{Agent: g.pick(rootAgents...)}
	if root.Agent == "ghost" {
		g.tag("unconfigured")
	}
	keyed(&root)
	if g.p(0.5) {
		pm := [][2]string{{"openai", "gpt-5"}, {"anthropic", "claude"}, {"OpenAI", "GPT-5"}, {"openrouter", "anthropic/claude"}}[g.r.IntN(4)]
		if g.edges && g.p(0.5) {
			pm = edgeProviders[g.r.IntN(len(edgeProviders))]
		}
		root.Provider, root.Model = pm[0], pm[1]
		if g.p(0.2) {
			root.Model = ""
		}
	}
	if g.p(0.5) {
		root.Sender = g.pick("alice", "ALICE", "@alice", "bob", "carol", "dave")
	}
	out := []Session{root}
	depth := []int{0}
	max := 6
	if g.edges {
		max = 9 // deeper lineages, past every depth cap
	}
	n := g.r.IntN(max)
	targets := append(slices.Clone(listed), "main", "ghost")
	for i := 0; i < n; i++ {
		// Prefer the deepest session, to reach the depth caps.
		p := len(out) - 1
		if g.p(0.35) {
			p = g.r.IntN(len(out))
		}
		parent := out[p]
		c := Session{Parent: &p}
		if g.p(0.5) {
			c.Agent = parent.Agent
		} else {
			c.Agent = g.pick(targets...)
		}
		if g.p(0.25) {
			c.Sender = g.pick("alice", "bob", "ALICE", "carol")
		}
		c.Provider, c.Model, c.Channel, c.Group = root.Provider, root.Model, root.Channel, root.Group
		c.Omitted = c.Agent == parent.Agent && !requireAgentID(doc, parent.Agent)
		depth = append(depth, depth[p]+1)
		if depth[p]+1 >= 2 {
			g.tag("subagent-depth")
		}
		out = append(out, c)
	}
	return out
}

// listedIDs is the ids of the document's agents.list.
func listedIDs(doc map[string]any) []string {
	agents, _ := doc["agents"].(map[string]any)
	list, _ := agents["list"].([]any)
	var out []string
	for _, a := range list {
		if am, ok := a.(map[string]any); ok {
			if id, ok := am["id"].(string); ok {
				out = append(out, id)
			}
		}
	}
	return out
}

// requireAgentID is whether the document sets requireAgentId for agent
// (its entry's, else the default): with it, a spawn of the requester's own
// agent names its agent id (the ledger's mapping of sessions_spawn,
// docs/dialects/openclaw.md section 8); without it, it leaves it out.
func requireAgentID(doc map[string]any, agent string) bool {
	agents, _ := doc["agents"].(map[string]any)
	list, _ := agents["list"].([]any)
	for _, a := range list {
		am, _ := a.(map[string]any)
		if id, _ := am["id"].(string); strings.EqualFold(id, agent) {
			if sub, ok := am["subagents"].(map[string]any); ok {
				if v, ok := sub["requireAgentId"].(bool); ok {
					return v
				}
			}
		}
	}
	def, _ := agents["defaults"].(map[string]any)
	sub, _ := def["subagents"].(map[string]any)
	v, _ := sub["requireAgentId"].(bool)
	return v
}

// Generate draws n seeded lineages.
func Generate(seed uint64, n int, release string) []*Lineage {
	rel, _ := openclaw.LookupRelease(release)
	r := rand.New(rand.NewPCG(seed, 0x6f70656e636c6177))
	cat := Catalogue(release)
	out := make([]*Lineage, 0, n)
	for i := 0; i < n; i++ {
		g := &gen{r: r, cat: cat, tags: map[string]bool{"generated": true}, rel: rel}
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
		out = append(out, &Lineage{ID: fmt.Sprintf("gen-%d-%d", seed, i), Doc: raw, Catalogue: cat, Sessions: sessions, Tags: tags})
	}
	return out
}
