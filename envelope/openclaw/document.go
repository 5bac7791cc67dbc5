package openclaw

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// Document is a validated openclaw policy document (section 1). Absent and
// present-but-empty are kept apart wherever the reference distinguishes
// them: lists carry Set, optional scalars are pointers, objects are nil when
// absent.
type Document struct {
	Tools    *ToolsDoc
	Agents   *AgentsDoc
	Channels map[string]*ChannelDoc // nil when absent
}

// List is a string list as written. From, in an effective document, names
// the grant record that added each item (nil entries: the revision).
type List struct {
	Set   bool
	Items []string
	From  []*envelope.RecordRef
}

// Scope is a config scope's allow, alsoAllow and deny lists.
type Scope struct {
	Allow, AlsoAllow, Deny List
}

// ProviderDoc is a byProvider entry.
type ProviderDoc struct {
	Profile *string
	Scope
}

// ToolsDoc is the global tools section or an agent's tools section (which
// has no Subagents).
type ToolsDoc struct {
	Profile *string
	Scope
	ByProvider    map[string]*ProviderDoc
	Sandbox       *SandboxToolsDoc
	Subagents     *SandboxToolsDoc
	ToolsBySender map[string]*Scope
	// Exec and FS are accepted and ignored (section 1.2); only their
	// presence is kept so that a document re-encodes to itself.
	Exec, FS bool
}

// SandboxToolsDoc is {"tools": {allow, alsoAllow, deny}}.
type SandboxToolsDoc struct {
	Tools *Scope
}

// AgentsDoc is the agents section.
type AgentsDoc struct {
	Defaults *DefaultsDoc
	List     []*AgentDoc
	ListSet  bool
}

// DefaultsDoc is agents.defaults.
type DefaultsDoc struct {
	Subagents *DefaultSubagentsDoc
	Sandbox   *SandboxModeDoc
}

// DefaultSubagentsDoc is agents.defaults.subagents.
type DefaultSubagentsDoc struct {
	MaxSpawnDepth       *int
	MaxChildrenPerAgent *int
	AllowAgents         List
	RequireAgentID      *bool
}

// SandboxModeDoc is {"mode": ...}.
type SandboxModeDoc struct {
	Mode *string
}

// AgentDoc is one agents.list entry.
type AgentDoc struct {
	ID        string
	Tools     *ToolsDoc
	Subagents *AgentSubagentsDoc
	Sandbox   *SandboxModeDoc
}

// AgentSubagentsDoc is agents.list[].subagents.
type AgentSubagentsDoc struct {
	AllowAgents     List
	DelegateToolsTo List
	RequireAgentID  *bool
}

// ChannelDoc is channels.<channel>.
type ChannelDoc struct {
	Groups map[string]*GroupDoc
}

// GroupDoc is channels.<channel>.groups.<group>.
type GroupDoc struct {
	Tools         *Scope
	ToolsBySender map[string]*Scope
}

// Limits of section 1.2 (A15).
const (
	defaultMaxSpawnDepth = 5
	defaultMaxChildren   = 5
)

// parser collects every problem of a document, in path order.
type parser struct {
	problems []string
}

func (p *parser) fail(format string, args ...any) {
	p.problems = append(p.problems, fmt.Sprintf(format, args...))
}

// ParseDocument validates a policy document and returns it. Errors are
// *events.Error with code invalid_policy naming every offending path.
func ParseDocument(raw json.RawMessage) (*Document, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, events.Errorf(events.CodeInvalidPolicy, "the policy document is not JSON: %v", err)
	}
	if dec.More() {
		return nil, events.Errorf(events.CodeInvalidPolicy, "the policy document has trailing data")
	}
	var p parser
	doc := p.document(v)
	if len(p.problems) > 0 {
		return nil, events.Errorf(events.CodeInvalidPolicy, "%s", strings.Join(p.problems, "; "))
	}
	return doc, nil
}

var simpleKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// join extends a path with an object key, quoting keys that would not read
// as a path segment.
func join(path, key string) string {
	seg := key
	if !simpleKey.MatchString(key) {
		seg = "[" + strconv.Quote(key) + "]"
		if path == "" {
			return seg
		}
		return path + seg
	}
	if path == "" {
		return seg
	}
	return path + "." + seg
}

func describe(path string) string {
	if path == "" {
		return "the document"
	}
	return path
}

