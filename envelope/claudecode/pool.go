package claudecode

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// The pool reasons (section 13).
const (
	codeCatalogueUnknown  = "catalogue:unknown"
	codePermissionDeny    = "permission:deny"
	codeCoordinator       = "coordinator:not_dispatch"
	codeFirstFilter       = "first_filter:subagent"
	codeNotPlanMode       = "first_filter:not_plan_mode"
	codeMaxDepth          = "depth_limit:max_depth"
	codeBackground        = "background_filter:not_kept"
	codeDisallowed        = "agent_disallowed:listed"
	codeNotListed         = "agent_tools:not_listed"
	codeNotConfigured     = "agent_tools:not_configured"
	codeTypeNotListed     = "agent_tools:type_not_listed"
	codeParentPool        = "inherited:parent_pool"
	codeNotCaptured       = "continuation:not_captured"
	codeDontAsk           = "mode:dontAsk"
	codePermissionAsk     = "permission:ask"
	codeUserInteraction   = "safety:user_interaction"
	codeCriticalPath      = "safety:critical_path"
	codeProtectedPath     = "safety:protected_path"
	codeModePlan          = "mode:plan"
	codeDefaultPrompt     = "default:prompt"
	codePermissionAllow   = "permission:allow"
	codeModeBypass        = "mode:bypassPermissions"
	codeModeAcceptEdits   = "mode:acceptEdits"
	codeDefaultReadOnly   = "default:read_only"
	codeDefaultNoPermFree = "default:no_permission"
)

// layer is one pool layer of section 7.2, in order.
type layer uint8

const (
	lCatalogue layer = iota
	lSessionDeny
	lCoordinator
	lFirstFilter
	lPlanMode
	lDepth
	lBackground
	lDisallowed
	lTools
	lInherited
	lContinuation
	numLayers
)

var layerNames = [numLayers]string{
	"catalogue", "session_deny", "coordinator", "first_filter", "first_filter_plan_mode",
	"depth_limit", "background_filter", "agent_disallowed", "agent_tools", "inherited", "continuation",
}

// sessionKind is how a session started (section 7.1).
type sessionKind uint8

const (
	kindRoot sessionKind = iota
	kindSub
	kindFork
	kindTeammate
)

func (k sessionKind) role() string {
	return [...]string{"main", "subagent", "fork", "teammate"}[k]
}

func kindOf(s *envelope.Session) sessionKind {
	switch {
	case s.Spawn == nil:
		return kindRoot
	case s.Spawn.Fork:
		return kindFork
	case s.Spawn.Teammate:
		return kindTeammate
	}
	return kindSub
}

// view is everything a resolution reads about one session at one position.
type view struct {
	e     *Effective
	s     *envelope.Session
	kind  sessionKind
	mode  string
	bg    bool
	coord bool
	// capturing: the pool is being captured for a child (the coordinator
	// layer does not apply, section 7.4).
	capturing bool
	// skipAgent: layers 8 and 9 are left out (the zero-tools check).
	skipAgent bool

	agent      string
	def        *agentDef
	defMissing bool

	extra   []string // session catalogue additions beyond the policy catalogue
	p       []string // captured parent pool (sorted), children only
	pExtra  []string // the spawn's own MCP additions (sorted)
	k       []string // captured pool of the continuation in force
	hasK    bool
	pSorted bool
	kSorted bool

	// records handed out in reasons, allocated once per view.
	revRef, originRef, catRef, contRef *envelope.RecordRef
}

func newView(e *Effective, s *envelope.Session, capturing bool) *view {
	v := &view{e: e, s: s, kind: kindOf(s), mode: s.Facts.Mode, bg: s.Facts.Background, capturing: capturing}
	if v.mode == "" {
		v.mode = modeDefault
	}
	v.agent = s.Agent
	switch v.kind {
	case kindRoot:
		if s.Start != nil {
			v.coord = s.Start.Coordinator
			if v.agent == "" {
				v.agent = s.Start.Agent
			}
		}
	default:
		if v.agent == "" {
			v.agent = s.Spawn.Agent
		}
		if v.kind != kindFork && s.Spawn.Background != nil && *s.Spawn.Background {
			v.bg = true
		}
	}
	if v.kind != kindFork && v.agent != agentMain && !(v.kind == kindRoot && v.agent == "") {
		v.def = e.c.agent(v.agent)
		v.defMissing = v.def == nil
	}
	for _, t := range s.Tools {
		t = normalizeTool(t)
		if !e.catSet[t] && !slices.Contains(v.extra, t) {
			v.extra = append(v.extra, t)
		}
	}
	if v.kind != kindRoot {
		if env := s.Envelope; env != nil {
			v.p, v.pExtra = env.InheritedAllow, env.ExtraTools
		}
		v.pSorted = slices.IsSorted(v.p) && slices.IsSorted(v.pExtra)
	}
	if c := s.Context.Captured; c != nil {
		v.k, v.hasK = c.InheritedAllow, true
		v.kSorted = slices.IsSorted(v.k)
	}
	return v
}

