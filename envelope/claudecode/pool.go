package claudecode

import (
	"slices"
	"strconv"

	"github.com/sessionledger/ledger/envelope"
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
	codeSymlinkWrite      = "safety:symlink_write"
	codeModePlan          = "mode:plan"
	codeDefaultPrompt     = "default:prompt"
	codePermissionAllow   = "permission:allow"
	codeModeBypass        = "mode:bypassPermissions"
	codeModeAcceptEdits   = "mode:acceptEdits"
	codeDefaultReadOnly   = "default:read_only"
	codeDefaultNoPermFree = "default:no_permission"
	codeSearchViaBash     = "release:search_via_bash"
	codeNotMainThread     = "release:plan_agent_only"
	codeDenyInScript      = "permission:deny_in_script"
	codeRedirect          = "safety:redirect"
	codePathScope         = "safety:path_scope"
	codeWriteExpansion    = "safety:write_expansion"
	codeCopyOptions       = "safety:copy_options"
	codeUncheckedCommand  = "safety:unchecked_command"
	codeBackgroundOp      = "safety:background"
	codeReadBlock         = "safety:read_block"
	codeWriteBlock        = "safety:write_block"
	codePreapproved       = "default:preapproved"
)

// worktreeBlocked reports EnterWorktree and ExitWorktree under
// permissions.blockWritesOutsideWorkingDirectories, which takes them out
// of the tools on offer, as they move the working directory (row 126,
// TestDifferential/blockwrites-*).
func worktreeBlocked(c *Compiled, t string) bool {
	return c.blockWrites && (t == "EnterWorktree" || t == "ExitWorktree")
}

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
	lRelease
	numLayers
)

var layerNames = [numLayers]string{
	"catalogue", "session_deny", "coordinator", "first_filter", "first_filter_plan_mode",
	"depth_limit", "background_filter", "agent_disallowed", "agent_tools", "inherited", "continuation",
	"release",
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
// It is made once per query and keeps the strings and records its reasons
// hand out, so a pool over many tools allocates little.
type view struct {
	e     *Effective
	p     *envelope.PolicyState
	s     *envelope.Session
	kind  sessionKind
	mode  string
	bg    bool
	coord bool
	// capturing: the pool is being captured for a child (the coordinator
	// layer does not apply, section 7.4).
	capturing bool
	// brief: the decision makes no trace and no trace details
	// (DecideBrief).
	brief bool
	// noBare: bare Bash allow rules approve nothing (toolApproves).
	noBare bool
	// ruleDirs, when set, are the working directories a revocation's
	// deny rule is read below (workDirs): the policy's, as the session's
	// own deny rules are.
	ruleDirs []inPath

	agent      string
	def        *agentDef
	defMissing bool

	extra  []string // session catalogue additions beyond the policy catalogue
	pool   []string // captured parent pool (sorted), children only
	pExtra []string // the spawn's own MCP additions (sorted)
	k      []string // captured pool of the continuation in force

	active [numLayers]bool // which layers apply to this session
	dc     *defCache       // the definition's verdicts over the policy catalogue
	// pMask and kMask mark, per policy catalogue tool, membership in the
	// parent pool and the continuation's pool (resolve only; nil: scan).
	pMask, kMask []bool
	maskArr      [2][64]bool // their storage for catalogues up to 64 tools

	// bash: whether Bash is in the pool (0 not known yet, 1 in, 2 out),
	// for the release layer.
	bash uint8

	// handed out in reasons, made once per view.
	recs     []*envelope.RecordRef
	recBuf   [4]*envelope.RecordRef // recs' storage for the first records
	modeRule string
}

func newView(e *Effective, p *envelope.PolicyState, s *envelope.Session, capturing bool) *view {
	v := &view{e: e, p: p, s: s, kind: kindOf(s), mode: sessionMode(s, e.c), bg: s.Facts.Background, capturing: capturing}
	v.recs = v.recBuf[:0]
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
		v.dc = e.defs[v.def]
	}
	for _, t := range s.Tools {
		t = normalizeTool(t)
		if !e.catSet[t] && !slices.Contains(v.extra, t) {
			v.extra = append(v.extra, t)
		}
	}
	if v.kind != kindRoot {
		if env := s.Envelope; env != nil {
			v.pool, v.pExtra = env.InheritedAllow, env.ExtraTools
		}
	}
	if c := s.Context.Captured; c != nil {
		v.k = c.InheritedAllow
		v.active[lContinuation] = true
	}
	sub := v.kind == kindSub || v.kind == kindTeammate
	v.active[lCatalogue] = true
	v.active[lSessionDeny] = true
	v.active[lCoordinator] = v.kind == kindRoot && v.coord && !capturing
	v.active[lFirstFilter] = sub
	// A pool captured for a child keeps ExitPlanMode: a child whose own
	// definition says plan gets it from a parent in any mode, a sub-agent
	// too (TestDifferential/genagents-nested-plan-*, main:na-outer:na-plan).
	v.active[lPlanMode] = sub && !capturing
	v.active[lDepth] = v.kind != kindRoot
	v.active[lBackground] = sub && v.bg
	v.active[lDisallowed] = v.def != nil || v.defMissing
	v.active[lTools] = v.def != nil && v.def.limited()
	v.active[lInherited] = v.kind != kindRoot
	// A pool captured for a child skips the release layer: a child's own
	// pool decides (an agent whose tools: names Grep but not Bash gets Grep
	// under a main thread that has Bash; a plan-mode child gets
	// ExitPlanMode though its main thread never has it).
	v.active[lRelease] = (e.c.release != nil || e.c.blockWrites) && !capturing
	return v
}

