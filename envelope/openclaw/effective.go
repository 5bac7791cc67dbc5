package openclaw

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/sessionledger/ledger/envelope"
)

// Policy is what Compile returns: a validated document of one revision and
// the configured agents it names (section 1.4).
type Policy struct {
	Doc        *Document
	configured map[string]bool
	agentIDs   []string // sorted, for messages
}

func newPolicy(doc *Document) *Policy {
	p := &Policy{Doc: doc, configured: map[string]bool{"main": true}}
	if doc.Agents != nil {
		for _, a := range doc.Agents.List {
			p.configured[a.ID] = true
		}
	}
	p.agentIDs = sortedKeys(p.configured)
	return p
}

// effective is the compiled effective document of a position: the revision
// with the grants in force applied, every list compiled against the policy
// catalogue. It is immutable once built, apart from the envelope memo.
type effective struct {
	policy *Policy
	doc    *Document
	rev    *envelope.RecordRef
	cat    *catalogue
	catRaw []string
	grants []uint64 // the sequences of the grants applied, to detect a stale value

	maxDepth, maxChildren int
	defaultMode           string
	defaultRequireID      bool
	defaultAllowAgents    List

	global        *scopeLayer
	globalProfile *string
	globalAlso    List
	providers     map[string]*providerScope
	senders       map[string]*scopeLayer
	subagents     *scopeLayer
	subOrch       *cLayer // the sub-agent layer of an orchestrator
	subLeaf       *cLayer // and of a leaf (with the depth-cap group)
	pp            map[ppKey]*cLayer
	agents        map[string]*agentPolicy
	fallback      *agentPolicy // agents without an entry of their own
	channels      map[string]map[string]*groupPolicy

	profiles           map[string]*plist
	hard, depthCap     *plist
	sbDefAllow, sbDeny *plist
	viewImage          *plist

	envs  sync.Map     // envelope hash -> *compiledEnv
	nenvs atomic.Int64 // entries stored in envs since it was last cleared
}

// maxEnvs bounds the envelopes effective keeps compiled: a long log spawns
// millions of sessions, each with its own envelope, and the memo must not
// grow with them. Past the bound it starts afresh (a cache only: answers
// do not depend on it).
const maxEnvs = 4096

// scopeLayer is a config scope: its lists and, when it has any entry, the
// layer the scope rule (section 3.2) makes of it.
type scopeLayer struct {
	allow, also, deny *plist
	layer             *cLayer // nil when both lists are empty (the layer is absent)
}

// providerScope is a byProvider entry.
type providerScope struct {
	profile     *string
	profileRule string
	also        *plist
	alsoSet     bool
	scope       *scopeLayer
}

// ppKey names a provider-profile layer: the profile (with the rule of the
// scope that set it) and the provider-stage alsoAllow list.
type ppKey struct {
	rule string
	also *plist
}

// groupPolicy is channels.<channel>.groups.<group>.
type groupPolicy struct {
	tools   *scopeLayer
	senders map[string]*scopeLayer
}

// agentPolicy is everything the pipeline and admission read for one agent.
type agentPolicy struct {
	id        string
	path      string  // "agents.list[i]", "" for agents without an entry
	profile   *cLayer // nil: no profile step
	tools     *scopeLayer
	providers map[string]*providerScope
	senders   map[string]*scopeLayer
	sandbox   *cLayer
	mode      string

	requireAgentID bool
	allowAgents    List // own list, else the default list; Set false when neither exists
	delegateTo     []string
	ownDeny        bool     // tools.deny is a non-empty name list
	targets        []string // allowed spawn targets (section 8 step 3), sorted; listed agents only
}