func contains(list []string, sorted bool, t string) bool {
	if sorted {
		_, ok := slices.BinarySearch(list, t)
		return ok
	}
	return slices.Contains(list, t)
}

// catalogue returns the session's catalogue: the policy catalogue, then the
// additions of its ancestors and its own, de-duplicated, in order.
func (v *view) catalogue() []string {
	if len(v.extra) == 0 {
		return v.e.cat
	}
	return append(slices.Clip(v.e.cat), v.extra...)
}

func (v *view) inCatalogue(t string) bool {
	return v.e.catSet[t] || slices.Contains(v.extra, t)
}

func (v *view) inP(t string) bool {
	return contains(v.p, v.pSorted, t) || contains(v.pExtra, v.pSorted, t)
}

func (v *view) rev() *envelope.RecordRef {
	if v.revRef == nil {
		r := v.e.rev
		v.revRef = &r
	}
	return v.revRef
}

func (v *view) origin() *envelope.RecordRef {
	if v.originRef == nil {
		r := v.s.Origin
		v.originRef = &r
	}
	return v.originRef
}

func (v *view) catRecord(p *envelope.PolicyState) *envelope.RecordRef {
	if v.catRef == nil {
		r := v.e.rev
		if p != nil && p.CatalogueRecord.Seq != 0 {
			r = p.CatalogueRecord
		}
		v.catRef = &r
	}
	return v.catRef
}

func (v *view) continuation() *envelope.RecordRef {
	if v.contRef == nil && v.s.Context.Continuation != nil {
		r := *v.s.Context.Continuation
		v.contRef = &r
	}
	return v.contRef
}

// endExempt reports whether EndConversation escapes layer 2: at least one
// other catalogue tool is not matched by a bare deny rule.
func (v *view) endExempt() bool {
	for _, t := range v.catalogue() {
		if t != toolEndConversation && v.e.bareDenied(t) == nil {
			return true
		}
	}
	return false
}

// applies reports whether layer l applies to this session.
func (v *view) applies(l layer) bool {
	switch l {
	case lCoordinator:
		return v.kind == kindRoot && v.coord && !v.capturing
	case lFirstFilter, lPlanMode:
		return v.kind == kindSub || v.kind == kindTeammate
	case lDepth:
		return v.kind != kindRoot
	case lBackground:
		return (v.kind == kindSub || v.kind == kindTeammate) && v.bg
	case lDisallowed:
		return !v.skipAgent && (v.def != nil || v.defMissing)
	case lTools:
		return !v.skipAgent && v.def != nil && v.def.limited()
	case lInherited:
		return v.kind != kindRoot
	case lContinuation:
		return v.hasK
	}
	return true
}

