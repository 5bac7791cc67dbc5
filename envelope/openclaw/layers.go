package openclaw

import (
	"strconv"
	"strings"

	"github.com/sessionledger/ledger/envelope"
)

// The layers of section 5.1, in order.
const (
	lProfile = iota
	lProviderProfile
	lGlobal
	lProvider
	lAgent
	lAgentProvider
	lGroup
	lSender
	lSandbox
	lSubagent
	lInherited
	nLayers
)

var layerNames = [nLayers]string{"profile", "provider_profile", "global", "provider", "agent",
	"agent_provider", "group", "sender", "sandbox", "subagent", "inherited"}

// Reason codes, spelled out so that building a reason never allocates.
var (
	denyCodes = [nLayers]string{"profile:deny", "provider_profile:deny", "global:deny", "provider:deny",
		"agent:deny", "agent_provider:deny", "group:deny", "sender:deny", "sandbox:deny", "subagent:deny",
		"inherited:deny"}
	allowCodes = [nLayers]string{"profile:allow", "provider_profile:allow", "global:allow",
		"provider:allow", "agent:allow", "agent_provider:allow", "group:allow", "sender:allow",
		"sandbox:allow", "subagent:allow", "inherited:allow"}
)

const (
	codeHardDeny         = "subagent:hard_deny"
	codeDepthCap         = "subagent:depth_cap"
	codeCatalogueUnknown = "catalogue:unknown"
)

// Where a deny group's reason record comes from.
const (
	recEntry     uint8 = iota // the entry's own record (its revision or grant)
	recOrigin                 // the session's spawn record (built-in sub-agent deny)
	recInherited              // the record that applied the envelope
)

// denyGroup is one deny group of a layer (section 3.1).
type denyGroup struct {
	list *plist
	code string
	rec  uint8
}

// cLayer is a layer compiled for the policy catalogue: its deny groups and
// allow list, and the verdict on every catalogue tool, so that the pipeline
// reads one table entry per tool and layer. It is immutable once built.
type cLayer struct {
	rel         *Release
	li          int
	detail      string
	deny        [3]denyGroup
	nDeny       int
	allow       [4]*plist
	nAllow      int
	allowRule   string
	ceil        *ceiling // the inherited layer's ceiling, when it has one
	restrictive bool
	v           []int32 // per policy-catalogue index: a verdict code
}

// Verdict codes: kept, an allow-list miss, a ceiling miss, or a deny hit
// encoded as group<<28 | entry.
const (
	vKept      int32 = -1
	vAllowMiss int32 = -2
	vCeilMiss  int32 = -3
	entryBits        = 28
)

// newLayer builds a layer with fill and pre-computes its verdicts.
func (e *effective) newLayer(li int, detail string, fill func(*cLayer)) *cLayer {
	c := &cLayer{rel: e.rel, li: li, detail: detail}
	fill(c)
	star := false
	for a := 0; a < c.nAllow; a++ {
		star = star || c.allow[a].star
	}
	c.restrictive = c.ceil != nil || (c.nAllow > 0 && !star)
	c.v = make([]int32, len(e.cat.names))
	for i, t := range e.cat.names {
		c.v[i] = c.eval(i, t)
	}
	return c
}

func (c *cLayer) addDeny(list *plist, code string, rec uint8) {
	if list.empty() {
		return
	}
	c.deny[c.nDeny] = denyGroup{list: list, code: code, rec: rec}
	c.nDeny++
}

func (c *cLayer) addAllow(list *plist) {
	if list.empty() {
		return
	}
	c.allow[c.nAllow] = list
	c.nAllow++
}

// eval is section 3.1 for one tool: i is its policy-catalogue index, or -1
// for a tool only the session adds.
func (c *cLayer) eval(i int, t string) int32 {
	for g := 0; g < c.nDeny; g++ {
		if h := c.deny[g].list.hit(i, t); h >= 0 {
			return int32(g)<<entryBits | h
		}
	}
	if c.ceil != nil && !c.ceil.admits(i, t) {
		return vCeilMiss
	}
	if c.nAllow == 0 || c.admitted(i, t) >= 0 {
		return vKept
	}
	return vAllowMiss
}