// object checks that v is an object with only the allowed keys and returns
// it. Unknown keys are reported in sorted order.
func (p *parser) object(path string, v any, allowed ...string) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		p.fail("%s must be an object, got %s", describe(path), jsonType(v))
		return nil, false
	}
	for _, k := range sortedKeys(m) {
		if !contains(allowed, k) {
			p.fail("%s is not a field of the openclaw policy document", join(path, k))
		}
	}
	return m, true
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func (p *parser) list(path string, m map[string]any, key string) List {
	v, ok := m[key]
	if !ok {
		return List{}
	}
	path = join(path, key)
	arr, ok := v.([]any)
	if !ok {
		p.fail("%s must be a list of strings, got %s", path, jsonType(v))
		return List{}
	}
	l := List{Set: true, Items: make([]string, 0, len(arr))}
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			p.fail("%s[%d] must be a string, got %s", path, i, jsonType(e))
			continue
		}
		l.Items = append(l.Items, s)
	}
	return l
}

func (p *parser) str(path string, m map[string]any, key string) *string {
	v, ok := m[key]
	if !ok {
		return nil
	}
	s, ok := v.(string)
	if !ok {
		p.fail("%s must be a string, got %s", join(path, key), jsonType(v))
		return nil
	}
	return &s
}

func (p *parser) boolean(path string, m map[string]any, key string) *bool {
	v, ok := m[key]
	if !ok {
		return nil
	}
	b, ok := v.(bool)
	if !ok {
		p.fail("%s must be a boolean, got %s", join(path, key), jsonType(v))
		return nil
	}
	return &b
}

func (p *parser) integer(path string, m map[string]any, key string, lo, hi int) *int {
	v, ok := m[key]
	if !ok {
		return nil
	}
	path = join(path, key)
	n, ok := v.(json.Number)
	if !ok {
		p.fail("%s must be an integer from %d to %d, got %s", path, lo, hi, jsonType(v))
		return nil
	}
	i, err := strconv.Atoi(string(n))
	if err != nil || i < lo || i > hi {
		p.fail("%s must be an integer from %d to %d, got %s", path, lo, hi, n)
		return nil
	}
	return &i
}

func (p *parser) document(v any) *Document {
	m, ok := p.object("", v, "tools", "agents", "channels")
	if !ok {
		return nil
	}
	d := &Document{}
	if t, ok := m["tools"]; ok {
		d.Tools = p.tools("tools", t, true)
	}
	if a, ok := m["agents"]; ok {
		d.Agents = p.agents("agents", a)
	}
	if c, ok := m["channels"]; ok {
		d.Channels = p.channels("channels", c)
	}
	return d
}

func (p *parser) scope(path string, m map[string]any) Scope {
	return Scope{
		Allow:     p.list(path, m, "allow"),
		AlsoAllow: p.list(path, m, "alsoAllow"),
		Deny:      p.list(path, m, "deny"),
	}
}

// exclusive is validation rule 1 of section 1.3: allow and alsoAllow may not
// both be non-empty name lists in the validated scopes.
func (p *parser) exclusive(path string, s Scope) {
	a, _ := nameList(s.Allow.Items)
	b, _ := nameList(s.AlsoAllow.Items)
	if len(a) > 0 && len(b) > 0 {
		p.fail("%s: allow and alsoAllow may not both be set; list the extra tools in allow, or drop allow and keep alsoAllow", describe(path))
	}
}

func (p *parser) scopeObject(path string, v any) *Scope {
	m, ok := p.object(path, v, "allow", "alsoAllow", "deny")
	if !ok {
		return nil
	}
	s := p.scope(path, m)
	return &s
}

