package openclaw

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
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
	// Release is the release the document names ("" when it names none);
	// rel is the release it was validated and is decided under.
	Release  string
	Tools    *ToolsDoc
	Agents   *AgentsDoc
	Channels map[string]*ChannelDoc // nil when absent
	// PluginTools marks the tools OpenClaw plugins register: plugin id (as
	// written) to the names of its own tools. The ledger's extension (16.3):
	// OpenClaw knows it from its plugin loader; nil when absent.
	PluginTools map[string][]string
	rel         *Release
}

// Rel returns the release the document is decided under.
func (d *Document) Rel() *Release { return d.rel }

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
	rel      *Release
	problems []string
}

func (p *parser) fail(format string, args ...any) {
	p.problems = append(p.problems, fmt.Sprintf(format, args...))
}

// ParseDocument validates a policy document under the release it names
// (its "release" field; the newest release this build pins when it names
// none) and returns it. Errors are *events.Error with code invalid_policy
// naming every offending path.
func ParseDocument(raw json.RawMessage) (*Document, error) { return parseDocument(raw, "") }

// ParseDocumentRelease validates a policy document under a given release,
// the one a record decided with ("" for a record that names none: the
// legacy release). A document that names another release is refused.
func ParseDocumentRelease(raw json.RawMessage, release string) (*Document, error) {
	if release == "" {
		release = LegacyRelease
	}
	return parseDocument(raw, release)
}

func parseDocument(raw json.RawMessage, forced string) (*Document, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, events.Errorf(events.CodeInvalidPolicy, "the policy document is not JSON: %v", err)
	}
	if dec.More() {
		return nil, events.Errorf(events.CodeInvalidPolicy, "the policy document has trailing data")
	}
	named := ""
	if m, ok := v.(map[string]any); ok {
		if r, ok := m["release"]; ok {
			s, isStr := r.(string)
			if !isStr {
				return nil, events.Errorf(events.CodeInvalidPolicy, "release must be a string naming an openclaw release (known: %s), got %s", strings.Join(Releases(), ", "), jsonType(r))
			}
			named = s
		}
	}
	if _, ok := lookupRelease(named); named != "" && !ok {
		return nil, events.Errorf(events.CodeInvalidPolicy, "release %q is not an openclaw release this build knows (known: %s)", named, strings.Join(Releases(), ", "))
	}
	name := forced
	switch {
	case forced == "" && named == "":
		name = NewestRelease()
	case forced == "":
		name = named
	case named != "" && named != forced:
		return nil, events.Errorf(events.CodeInvalidPolicy, "the document names release %q but was decided with %q", named, forced)
	}
	rel, ok := lookupRelease(name)
	if !ok {
		return nil, events.Errorf(events.CodeInvalidPolicy, "release %q is not an openclaw release this build knows (known: %s)", name, strings.Join(Releases(), ", "))
	}
	p := parser{rel: rel}
	doc := p.document(v)
	if len(p.problems) > 0 {
		return nil, events.Errorf(events.CodeInvalidPolicy, "%s", strings.Join(p.problems, "; "))
	}
	doc.Release, doc.rel = named, rel
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
	if err != nil && p.rel.Rules == rulesPackage {
		// JSON has no integers: OpenClaw's schema takes any number that is
		// one (2.0, 2e0).
		if f, ferr := n.Float64(); ferr == nil && f == math.Trunc(f) && f >= math.MinInt32 && f <= math.MaxInt32 {
			i, err = int(f), nil
		}
	}
	if err != nil || i < lo || i > hi {
		p.fail("%s must be an integer from %d to %d, got %s", path, lo, hi, n)
		return nil
	}
	return &i
}

