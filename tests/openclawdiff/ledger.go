package openclawdiff

import (
	"encoding/json"
	"fmt"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// Lineage is one differential case on the ledger's side: a policy document
// of the openclaw dialect, the catalogue, and the sessions (roots and
// spawns, each taking one turn).
type Lineage struct {
	ID        string
	Doc       json.RawMessage
	Catalogue []Tool
	Sessions  []Session
	// Tags name the features the case exercises, for the agreement table.
	Tags []string
}

// LedgerSession is what the ledger decided for one session.
type LedgerSession struct {
	// Refused is the refusal code of the session's start or spawn ("" when
	// it was admitted); Msg its message.
	Refused, Msg string
	Sandboxed    bool
	Tools        envelope.ToolSet
}

// LedgerAnswer is what the ledger decided for a lineage.
type LedgerAnswer struct {
	// Invalid is the policy.set's refusal message, "" when it was accepted.
	Invalid  string
	Release  string
	Sessions []LedgerSession
	// Normalize is the ledger's normalization of tool names under the
	// release it decided with.
	Normalize func(string) string `json:"-"`
}

// Mapping says what the ledger's side is fed for a root, as the
// session-ledger plugin (integrations/openclaw-plugin) maps OpenClaw's session.
type Mapping struct {
	// Before25 feeds what the ledger had before issue 25: the group the
	// key names cut at its first ':' (PluginBefore25), no conversation, and
	// a document that marks no plugin tools. Otherwise a root carries its
	// key as its conversation, as the plugin sends it now, and the
	// document marks the catalogue's plugin tools (pluginTools) as
	// OpenClaw's plugin loader marks them for the oracle.
	Before25 bool
}

// withPluginTools is doc with pluginTools marking the catalogue's tools
// that a plugin other than bundle-mcp owns (MCP tools are known by their
// names).
func withPluginTools(doc json.RawMessage, cat []Tool) json.RawMessage {
	marks := map[string][]string{}
	for _, t := range cat {
		if t.Plugin != "" && t.Plugin != "bundle-mcp" {
			marks[t.Plugin] = append(marks[t.Plugin], t.Name)
		}
	}
	if len(marks) == 0 {
		return doc
	}
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil || m == nil {
		return doc // not an object: both sides refuse it
	}
	m["pluginTools"] = marks
	b, err := json.Marshal(m)
	if err != nil {
		return doc
	}
	return b
}

// Ledger runs a lineage through the ledger's own fold: a projection.State
// with the openclaw dialect, every event prepared and applied as the
// service does. Each session takes one turn (with its sender, if any)
// before the next session is created, so that a spawn captures its
// requester's turn. Roots are started as the plugin starts them now.
func Ledger(l *Lineage) (*LedgerAnswer, error) { return LedgerWith(l, Mapping{}) }

// LedgerWith is Ledger with the roots started as m says.
func LedgerWith(l *Lineage, m Mapping) (*LedgerAnswer, error) {
	st := projection.New(projection.Dialects{openclaw.Name: openclaw.New()})
	n := 0
	appendEv := func(ev map[string]any) error {
		n++
		ev["id"] = fmt.Sprintf("01JZ%022d", n)
		ev["v"] = 1
		ev["actor"] = "openclawdiff"
		raw, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		e, err := events.Parse(raw)
		if err != nil {
			return err
		}
		p := st.Prepare(e, "2026-09-24T00:00:00.000Z")
		if p.Err != nil {
			return p.Err
		}
		return st.Apply(projection.Input{Record: p.Record}, st.Position()+1)
	}
	cat := make([]string, len(l.Catalogue))
	for i, t := range l.Catalogue {
		cat[i] = t.Name
	}
	out := &LedgerAnswer{Normalize: st.Normalize}
	doc := l.Doc
	if !m.Before25 {
		doc = withPluginTools(doc, l.Catalogue)
	}
	if err := appendEv(map[string]any{"type": events.PolicySet, "data": map[string]any{
		"dialect": openclaw.Name, "document": doc, "catalogue": cat}}); err != nil {
		if events.CodeOf(err) != events.CodeInvalidPolicy {
			return nil, err
		}
		out.Invalid = err.Error()
		return out, nil
	}
	if pol, ok := st.Policy().Compiled.(*openclaw.Policy); ok {
		out.Release = pol.Release()
	}
	keys := make([]string, len(l.Sessions))
	created := make([]bool, len(l.Sessions))
	for i, s := range l.Sessions {
		res := LedgerSession{}
		var err error
		if s.Parent == nil {
			keys[i] = s.Key
			data := map[string]any{"agent": s.Agent}
			fields := map[string]string{"provider": s.Provider, "model": s.Model, "channel": s.Channel}
			if m.Before25 {
				fields["group"] = s.Group
			} else {
				fields["conversation"] = s.Key
			}
			for k, v := range fields {
				if v != "" {
					data[k] = v
				}
			}
			err = appendEv(map[string]any{"type": events.SessionStarted, "session": s.Key, "data": data})
		} else {
			p := *s.Parent
			if !created[p] {
				out.Sessions = append(out.Sessions, LedgerSession{Refused: "parent_not_created"})
				continue
			}
			keys[i] = fmt.Sprintf("agent:%s:subagent:c%d", s.Agent, i)
			err = appendEv(map[string]any{"type": events.SessionSpawned, "session": keys[i],
				"data": map[string]any{"parent": keys[p], "agent": s.Agent}})
		}
		if err != nil {
			if events.CodeOf(err) == "" {
				return nil, err
			}
			res.Refused, res.Msg = string(events.CodeOf(err)), err.Error()
			out.Sessions = append(out.Sessions, res)
			continue
		}
		created[i] = true
		turn := map[string]any{"turn": 1}
		if s.Sender != "" {
			turn["sender"] = s.Sender
		}
		if err := appendEv(map[string]any{"type": events.TurnStarted, "session": keys[i], "data": turn}); err != nil {
			return nil, fmt.Errorf("turn of %s: %w", keys[i], err)
		}
		sess := st.Session(events.SessionKey(keys[i]))
		res.Sandboxed = sess.Facts.Sandboxed
		if res.Tools, err = st.Tools(events.SessionKey(keys[i])); err != nil {
			return nil, err
		}
		out.Sessions = append(out.Sessions, res)
	}
	return out, nil
}

// OpenClawConfig is the openclaw.json a ledger document stands for, as the
// oracle is given it: the document less what is the ledger's own (its
// "release", its "pluginTools" marks, which the oracle gives as tool
// metadata, and delegateToolsTo, the dialect's extension), and, for a
// roster of two agents or more, agents.ownership "explicit" (OpenClaw
// wants it named; the ledger's agents.list has no default agent).
func OpenClawConfig(doc json.RawMessage) (json.RawMessage, error) {
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		return doc, nil // not an object: given as it is, both sides refuse it
	}
	delete(m, "release")
	delete(m, "pluginTools")
	if agents, ok := m["agents"].(map[string]any); ok {
		if list, ok := agents["list"].([]any); ok {
			for _, a := range list {
				if am, ok := a.(map[string]any); ok {
					if sub, ok := am["subagents"].(map[string]any); ok {
						delete(sub, "delegateToolsTo")
					}
				}
			}
			if len(list) >= 2 {
				if _, set := agents["ownership"]; !set {
					agents["ownership"] = "explicit"
				}
			}
		}
	}
	return json.Marshal(m)
}

// StripExtensions removes from a ledger document what OpenClaw 2026.9.6
// does not have (delegateToolsTo), so that both sides decide the same
// document.
func StripExtensions(doc json.RawMessage) json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		return doc
	}
	agents, ok := m["agents"].(map[string]any)
	if !ok {
		return doc
	}
	list, ok := agents["list"].([]any)
	if !ok {
		return doc
	}
	changed := false
	for _, a := range list {
		if am, ok := a.(map[string]any); ok {
			if sub, ok := am["subagents"].(map[string]any); ok {
				if _, has := sub["delegateToolsTo"]; has {
					delete(sub, "delegateToolsTo")
					changed = true
				}
			}
		}
	}
	if !changed {
		return doc
	}
	b, err := json.Marshal(m)
	if err != nil {
		return doc
	}
	return b
}
