package claudecode

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// checkEvent runs the dialect's shape checks (section 13 step 1): values
// first (invalid_event), then a spawn's parent key (bad_session_key).
//
// Before them come the bounds on names (events.CheckNames) and, for a new
// policy document, checkNewDocument: checks the fold never makes, so a
// record accepted before they existed still folds (section 0.3).
func checkEvent(ev *events.Event, payload any) error {
	// The dialect's agent-name grammar is stricter than the generic bound
	// and says what to write: it speaks first.
	switch d := payload.(type) {
	case *events.StartedData:
		if err := checkAgentField(d.Agent); err != nil {
			return err
		}
		if len(d.PluginTools) > 0 {
			return events.Errorf(events.CodeInvalidEvent, "plugin_tools is an OpenClaw gateway's report of its plugins' tools; a claude-code session names none")
		}
	case *events.TurnData:
		// The mode Claude Code reported for the turn (the hook's
		// permission_mode), in force from it (section 0.2).
		if d.Mode != "" {
			if m, ok := parseMode(d.Mode); !ok || m != d.Mode {
				return events.Errorf(events.CodeInvalidEvent, "a turn's mode must be one of default, acceptEdits, plan, bypassPermissions, dontAsk, got %q", d.Mode)
			}
		}
	case *events.SpawnedData:
		if err := checkAgentField(d.Agent); err != nil {
			return err
		}
	}
	if err := events.CheckNames(payload); err != nil {
		return err
	}
	switch d := payload.(type) {
	case *events.PolicySetData:
		return checkNewDocument(d.Document)
	case *events.StartedData:
		if err := checkAgentField(d.Agent); err != nil {
			return err
		}
		if err := checkSessionTools(d.Tools); err != nil {
			return err
		}
		if d.Mode != "" {
			if _, ok := parseMode(d.Mode); !ok {
				if d.Mode == modeAuto {
					return events.Errorf(events.CodeInvalidEvent, "mode \"auto\" is not supported in the claude-code dialect; use one of %s", modeList)
				}
				return events.Errorf(events.CodeInvalidEvent, "unknown mode %q; use one of %s", d.Mode, modeList)
			}
		}
	case *events.SpawnedData:
		if err := checkAgentField(d.Agent); err != nil {
			return err
		}
		if err := checkSessionTools(d.Tools); err != nil {
			return err
		}
		if d.Fork != (d.Agent == agentFork) {
			if d.Fork {
				return events.Errorf(events.CodeInvalidEvent, "a fork spawn names agent \"fork\", got %q; set agent to \"fork\" or drop fork: true", d.Agent)
			}
			return events.Errorf(events.CodeInvalidEvent, "agent \"fork\" is reserved for forks; add fork: true or name another agent")
		}
		if d.Fork && d.Teammate {
			return events.Errorf(events.CodeInvalidEvent, "a spawn is a fork or a teammate, not both; drop fork or teammate")
		}
		if !events.ValidKey(d.Parent) {
			return events.Errorf(events.CodeBadSessionKey, "parent key %q must match [A-Za-z0-9_:-]{1,200}", d.Parent)
		}
	case *events.GrantData:
		return checkGrant(d)
	}
	return nil
}

func checkAgentField(a string) error {
	if !envelope.ValidAgentName(a) {
		return events.Errorf(events.CodeInvalidEvent, "agent %q is not an agent name: use 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit", a)
	}
	return nil
}

func checkSessionTools(tools []string) error {
	for i, t := range tools {
		if !validMCPName(t) {
			return events.Errorf(events.CodeInvalidEvent, "tools[%d] %q is not an MCP tool name; sessions may only add mcp__<server>__<tool> tools", i, t)
		}
	}
	return nil
}

// checkGrant accepts only well-formed permission grants (section 4.3).
func checkGrant(g *events.GrantData) error {
	if g.Kind != events.GrantPermission {
		return events.Errorf(events.CodeInvalidEvent, "grant kind %q does not exist in the claude-code dialect; use kind \"permission\"", g.Kind)
	}
	if g.Agent != "*" || g.Target != "*" {
		return events.Errorf(events.CodeInvalidEvent, "permission grants are session-wide: set agent and target to \"*\" (got %q and %q)", g.Agent, g.Target)
	}
	if g.Tools != nil {
		return events.Errorf(events.CodeInvalidEvent, "a permission grant takes no tools; put the tool in rule")
	}
	if _, ok := parseBehavior(g.Behavior); !ok {
		return events.Errorf(events.CodeInvalidEvent, "behavior %q must be allow, ask or deny", g.Behavior)
	}
	if _, err := compileRule(g.Rule); err != nil {
		return events.Errorf(events.CodeInvalidEvent, "rule %q does not parse: %v", g.Rule, err)
	}
	if err := checkRuleText(g.Rule); err != nil {
		return events.Errorf(events.CodeInvalidEvent, "rule %q: %v", g.Rule, err)
	}
	return nil
}