func (p *parser) tools(path string, v any, global bool) *ToolsDoc {
	keys := []string{"profile", "allow", "alsoAllow", "deny", "byProvider", "sandbox", "toolsBySender", "exec", "fs"}
	if global {
		keys = append(keys, "subagents")
	}
	m, ok := p.object(path, v, keys...)
	if !ok {
		return nil
	}
	t := &ToolsDoc{Profile: p.str(path, m, "profile"), Scope: p.scope(path, m)}
	p.exclusive(path, t.Scope)
	if bp, ok := m["byProvider"]; ok {
		t.ByProvider = p.byProvider(join(path, "byProvider"), bp)
	}
	if sb, ok := m["sandbox"]; ok {
		t.Sandbox = p.toolsWrapper(join(path, "sandbox"), sb)
	}
	if sa, ok := m["subagents"]; ok {
		t.Subagents = p.toolsWrapper(join(path, "subagents"), sa)
	}
	if ts, ok := m["toolsBySender"]; ok {
		t.ToolsBySender = p.senders(join(path, "toolsBySender"), ts)
	}
	for _, k := range []string{"exec", "fs"} {
		if x, ok := m[k]; ok {
			if _, isObj := x.(map[string]any); !isObj {
				p.fail("%s must be an object, got %s", join(path, k), jsonType(x))
			}
		}
	}
	_, t.Exec = m["exec"]
	_, t.FS = m["fs"]
	return t
}

func (p *parser) byProvider(path string, v any) map[string]*ProviderDoc {
	m, ok := v.(map[string]any)
	if !ok {
		p.fail("%s must be an object, got %s", path, jsonType(v))
		return nil
	}
	out := make(map[string]*ProviderDoc, len(m))
	seen := map[string]string{}
	for _, k := range sortedKeys(m) {
		kp := join(path, k)
		norm := providerKey(k)
		if prev, dup := seen[norm]; dup {
			p.fail("%s: keys %q and %q name the same provider (keys are compared trimmed and lower-cased); keep one", path, prev, k)
		} else {
			seen[norm] = k
		}
		em, ok := p.object(kp, m[k], "profile", "allow", "alsoAllow", "deny")
		if !ok {
			continue
		}
		e := &ProviderDoc{Profile: p.str(kp, em, "profile"), Scope: p.scope(kp, em)}
		p.exclusive(kp, e.Scope)
		out[k] = e
	}
	return out
}

func providerKey(k string) string { return strings.ToLower(strings.TrimFunc(k, isSpace)) }

func (p *parser) toolsWrapper(path string, v any) *SandboxToolsDoc {
	m, ok := p.object(path, v, "tools")
	if !ok {
		return nil
	}
	w := &SandboxToolsDoc{}
	if t, ok := m["tools"]; ok {
		w.Tools = p.scopeObject(join(path, "tools"), t)
	}
	return w
}

// validSenderKey reports the sender key forms of section 1.2: "*",
// "id:<sender>" and "channel:<channel>:<sender>".
func validSenderKey(k string) bool {
	if k == "*" {
		return true
	}
	if s, ok := strings.CutPrefix(k, "id:"); ok {
		return s != ""
	}
	if rest, ok := strings.CutPrefix(k, "channel:"); ok {
		ch, s, found := strings.Cut(rest, ":")
		return found && ch != "" && s != ""
	}
	return false
}

func (p *parser) senders(path string, v any) map[string]*Scope {
	m, ok := v.(map[string]any)
	if !ok {
		p.fail("%s must be an object, got %s", path, jsonType(v))
		return nil
	}
	out := make(map[string]*Scope, len(m))
	for _, k := range sortedKeys(m) {
		kp := join(path, k)
		if !validSenderKey(k) {
			p.fail("%s: %q is not a sender key (use \"*\", \"id:<sender>\" or \"channel:<channel>:<sender>\")", path, k)
			continue
		}
		if s := p.scopeObject(kp, m[k]); s != nil {
			out[k] = s
		}
	}
	return out
}

func (p *parser) agents(path string, v any) *AgentsDoc {
	m, ok := p.object(path, v, "defaults", "list")
	if !ok {
		return nil
	}
	a := &AgentsDoc{}
	if d, ok := m["defaults"]; ok {
		a.Defaults = p.defaults(join(path, "defaults"), d)
	}
	if l, ok := m["list"]; ok {
		a.ListSet = true
		lp := join(path, "list")
		arr, ok := l.([]any)
		if !ok {
			p.fail("%s must be a list of objects, got %s", lp, jsonType(l))
			return a
		}
		ids := map[string]int{}
		for i, e := range arr {
			ep := fmt.Sprintf("%s[%d]", lp, i)
			ag := p.agent(ep, e)
			if ag == nil {
				continue
			}
			if prev, dup := ids[ag.ID]; dup && ag.ID != "" {
				p.fail("%s.id %q repeats %s[%d].id; agent ids are unique", ep, ag.ID, lp, prev)
			} else {
				ids[ag.ID] = i
			}
			a.List = append(a.List, ag)
		}
	}
	return a
}