func (p *parser) document(v any) *Document {
	m, ok := p.object("", v, "release", "tools", "agents", "channels", "pluginTools")
	if !ok {
		return nil
	}
	d := &Document{}
	if pt, ok := m["pluginTools"]; ok {
		d.PluginTools = p.pluginTools("pluginTools", pt)
	}
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
// both be set in the validated scopes. The legacy release compares name
// lists (after normalization); the packaged releases, as OpenClaw's schema
// does, the lists as written.
func (p *parser) exclusive(path string, s Scope) {
	var a, b int
	if p.rel.Rules == rulesPackage {
		a, b = len(s.Allow.Items), len(s.AlsoAllow.Items)
	} else {
		an, _ := nameList(s.Allow.Items)
		bn, _ := nameList(s.AlsoAllow.Items)
		a, b = len(an), len(bn)
	}
	if a > 0 && b > 0 {
		p.fail("%s: allow and alsoAllow may not both be set; list the extra tools in allow, or drop allow and keep alsoAllow", describe(path))
	}
}

// profile checks a profile id: the packaged releases know only their own
// profiles (the legacy release takes any id, unknown ones meaning no
// profile step).
func (p *parser) profile(path string, m map[string]any) *string {
	s := p.str(path, m, "profile")
	if s != nil && p.rel.Rules == rulesPackage && !p.rel.knownProfile(*s) {
		ids := make([]string, 0, len(p.rel.Profiles))
		for _, id := range sortedKeys(p.rel.Profiles) {
			ids = append(ids, strconv.Quote(id))
		}
		p.fail("%s must be one of %s, got %q", join(path, "profile"), strings.Join(ids, ", "), *s)
		return nil
	}
	return s
}

// scopeObject parses an {allow, alsoAllow, deny} object; validated says
// whether the exclusivity rule applies to it (OpenClaw's ToolPolicySchema
// scopes: sandbox, sub-agent and sender entries, under the packaged
// releases).
func (p *parser) scopeObject(path string, v any, validated bool) *Scope {
	m, ok := p.object(path, v, "allow", "alsoAllow", "deny")
	if !ok {
		return nil
	}
	s := p.scope(path, m)
	if validated && p.rel.Rules == rulesPackage {
		p.exclusive(path, s)
	}
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
	t := &ToolsDoc{Profile: p.profile(path, m), Scope: p.scope(path, m)}
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
		t.ToolsBySender = p.senders(join(path, "toolsBySender"), ts, true)
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
		norm := p.rel.providerKey(k)
		if prev, dup := seen[norm]; dup && norm != "" {
			p.fail("%s: keys %q and %q name the same provider (keys are compared trimmed and lower-cased); keep one", path, prev, k)
		} else {
			seen[norm] = k
		}
		em, ok := p.object(kp, m[k], "profile", "allow", "alsoAllow", "deny")
		if !ok {
			continue
		}
		e := &ProviderDoc{Profile: p.profile(kp, em), Scope: p.scope(kp, em)}
		p.exclusive(kp, e.Scope)
		out[k] = e
	}
	return out
}

// providerKey is a byProvider key as the release compares it: trimmed and
// lower-cased; the packaged releases, as OpenClaw's
// normalizeToolProviderPolicyKey, also trim the provider before a "/".
func (r *Release) providerKey(k string) string {
	n := r.lower(r.trim(k))
	if r.Rules != rulesPackage {
		return n
	}
	if i := strings.IndexByte(n, '/'); i > 0 {
		provider, model := r.trim(n[:i]), n[i+1:]
		if model == "" {
			return provider
		}
		return provider + "/" + model
	}
	return n
}