// bashInPool reports whether Bash survives every layer of this session's
// pool (the release layer never removes Bash, so this cannot recurse). For
// an agent without a tools list (or with '*'), its disallowedTools is left
// out: such an agent gets its parent's tools, which lack Grep and Glob
// when they hold Bash, before its disallowedTools removes Bash
// (TestDifferential/agents-disallowed-bash: b-alone and b-star have no
// Grep or Glob; b-named, whose tools name them, keeps them).
//
// For a sub-agent spawned by a sub-agent the pool it inherited is left out
// too: Claude Code 2.1.328 resolves such a child from the tools its parent
// was given, not from what the parent's definition kept of them, so a
// parent whose disallowedTools removed Bash does not give its child Grep
// and Glob (TestDifferential/genagents-nested-search). The child is
// still capped by that inherited pool (section 0.3, a child never exceeds
// its envelope), so it may then have neither.
func (v *view) bashInPool() bool {
	if v.bash == 0 {
		idx := slices.Index(v.e.cat, toolBash)
		v.bash = 2
		saved := v.active
		if v.def != nil && !v.def.limited() {
			v.active[lDisallowed] = false
		}
		if v.kind == kindSub && v.s.Depth >= 2 {
			v.active[lInherited] = false
		}
		if (idx >= 0 || v.inCatalogue(toolBash)) && v.firstLayer(toolBash, idx, false) == numLayers {
			v.bash = 1
		}
		v.active = saved
	}
	return v.bash == 1
}

// planDef reports whether this is a sub-agent whose own definition's
// permissionMode is plan: it keeps ExitPlanMode though its parent's
// bypassPermissions or acceptEdits mode is its mode (Claude Code 2.1.328:
// TestDifferential/agents-modes-acceptEdits and
// agents-modes-bypassPermissions, main:pm-plan).
func (v *view) planDef() bool {
	return v.kind == kindSub && v.def != nil && v.def.mode == modePlan
}

func isSearchTool(t string) bool { return t == toolGrep || t == toolGlob }

