package openclaw

import (
	"strconv"

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

// denyGroup is one deny group of a layer (section 3.1). rec, when set,
// overrides the entries' own records (built-in and inherited lists).
type denyGroup struct {
	list *plist
	code string
	rec  *envelope.RecordRef
}

// layer is one resolved layer of a session's pipeline.
type layer struct {
	present     bool
	restrictive bool
	detail      string
	deny        [3]denyGroup
	nDeny       int
	allow       [3]*plist
	nAllow      int
	allowCode   string
	allowRule   string
	allowRec    *envelope.RecordRef
	ceil        *compiledEnv // inherited layer with a ceiling
}

// pipeline is a session's resolved layers and what capture needs besides.
type pipeline struct {
	layers  [nLayers]layer
	applied *envelope.Envelope
	// senderSource: the group or sender layer is present (section 9 source).
	senderSource bool
}

func (l *layer) addDeny(list *plist, code string, rec *envelope.RecordRef) {
	if list.empty() {
		return
	}
	l.deny[l.nDeny] = denyGroup{list: list, code: code, rec: rec}
	l.nDeny++
}

func (l *layer) addAllow(list *plist) {
	if list.empty() {
		return
	}
	l.allow[l.nAllow] = list
	l.nAllow++
}

// fromScope fills layer li from a scope by the scope rule (section 3.2).
func (l *layer) fromScope(li int, s *scopeLayer, rev *envelope.RecordRef) {
	if !s.present() {
		return
	}
	l.present = true
	l.detail = s.detail
	l.addDeny(s.deny, denyCodes[li], nil)
	if !s.allow.empty() {
		l.addAllow(s.allow)
		l.addAllow(s.also)
		l.restrictive = s.restrictive()
		l.allowCode, l.allowRule, l.allowRec = allowCodes[li], s.allowRule, rev
	}
}

// eval runs the layer on one tool (section 3.1): i is the tool's index in
// the policy catalogue, or -1 for a tool only the session adds.
func (l *layer) eval(i int, t string) (bool, envelope.Reason) {
	for g := 0; g < l.nDeny; g++ {
		d := &l.deny[g]
		if h := d.list.hit(i, t); h >= 0 {
			rec := d.rec
			if rec == nil {
				rec = d.list.recs[h]
			}
			return true, envelope.Reason{Code: d.code, Rule: d.list.rules[h], Record: rec}
		}
	}
	if l.ceil != nil && !l.ceil.admits(i, t) {
		return true, envelope.Reason{Code: allowCodes[lInherited], Rule: "inherited_allow", Record: l.allowRec}
	}
	if l.nAllow == 0 || l.admitted(i, t) >= 0 {
		return false, envelope.Reason{}
	}
	return true, envelope.Reason{Code: l.allowCode, Rule: l.allowRule, Record: l.allowRec}
}

// admitted reports which allow part admits t: its index, or nAllow for a
// compatibility rule of section 2.5, or -1.
func (l *layer) admitted(i int, t string) int {
	for a := 0; a < l.nAllow; a++ {
		if l.allow[a].hit(i, t) >= 0 {
			return a
		}
	}
	switch t {
	case "apply_patch":
		for a := 0; a < l.nAllow; a++ {
			if l.allow[a].write {
				return l.nAllow
			}
		}
	case "skills_read":
		for g := 0; g < l.nDeny; g++ {
			if l.deny[g].list.read {
				return -1
			}
		}
		for a := 0; a < l.nAllow; a++ {
			if l.allow[a].read {
				return l.nAllow
			}
		}
	}
	return -1
}

// decide runs the pipeline on one tool: the deciding layer (or -1) and its
// reason.
func (p *pipeline) decide(i int, t string) (int, envelope.Reason) {
	for li := range p.layers {
		l := &p.layers[li]
		if !l.present {
			continue
		}
		if removed, r := l.eval(i, t); removed {
			return li, r
		}
	}
	return -1, envelope.Reason{}
}

// restrictive reports whether any layer has a restrictive allow list,
// counting a ceiling in the applied envelope (section 2.6).
func (p *pipeline) restrictive() bool {
	for li := range p.layers {
		if p.layers[li].present && p.layers[li].restrictive {
			return true
		}
	}
	return false
}

// resolve builds session s's pipeline at the position w is folded to.
func (e *effective) resolve(w envelope.World, s *envelope.Session, p *pipeline, trace bool) {
	ap := e.agent(s.Agent)
	root := rootOf(w, s)
	var provider, model, channel, group string
	if root != nil && root.Start != nil {
		provider, model, channel, group = root.Start.Provider, root.Start.Model, root.Start.Channel, root.Start.Group
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
	var origin *envelope.RecordRef // allocated only when a reason needs it
	originRef := func() *envelope.RecordRef {
		if origin == nil {
			o := s.Origin
			origin = &o
		}
		return origin
	}
	L := &p.layers

	// 1 profile.
	if pr := ap.profile; pr.present() {
		l := &L[lProfile]
		l.present = true
		if trace {
			l.detail = "profile " + pr.id
		}
		l.addAllow(pr.list)
		l.addAllow(pr.also)
		l.restrictive = !pr.also.hasStar()
		l.allowCode, l.allowRule, l.allowRec = allowCodes[lProfile], pr.allowRule, e.rev
	}

	var buf [256]byte
	gp := lookupProvider(e.providers, provider, model, &buf)
	agp := lookupProvider(ap.providers, provider, model, &buf)

	// 2 provider profile: AP's profile and alsoAllow when present, else GP's.
	var pid *string
	var also *plist
	var alsoPath, pidRule string
	if gp != nil {
		pid, pidRule, also, alsoPath = gp.profile, gp.profileRule, gp.also, gp.alsoPath
	}
	if agp != nil {
		if agp.profile != nil {
			pid, pidRule = agp.profile, agp.profileRule
		}
		if agp.alsoSet {
			also, alsoPath = agp.also, agp.alsoPath
		}
	}
	if pid != nil {
		if pl, ok := e.profiles[*pid]; ok {
			l := &L[lProviderProfile]
			l.present = true
			l.addAllow(pl)
			l.addAllow(also)
			l.restrictive = !also.hasStar()
			l.allowCode, l.allowRule, l.allowRec = allowCodes[lProviderProfile], pidRule, e.rev
			if trace {
				l.detail = "provider profile " + *pid
				if !also.empty() {
					l.detail += " with " + alsoPath
				}
			}
		}
	}

	// 3-6 global, provider, agent, agent provider.
	L[lGlobal].fromScope(lGlobal, e.global, e.rev)
	if gp != nil {
		L[lProvider].fromScope(lProvider, gp.scope, e.rev)
	}
	L[lAgent].fromScope(lAgent, ap.tools, e.rev)
	if agp != nil {
		L[lAgentProvider].fromScope(lAgentProvider, agp.scope, e.rev)
	}

	// 7-8 group and sender: only for current_request turns.
	if source == envelope.SourceCurrentRequest {
		if channel != "" && group != "" {
			if g := e.channels[channel][group]; g != nil {
				sc, ok := senderMatch(g.senders, channel, sender, &buf)
				if !ok {
					sc = g.tools
				}
				L[lGroup].fromScope(lGroup, sc, e.rev)
			}
		}
		sc, ok := senderMatch(ap.senders, channel, sender, &buf)
		if !ok {
			sc, _ = senderMatch(e.senders, channel, sender, &buf)
		}
		L[lSender].fromScope(lSender, sc, e.rev)
		p.senderSource = L[lGroup].present || L[lSender].present
	}

	// 9 sandbox.
	if s.Facts.Sandboxed {
		sb := ap.sandbox
		l := &L[lSandbox]
		l.present = true
		if trace {
			l.detail = "sandboxed session"
		}
		l.addDeny(sb.deny, denyCodes[lSandbox], nil)
		for a := 0; a < sb.nAllow; a++ {
			l.addAllow(sb.allow[a])
		}
		if l.nAllow > 0 {
			l.restrictive = sb.restrictive
			l.allowCode, l.allowRule, l.allowRec = allowCodes[lSandbox], sb.allowRule, e.rev
		}
	}

	// 10 sub-agent: every child, every turn, whatever its source.
	if !s.Root() {
		l := &L[lSubagent]
		l.present = true
		if trace {
			l.detail = "sub-agent at depth " + strconv.Itoa(s.Depth) + ", role " + role(s.Depth, e.maxDepth)
		}
		l.addDeny(e.hard, codeHardDeny, originRef())
		if s.Depth >= e.maxDepth {
			l.addDeny(e.depthCap, codeDepthCap, e.rev)
		}
		if sc := e.subagents; sc != nil {
			l.addDeny(sc.deny, denyCodes[lSubagent], nil)
			if !sc.allow.empty() {
				l.addAllow(sc.allow)
				l.addAllow(sc.also)
				l.restrictive = sc.restrictive()
				l.allowCode, l.allowRule, l.allowRec = allowCodes[lSubagent], sc.allowRule, e.rev
			}
		}
	}

	// 11 inherited: the applied envelope.
	if env := s.Applied(); env != nil {
		p.applied = env
		ce := e.envelope(env)
		rec := originRef()
		if s.Context.Captured != nil && s.Context.Continuation != nil {
			c := *s.Context.Continuation
			rec = &c
		}
		l := &L[lInherited]
		l.present = true
		deny := ce.deny
		floor := e.floorApplies(w, s, env)
		if floor {
			deny = ce.floor
		}
		if trace {
			l.detail = "envelope captured from " + string(env.Requester)
			if floor {
				l.detail += "; delegation floor of " + string(env.Delegated.Requester) + " applies"
			}
		}
		l.addDeny(deny, denyCodes[lInherited], rec)
		if ce.hasCeil {
			l.ceil, l.restrictive, l.allowRec = ce, true, rec
		}
	}
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
func lookupProvider(m map[string]*providerScope, provider, model string, buf *[256]byte) *providerScope {
	if m == nil || provider == "" {
		return nil
	}
	if model != "" {
		if k, ok := appendLower(buf[:0], provider, "/", model); ok {
			if ps, found := m[string(k)]; found {
				return ps
			}
		}
	}
	if k, ok := appendLower(buf[:0], provider); ok {
		return m[string(k)]
	}
	return nil
}

// appendLower lower-cases ASCII parts into b; ok is false when a part is not
// ASCII, in which case the caller falls back to strings.ToLower.
func appendLower(b []byte, parts ...string) ([]byte, bool) {
	for _, s := range parts {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c >= 0x80 {
				return lowerSlow(parts), true
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
		}
	}
	return b, true
}

func lowerSlow(parts []string) []byte {
	var out []byte
	for _, s := range parts {
		out = append(out, []byte(toLower(s))...)
	}
	return out
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