func newEffective(pol *Policy, ps *envelope.PolicyState) *effective {
	rev := ps.Revision
	e := &effective{
		policy:      pol,
		doc:         applyGrants(pol.Doc, ps.Grants),
		rev:         &rev,
		cat:         newCatalogue(ps.Catalogue),
		catRaw:      ps.Catalogue,
		grants:      grantSeqs(ps.Grants),
		maxDepth:    defaultMaxSpawnDepth,
		maxChildren: defaultMaxChildren,
		defaultMode: "off",
	}
	e.builtins()
	doc := e.doc
	if doc.Agents != nil && doc.Agents.Defaults != nil {
		def := doc.Agents.Defaults
		if s := def.Subagents; s != nil {
			if s.MaxSpawnDepth != nil {
				e.maxDepth = *s.MaxSpawnDepth
			}
			if s.MaxChildrenPerAgent != nil {
				e.maxChildren = *s.MaxChildrenPerAgent
			}
			if s.RequireAgentID != nil {
				e.defaultRequireID = *s.RequireAgentID
			}
			e.defaultAllowAgents = s.AllowAgents
		}
		if def.Sandbox != nil && def.Sandbox.Mode != nil {
			e.defaultMode = *def.Sandbox.Mode
		}
	}
	var gt *ToolsDoc
	if doc.Tools != nil {
		gt = doc.Tools
		e.global = e.scope(lGlobal, "tools", &gt.Scope)
		e.globalProfile = gt.Profile
		e.globalAlso = gt.AlsoAllow
		e.providers = e.providerMap(lProvider, "tools.byProvider", gt.ByProvider)
		e.senders = e.senderMap(lSender, "tools.toolsBySender", gt.ToolsBySender)
		if gt.Subagents != nil && gt.Subagents.Tools != nil {
			e.subagents = e.scope(-1, "tools.subagents.tools", gt.Subagents.Tools)
		}
	}
	e.subOrch = e.subagentLayer(false)
	e.subLeaf = e.subagentLayer(true)
	e.agents = map[string]*agentPolicy{}
	if doc.Agents != nil {
		for i, a := range doc.Agents.List {
			if _, dup := e.agents[a.ID]; dup {
				continue // cannot happen: ids are unique and grants append only new ids
			}
			e.agents[a.ID] = e.agentPolicy(fmt.Sprintf("agents.list[%d]", i), a, gt)
		}
	}
	for id, ap := range e.agents {
		ap.targets = e.computeTargets(id, ap)
	}
	e.fallback = e.agentPolicy("", nil, gt)
	if doc.Channels != nil {
		e.channels = map[string]map[string]*groupPolicy{}
		for ch, c := range doc.Channels {
			gs := map[string]*groupPolicy{}
			for gid, g := range c.Groups {
				path := join(join(join("channels", ch), "groups"), gid)
				gp := &groupPolicy{senders: e.senderMap(lGroup, join(path, "toolsBySender"), g.ToolsBySender)}
				if g.Tools != nil {
					gp.tools = e.scope(lGroup, join(path, "tools"), g.Tools)
				}
				gs[gid] = gp
			}
			e.channels[ch] = gs
		}
	}
	e.providerProfiles()
	return e
}

func grantSeqs(gs []envelope.Grant) []uint64 {
	out := make([]uint64, len(gs))
	for i := range gs {
		out[i] = gs[i].Record.Seq
	}
	return out
}

// current reports whether e was built for the policy state p.
func (e *effective) current(p *envelope.PolicyState) bool {
	if e.rev.Seq != p.Revision.Seq || len(e.grants) != len(p.Grants) || !sameStrings(e.catRaw, p.Catalogue) {
		return false
	}
	for i := range p.Grants {
		if p.Grants[i].Record.Seq != e.grants[i] {
			return false
		}
	}
	return true
}

func (e *effective) builtins() {
	e.profiles = map[string]*plist{}
	for _, id := range profileIDs {
		e.profiles[id] = e.list("profile "+strconv.Quote(id), profiles[id], nil)
	}
	e.hard = e.list("sub-agent hard deny", hardDeny, nil)
	e.depthCap = e.list("sub-agent depth cap (leaf)", depthCapDeny, nil)
	e.sbDefAllow = e.list("sandbox default allow", sandboxDefaultAllow, nil)
	e.sbDeny = e.list("sandbox default deny", sandboxDefaultDeny, nil)
	e.viewImage = e.list("sandbox view_image", []string{"view_image"}, nil)
}

// list compiles a name list against the catalogue; nil when it is empty.
func (e *effective) list(path string, items []string, from []*envelope.RecordRef) *plist {
	if names, _ := nameList(items); len(names) == 0 {
		return nil
	}
	return compileList(path, items, e.rev, from, e.cat)
}

// scope compiles a config scope; li is the layer it forms (-1: none, the
// sub-agent scope is folded into the sub-agent layer).
func (e *effective) scope(li int, path string, s *Scope) *scopeLayer {
	if s == nil {
		return nil
	}
	sc := &scopeLayer{
		allow: e.list(join(path, "allow"), s.Allow.Items, s.Allow.From),
		also:  e.list(join(path, "alsoAllow"), s.AlsoAllow.Items, s.AlsoAllow.From),
		deny:  e.list(join(path, "deny"), s.Deny.Items, s.Deny.From),
	}
	if li < 0 || (sc.allow.empty() && sc.deny.empty()) {
		return sc
	}
	sc.layer = e.newLayer(li, path, func(c *cLayer) {
		c.addDeny(sc.deny, denyCodes[li], recEntry)
		sc.allowTo(c, path)
	})
	return sc
}

