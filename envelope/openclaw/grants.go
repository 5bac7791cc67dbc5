package openclaw

import (
	"encoding/json"
	"slices"
	"sort"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// checkGrant runs the grant checks 1-3 of section 1.5, which need no state.
func checkGrant(g *events.GrantData) error {
	switch g.Kind {
	case events.GrantDelegateTools, events.GrantAllowAgent, events.GrantAlsoAllow:
	case events.GrantPermission:
		return events.Errorf(events.CodeInvalidEvent, "grant kind %q belongs to the claude-code dialect; openclaw grants are delegate_tools, allow_agent or also_allow", g.Kind)
	default:
		return events.Errorf(events.CodeInvalidEvent, "grant kind %q is not known; use delegate_tools, allow_agent or also_allow", g.Kind)
	}
	if g.Agent == "" {
		return events.Errorf(events.CodeInvalidEvent, "a grant needs a non-empty agent (the requester agent id)")
	}
	if g.Target == "" {
		return events.Errorf(events.CodeInvalidEvent, "a grant needs a non-empty target (the target agent id)")
	}
	if g.Kind == events.GrantAlsoAllow {
		if names, _ := nameList(g.Tools); len(names) == 0 {
			return events.Errorf(events.CodeInvalidEvent, "an also_allow grant needs tools with at least one non-blank tool name")
		}
		if g.Target != g.Agent {
			return events.Errorf(events.CodeInvalidEvent, "an also_allow grant adds tools to one agent: target %q must equal agent %q", g.Target, g.Agent)
		}
		return nil
	}
	if g.Tools != nil {
		return events.Errorf(events.CodeInvalidEvent, "a %s grant takes no tools (it applies to every tool); drop the tools field", g.Kind)
	}
	return nil
}

// grantIdentity is (kind, agent, target, set of normalized tools); behavior
// and rule are no part of it.
func grantIdentity(g *events.GrantData) string {
	tools, _ := nameList(g.Tools)
	sort.Strings(tools)
	if tools == nil {
		tools = []string{}
	}
	b, err := json.Marshal([]any{g.Kind, g.Agent, g.Target, tools})
	if err != nil {
		panic("openclaw: encoding a grant identity failed: " + err.Error()) // only strings
	}
	return string(b)
}

// applyGrants returns the effective document (section 1.5): base with every
// grant applied in order, on a copy. base is never modified.
func applyGrants(rel *Release, base *Document, grants []envelope.Grant) *Document {
	if len(grants) == 0 {
		return base
	}
	d := *base
	ag := AgentsDoc{}
	if base.Agents != nil {
		ag = *base.Agents
	}
	ag.List = slices.Clone(ag.List)
	d.Agents = &ag
	owned := map[int]bool{}
	for gi := range grants {
		g := &grants[gi].Data
		rec := grants[gi].Record
		idx := -1
		for i, a := range ag.List {
			if rel.agentID(a.ID) == rel.agentID(g.Agent) {
				idx = i
				break
			}
		}
		if idx < 0 {
			ag.ListSet = true
			ag.List = append(ag.List, &AgentDoc{ID: g.Agent})
			idx = len(ag.List) - 1
		}
		if !owned[idx] {
			ag.List[idx] = cloneAgent(ag.List[idx])
			owned[idx] = true
		}
		a := ag.List[idx]
		switch g.Kind {
		case events.GrantDelegateTools:
			a.Subagents.DelegateToolsTo.add(g.Target, &rec)
		case events.GrantAllowAgent:
			if !a.Subagents.AllowAgents.Set {
				if def := defaultSubagents(&d); def != nil && def.AllowAgents.Set {
					a.Subagents.AllowAgents = List{Set: true, Items: slices.Clone(def.AllowAgents.Items)}
				} else {
					a.Subagents.AllowAgents = List{Set: true, Items: []string{g.Agent}}
				}
			}
			a.Subagents.AllowAgents.add(g.Target, &rec)
		case events.GrantAlsoAllow:
			if !a.Tools.AlsoAllow.Set {
				a.Tools.AlsoAllow = List{Set: true, Items: []string{}}
				if d.Tools != nil && d.Tools.AlsoAllow.Set {
					a.Tools.AlsoAllow.Items = slices.Clone(d.Tools.AlsoAllow.Items)
				}
			}
			names, _ := rel.nameList(g.Tools)
			for _, n := range names {
				a.Tools.AlsoAllow.addTool(rel, n, &rec)
			}
		}
	}
	return &d
}

func defaultSubagents(d *Document) *DefaultSubagentsDoc {
	if d.Agents == nil || d.Agents.Defaults == nil {
		return nil
	}
	return d.Agents.Defaults.Subagents
}

// cloneAgent copies an agent entry deeply enough for grants to edit its
// subagents lists and its tools.alsoAllow, creating those objects.
func cloneAgent(a *AgentDoc) *AgentDoc {
	c := *a
	if a.Subagents != nil {
		s := *a.Subagents
		s.AllowAgents = s.AllowAgents.clone()
		s.DelegateToolsTo = s.DelegateToolsTo.clone()
		c.Subagents = &s
	} else {
		c.Subagents = &AgentSubagentsDoc{}
	}
	if a.Tools != nil {
		t := *a.Tools
		t.AlsoAllow = t.AlsoAllow.clone()
		c.Tools = &t
	} else {
		c.Tools = &ToolsDoc{}
	}
	return &c
}

func (l List) clone() List {
	l.Items = slices.Clone(l.Items)
	l.From = slices.Clone(l.From)
	return l
}

// add appends an exact id unless present, recording the grant that added it.
func (l *List) add(id string, rec *envelope.RecordRef) {
	l.Set = true
	if contains(l.Items, id) {
		return
	}
	l.push(id, rec)
}

// addTool appends a normalized tool name unless an item normalizes to it.
func (l *List) addTool(rel *Release, n string, rec *envelope.RecordRef) {
	l.Set = true
	for _, it := range l.Items {
		if rel.normalize(it) == n {
			return
		}
	}
	l.push(n, rec)
}

func (l *List) push(item string, rec *envelope.RecordRef) {
	for len(l.From) < len(l.Items) {
		l.From = append(l.From, nil)
	}
	l.Items = append(l.Items, item)
	l.From = append(l.From, rec)
}