// releaseRemoves is the release layer: what the document's release does
// beyond the written spec's layers (release.go).
func (v *view) releaseRemoves(t string) bool {
	if worktreeBlocked(v.e.c, t) {
		return true
	}
	r := v.e.c.release
	switch {
	case r == nil:
		return false
	case r.searchViaBash && isSearchTool(t):
		return !slices.Contains(v.e.c.toolsFlag, t) && v.bashInPool()
	case r.planToolSubOnly && t == toolExitPlanMode:
		// Only a sub-agent whose own definition says plan; one that is in
		// plan mode because its parent is does not get it
		// (TestDifferential/mode-plan, main:plain and main:gp).
		return !(v.kind == kindSub && v.def != nil && v.def.mode == modePlan)
	}
	return false
}

// skipAgentLayers leaves out layers 8 and 9 (the zero-tools check).
func (v *view) skipAgentLayers() {
	v.active[lDisallowed], v.active[lTools] = false, false
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
	return slices.Contains(v.pool, t) || slices.Contains(v.pExtra, t)
}

// ref returns a pointer to a copy of r, one per distinct record per view.
func (v *view) ref(r envelope.RecordRef) *envelope.RecordRef {
	for _, p := range v.recs {
		if *p == r {
			return p
		}
	}
	p := new(envelope.RecordRef) // not &r: that would move r to the heap on every call
	*p = r
	v.recs = append(v.recs, p)
	return p
}

func (v *view) rev() *envelope.RecordRef    { return v.ref(v.e.rev) }
func (v *view) origin() *envelope.RecordRef { return v.ref(v.s.Origin) }

func (v *view) catRecord() *envelope.RecordRef {
	if v.p != nil && v.p.CatalogueRecord.Seq != 0 {
		return v.ref(v.p.CatalogueRecord)
	}
	return v.rev()
}

func (v *view) continuation() *envelope.RecordRef {
	if c := v.s.Context.Continuation; c != nil {
		return v.ref(*c)
	}
	return nil
}

// modeText renders the session's mode as a reason names it.
func (v *view) modeText() string {
	if v.modeRule == "" {
		v.modeRule = "mode: " + strconv.Quote(v.mode)
	}
	return v.modeRule
}

// endExempt reports whether EndConversation escapes layer 2: at least one
// other catalogue tool is not matched by a bare deny rule.
func (v *view) endExempt() bool {
	for i, t := range v.e.cat {
		if t != toolEndConversation && v.e.catDeny[i] < 0 {
			return true
		}
	}
	for _, t := range v.extra {
		if v.e.bareDenied(t) == nil {
			return true
		}
	}
	return false
}

// denyOf returns the bare deny rule removing t: looked up by catalogue
// index when t is a policy catalogue tool (idx >= 0), else computed.
func (v *view) denyOf(t string, idx int) *ruleRef {
	if idx >= 0 && idx < len(v.e.catDeny) {
		if i := v.e.catDeny[idx]; i >= 0 {
			return &v.e.bareDeny[i]
		}
		return nil
	}
	return v.e.bareDenied(t)
}

// removes reports whether layer l removes tool t (idx: its index in the
// policy catalogue, or -1). It builds nothing: the reason is made by why,
// for the one layer that removes the tool.
func (v *view) removes(l layer, t string, idx int, exempt bool) bool {
	switch l {
	case lCatalogue:
		return idx < 0 && !v.inCatalogue(t)
	case lSessionDeny:
		return v.denyOf(t, idx) != nil && !(t == toolEndConversation && exempt)
	case lCoordinator:
		return !isCoordinatorTool(t)
	case lFirstFilter:
		return isFirstFiltered(t)
	case lPlanMode:
		return t == toolExitPlanMode && v.mode != modePlan && !v.planDef()
	case lDepth:
		return t == toolAgent && v.s.Depth >= v.e.c.maxDepth
	case lBackground:
		return !isMCP(t) && !isBackgroundKept(t) && t != toolAgent && t != toolExitPlanMode &&
			!(v.kind == kindTeammate && isTeamKept(t))
	case lDisallowed:
		return v.defMissing || v.disallowedEntry(t) != nil
	case lTools:
		for i := range v.def.tools {
			if v.def.tools[i].match(t, false) {
				return false
			}
		}
		return !(v.kind == kindTeammate && slices.Contains(teammateAdditions, t))
	case lInherited:
		return !v.inP(t)
	case lContinuation:
		return !slices.Contains(v.k, t)
	case lRelease:
		return v.releaseRemoves(t)
	}
	return false
}