// verdict is eval from the table when the tool is in the policy catalogue.
func (c *cLayer) verdict(i int, t string) int32 {
	if i >= 0 {
		return c.v[i]
	}
	return c.eval(i, t)
}

// admitted reports which allow part admits t: its index, nAllow for a
// compatibility rule of section 2.5, or -1.
func (c *cLayer) admitted(i int, t string) int {
	for a := 0; a < c.nAllow; a++ {
		if c.allow[a].hit(i, t) >= 0 {
			return a
		}
	}
	switch t {
	case "apply_patch":
		for a := 0; a < c.nAllow; a++ {
			if c.allow[a].write {
				return c.nAllow
			}
		}
	case "skills_read":
		if c.rel.Rules != rulesSpec {
			return -1
		}
		for g := 0; g < c.nDeny; g++ {
			if c.deny[g].list.read {
				return -1
			}
		}
		for a := 0; a < c.nAllow; a++ {
			if c.allow[a].read {
				return c.nAllow
			}
		}
	}
	return -1
}

// pipeline is a session's resolved layers (nil: absent) and what reasons
// and capture need besides.
type pipeline struct {
	rel       *Release
	layers    [nLayers]*cLayer
	rev       *envelope.RecordRef
	origin    *envelope.RecordRef // the session's spawn record (children)
	inherited *envelope.RecordRef // the record that applied the envelope
	applied   *envelope.Envelope
	// senderSource: the group or sender layer is present (section 9 source).
	senderSource bool
	details      [nLayers]string // only when tracing
}

// decide runs the pipeline on one tool: the deciding layer (or -1) and its
// verdict code.
func (p *pipeline) decide(i int, t string) (int, int32) {
	for li, c := range p.layers {
		if c == nil {
			continue
		}
		if v := c.verdict(i, t); v != vKept {
			return li, v
		}
	}
	return -1, vKept
}

// reason turns a removal verdict of layer li into its reason.
func (p *pipeline) reason(li int, v int32) envelope.Reason {
	c := p.layers[li]
	switch v {
	case vAllowMiss:
		return envelope.Reason{Code: allowCodes[li], Rule: c.allowRule, Record: p.rev}
	case vCeilMiss:
		return envelope.Reason{Code: allowCodes[lInherited], Rule: "inherited_allow", Record: p.inherited}
	}
	d := &c.deny[v>>entryBits]
	h := v & (1<<entryBits - 1)
	rec := d.list.recs[h]
	switch d.rec {
	case recOrigin:
		rec = p.origin
	case recInherited:
		rec = p.inherited
	}
	return envelope.Reason{Code: d.code, Rule: d.list.rules[h], Record: rec}
}

// restrictive reports whether any layer has a restrictive allow list,
// counting a ceiling in the applied envelope (section 2.6).
func (p *pipeline) restrictive() bool {
	for _, c := range p.layers {
		if c != nil && c.restrictive {
			return true
		}
	}
	return false
}

