package openclaw

import "encoding/json"

// MarshalJSON encodes the document back to the openclaw.json subset it was
// parsed from: absent fields stay absent, tools.exec and tools.fs encode as
// empty objects (their contents are ignored). Parsing the result gives an
// equal document.
func (d *Document) MarshalJSON() ([]byte, error) { return json.Marshal(d.value()) }

func (d *Document) value() map[string]any {
	m := map[string]any{}
	if d.Release != "" {
		m["release"] = d.Release
	}
	if d.Tools != nil {
		m["tools"] = d.Tools.value()
	}
	if d.Agents != nil {
		m["agents"] = d.Agents.value()
	}
	if d.PluginTools != nil {
		pt := map[string]any{}
		for id, tools := range d.PluginTools {
			if tools == nil {
				tools = []string{}
			}
			pt[id] = tools
		}
		m["pluginTools"] = pt
	}
	if d.Channels != nil {
		ch := map[string]any{}
		for k, c := range d.Channels {
			cm := map[string]any{}
			if c.Groups != nil {
				gs := map[string]any{}
				for gid, g := range c.Groups {
					gm := map[string]any{}
					if g.Tools != nil {
						gm["tools"] = g.Tools.value()
					}
					if g.ToolsBySender != nil {
						gm["toolsBySender"] = sendersValue(g.ToolsBySender)
					}
					gs[gid] = gm
				}
				cm["groups"] = gs
			}
			ch[k] = cm
		}
		m["channels"] = ch
	}
	return m
}

func (l List) put(m map[string]any, key string) {
	if l.Set {
		items := l.Items
		if items == nil {
			items = []string{}
		}
		m[key] = items
	}
}

func (s *Scope) value() map[string]any {
	m := map[string]any{}
	s.put(m)
	return m
}

func (s *Scope) put(m map[string]any) {
	s.Allow.put(m, "allow")
	s.AlsoAllow.put(m, "alsoAllow")
	s.Deny.put(m, "deny")
}

func sendersValue(s map[string]*Scope) map[string]any {
	m := map[string]any{}
	for k, v := range s {
		m[k] = v.value()
	}
	return m
}

func (t *ToolsDoc) value() map[string]any {
	m := map[string]any{}
	if t.Profile != nil {
		m["profile"] = *t.Profile
	}
	t.Scope.put(m)
	if t.ByProvider != nil {
		bp := map[string]any{}
		for k, e := range t.ByProvider {
			em := e.Scope.value()
			if e.Profile != nil {
				em["profile"] = *e.Profile
			}
			bp[k] = em
		}
		m["byProvider"] = bp
	}
	if t.Sandbox != nil {
		m["sandbox"] = t.Sandbox.value()
	}
	if t.Subagents != nil {
		m["subagents"] = t.Subagents.value()
	}
	if t.ToolsBySender != nil {
		m["toolsBySender"] = sendersValue(t.ToolsBySender)
	}
	if t.Exec {
		m["exec"] = map[string]any{}
	}
	if t.FS {
		m["fs"] = map[string]any{}
	}
	return m
}

func (w *SandboxToolsDoc) value() map[string]any {
	m := map[string]any{}
	if w.Tools != nil {
		m["tools"] = w.Tools.value()
	}
	return m
}

func (a *AgentsDoc) value() map[string]any {
	m := map[string]any{}
	if a.Defaults != nil {
		dm := map[string]any{}
		if s := a.Defaults.Subagents; s != nil {
			sm := map[string]any{}
			if s.MaxSpawnDepth != nil {
				sm["maxSpawnDepth"] = *s.MaxSpawnDepth
			}
			if s.MaxChildrenPerAgent != nil {
				sm["maxChildrenPerAgent"] = *s.MaxChildrenPerAgent
			}
			s.AllowAgents.put(sm, "allowAgents")
			if s.RequireAgentID != nil {
				sm["requireAgentId"] = *s.RequireAgentID
			}
			dm["subagents"] = sm
		}
		if a.Defaults.Sandbox != nil {
			dm["sandbox"] = a.Defaults.Sandbox.value()
		}
		m["defaults"] = dm
	}
	if a.ListSet {
		list := make([]any, 0, len(a.List))
		for _, ag := range a.List {
			list = append(list, ag.value())
		}
		m["list"] = list
	}
	return m
}

func (s *SandboxModeDoc) value() map[string]any {
	m := map[string]any{}
	if s.Mode != nil {
		m["mode"] = *s.Mode
	}
	return m
}

func (a *AgentDoc) value() map[string]any {
	m := map[string]any{"id": a.ID}
	if a.Tools != nil {
		m["tools"] = a.Tools.value()
	}
	if s := a.Subagents; s != nil {
		sm := map[string]any{}
		s.AllowAgents.put(sm, "allowAgents")
		s.DelegateToolsTo.put(sm, "delegateToolsTo")
		if s.RequireAgentID != nil {
			sm["requireAgentId"] = *s.RequireAgentID
		}
		m["subagents"] = sm
	}
	if a.Sandbox != nil {
		m["sandbox"] = a.Sandbox.value()
	}
	return m
}