func (v *view) disallowedEntry(t string) *toolEntry {
	if i := v.def.disallowedIndex(t); i >= 0 {
		return &v.def.disallowed[i]
	}
	return nil
}

// why is the reason of layer l, which removes t.
func (v *view) why(l layer, t string, idx int) envelope.Reason {
	switch l {
	case lCatalogue:
		return envelope.Reason{Code: codeCatalogueUnknown, Record: v.catRecord()}
	case lSessionDeny:
		rr := v.denyOf(t, idx)
		return envelope.Reason{Code: codePermissionDeny, Rule: rr.where, Record: v.ref(rr.rec)}
	case lCoordinator:
		return envelope.Reason{Code: codeCoordinator, Rule: "coordinator: true", Record: v.origin()}
	case lFirstFilter:
		return envelope.Reason{Code: codeFirstFilter, Record: v.origin()}
	case lPlanMode:
		return envelope.Reason{Code: codeNotPlanMode, Rule: v.modeText(), Record: v.origin()}
	case lDepth:
		return envelope.Reason{Code: codeMaxDepth, Rule: v.e.c.maxDepthRule, Record: v.rev()}
	case lBackground:
		return envelope.Reason{Code: codeBackground, Rule: "background: true", Record: v.origin()}
	case lDisallowed:
		if v.defMissing {
			return envelope.Reason{Code: codeNotConfigured, Rule: "agent: " + strconv.Quote(v.agent), Record: v.rev()}
		}
		return envelope.Reason{Code: codeDisallowed, Rule: v.disallowedEntry(t).rule, Record: v.rev()}
	case lTools:
		return envelope.Reason{Code: codeNotListed, Rule: v.def.toolsRule, Record: v.rev()}
	case lInherited:
		return envelope.Reason{Code: codeParentPool, Rule: "inherited_allow", Record: v.origin()}
	case lRelease:
		if worktreeBlocked(v.e.c, t) {
			return envelope.Reason{Code: codeWriteBlock, Rule: "permissions.blockWritesOutsideWorkingDirectories: true", Record: v.rev()}
		}
		if t == toolExitPlanMode {
			return envelope.Reason{Code: codeNotMainThread, Rule: v.e.c.releaseRule, Record: v.rev()}
		}
		return envelope.Reason{Code: codeSearchViaBash, Rule: v.e.c.releaseRule, Record: v.rev()}
	default:
		return envelope.Reason{Code: codeNotCaptured, Rule: "captured inherited_allow", Record: v.continuation()}
	}
}

// detail says, for the trace, what layer l held.
func (v *view) detail(l layer, t string, exempt bool) string {
	switch l {
	case lSessionDeny:
		if t == toolEndConversation && exempt && v.denyOf(t, -1) != nil {
			return "EndConversation is exempt from deny rules while another tool remains"
		}
	case lCoordinator:
		return "coordinator mode keeps " + coordinatorList
	case lFirstFilter:
		return "sub-agents never get " + firstFilterList
	case lPlanMode:
		return "ExitPlanMode stays only in plan mode; mode " + v.mode
	case lDepth:
		return "depth " + strconv.Itoa(v.s.Depth) + ", maxSubagentDepth " + strconv.Itoa(v.e.c.maxDepth)
	case lBackground:
		if v.kind == kindTeammate {
			return "background keep-list: " + backgroundKeepList + "; team keep-list: " + teamKeepList
		}
		return "background keep-list: " + backgroundKeepList
	case lDisallowed:
		if v.defMissing {
			return "the definition of agent " + strconv.Quote(v.agent) + " no longer exists"
		}
		return v.def.where() + " " + v.def.disallowedRule
	case lTools:
		if v.kind == kindTeammate {
			return v.def.where() + " " + v.def.toolsRule + " plus SendMessage, TaskCreate, TaskGet, TaskList, TaskUpdate"
		}
		return v.def.where() + " " + v.def.toolsRule
	case lInherited:
		return "the pool captured from " + strconv.Quote(string(v.s.Parent)) + " at spawn"
	case lContinuation:
		return "the pool captured by the continuation in force"
	case lRelease:
		switch {
		case isSearchTool(t):
			return "Claude Code " + v.e.c.release.name + " gives Grep and Glob only to a pool without Bash, or when --tools (document.tools) names them"
		case t == toolExitPlanMode:
			return "Claude Code " + v.e.c.release.name + " gives ExitPlanMode only to a sub-agent whose definition's permissionMode is plan"
		}
	}
	return ""
}