// allowTo sets c's allow list by the scope rule: allow, then alsoAllow when
// allow is non-empty; alsoAllow alone is no allow list.
func (sc *scopeLayer) allowTo(c *cLayer, path string) {
	if sc.allow.empty() {
		return
	}
	c.addAllow(sc.allow)
	c.addAllow(sc.also)
	c.allowRule = join(path, "allow")
	if !sc.also.empty() {
		c.allowRule += " (with " + join(path, "alsoAllow") + ")"
	}
}

func (e *effective) providerMap(li int, path string, m map[string]*ProviderDoc) map[string]*providerScope {
	if m == nil {
		return nil
	}
	out := make(map[string]*providerScope, len(m))
	for k, p := range m {
		kp := join(path, k)
		rule := ""
		if p.Profile != nil {
			rule = join(kp, "profile") + ": " + strconv.Quote(*p.Profile)
		}
		out[providerKey(k)] = &providerScope{
			profile:     p.Profile,
			profileRule: rule,
			also:        e.list(join(kp, "alsoAllow"), p.AlsoAllow.Items, p.AlsoAllow.From),
			alsoSet:     p.AlsoAllow.Set,
			scope:       e.scope(li, kp, &p.Scope),
		}
	}
	return out
}

func (e *effective) senderMap(li int, path string, m map[string]*Scope) map[string]*scopeLayer {
	if m == nil {
		return nil
	}
	out := make(map[string]*scopeLayer, len(m))
	for k, s := range m {
		out[k] = e.scope(li, join(path, k), s)
	}
	return out
}

// providerProfiles compiles every provider-profile layer a session can
// meet: each byProvider profile id with each provider-stage alsoAllow list
// (section 5.2 takes them from the agent's or the global entry
// independently).
func (e *effective) providerProfiles() {
	e.pp = map[ppKey]*cLayer{}
	var scopes []*providerScope
	for _, k := range sortedKeys(e.providers) {
		scopes = append(scopes, e.providers[k])
	}
	for _, id := range sortedKeys(e.agents) {
		for _, k := range sortedKeys(e.agents[id].providers) {
			scopes = append(scopes, e.agents[id].providers[k])
		}
	}
	alsos := []*plist{nil}
	for _, ps := range scopes {
		if ps.also != nil {
			alsos = append(alsos, ps.also)
		}
	}
	for _, ps := range scopes {
		if ps.profile == nil || e.profiles[*ps.profile] == nil {
			continue
		}
		for _, also := range alsos {
			key := ppKey{rule: ps.profileRule, also: also}
			if _, done := e.pp[key]; done {
				continue
			}
			list := e.profiles[*ps.profile]
			e.pp[key] = e.newLayer(lProviderProfile, "provider profile "+*ps.profile, func(c *cLayer) {
				c.addAllow(list)
				c.addAllow(also)
				c.allowRule = ps.profileRule
			})
		}
	}
}

// subagentLayer compiles the sub-agent layer (section 7.1).
func (e *effective) subagentLayer(leaf bool) *cLayer {
	return e.newLayer(lSubagent, "sub-agent layer", func(c *cLayer) {
		c.addDeny(e.hard, codeHardDeny, recOrigin)
		if leaf {
			c.addDeny(e.depthCap, codeDepthCap, recEntry)
		}
		if sc := e.subagents; sc != nil {
			c.addDeny(sc.deny, denyCodes[lSubagent], recEntry)
			sc.allowTo(c, "tools.subagents.tools")
		}
	})
}

func (e *effective) agentPolicy(path string, a *AgentDoc, gt *ToolsDoc) *agentPolicy {
	ap := &agentPolicy{path: path, mode: e.defaultMode, requireAgentID: e.defaultRequireID,
		allowAgents: e.defaultAllowAgents}
	var at *ToolsDoc
	if a != nil {
		ap.id = a.ID
		at = a.Tools
		if a.Sandbox != nil && a.Sandbox.Mode != nil {
			ap.mode = *a.Sandbox.Mode
		}
		if s := a.Subagents; s != nil {
			if s.RequireAgentID != nil {
				ap.requireAgentID = *s.RequireAgentID
			}
			if s.AllowAgents.Set {
				ap.allowAgents = s.AllowAgents
			}
			ap.delegateTo = s.DelegateToolsTo.Items
		}
	}
	toolsPath := join(path, "tools")
	if path == "" {
		toolsPath = "tools"
	}

	// Profile step: the agent's profile and alsoAllow replace the global
	// ones when the key is present (section 5.2).
	profile, profilePath := e.globalProfile, "tools.profile"
	also, alsoPath := e.globalAlso, "tools.alsoAllow"
	if at != nil {
		if at.Profile != nil {
			profile, profilePath = at.Profile, join(toolsPath, "profile")
		}
		if at.AlsoAllow.Set {
			also, alsoPath = at.AlsoAllow, join(toolsPath, "alsoAllow")
		}
	}
	if profile != nil {
		if pl, ok := e.profiles[*profile]; ok {
			alsoList := e.list(alsoPath, also.Items, also.From)
			ap.profile = e.newLayer(lProfile, "profile "+*profile, func(c *cLayer) {
				c.addAllow(pl)
				c.addAllow(alsoList)
				c.allowRule = profilePath + ": " + strconv.Quote(*profile)
				if !alsoList.empty() {
					c.allowRule += " (with " + alsoPath + ")"
				}
			})
		}
	}

	var as *Scope
	if at != nil {
		ap.tools = e.scope(lAgent, toolsPath, &at.Scope)
		ap.providers = e.providerMap(lAgentProvider, join(toolsPath, "byProvider"), at.ByProvider)
		ap.senders = e.senderMap(lSender, join(toolsPath, "toolsBySender"), at.ToolsBySender)
		if names, _ := nameList(at.Deny.Items); len(names) > 0 {
			ap.ownDeny = true
		}
		if at.Sandbox != nil {
			as = at.Sandbox.Tools
		}
	}
	var gs *Scope
	if gt != nil && gt.Sandbox != nil {
		gs = gt.Sandbox.Tools
	}
	ap.sandbox = e.sandboxLayer(toolsPath+".sandbox.tools", as, gs)
	return ap
}