// resolve builds session s's pipeline at the position w is folded to.
func (e *effective) resolve(w envelope.World, s *envelope.Session, p *pipeline, trace bool) {
	p.rel = e.rel
	ap := e.agent(s.Agent)
	root := rootOf(w, s)
	var provider, model, channel string
	if root != nil && root.Start != nil {
		provider, model, channel = root.Start.Provider, root.Start.Model, root.Start.Channel
	}
	source, sender := s.Context.Source, s.Context.Sender
	if source == "" {
		// No context recorded yet: the dialect's default (section 4).
		source, sender = envelope.SourcePersistedChild, ""
		if s.Root() {
			source = envelope.SourceCurrentRequest
			if s.Start != nil {
				sender = s.Start.Sender
			}
		}
	}
	p.rev = e.rev
	L := &p.layers

	// 1 profile.
	L[lProfile] = ap.profile

	// 2 provider profile: AP's profile and alsoAllow when present, else GP's.
	var buf [256]byte
	if e.rel.Rules == rulesPackage {
		// OpenClaw's resolveProviderToolPolicyEntry: the provider trimmed
		// and read as a byProvider key, the model trimmed.
		provider, model = e.rel.providerKey(provider), e.rel.lower(e.rel.trim(model))
	}
	gp := lookupProvider(e.providers, provider, model, &buf)
	agp := lookupProvider(ap.providers, provider, model, &buf)
	var key ppKey
	if gp != nil {
		key = ppKey{rule: gp.profileRule, also: gp.also}
	}
	if agp != nil {
		if agp.profile != nil {
			key.rule = agp.profileRule
		}
		if agp.alsoSet {
			key.also = agp.also
		}
	}
	if key.rule != "" {
		L[lProviderProfile] = e.pp[key]
	}

	// 3-6 global, provider, agent, agent provider.
	L[lGlobal] = e.global.compiled()
	if gp != nil {
		L[lProvider] = gp.scope.compiled()
	}
	L[lAgent] = ap.tools.compiled()
	if agp != nil {
		L[lAgentProvider] = agp.scope.compiled()
	}

	// 7-8 group and sender: only for current_request turns.
	if source == envelope.SourceCurrentRequest {
		// groupChannel and groups are where the group layer looks: the
		// conversation's channel and candidate ids when the root names its
		// conversation (in OpenClaw's order, first configured wins), else
		// its channel and its one group, as recorded before conversations
		// were.
		var groupChannel string
		var groups []string
		if root != nil && root.Start != nil {
			if st := root.Start; st.Conversation != "" {
				groupChannel, groups = conversationGroups(st.Conversation)
			} else if st.Group != "" {
				groupChannel, groups = channel, []string{st.Group}
			}
		}
		if e.rel.Rules == rulesPackage {
			// The sender layer's channel is the channel of the session's
			// own key when it is a delivery route, else the message's
			// (resolveSenderToolPolicy); a child's key never is one.
			ch := e.rel.channelID(channel)
			if s.Root() && s.Start != nil && s.Start.Conversation != "" {
				if rc := deliveryRouteChannel(s.Start.Conversation); rc != "" {
					ch = e.rel.channelID(rc)
				}
			}
			L[lGroup] = e.groupPackage(e.rel.channelID(groupChannel), groups, sender).compiled()
			sc, ok := e.senderMatchPackage(ap.senders, ch, sender)
			if !ok {
				sc, _ = e.senderMatchPackage(e.senders, ch, sender)
			}
			L[lSender] = sc.compiled()
		} else {
			if groupChannel != "" {
				// The first candidate configured, as written (one, for a
				// record from before conversations).
				for _, gid := range groups {
					if g := e.channels[groupChannel][gid]; g != nil {
						sc, ok := senderMatch(g.senders, groupChannel, sender, &buf)
						if !ok {
							sc = g.tools
						}
						L[lGroup] = sc.compiled()
						break
					}
				}
			}
			sc, ok := senderMatch(ap.senders, channel, sender, &buf)
			if !ok {
				sc, _ = senderMatch(e.senders, channel, sender, &buf)
			}
			L[lSender] = sc.compiled()
		}
		p.senderSource = L[lGroup] != nil || L[lSender] != nil
	}

	// 9 sandbox.
	if s.Facts.Sandboxed {
		L[lSandbox] = ap.sandbox
	}

	// 10 sub-agent: every child, every turn, whatever its source.
	if !s.Root() {
		o := s.Origin
		p.origin = &o
		L[lSubagent] = e.subOrch
		if s.Depth >= e.maxDepth {
			L[lSubagent] = e.subLeaf
		}
		if trace {
			p.details[lSubagent] = "sub-agent at depth " + strconv.Itoa(s.Depth) + ", role " + role(s.Depth, e.maxDepth)
		}
	}

	// 11 inherited: the applied envelope.
	if env := s.Applied(); env != nil {
		p.applied = env
		ce := e.envelope(env)
		p.inherited = p.origin
		if s.Context.Captured != nil && s.Context.Continuation != nil {
			c := *s.Context.Continuation
			p.inherited = &c
		}
		floor := e.floorApplies(w, s, env)
		L[lInherited] = ce.deny
		if floor {
			L[lInherited] = ce.floor
		}
		if trace {
			p.details[lInherited] = "envelope captured from " + string(env.Requester)
			if floor {
				p.details[lInherited] += "; the delegation floor of " + string(env.Delegated.Requester) + " applies"
			}
		}
	}
	if trace {
		for li, c := range L {
			if c != nil && p.details[li] == "" {
				p.details[li] = c.detail
			}
		}
	}
}

