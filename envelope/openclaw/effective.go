package openclaw

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"

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
	agents        map[string]*agentPolicy
	fallback      *agentPolicy // agents without an entry of their own
	channels      map[string]map[string]*groupPolicy

	profiles           map[string]*plist
	hard, depthCap     *plist
	sbDefAllow, sbDeny *plist
	viewImage          *plist
	profileAllowRules  map[string]string

	envs sync.Map // envelope hash -> *compiledEnv
}

// scopeLayer is a config scope compiled by the scope rule (section 3.2).
type scopeLayer struct {
	allow, also, deny *plist
	allowRule         string
	detail            string
}

func (s *scopeLayer) present() bool { return s != nil && (!s.allow.empty() || !s.deny.empty()) }

// restrictive: the allow list (allow, then alsoAllow when allow is non-empty)
// is non-empty and has no "*" entry.
func (s *scopeLayer) restrictive() bool {
	return s != nil && !s.allow.empty() && !s.allow.hasStar() && !s.also.hasStar()
}

// providerScope is a byProvider entry.
type providerScope struct {
	key         string
	profile     *string
	profileRule string
	also        *plist
	alsoSet     bool
	alsoPath    string
	scope       *scopeLayer
}

// groupPolicy is channels.<channel>.groups.<group>.
type groupPolicy struct {
	tools   *scopeLayer
	senders map[string]*scopeLayer
}

// profileLayer is a resolved profile step: the profile list followed by the
// profile-stage alsoAllow.
type profileLayer struct {
	id        string
	list      *plist
	also      *plist
	allowRule string
}

func (p *profileLayer) present() bool { return p != nil && p.list != nil }

// sandboxLayer is the resolved sandbox layer of an agent (section 6.2).
type sandboxLayer struct {
	deny        *plist
	allow       [3]*plist
	nAllow      int
	restrictive bool
	allowRule   string
}

// agentPolicy is everything the pipeline and admission read for one agent.
type agentPolicy struct {
	id        string
	path      string // "agents.list[i]", "" for agents without an entry
	profile   *profileLayer
	tools     *scopeLayer
	providers map[string]*providerScope
	senders   map[string]*scopeLayer
	sandbox   *sandboxLayer
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
		e.global = e.scope("tools", &gt.Scope)
		e.globalProfile = gt.Profile
		e.globalAlso = gt.AlsoAllow
		e.providers = e.providerMap("tools.byProvider", gt.ByProvider)
		e.senders = e.senderMap("tools.toolsBySender", gt.ToolsBySender)
		if gt.Subagents != nil && gt.Subagents.Tools != nil {
			e.subagents = e.scope("tools.subagents.tools", gt.Subagents.Tools)
		}
	}
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
				gp := &groupPolicy{senders: e.senderMap(join(path, "toolsBySender"), g.ToolsBySender)}
				if g.Tools != nil {
					gp.tools = e.scope(join(path, "tools"), g.Tools)
				}
				gs[gid] = gp
			}
			e.channels[ch] = gs
		}
	}
	return e
}

func (e *effective) builtins() {
	e.profiles = map[string]*plist{}
	e.profileAllowRules = map[string]string{}
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

func (e *effective) scope(path string, s *Scope) *scopeLayer {
	if s == nil {
		return nil
	}
	sc := &scopeLayer{
		allow:  e.list(join(path, "allow"), s.Allow.Items, s.Allow.From),
		also:   e.list(join(path, "alsoAllow"), s.AlsoAllow.Items, s.AlsoAllow.From),
		deny:   e.list(join(path, "deny"), s.Deny.Items, s.Deny.From),
		detail: path,
	}
	sc.allowRule = join(path, "allow")
	if !sc.also.empty() {
		sc.allowRule += " (with " + join(path, "alsoAllow") + ")"
	}
	return sc
}

func (e *effective) providerMap(path string, m map[string]*ProviderDoc) map[string]*providerScope {
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
			key:         k,
			profile:     p.Profile,
			profileRule: rule,
			also:        e.list(join(kp, "alsoAllow"), p.AlsoAllow.Items, p.AlsoAllow.From),
			alsoSet:     p.AlsoAllow.Set,
			alsoPath:    join(kp, "alsoAllow"),
			scope:       e.scope(kp, &p.Scope),
		}
	}
	return out
}

func (e *effective) senderMap(path string, m map[string]*Scope) map[string]*scopeLayer {
	if m == nil {
		return nil
	}
	out := make(map[string]*scopeLayer, len(m))
	for k, s := range m {
		out[k] = e.scope(join(path, k), s)
	}
	return out
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
			ap.profile = &profileLayer{id: *profile, list: pl, also: e.list(alsoPath, also.Items, also.From)}
			ap.profile.allowRule = profilePath + ": " + strconv.Quote(*profile)
			if !ap.profile.also.empty() {
				ap.profile.allowRule += " (with " + alsoPath + ")"
			}
		}
	}

	var as *Scope
	if at != nil {
		ap.tools = e.scope(toolsPath, &at.Scope)
		ap.providers = e.providerMap(join(toolsPath, "byProvider"), at.ByProvider)
		ap.senders = e.senderMap(join(toolsPath, "toolsBySender"), at.ToolsBySender)
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

// sandboxLayer resolves the sandbox lists of section 6.2: each list from the
// first scope where its key is present, then the defaults.
func (e *effective) sandboxLayer(agentPath string, as, gs *Scope) *sandboxLayer {
	pick := func(get func(*Scope) List, key string) (List, string, bool) {
		if as != nil && get(as).Set {
			return get(as), agentPath + "." + key, true
		}
		if gs != nil && get(gs).Set {
			return get(gs), "tools.sandbox.tools." + key, true
		}
		return List{}, "", false
	}
	sb := &sandboxLayer{}
	var allow *plist
	if l, path, ok := pick(func(s *Scope) List { return s.Allow }, "allow"); ok {
		allow = e.list(path, l.Items, l.From)
		sb.allowRule = path
	} else {
		allow = e.sbDefAllow
		sb.allowRule = "sandbox default allow"
	}
	if l, path, ok := pick(func(s *Scope) List { return s.Deny }, "deny"); ok {
		sb.deny = e.list(path, l.Items, l.From)
	} else {
		sb.deny = e.sbDeny
	}
	if allow.empty() {
		return sb // allow: [] means no allow list
	}
	sb.allow[0], sb.nAllow = allow, 1
	star := allow.star
	if l, path, ok := pick(func(s *Scope) List { return s.AlsoAllow }, "alsoAllow"); ok {
		if also := e.list(path, l.Items, l.From); also != nil {
			sb.allow[sb.nAllow] = also
			sb.nAllow++
			star = star || also.star
			sb.allowRule += " (with " + path + ")"
		}
	}
	matched := false
	for i := 0; i < sb.nAllow; i++ {
		if sb.allow[i].match("view_image") >= 0 {
			matched = true
		}
	}
	if !matched && sb.deny.match("view_image") < 0 {
		sb.allow[sb.nAllow] = e.viewImage
		sb.nAllow++
	}
	sb.restrictive = !star
	return sb
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