// sandboxLayer resolves the sandbox lists of section 6.2 (each list from
// the first scope where its key is present, then the defaults) and
// compiles the layer.
func (e *effective) sandboxLayer(agentPath string, as, gs *Scope) *cLayer {
	pick := func(get func(*Scope) List, key string) (List, string, bool) {
		if as != nil && get(as).Set {
			return get(as), agentPath + "." + key, true
		}
		if gs != nil && get(gs).Set {
			return get(gs), "tools.sandbox.tools." + key, true
		}
		return List{}, "", false
	}
	allow, allowRule := e.sbDefAllow, "sandbox default allow"
	if l, path, ok := pick(func(s *Scope) List { return s.Allow }, "allow"); ok {
		allow, allowRule = e.list(path, l.Items, l.From), path
	}
	deny := e.sbDeny
	if l, path, ok := pick(func(s *Scope) List { return s.Deny }, "deny"); ok {
		deny = e.list(path, l.Items, l.From)
	}
	var also *plist
	if l, path, ok := pick(func(s *Scope) List { return s.AlsoAllow }, "alsoAllow"); ok {
		if also = e.list(path, l.Items, l.From); also != nil {
			allowRule += " (with " + path + ")"
		}
	}
	return e.newLayer(lSandbox, "sandboxed session", func(c *cLayer) {
		c.addDeny(deny, denyCodes[lSandbox], recEntry)
		if allow.empty() {
			return // allow: [] means no allow list
		}
		c.addAllow(allow)
		c.addAllow(also)
		if allow.match("view_image") < 0 && also.match("view_image") < 0 && deny.match("view_image") < 0 {
			c.addAllow(e.viewImage)
		}
		c.allowRule = allowRule
	})
}

// agent returns the policy of an agent id: its entry's, or the fallback.
func (e *effective) agent(id string) *agentPolicy {
	if a, ok := e.agents[id]; ok {
		return a
	}
	return e.fallback
}

// configured reports whether id is a configured agent of the revision
// (section 1.4; grants never add one).
func (e *effective) configured(id string) bool { return e.policy.configured[id] }

// allowedTargets is the allowed set of step 3 of the target check
// (section 8) for requester agent r, sorted.
func (e *effective) allowedTargets(r string) []string {
	if ap, ok := e.agents[r]; ok {
		return ap.targets
	}
	return e.computeTargets(r, e.fallback)
}

func (e *effective) computeTargets(r string, ap *agentPolicy) []string {
	if !ap.allowAgents.Set {
		return []string{r}
	}
	if contains(ap.allowAgents.Items, "*") {
		out := slices.Clone(e.policy.agentIDs)
		if !e.configured(r) {
			out = append(out, r)
			sort.Strings(out)
		}
		return out
	}
	var out []string
	for _, id := range ap.allowAgents.Items {
		if e.configured(id) && !contains(out, id) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// granted is granted(A, T) of section 11.1.
func (e *effective) granted(a, t string) bool {
	if a == t || !e.configured(t) {
		return false
	}
	ap, ok := e.agents[a]
	if !ok || !contains(ap.delegateTo, t) {
		return false
	}
	return contains(e.allowedTargets(a), t)
}

// role is role(depth, max) of section 7.2.
func role(depth, max int) string {
	switch {
	case depth == 0:
		return "main"
	case depth < max:
		return "orchestrator"
	}
	return "leaf"
}