// reason returns the reason of the first layer that removes t; ok is false
// when t is in the pool. trace, when non-nil, receives one step per layer.
func (v *view) reason(t string, idx int, exempt bool, trace *[]envelope.Step) (envelope.Reason, bool) {
	for l := lCatalogue; l < numLayers; l++ {
		if !v.active[l] {
			if trace != nil {
				*trace = append(*trace, envelope.Step{Layer: layerNames[l], Outcome: envelope.Absent})
			}
			continue
		}
		removed := v.removes(l, t, idx, exempt)
		if !removed {
			if trace != nil {
				*trace = append(*trace, envelope.Step{Layer: layerNames[l], Outcome: envelope.Kept, Detail: v.detail(l, t, exempt)})
			}
			continue
		}
		r := v.why(l, t, idx)
		if trace != nil {
			rc := r // a copy: taking r's address would move r to the heap
			*trace = append(*trace, envelope.Step{Layer: layerNames[l], Outcome: envelope.Removed, Detail: v.detail(l, t, exempt), Reason: &rc})
			for l++; l < numLayers; l++ {
				*trace = append(*trace, envelope.Step{Layer: layerNames[l], Outcome: envelope.Skipped})
			}
		}
		return r, true
	}
	return envelope.Reason{}, false
}

// firstLayer is reason without the reason: the first layer that removes t,
// or numLayers when t is in the pool. It is the hot path of a pool
// resolution, so the layers are written out rather than looped over.
func (v *view) firstLayer(t string, idx int, exempt bool) layer {
	a := &v.active
	if idx >= 0 && idx < len(v.e.catProps) && (v.def == nil || v.dc != nil) {
		return v.firstLayerAt(t, idx, exempt)
	}
	switch {
	case idx < 0 && !v.inCatalogue(t):
		return lCatalogue
	case v.denyOf(t, idx) != nil && !(t == toolEndConversation && exempt):
		return lSessionDeny
	case a[lCoordinator] && !isCoordinatorTool(t):
		return lCoordinator
	case a[lFirstFilter] && isFirstFiltered(t):
		return lFirstFilter
	case a[lPlanMode] && t == toolExitPlanMode && v.mode != modePlan && !v.planDef():
		return lPlanMode
	case a[lDepth] && t == toolAgent && v.s.Depth >= v.e.c.maxDepth:
		return lDepth
	case a[lBackground] && v.removes(lBackground, t, idx, exempt):
		return lBackground
	case a[lDisallowed] && (v.defMissing || v.disallowedEntry(t) != nil):
		return lDisallowed
	case a[lTools] && v.removes(lTools, t, idx, exempt):
		return lTools
	case a[lInherited] && !v.inP(t):
		return lInherited
	case a[lContinuation] && !slices.Contains(v.k, t):
		return lContinuation
	case a[lRelease] && v.releaseRemoves(t):
		return lRelease
	}
	return numLayers
}

