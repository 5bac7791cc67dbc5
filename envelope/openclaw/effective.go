package openclaw

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sessionledger/ledger/envelope"
)

// Policy is what Compile returns: a validated document of one revision and
// the configured agents it names (section 1.4).
type Policy struct {
	Doc        *Document
	rel        *Release
	configured map[string]bool
	agentIDs   []string // sorted, for messages
}

// newPolicy compiles a validated document. The configured agents are main
// plus the listed ids under the legacy release; under the packaged
// releases, as OpenClaw's roster, the listed ids, or main alone when the
// list is absent or empty.
func newPolicy(doc *Document) *Policy {
	rel := doc.rel
	if rel == nil {
		rel = newest()
	}
	p := &Policy{Doc: doc, rel: rel, configured: map[string]bool{}}
	if rel.Rules != rulesPackage {
		p.configured["main"] = true
	}
	if doc.Agents != nil {
		for _, a := range doc.Agents.List {
			p.configured[rel.agentID(a.ID)] = true
		}
	}
	if len(p.configured) == 0 {
		p.configured["main"] = true
	}
	p.agentIDs = sortedKeys(p.configured)
	return p
}

// Release is the name of the release the policy decides with.
func (p *Policy) Release() string { return p.rel.Name }

// effective is the compiled effective document of a position: the revision
// with the grants in force applied, every list compiled against the policy
// catalogue. It is immutable once built, apart from the envelope memo.
type effective struct {
	policy *Policy
	rel    *Release
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

	// reports memoizes this effective compiled with a gateway's reported
	// plugin tools as the marks (plugins.go): plugin_tools as recorded ->
	// *reportView.
	reports  sync.Map
	nreports atomic.Int64
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
	allowSet          bool    // allow is written (even empty)
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
	tools    *scopeLayer
	toolsSet bool // tools is written (even {})
	senders  map[string]*scopeLayer
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
	return newEffectiveMarked(pol, ps, pol.Doc.PluginTools)
}

// newEffectiveMarked is newEffective with marks as the plugin tools in
// place of the document's pluginTools (a gateway's report, plugins.go).
func newEffectiveMarked(pol *Policy, ps *envelope.PolicyState, marks map[string][]string) *effective {
	rev := ps.Revision
	e := &effective{
		policy:      pol,
		rel:         pol.rel,
		doc:         applyGrants(pol.rel, pol.Doc, ps.Grants),
		rev:         &rev,
		cat:         pol.rel.newCatalogue(ps.Catalogue),
		catRaw:      ps.Catalogue,
		grants:      grantSeqs(ps.Grants),
		maxDepth:    defaultMaxSpawnDepth,
		maxChildren: defaultMaxChildren,
		defaultMode: "off",
	}
	// The document's plugin tools (grants never change them), or the
	// report that stands in for them.
	e.cat.mark(e.rel, marks)
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
			id := e.rel.agentID(a.ID)
			if _, dup := e.agents[id]; dup {
				continue // cannot happen: ids are unique and grants append only new ids
			}
			e.agents[id] = e.agentPolicy(fmt.Sprintf("agents.list[%d]", i), a, gt)
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
					gp.toolsSet = true
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
	r := e.rel
	e.profiles = map[string]*plist{}
	for _, id := range r.profileIDs() {
		e.profiles[id] = e.list("profile "+strconv.Quote(id), r.Profiles[id], nil)
	}
	e.hard = e.list("sub-agent hard deny", r.HardDeny, nil)
	e.depthCap = e.list("sub-agent depth cap (leaf)", r.DepthCapDeny, nil)
	e.sbDefAllow = e.list("sandbox default allow", r.SandboxAllow, nil)
	e.sbDeny = e.list("sandbox default deny", r.SandboxDeny, nil)
	e.viewImage = e.list("sandbox view_image", []string{"view_image"}, nil)
}

// list compiles a name list against the catalogue; nil when it is empty.
func (e *effective) list(path string, items []string, from []*envelope.RecordRef) *plist {
	if names, _ := e.rel.nameList(items); len(names) == 0 {
		return nil
	}
	return e.rel.compileList(path, items, e.rev, from, e.cat)
}

// scope compiles a config scope; li is the layer it forms (-1: none, the
// sub-agent scope is folded into the sub-agent layer).
func (e *effective) scope(li int, path string, s *Scope) *scopeLayer {
	if s == nil {
		return nil
	}
	sc := &scopeLayer{
		allow:    e.list(join(path, "allow"), s.Allow.Items, s.Allow.From),
		also:     e.list(join(path, "alsoAllow"), s.AlsoAllow.Items, s.AlsoAllow.From),
		deny:     e.list(join(path, "deny"), s.Deny.Items, s.Deny.From),
		allowSet: s.Allow.Set,
	}
	// OpenClaw's pickSandboxToolPolicy merges alsoAllow into an allow list
	// written non-empty, even when every entry of it is blank.
	if e.rel.Rules == rulesPackage && len(s.Allow.Items) > 0 && sc.allow.empty() && !sc.also.empty() {
		sc.allow, sc.also = sc.also, nil
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
		out[e.rel.providerKey(k)] = &providerScope{
			profile:     p.Profile,
			profileRule: rule,
			also:        e.list(join(kp, "alsoAllow"), p.AlsoAllow.Items, p.AlsoAllow.From),
			alsoSet:     p.AlsoAllow.Set,
			scope:       e.scope(li, kp, &p.Scope),
		}
	}
	return out
}