func (s *scopeLayer) compiled() *cLayer {
	if s == nil {
		return nil
	}
	return s.layer
}

// rootOf walks a session's spawn records up to its root (at most 64 hops;
// real lineages are at most 5 deep).
func rootOf(w envelope.World, s *envelope.Session) *envelope.Session {
	for hops := 0; s != nil && !s.Root() && hops < 64; hops++ {
		s = w.Session(s.Parent)
	}
	if s != nil && !s.Root() {
		return nil
	}
	return s
}

// lookupProvider finds the byProvider entry for a session's provider and
// model (section 5.2): "<provider>/<model>" when a model is known, then
// "<provider>", lower-cased; keys were trimmed and lower-cased at compile.
// The key is built in buf so that the lookup does not allocate.
func lookupProvider(m map[string]*providerScope, provider, model string, buf *[256]byte) *providerScope {
	if m == nil || provider == "" {
		return nil
	}
	if model != "" {
		if ps, ok := m[string(appendLower(appendLower(appendLower(buf[:0], provider), "/"), model))]; ok {
			return ps
		}
	}
	return m[string(appendLower(buf[:0], provider))]
}

// appendLower appends s lower-cased to b.
func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return append(b, strings.ToLower(s[i:])...)
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// senderMatch finds the first of "channel:C:s", "id:s" and "*" present in m
// (section 5.2); the entry may be empty and still wins.
func senderMatch(m map[string]*scopeLayer, channel, sender string, buf *[256]byte) (*scopeLayer, bool) {
	if m == nil {
		return nil, false
	}
	if sender != "" {
		if channel != "" {
			k := append(append(append(append(buf[:0], "channel:"...), channel...), ':'), sender...)
			if sc, ok := m[string(k)]; ok {
				return sc, true
			}
		}
		k := append(append(buf[:0], "id:"...), sender...)
		if sc, ok := m[string(k)]; ok {
			return sc, true
		}
	}
	sc, ok := m["*"]
	return sc, ok
}

// groupPackage resolves the group policy as OpenClaw's
// resolveChannelGroupToolsPolicy does for a session whose candidate group
// ids in channel ch are ids: the first candidate the channel configures is
// the session's group; its sender match, else its tools; and when no
// candidate is configured, or the one found configures neither, the same
// from the channel's "*" group. A group that writes tools: {} stops there,
// with no layer.
func (e *effective) groupPackage(ch string, ids []string, sender string) *scopeLayer {
	if ch == "" || len(ids) == 0 {
		return nil
	}
	groups := e.channels[ch]
	node := func(gp *groupPolicy) (*scopeLayer, bool) {
		if gp == nil {
			return nil, false
		}
		if sc, ok := e.senderMatchPackage(gp.senders, ch, sender); ok {
			return sc, true
		}
		return gp.tools, gp.toolsSet
	}
	for _, g := range ids {
		if gp, ok := groups[g]; ok {
			if sc, ok := node(gp); ok {
				return sc
			}
			break
		}
	}
	sc, _ := node(groups["*"])
	return sc
}

// senderMatchPackage finds a turn's sender in a sender map of the packaged
// releases (keyed by canonical spelling), as OpenClaw's
// matchToolsBySenderPolicy: channel:<channel>:<id> for each id candidate,
// then id:<id> for each, then "*". The ledger knows a sender by its id
// only, so e164:, username: and name: keys never match.
func (e *effective) senderMatchPackage(m map[string]*scopeLayer, ch, sender string) (*scopeLayer, bool) {
	if m == nil {
		return nil, false
	}
	cands := e.rel.senderCandidates(sender)
	if sc := e.rel.senderChannel(ch); sc != "" {
		for _, c := range cands {
			if s, ok := m["channel:"+sc+":"+c]; ok {
				return s, true
			}
		}
	}
	for _, c := range cands {
		if s, ok := m["id:"+c]; ok {
			return s, true
		}
	}
	s, ok := m["*"]
	return s, ok
}