// firstLayerAt is firstLayer for a policy catalogue tool: everything fixed
// about the name and the definition was worked out by Effective.
func (v *view) firstLayerAt(t string, idx int, exempt bool) layer {
	a := &v.active
	pr := v.e.catProps[idx]
	switch {
	case v.e.catDeny[idx] >= 0 && !(t == toolEndConversation && exempt):
		return lSessionDeny
	case a[lCoordinator] && pr&propCoordinator == 0:
		return lCoordinator
	case a[lFirstFilter] && pr&propFirstFiltered != 0:
		return lFirstFilter
	case a[lPlanMode] && pr&propExitPlanMode != 0 && v.mode != modePlan && !v.planDef():
		return lPlanMode
	case a[lDepth] && pr&propAgent != 0 && v.s.Depth >= v.e.c.maxDepth:
		return lDepth
	case a[lBackground] && pr&(propMCP|propBackgroundKept|propAgent|propExitPlanMode) == 0 &&
		!(v.kind == kindTeammate && pr&propTeamKept != 0):
		return lBackground
	case a[lDisallowed] && (v.defMissing || v.dc.disallowed[idx] >= 0):
		return lDisallowed
	case a[lTools] && !v.dc.listed[idx] && !(v.kind == kindTeammate && pr&propTeammateAddition != 0):
		return lTools
	case a[lInherited] && !(v.pMask != nil && v.pMask[idx] || v.pMask == nil && v.inP(t)):
		return lInherited
	case a[lContinuation] && !(v.kMask != nil && v.kMask[idx] || v.kMask == nil && slices.Contains(v.k, t)):
		return lContinuation
	case a[lRelease] && v.releaseRemoves(t):
		return lRelease
	}
	return numLayers
}

// markIn marks which policy catalogue tools are in a sorted list (the
// captured parent pool, the captured pool of a continuation), merging it
// with the catalogue in name order: linear, where a search per tool would
// cost a scan each. It returns nil when the list is not sorted; callers then
// fall back to scanning.
func (v *view) markIn(list []string, buf []bool) []bool {
	if !slices.IsSorted(list) {
		return nil
	}
	mask := buf
	if len(v.e.cat) > len(buf) {
		mask = make([]bool, len(v.e.cat))
	}
	mask = mask[:len(v.e.cat)]
	for _, i := range v.e.catOrder {
		t := v.e.cat[i]
		for len(list) > 0 && list[0] < t {
			list = list[1:]
		}
		mask[i] = len(list) > 0 && list[0] == t
	}
	return mask
}

// resolve resolves every catalogue tool: the allowed ones in catalogue
// order, and each removed one with its reason. A first pass finds each
// tool's layer so both lists are allocated at their exact size.
func (v *view) resolve() envelope.ToolSet {
	cat := v.catalogue()
	var buf [64]layer
	layers := buf[:0]
	if len(cat) > len(buf) {
		layers = make([]layer, 0, len(cat))
	}
	if v.active[lInherited] && len(v.pExtra) == 0 {
		v.pMask = v.markIn(v.pool, v.maskArr[0][:])
	}
	if v.active[lContinuation] {
		v.kMask = v.markIn(v.k, v.maskArr[1][:])
	}
	exempt, exemptKnown := false, false
	denied := 0
	for i, t := range cat {
		idx := i
		if i >= len(v.e.cat) {
			idx = -1
		}
		if t == toolEndConversation && !exemptKnown {
			exempt, exemptKnown = v.endExempt(), true
		}
		l := v.firstLayer(t, idx, exempt)
		if l < numLayers {
			denied++
		}
		layers = append(layers, l)
	}
	ts := envelope.ToolSet{Allowed: make([]string, 0, len(cat)-denied), Denied: make([]envelope.Denial, 0, denied)}
	for i, t := range cat {
		if l := layers[i]; l < numLayers {
			idx := i
			if i >= len(v.e.cat) {
				idx = -1
			}
			ts.Denied = append(ts.Denied, envelope.Denial{Tool: t, Reason: v.why(l, t, idx)})
		} else {
			ts.Allowed = append(ts.Allowed, t)
		}
	}
	return ts
}