// checkNewDocument runs, on a policy document being set, the checks that
// are stricter than Compile (section 0.3): no control character in a key or
// in a string the dialect reads (descriptions and the ignored agent keys
// are free text, and left alone), every permission rule and tool entry
// passing checkRuleText, and maxSubagentDepth at most
// events.MaxSpawnDepth. A document Compile refuses is left to it, so its
// message stays the one it was.
func checkNewDocument(doc []byte) error {
	c, err := compileDocument(doc)
	if err != nil {
		return nil
	}
	err = events.WalkDocument(doc, func(path, s string, key bool) error {
		if !key && freeText(path) {
			return nil
		}
		what := path
		if key {
			what = "key " + strconv.Quote(s) + " of " + path
		}
		if err := events.CheckText(what, s, events.MaxRuleLen); err != nil {
			return policyErr(path, "%s", err.(*events.Error).Msg)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for b := bAllow; b <= bDeny; b++ {
		for i, r := range c.rules[b] {
			if err := checkRuleText(r.text); err != nil {
				return policyErr(fmt.Sprintf("document.permissions.%s[%d]", b, i), "rule %q: %v", r.text, err)
			}
		}
	}
	for _, name := range c.agentNames {
		a := c.agents[name]
		for _, l := range []struct {
			key     string
			entries []toolEntry
		}{{"tools", a.tools}, {"disallowedTools", a.disallowed}} {
			for i, e := range l.entries {
				if err := checkRuleText(e.text); err != nil {
					return policyErr(fmt.Sprintf("document.agents.%s.%s[%d]", name, l.key, i), "entry %q: %v", e.text, err)
				}
			}
		}
	}
	if c.maxDepth > events.MaxSpawnDepth {
		return policyErr("document.maxSubagentDepth", "must be an integer from 1 to %d (the ledger never grows a spawn tree deeper), got %d", events.MaxSpawnDepth, c.maxDepth)
	}
	return nil
}

// freeText reports a document string that is text for people or for other
// tools, not a name the dialect matches: an agent's description and what
// the ignored agent keys hold (prompts, hooks, MCP server settings).
func freeText(path string) bool {
	rest, ok := strings.CutPrefix(path, "document.agents.")
	if !ok {
		return false
	}
	_, field, ok := strings.Cut(rest, ".")
	if !ok {
		return false
	}
	field, _, _ = strings.Cut(field, ".")
	field, _, _ = strings.Cut(field, "[")
	return field == "description" || slices.Contains(ignoredKeys, field)
}

// rootMode picks a root session's mode (section 8.2): the first present and
// allowed of the session's mode, the main-thread agent's permissionMode,
// permissions.defaultMode, else default. A disabled bypass is skipped.
// sessionMode is the mode a session runs in now: the one its latest turn
// that named a mode reported (Claude Code's permission_mode, which the
// user may change mid-session), else the one fixed at its start or spawn.
// A reported bypassPermissions the policy disables keeps the fixed mode,
// as a written one does (rootMode). CLI: a run under --permission-mode
// acceptEdits reports acceptEdits in every payload (issue 25; the hook
// follows it: TestModeFollowsTurns).
func sessionMode(s *envelope.Session, c *Compiled) string {
	if m, ok := parseMode(s.Mode); ok && !(m == modeBypass && c.disableBypass) {
		return m
	}
	return s.Facts.Mode
}

func rootMode(written string, def *agentDef, c *Compiled) string {
	cands := []string{written, "", c.defaultMode}
	if def != nil {
		cands[1] = def.mode
	}
	for _, m := range cands {
		if m == "" {
			continue
		}
		m, ok := parseMode(m)
		if !ok || m == modeBypass && c.disableBypass {
			continue
		}
		return m
	}
	return modeDefault
}

// childMode decides a child's mode once at spawn (section 8.3).
func childMode(pm string, kind sessionKind, def *agentDef, c *Compiled) string {
	if pm == "" {
		pm = modeDefault
	}
	switch {
	case kind == kindFork || kind == kindTeammate:
		return pm
	// Nor does a plan parent's child leave plan mode: Claude Code 2.1.328
	// asked for touch and Write ("Cannot write ... while in plan mode") in
	// children whose permissionMode was acceptEdits, default or dontAsk
	// (TestDifferential/agents-modes-plan).
	case pm == modeBypass || pm == modeAcceptEdits || pm == modePlan:
		return pm
	// A definition's bypassPermissions does not take a child out of its
	// parent's mode: Claude Code 2.1.328 asked for Write, Edit and touch in
	// such a child under a default-mode parent (internal/claudecodetest
	// TestDifferential/custom-agents, main:bypasser).
	case def != nil && def.mode != "" && def.mode != modeBypass:
		return def.mode
	}
	return pm
}

// notConfigured is the agent_not_configured refusal, listing what exists.
func notConfigured(e *Effective, agent string) error {
	names := slices.Clone(e.c.agentNames)
	for _, b := range e.c.builtInOrder() {
		if e.c.builtIns[b] && e.c.agents[b] == nil {
			names = append(names, b)
		}
	}
	slices.Sort(names)
	known := "none"
	if len(names) > 0 {
		known = strings.Join(names, ", ")
	}
	return events.Errorf(events.CodeAgentNotConfigured,
		"agent %q is not configured: define it under document.agents or enable the built-in (agents available: %s)", agent, known)
}

// start admits a root session.
func start(e *Effective, d *events.StartedData) (envelope.Facts, error) {
	var def *agentDef
	if d.Agent != agentMain {
		if def = e.c.agent(d.Agent); def == nil {
			return envelope.Facts{}, notConfigured(e, d.Agent)
		}
	}
	return envelope.Facts{Mode: rootMode(d.Mode, def, e.c), Role: kindRoot.role()}, nil
}

// spawn runs checks 7 to 13 of section 10 and captures the envelope.
func (dl *Dialect) spawn(w envelope.World, key events.SessionKey, d *events.SpawnedData) (*envelope.Envelope, envelope.Facts, error) {
	p := w.Policy()
	e := effectiveOf(p)
	parent := w.Session(d.Parent)
	if parent == nil {
		return nil, envelope.Facts{}, events.UnknownParent(d.Parent)
	}
	kind := kindSub
	switch {
	case d.Fork:
		kind = kindFork
	case d.Teammate:
		kind = kindTeammate
	}
	// 7. The agent exists.
	var def *agentDef
	if kind != kindFork {
		if def = e.c.agent(d.Agent); def == nil {
			return nil, envelope.Facts{}, notConfigured(e, d.Agent)
		}
	}
	parentKind := kindOf(parent)
	// 8. No fork of a fork.
	if kind == kindFork && parentKind == kindFork {
		return nil, envelope.Facts{}, events.Errorf(events.CodeNestedFork, "%q is a fork and cannot fork again; fork from its parent %q", d.Parent, parent.Parent)
	}
	// 9. Teammates come from the lead only.
	if kind == kindTeammate && parentKind != kindRoot {
		return nil, envelope.Facts{}, events.Errorf(events.CodeNestedTeam, "only a root session (the lead) spawns teammates and %q is not one; spawn the teammate from the lead", d.Parent)
	}
	background := d.Background != nil && *d.Background || def != nil && def.background
	// 10. A teammate's sub-agents run in the foreground.
	if parentKind == kindTeammate && background {
		why := "background: true"
		if def != nil && def.background {
			why = def.where() + " has background: true"
		}
		return nil, envelope.Facts{}, events.Errorf(events.CodeBackgroundNotAllowed, "%q is a teammate and its sub-agents run in the foreground (%s); spawn it in the foreground", d.Parent, why)
	}
	// 11. Depth.
	depth := parent.Depth + 1
	if depth > e.c.maxDepth {
		return nil, envelope.Facts{}, events.Errorf(events.CodeDepthLimit, "the child would be at depth %d and maxSubagentDepth is %d; spawn from a shallower session or raise maxSubagentDepth", depth, e.c.maxDepth)
	}
	// 12. The parent may call Agent for this type (ask counts as approved).
	input := []byte(fmt.Sprintf(`{"subagent_type":%q}`, d.Agent))
	pv := newView(e, p, parent, false)
	if verdict := pv.decideTool(toolAgent, input); verdict.Decision == envelope.Deny {
		code := events.CodeAgentNotAllowed
		if verdict.Reason.Code == codeMaxDepth {
			code = events.CodeDepthLimit
		}
		rule := ""
		if verdict.Reason.Rule != "" {
			rule = " (" + verdict.Reason.Rule + ")"
		}
		return nil, envelope.Facts{}, events.Errorf(code, "%q may not spawn agent %q: its Agent call is denied by %s%s", d.Parent, d.Agent, verdict.Reason.Code, rule)
	}
	facts := envelope.Facts{
		Mode:       childMode(sessionMode(parent, e.c), kind, def, e.c),
		Background: background,
		Role:       kind.role(),
	}
	// The envelope: the parent's pool at this position, every layer but
	// the coordinator one (a continuation in force caps it).
	capture := newView(e, p, parent, true)
	allow := capture.resolve().Allowed
	slices.Sort(allow)
	allow = slices.Compact(allow)
	deny := []string{}
	for _, t := range capture.catalogue() {
		if _, found := slices.BinarySearch(allow, t); !found {
			deny = append(deny, t)
		}
	}
	slices.Sort(deny)
	deny = slices.Compact(deny)
	extra := []string{}
	for _, t := range d.Tools {
		extra = append(extra, normalizeTool(t))
	}
	slices.Sort(extra)
	extra = slices.Compact(extra)
	env := &envelope.Envelope{
		Requester:      d.Parent,
		Agent:          d.Agent,
		Depth:          depth,
		Role:           kind.role(),
		InheritedAllow: allow,
		InheritedDeny:  deny,
		Source:         "parent_pool",
		Revision:       e.rev.Seq,
		Background:     background,
		Mode:           facts.Mode,
		ExtraTools:     extra,
	}
	// 13. Zero tools.
	if kind != kindFork && def.limited() && len(def.tools) > 0 {
		child := &envelope.Session{
			Key: key, Agent: d.Agent, Parent: d.Parent, Depth: depth, State: envelope.Active,
			Spawn: d, Facts: facts, Envelope: env,
			Tools: append(slices.Clip(parent.Tools), d.Tools...),
		}
		if err := zeroTools(e, child, def, kind, p); err != nil {
			return nil, envelope.Facts{}, err
		}
	}
	return env, facts, nil
}

// zeroTools refuses a spawn whose tools list resolves to nothing (section
// 10): the pool is empty and at least one entry is not cancelled by
// disallowedTools.
func zeroTools(e *Effective, child *envelope.Session, def *agentDef, kind sessionKind, p *envelope.PolicyState) error {
	if len(newView(e, p, child, false).resolve().Allowed) > 0 {
		return nil
	}
	entries := slices.Clone(def.tools)
	if kind == kindTeammate {
		for _, t := range teammateAdditions {
			en, _ := compileEntry(t)
			entries = append(entries, en)
		}
	}
	na := newView(e, p, child, false)
	na.skipAgentLayers()
	cat := na.catalogue()
	exempt := na.endExempt()
	var unrecognized, unavailable, unmatched []string
	for i := range entries {
		en := &entries[i]
		exists, passing, cancelled := false, 0, true
		for _, t := range cat {
			if !en.match(t, false) {
				continue
			}
			exists = true
			if _, removed := na.reason(t, -1, exempt, nil); removed {
				continue
			}
			passing++
			// Only a disallowedTools entry without a specifier cancels
			// (cli.js UL's bareDisallowedToolSet): tools Bash(git:*) with
			// disallowedTools Bash(ls *) is refused, tools Bash with
			// disallowedTools Bash launches (row 118,
			// TestDifferential/zerotools-*; TestZeroToolsBareCancel).
			// An Agent entry is looked up as written (isToolDisallowed
			// of {name: entry}) among the disallowed entries' names, Task
			// read as Agent there: tools Task, Task(Explore),
			// Agent(Explore) or Agent(*) is never cancelled, not even by
			// disallowedTools Task or Agent, while tools Bash(git:*) is
			// by Bash (gen-agents seed 5503,
			// TestDifferential/zerotoolstask-*; TestZeroToolsTaskCancel).
			if (en.name == toolAgent && en.text != toolAgent) || !slices.ContainsFunc(def.disallowed, func(d toolEntry) bool { return d.bare && d.match(t, true) }) {
				cancelled = false
			}
		}
		if passing > 0 && cancelled {
			continue
		}
		switch {
		case isMCP(en.name) || en.name == toolAgent:
			unmatched = append(unmatched, en.text)
		case exists:
			unavailable = append(unavailable, en.text)
		default:
			unrecognized = append(unrecognized, en.text)
		}
	}
	if len(unrecognized)+len(unavailable)+len(unmatched) == 0 {
		return nil
	}
	var groups []string
	for _, g := range []struct {
		label string
		items []string
	}{{"unrecognized", unrecognized}, {"not available to subagents", unavailable}, {"matched no tools in this session", unmatched}} {
		if len(g.items) > 0 {
			groups = append(groups, g.label+" ["+strings.Join(g.items, ", ")+"]")
		}
	}
	return events.Errorf(events.CodeZeroTools, "Agent '%s' would be spawned with zero tools - refusing. %s", def.name, strings.Join(groups, "; "))
}