func (p *parser) defaults(path string, v any) *DefaultsDoc {
	m, ok := p.object(path, v, "subagents", "sandbox")
	if !ok {
		return nil
	}
	d := &DefaultsDoc{}
	if s, ok := m["subagents"]; ok {
		sp := join(path, "subagents")
		if sm, ok := p.object(sp, s, "maxSpawnDepth", "maxChildrenPerAgent", "allowAgents", "requireAgentId"); ok {
			d.Subagents = &DefaultSubagentsDoc{
				MaxSpawnDepth:       p.integer(sp, sm, "maxSpawnDepth", 1, 5),
				MaxChildrenPerAgent: p.integer(sp, sm, "maxChildrenPerAgent", 1, 20),
				AllowAgents:         p.list(sp, sm, "allowAgents"),
				RequireAgentID:      p.boolean(sp, sm, "requireAgentId"),
			}
		}
	}
	if s, ok := m["sandbox"]; ok {
		d.Sandbox = p.sandboxMode(join(path, "sandbox"), s)
	}
	return d
}

func (p *parser) sandboxMode(path string, v any) *SandboxModeDoc {
	m, ok := p.object(path, v, "mode")
	if !ok {
		return nil
	}
	s := &SandboxModeDoc{Mode: p.str(path, m, "mode")}
	if s.Mode != nil {
		switch *s.Mode {
		case "off", "non-main", "all":
		default:
			p.fail("%s must be \"off\", \"non-main\" or \"all\", got %q", join(path, "mode"), *s.Mode)
			s.Mode = nil
		}
	}
	return s
}

func (p *parser) agent(path string, v any) *AgentDoc {
	m, ok := p.object(path, v, "id", "tools", "subagents", "sandbox")
	if !ok {
		return nil
	}
	a := &AgentDoc{}
	id := p.str(path, m, "id")
	switch {
	case id == nil:
		if _, present := m["id"]; !present {
			p.fail("%s needs an id", path)
		}
	case *id == "":
		p.fail("%s.id must not be empty", path)
	default:
		a.ID = *id
	}
	if t, ok := m["tools"]; ok {
		a.Tools = p.tools(join(path, "tools"), t, false)
	}
	if s, ok := m["subagents"]; ok {
		sp := join(path, "subagents")
		if sm, ok := p.object(sp, s, "allowAgents", "delegateToolsTo", "requireAgentId"); ok {
			a.Subagents = &AgentSubagentsDoc{
				AllowAgents:     p.list(sp, sm, "allowAgents"),
				DelegateToolsTo: p.list(sp, sm, "delegateToolsTo"),
				RequireAgentID:  p.boolean(sp, sm, "requireAgentId"),
			}
		}
	}
	if s, ok := m["sandbox"]; ok {
		a.Sandbox = p.sandboxMode(join(path, "sandbox"), s)
	}
	return a
}

func (p *parser) channels(path string, v any) map[string]*ChannelDoc {
	m, ok := v.(map[string]any)
	if !ok {
		p.fail("%s must be an object, got %s", path, jsonType(v))
		return nil
	}
	out := make(map[string]*ChannelDoc, len(m))
	for _, ch := range sortedKeys(m) {
		cp := join(path, ch)
		cm, ok := p.object(cp, m[ch], "groups")
		if !ok {
			continue
		}
		c := &ChannelDoc{}
		if g, ok := cm["groups"]; ok {
			gp := join(cp, "groups")
			gm, ok := g.(map[string]any)
			if !ok {
				p.fail("%s must be an object, got %s", gp, jsonType(g))
			} else {
				c.Groups = make(map[string]*GroupDoc, len(gm))
				for _, gid := range sortedKeys(gm) {
					ep := join(gp, gid)
					em, ok := p.object(ep, gm[gid], "tools", "toolsBySender")
					if !ok {
						continue
					}
					gd := &GroupDoc{}
					if t, ok := em["tools"]; ok {
						gd.Tools = p.scopeObject(join(ep, "tools"), t)
					}
					if ts, ok := em["toolsBySender"]; ok {
						gd.ToolsBySender = p.senders(join(ep, "toolsBySender"), ts)
					}
					c.Groups[gid] = gd
				}
			}
		}
		out[ch] = c
	}
	return out
}
