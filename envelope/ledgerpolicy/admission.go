package ledgerpolicy

import (
	"slices"
	"strings"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// The roles a session has in the ledger dialect.
const (
	roleMain     = "main"
	roleSubagent = "subagent"
)

// checkEvent runs the dialect's shape checks: the generic bounds on names,
// then agent types, session tools (MCP names only), no modes (the dialect
// has none), no OpenClaw plugin report, and the grant shape (invalid_event),
// then a spawn's parent key (bad_session_key).
func checkEvent(payload any) error {
	if err := events.CheckNames(payload); err != nil {
		return err
	}
	switch d := payload.(type) {
	case *events.StartedData:
		if err := checkAgent("agent", d.Agent); err != nil {
			return err
		}
		if d.Mode != "" {
			return events.Errorf(events.CodeInvalidEvent, "the ledger dialect has no permission modes: leave mode out (got %q)", d.Mode)
		}
		if len(d.PluginTools) > 0 {
			return events.Errorf(events.CodeInvalidEvent, "plugin_tools is an OpenClaw gateway's report; a ledger-dialect session names none")
		}
		return checkSessionTools(d.Tools)
	case *events.SpawnedData:
		if err := checkAgent("agent", d.Agent); err != nil {
			return err
		}
		if d.Fork || d.Teammate {
			return events.Errorf(events.CodeInvalidEvent, "the ledger dialect has no forks or teammates: a spawn is a sub-agent; drop fork and teammate")
		}
		if err := checkSessionTools(d.Tools); err != nil {
			return err
		}
		if !events.ValidKey(d.Parent) {
			return events.Errorf(events.CodeBadSessionKey, "parent key %q must match [A-Za-z0-9_:-]{1,200}", d.Parent)
		}
	case *events.TurnData:
		if d.Mode != "" {
			return events.Errorf(events.CodeInvalidEvent, "the ledger dialect has no permission modes: a turn names none (got %q)", d.Mode)
		}
	case *events.PolicySetData:
		if c, err := compileDocument(d.Document); err == nil {
			for _, l := range append([]*layer{c.global}, c.agents...) {
				for b := range l.rules {
					for _, r := range l.rules[b] {
						if err := checkRuleText(r.r.text); err != nil {
							return events.Errorf(events.CodeInvalidPolicy, "%s: %v", r.where, err)
						}
					}
				}
			}
		}
	case *events.GrantData:
		return checkGrant(d)
	}
	return nil
}

func checkAgent(what, a string) error {
	if !envelope.ValidAgentName(a) {
		return events.Errorf(events.CodeInvalidEvent, "%s %q is not an agent type: use 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit", what, a)
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

// checkGrant accepts permission grants only: behavior allow, ask or deny,
// agent "*" (the global layer) or an agent type, target "*", a rule
// of the ledger syntax. Whether the rule's tool is in the policy's runtime
// table is known only against the policy: a rule that table cannot read
// grants nothing (buildEffective).
func checkGrant(g *events.GrantData) error {
	if g.Kind != events.GrantPermission {
		return events.Errorf(events.CodeInvalidEvent, "grant kind %q does not exist in the ledger dialect; use kind \"permission\" with behavior and rule", g.Kind)
	}
	if g.Agent != "*" {
		if err := checkAgent("grant agent", g.Agent); err != nil {
			return events.Errorf(events.CodeInvalidEvent, "grant agent %q must be \"*\" (the global layer) or an agent type", g.Agent)
		}
	}
	if g.Target != "*" {
		return events.Errorf(events.CodeInvalidEvent, "a permission grant's target is \"*\" (got %q); the layer is chosen by agent", g.Target)
	}
	if g.Tools != nil {
		return events.Errorf(events.CodeInvalidEvent, "a permission grant takes no tools; put the tool in rule")
	}
	if _, ok := parseBehavior(g.Behavior); !ok {
		return events.Errorf(events.CodeInvalidEvent, "behavior %q must be allow, ask or deny", g.Behavior)
	}
	if err := checkRuleText(g.Rule); err != nil {
		return events.Errorf(events.CodeInvalidEvent, "rule %q: %v", g.Rule, err)
	}
	if err := checkRuleAnyTable(g.Rule); err != nil {
		return events.Errorf(events.CodeInvalidEvent, "rule %q: %v", g.Rule, err)
	}
	return nil
}

// checkRuleAnyTable refuses a rule no runtime table can read.
func checkRuleAnyTable(text string) error {
	var err error
	for _, t := range tables {
		if _, err = compileRule(t, text); err == nil {
			return nil
		}
	}
	return err
}

// checkRuleText: at most events.MaxRuleLen bytes, no control character.
func checkRuleText(text string) error {
	if len(text) > events.MaxRuleLen {
		return events.Errorf(events.CodeInvalidEvent, "the rule is %d bytes; the limit is %d", len(text), events.MaxRuleLen)
	}
	if events.HasControl(text) {
		return events.Errorf(events.CodeInvalidEvent, "the rule holds a control character; remove it")
	}
	return nil
}

// start admits a root: its agent type is main or one the document gives
// a layer (agent_not_configured otherwise); a layer a grant made
// configures no root type (TestGrantLayerAdmitsNoRoot).
func start(e *Effective, d *events.StartedData) (envelope.Facts, error) {
	if e == nil {
		return envelope.Facts{}, events.Errorf(events.CodeInvalidPolicy, "the policy in force cannot be read")
	}
	if d.Agent != agentMain && e.c.agent(d.Agent) == nil {
		return envelope.Facts{}, events.Errorf(events.CodeAgentNotConfigured,
			"a root's agent type is %q or one document.agents gives a layer; %q is neither (%s)", agentMain, d.Agent, agentList(e))
	}
	return envelope.Facts{Role: roleMain}, nil
}

func agentList(e *Effective) string {
	names := []string{agentMain}
	for _, l := range e.c.agents {
		names = append(names, l.agent)
	}
	slices.Sort(names)
	return "agent types: " + strings.Join(slices.Compact(names), ", ")
}

// spawn admits a child: the depth cap (depth_limit), subagents.allowAgents
// (agent_not_allowed), the parent's call of its runtime's spawn tool
// (agent_not_allowed when denied; ask counts as approved), then captures
// the envelope: the parent's tool set at the spawn as the ceiling.
func spawn(w envelope.World, d *events.SpawnedData) (*envelope.Envelope, envelope.Facts, error) {
	e := effectiveOf(w.Policy())
	if e == nil {
		return nil, envelope.Facts{}, events.Errorf(events.CodeInvalidPolicy, "the policy in force cannot be read")
	}
	parent := w.Session(d.Parent)
	if parent == nil {
		return nil, envelope.Facts{}, events.UnknownParent(d.Parent)
	}
	depth := parent.Depth + 1
	if depth > e.c.maxDepth {
		return nil, envelope.Facts{}, events.Errorf(events.CodeDepthLimit,
			"the child would be at depth %d and subagents.maxDepth is %d; spawn from a shallower session or raise subagents.maxDepth", depth, e.c.maxDepth)
	}
	if !e.c.allowsAgent(d.Agent) {
		return nil, envelope.Facts{}, events.Errorf(events.CodeAgentNotAllowed,
			"agent type %q is not in subagents.allowAgents (%s); add it or spawn another type", d.Agent, strings.Join(e.c.allowAgents, ", "))
	}
	pv := newView(w, parent)
	if st := e.c.table.spawn; st != "" {
		if vd := pv.decide(st, nil); vd.Decision == envelope.Deny {
			return nil, envelope.Facts{}, events.Errorf(events.CodeAgentNotAllowed,
				"%q may not spawn: its %s call is denied by %s (%s)", d.Parent, st, vd.Reason.Code, vd.Reason.Rule)
		}
	}
	allow := slices.Clone(pv.resolve().Allowed)
	slices.Sort(allow)
	allow = slices.Compact(allow)
	deny := []string{}
	for _, t := range pv.cat {
		if _, in := slices.BinarySearch(allow, t); !in {
			deny = append(deny, t)
		}
	}
	slices.Sort(deny)
	deny = slices.Compact(deny)
	env := &envelope.Envelope{
		Requester:      d.Parent,
		Agent:          d.Agent,
		Depth:          depth,
		Role:           roleSubagent,
		InheritedAllow: allow,
		InheritedDeny:  deny,
		Source:         "parent_pool",
		Revision:       e.rev.Seq,
	}
	return env, envelope.Facts{Role: roleSubagent}, nil
}