// remove runs layer l on tool t and returns the reason when it removes it.
// detail, when non-nil, receives what the layer held (for the trace).
func (v *view) remove(l layer, t string, exempt bool, p *envelope.PolicyState, detail *string) *envelope.Reason {
	switch l {
	case lCatalogue:
		if !v.inCatalogue(t) {
			return &envelope.Reason{Code: codeCatalogueUnknown, Record: v.catRecord(p)}
		}
	case lSessionDeny:
		if rr := v.e.bareDenied(t); rr != nil {
			if t == toolEndConversation && exempt {
				if detail != nil {
					*detail = "EndConversation is exempt from deny rules while another tool remains"
				}
				return nil
			}
			rec := rr.rec
			return &envelope.Reason{Code: codePermissionDeny, Rule: rr.where, Record: &rec}
		}
	case lCoordinator:
		if !isCoordinatorTool(t) {
			if detail != nil {
				*detail = "coordinator mode keeps " + coordinatorList
			}
			return &envelope.Reason{Code: codeCoordinator, Rule: "coordinator: true", Record: v.origin()}
		}
	case lFirstFilter:
		if isFirstFiltered(t) {
			if detail != nil {
				*detail = "removed from every sub-agent: " + firstFilterList
			}
			return &envelope.Reason{Code: codeFirstFilter, Record: v.origin()}
		}
	case lPlanMode:
		if t == toolExitPlanMode && v.mode != modePlan {
			if detail != nil {
				*detail = "ExitPlanMode stays only in plan mode"
			}
			return &envelope.Reason{Code: codeNotPlanMode, Rule: "mode: " + strconv.Quote(v.mode), Record: v.origin()}
		}
	case lDepth:
		if detail != nil {
			*detail = fmt.Sprintf("depth %d, maxSubagentDepth %d", v.s.Depth, v.e.c.maxDepth)
		}
		if t == toolAgent && v.s.Depth >= v.e.c.maxDepth {
			return &envelope.Reason{Code: codeMaxDepth, Rule: "maxSubagentDepth: " + strconv.Itoa(v.e.c.maxDepth), Record: v.rev()}
		}
	case lBackground:
		if !isMCP(t) && !isBackgroundKept(t) && t != toolAgent && t != toolExitPlanMode &&
			!(v.kind == kindTeammate && isTeamKept(t)) {
			if detail != nil {
				*detail = "background keep-list: " + backgroundKeepList
				if v.kind == kindTeammate {
					*detail += "; team keep-list: " + teamKeepList
				}
			}
			return &envelope.Reason{Code: codeBackground, Rule: "background: true", Record: v.origin()}
		}
	case lDisallowed:
		if v.defMissing {
			if detail != nil {
				*detail = "the definition of agent " + strconv.Quote(v.agent) + " no longer exists"
			}
			return &envelope.Reason{Code: codeNotConfigured, Rule: "agent: " + strconv.Quote(v.agent), Record: v.rev()}
		}
		for i := range v.def.disallowed {
			if e := &v.def.disallowed[i]; e.match(t, true) {
				if detail != nil {
					*detail = v.def.where()
				}
				return &envelope.Reason{Code: codeDisallowed, Rule: "disallowedTools: " + strconv.Quote(e.text), Record: v.rev()}
			}
		}
	case lTools:
		for i := range v.def.tools {
			if v.def.tools[i].match(t, false) {
				return nil
			}
		}
		if v.kind == kindTeammate && slices.Contains(teammateAdditions, t) {
			return nil
		}
		if detail != nil {
			*detail = v.def.where()
			if v.kind == kindTeammate {
				*detail += " (teammate additions: SendMessage, TaskCreate, TaskGet, TaskList, TaskUpdate)"
			}
		}
		return &envelope.Reason{Code: codeNotListed, Rule: "tools: " + quoteList(v.def.tools), Record: v.rev()}
	case lInherited:
		if !v.inP(t) {
			return &envelope.Reason{Code: codeParentPool, Rule: "inherited_allow", Record: v.origin()}
		}
	case lContinuation:
		if !contains(v.k, v.kSorted, t) {
			return &envelope.Reason{Code: codeNotCaptured, Rule: "captured inherited_allow", Record: v.continuation()}
		}
	}
	return nil
}

// reason returns the reason of the first layer that removes t, nil when t
// is in the pool. trace, when non-nil, receives one step per layer.
func (v *view) reason(t string, exempt bool, p *envelope.PolicyState, trace *[]envelope.Step) *envelope.Reason {
	var found *envelope.Reason
	for l := lCatalogue; l < numLayers; l++ {
		if found != nil {
			if trace != nil {
				*trace = append(*trace, envelope.Step{Layer: layerNames[l], Outcome: envelope.Skipped})
			}
			continue
		}
		if !v.applies(l) {
			if trace != nil {
				*trace = append(*trace, envelope.Step{Layer: layerNames[l], Outcome: envelope.Absent})
			}
			continue
		}
		var detail string
		var dp *string
		if trace != nil {
			dp = &detail
		}
		r := v.remove(l, t, exempt, p, dp)
		if trace != nil {
			st := envelope.Step{Layer: layerNames[l], Outcome: envelope.Kept, Detail: detail}
			if r != nil {
				st.Outcome, st.Reason = envelope.Removed, r
			}
			*trace = append(*trace, st)
		}
		found = r
	}
	return found
}

// pool resolves every catalogue tool: the allowed ones in catalogue order,
// and each removed one with its reason.
func (v *view) pool(p *envelope.PolicyState) envelope.ToolSet {
	cat := v.catalogue()
	ts := envelope.ToolSet{Allowed: make([]string, 0, len(cat)), Denied: []envelope.Denial{}}
	exempt, exemptKnown := false, false
	for _, t := range cat {
		if t == toolEndConversation && !exemptKnown {
			exempt, exemptKnown = v.endExempt(), true
		}
		if r := v.reason(t, exempt, p, nil); r != nil {
			ts.Denied = append(ts.Denied, envelope.Denial{Tool: t, Reason: *r})
		} else {
			ts.Allowed = append(ts.Allowed, t)
		}
	}
	return ts
}

// sessionFacts is the session a dialect method was handed, checked.
func checkSession(s *envelope.Session) error {
	if s == nil {
		return events.Errorf(events.CodeUnknownSession, "no session given; name an existing session")
	}
	return nil
}