// senderMap compiles a toolsBySender map, keyed as the lookups of
// senderMatch ask: the keys as written under the legacy release, their
// canonical spelling under the packaged ones (keys OpenClaw skips are left
// out).
func (e *effective) senderMap(li int, path string, m map[string]*Scope) map[string]*scopeLayer {
	if m == nil {
		return nil
	}
	out := make(map[string]*scopeLayer, len(m))
	for _, k := range sortedKeys(m) {
		key := k
		if e.rel.Rules == rulesPackage {
			sk, ok := e.rel.parseSenderKey(k)
			if !ok {
				continue
			}
			key = sk.canon()
		}
		out[key] = e.scope(li, join(path, k), m[k])
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
			e.profileRestrictive(e.pp[key], list)
		}
	}
}

// profileRestrictive: under the packaged releases a profile step is
// restrictive by its profile's own list, whatever alsoAllow adds (OpenClaw
// tests its inheritance policies with the profile policy before the
// alsoAllow merge), so alsoAllow: ["*"] does not spare a child the
// ceiling of a minimal profile.
func (e *effective) profileRestrictive(c *cLayer, profile *plist) {
	if e.rel.Rules == rulesPackage {
		c.restrictive = !profile.empty() && !profile.star
	}
}

// subagentLayer compiles the sub-agent layer (section 7.1). Under the
// packaged releases its allow list is tools.subagents.tools.allow joined
// by alsoAllow whenever allow is written, even empty (OpenClaw's
// mergeConfiguredSubagentAllow), so allow: [] with alsoAllow leaves the
// sub-agent only the alsoAllow tools.
func (e *effective) subagentLayer(leaf bool) *cLayer {
	return e.newLayer(lSubagent, "sub-agent layer", func(c *cLayer) {
		c.addDeny(e.hard, codeHardDeny, recOrigin)
		if leaf {
			c.addDeny(e.depthCap, codeDepthCap, recEntry)
		}
		sc := e.subagents
		if sc == nil {
			return
		}
		c.addDeny(sc.deny, denyCodes[lSubagent], recEntry)
		if e.rel.Rules == rulesPackage && sc.allowSet {
			c.addAllow(sc.allow)
			c.addAllow(sc.also)
			if c.nAllow > 0 {
				c.allowRule = "tools.subagents.tools.allow"
				if !sc.also.empty() {
					c.allowRule += " (with tools.subagents.tools.alsoAllow)"
				}
			}
			return
		}
		sc.allowTo(c, "tools.subagents.tools")
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
			e.profileRestrictive(ap.profile, pl)
		}
	}

	var as *Scope
	if at != nil {
		ap.tools = e.scope(lAgent, toolsPath, &at.Scope)
		ap.providers = e.providerMap(lAgentProvider, join(toolsPath, "byProvider"), at.ByProvider)
		ap.senders = e.senderMap(lSender, join(toolsPath, "toolsBySender"), at.ToolsBySender)
		if names, _ := e.rel.nameList(at.Deny.Items); len(names) > 0 {
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
	if e.rel.Rules == rulesPackage {
		ap.sandbox = e.sandboxLayerPackage(toolsPath+".sandbox.tools", as, gs)
	} else {
		ap.sandbox = e.sandboxLayer(toolsPath+".sandbox.tools", as, gs)
	}
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
	if a, ok := e.agents[e.rel.agentID(id)]; ok {
		return a
	}
	return e.fallback
}

// configured reports whether id is a configured agent of the revision
// (section 1.4; grants never add one).
func (e *effective) configured(id string) bool { return e.policy.configured[e.rel.agentID(id)] }

// allowedTargets is the allowed set of step 3 of the target check
// (section 8) for requester agent r, sorted.
func (e *effective) allowedTargets(r string) []string {
	if ap, ok := e.agents[e.rel.agentID(r)]; ok {
		return ap.targets
	}
	return e.computeTargets(r, e.fallback)
}

// computeTargets is the allowed set of requester r. The packaged releases
// read allowAgents as OpenClaw's normalizeAllowAgents does: entries
// trimmed, "*" recognised after trimming, ids normalized.
func (e *effective) computeTargets(r string, ap *agentPolicy) []string {
	r = e.rel.agentID(r)
	if !ap.allowAgents.Set {
		return []string{r}
	}
	pkg := e.rel.Rules == rulesPackage
	star := false
	for _, id := range ap.allowAgents.Items {
		if id == "*" || (pkg && e.rel.trim(id) == "*") {
			star = true
		}
	}
	if star {
		out := slices.Clone(e.policy.agentIDs)
		if !e.configured(r) {
			out = append(out, r)
			sort.Strings(out)
		}
		return out
	}
	var out []string
	for _, id := range ap.allowAgents.Items {
		if pkg {
			if e.rel.trim(id) == "" {
				continue
			}
			id = normalizeAgentID(id)
		}
		if e.configured(id) && !contains(out, id) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// listed reports whether requester r's allowAgents names t (for the
// packaged releases' refusal message: a listed target that is not
// configured is not in the registry).
func (e *effective) listed(r, t string) bool {
	ap := e.agent(r)
	for _, id := range ap.allowAgents.Items {
		if e.rel.trim(id) == "*" || (e.rel.trim(id) != "" && normalizeAgentID(id) == t) {
			return true
		}
	}
	return false
}

// granted is granted(A, T) of section 11.1.
func (e *effective) granted(a, t string) bool {
	a, t = e.rel.agentID(a), e.rel.agentID(t)
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

// sandboxLayerPackage resolves the sandbox layer as OpenClaw's
// resolveSandboxToolPolicyForAgent does (sandbox/tool-policy.ts): each of
// allow, alsoAllow and deny from the agent's tools.sandbox.tools, else the
// global one; an explicit allow: [] means no allow list; alsoAllow joins
// the explicit allow list, or the default one when allow is not written;
// a default deny entry that an explicit allow or alsoAllow entry matches
// is lifted (an explicit deny replaces the defaults instead); a deny that
// matches image also denies view_image; and a non-empty allow list admits
// view_image unless it is denied. Groups are expanded here, as OpenClaw
// expands them, so the layer's lists (and what a child inherits from
// them) are tool names and globs.
func (e *effective) sandboxLayerPackage(agentPath string, as, gs *Scope) *cLayer {
	r := e.rel
	pick := func(get func(*Scope) List, key string) (List, string, bool) {
		if as != nil && get(as).Set {
			return get(as), agentPath + "." + key, true
		}
		if gs != nil && get(gs).Set {
			return get(gs), "tools.sandbox.tools." + key, true
		}
		return List{}, "", false
	}
	allowL, allowPath, allowSet := pick(func(s *Scope) List { return s.Allow }, "allow")
	alsoL, alsoPath, alsoSet := pick(func(s *Scope) List { return s.AlsoAllow }, "alsoAllow")
	denyL, denyPath, denySet := pick(func(s *Scope) List { return s.Deny }, "deny")

	// mergeAllowlist.
	var allow []string
	allowRule := "sandbox default allow"
	switch {
	case allowSet && len(allowL.Items) == 0:
		allowRule = allowPath
	case allowSet:
		allow = append(slices.Clone(allowL.Items), alsoL.Items...)
		allowRule = allowPath
	default:
		allow = append(slices.Clone(r.SandboxAllow), alsoL.Items...)
	}
	if alsoSet && len(alsoL.Items) > 0 && len(allow) > 0 {
		allowRule += " (with " + alsoPath + ")"
	}

	// The deny list: the explicit one, or the defaults less what an
	// explicit allow entry matches.
	deny := slices.Clone(denyL.Items)
	denyRule := denyPath
	if !denySet {
		denyRule = "sandbox default deny"
		explicit := append(slices.Clone(allowL.Items), alsoL.Items...)
		lift := r.expandGroups(explicit)
		deny = nil
		for _, t := range r.SandboxDeny {
			if !r.globsMatch(lift, r.normalize(t)) {
				deny = append(deny, t)
			}
		}
	}

	// expandResolvedPolicy.
	denyX := r.expandGroups(deny)
	allowX := r.expandGroups(allow)
	if r.globsMatch(denyX, "image") && !r.globsMatch(denyX, "view_image") {
		denyX = append(denyX, "view_image")
	}
	if len(allowX) > 0 && !contains(denyX, "view_image") && !contains(allowX, "view_image") {
		allowX = append(allowX, "view_image")
	}
	allowList := r.compileList(allowRule, allowX, e.rev, nil, e.cat)
	denyList := r.compileList(denyRule, denyX, e.rev, nil, e.cat)
	return e.newLayer(lSandbox, "sandboxed session", func(c *cLayer) {
		c.addDeny(denyList, denyCodes[lSandbox], recEntry)
		c.addAllow(allowList)
		if c.nAllow > 0 {
			c.allowRule = allowRule
		}
	})
}

// expandGroups is OpenClaw's expandToolGroups: entries normalized, a group
// replaced by its members, blanks and repeats dropped.
func (r *Release) expandGroups(items []string) []string {
	var out []string
	for _, it := range items {
		n := r.normalize(it)
		if n == "" {
			continue
		}
		members, ok := r.Groups[n]
		if !ok {
			members = []string{n}
		}
		for _, m := range members {
			if !contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// globsMatch reports whether one of the expanded entries, read as globs
// (OpenClaw's compileGlobPatterns: "*", an exact name, or a pattern in
// which '*' matches a run of characters), matches the normalized name t.
func (r *Release) globsMatch(entries []string, t string) bool {
	for _, x := range entries {
		n := r.normalize(x)
		switch {
		case n == "":
		case n == "*":
			return true
		case strings.IndexByte(n, '*') < 0:
			if n == t {
				return true
			}
		case jsGlobMatch(n, t):
			return true
		}
	}
	return false
}