func (p *parser) toolsWrapper(path string, v any) *SandboxToolsDoc {
	m, ok := p.object(path, v, "tools")
	if !ok {
		return nil
	}
	w := &SandboxToolsDoc{}
	if t, ok := m["tools"]; ok {
		w.Tools = p.scopeObject(join(path, "tools"), t, true)
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

// senders parses a toolsBySender map. The legacy release takes the key
// forms of section 1.2 only; the packaged releases take every key OpenClaw
// does (typed channel:, id:, e164:, username:, name: keys, "*", and
// unprefixed keys, which match as ids) and refuse two keys that select
// the same sender, since which of them applies would depend on the order
// the keys are written in. validated: the entries are OpenClaw
// ToolPolicySchema scopes (the global and agent maps; group maps are not).
func (p *parser) senders(path string, v any, validated bool) map[string]*Scope {
	m, ok := v.(map[string]any)
	if !ok {
		p.fail("%s must be an object, got %s", path, jsonType(v))
		return nil
	}
	out := make(map[string]*Scope, len(m))
	seen := map[senderKey]string{}
	for _, k := range sortedKeys(m) {
		kp := join(path, k)
		if p.rel.Rules == rulesPackage {
			if sk, ok := p.rel.parseSenderKey(k); ok {
				if prev, dup := seen[sk]; dup {
					which := "first"
					if sk.typ == "*" {
						which = "last" // compileToolsBySenderPolicy keeps the last wildcard
					}
					p.fail("%s: keys %q and %q select the same sender; keep one (OpenClaw would apply whichever is written %s)", path, prev, k, which)
				} else {
					seen[sk] = k
				}
			}
		} else if !validSenderKey(k) {
			p.fail("%s: %q is not a sender key (use \"*\", \"id:<sender>\" or \"channel:<channel>:<sender>\")", path, k)
			continue
		}
		if s := p.scopeObject(kp, m[k], validated); s != nil {
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
	case p.rel.Rules == rulesPackage && normalizeAgentID(*id) != *id:
		// OpenClaw moves agents.list to agents.entries only when every id
		// is already its canonical form, and refuses the list otherwise.
		p.fail("%s.id %q is not a canonical agent id (lower-case letters, digits, _ and -, starting with a letter or digit, at most 64; write %q)", path, *id, normalizeAgentID(*id))
		a.ID = *id
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

// pluginTools reads pluginTools: an object from plugin ids to the lists
// of their own tools. A plugin id is a name OpenClaw's policy entries can
// name (not "*", a group:, a glob, or bundle-mcp, whose tools are the MCP
// tools by their name form); two ids that are one once trimmed and
// lower-cased, or a tool two plugins claim, are refused.
func (p *parser) pluginTools(path string, v any) map[string][]string {
	m, ok := v.(map[string]any)
	if !ok {
		p.fail("%s must be an object, got %s", path, jsonType(v))
		return nil
	}
	out := make(map[string][]string, len(m))
	ids := map[string]string{}
	owner := map[string]string{}
	for _, id := range sortedKeys(m) {
		kp := join(path, id)
		n := p.rel.lower(p.rel.trim(id))
		switch {
		case n == "":
			p.fail("%s: a plugin id must not be blank", kp)
		case n == "*" || strings.HasPrefix(n, "group:") || strings.Contains(n, "*") || n == "bundle-mcp":
			p.fail("%s: %q is not a plugin id (a policy entry reads it as a group or a pattern; MCP tools are known by their <server>__<tool> names)", kp, id)
		case ids[n] != "":
			p.fail("%s and %s name the same plugin; write it once", join(path, ids[n]), kp)
		}
		if ids[n] == "" {
			ids[n] = id
		}
		l := p.list(path, m, id)
		if !l.Set {
			continue
		}
		for i, t := range l.Items {
			tn := p.rel.normalize(t)
			if tn == "" {
				p.fail("%s[%d]: a tool name must not be blank", kp, i)
				continue
			}
			if o, ok := owner[tn]; ok && o != id {
				p.fail("%s[%d]: tool %q is also %s's; a tool has one plugin", kp, i, tn, join(path, o))
				continue
			}
			owner[tn] = id
		}
		out[id] = l.Items
	}
	return out
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
						gd.Tools = p.scopeObject(join(ep, "tools"), t, false)
					}
					if ts, ok := em["toolsBySender"]; ok {
						gd.ToolsBySender = p.senders(join(ep, "toolsBySender"), ts, false)
					}
					c.Groups[gid] = gd
				}
			}
		}
		out[ch] = c
	}
	return out
}
