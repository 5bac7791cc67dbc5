package ledgerpolicy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// Compiled is a compiled policy document. Immutable once made.
type Compiled struct {
	table *runtimeTable
	def   behavior
	// defWhere is how a reason names the default: `default: "deny"`, or
	// `default (unset): "deny"`.
	defWhere    string
	global      *layer
	agents      []*layer // sorted by agent type
	maxDepth    int
	allowAgents []string // sorted; "*" admits every type
}

// layer is one list of rules: the global permissions, or one agent
// type's. hasAllow says the document gave the layer a non-empty allow
// list (only then does an agent layer deny what its allow list misses).
type layer struct {
	agent    string // "" for the global layer
	list     string // permissions, agents.<type>.permissions
	rules    [3][]ruleRef
	hasAllow bool
}

// ruleRef is a rule in a layer with the record that introduced it (nil:
// the policy.set of the revision).
type ruleRef struct {
	r     *rule
	b     behavior
	where string
	rec   *envelope.RecordRef
}

func policyErr(path, format string, args ...any) error {
	return events.Errorf(events.CodeInvalidPolicy, "%s: %s", path, fmt.Sprintf(format, args...))
}

// object reads a JSON object strictly: its keys in order, each once, each
// one of known.
func object(raw json.RawMessage, path string, known ...string) ([]string, map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if d, ok := tok.(json.Delim); err != nil || !ok || d != '{' {
		return nil, nil, policyErr(path, "must be an object")
	}
	var keys []string
	m := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, policyErr(path, "is not valid JSON: %v", err)
		}
		k := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, policyErr(path+"."+k, "is not valid JSON: %v", err)
		}
		if _, dup := m[k]; dup {
			return nil, nil, policyErr(path+"."+k, "is given twice")
		}
		if known != nil && !slices.Contains(known, k) {
			return nil, nil, policyErr(path+"."+k, "is not a key of the ledger dialect (%s takes %s)", path, strings.Join(known, ", "))
		}
		keys = append(keys, k)
		m[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, policyErr(path, "is not valid JSON: %v", err)
	}
	// Nothing but white space may follow the object, not even a stray '}'
	// or ']' (TestCompileRefusesTrailingData).
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, policyErr(path, "has data after the object")
	}
	return keys, m, nil
}

func str(raw json.RawMessage, path string) (string, error) {
	var s string
	if bytes.TrimSpace(raw)[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", policyErr(path, "must be a string")
	}
	return s, nil
}

func strList(raw json.RawMessage, path string) ([]string, error) {
	var probe []json.RawMessage
	if bytes.TrimSpace(raw)[0] != '[' || json.Unmarshal(raw, &probe) != nil {
		return nil, policyErr(path, "must be a list of strings")
	}
	l := make([]string, len(probe))
	for i, p := range probe {
		if bytes.TrimSpace(p)[0] != '"' || json.Unmarshal(p, &l[i]) != nil {
			return nil, policyErr(fmt.Sprintf("%s[%d]", path, i), "must be a string")
		}
	}
	return l, nil
}

// compileDocument validates and compiles a document (docs/dialects/
// ledger.md, "The document"). Every error is invalid_policy and names the
// key path.
func compileDocument(doc json.RawMessage) (*Compiled, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return nil, policyErr("document", "is empty; a ledger policy names at least its runtime")
	}
	_, m, err := object(doc, "document", "runtime", "default", "permissions", "agents", "subagents")
	if err != nil {
		return nil, err
	}
	c := &Compiled{def: bDeny, defWhere: `default (unset): "deny"`, maxDepth: 1, allowAgents: []string{"*"}}
	raw, ok := m["runtime"]
	if !ok {
		return nil, policyErr("document.runtime", "is required: name the runtime release (%s)", strings.Join(Runtimes(), ", "))
	}
	rt, err := str(raw, "document.runtime")
	if err != nil {
		return nil, err
	}
	if c.table = tableOf(rt); c.table == nil {
		return nil, policyErr("document.runtime", "%q has no tool table; use one of %s", rt, strings.Join(Runtimes(), ", "))
	}
	if raw, ok := m["default"]; ok {
		d, err := str(raw, "document.default")
		if err != nil {
			return nil, err
		}
		b, ok := parseBehavior(d)
		if !ok {
			return nil, policyErr("document.default", "must be deny, ask or allow, got %q", d)
		}
		c.def, c.defWhere = b, "default: "+fmt.Sprintf("%q", d)
	}
	c.global = &layer{list: "permissions"}
	if raw, ok := m["permissions"]; ok {
		if err := c.readLayer(c.global, raw, "document.permissions"); err != nil {
			return nil, err
		}
	}
	if raw, ok := m["agents"]; ok {
		names, am, err := object(raw, "document.agents")
		if err != nil {
			return nil, err
		}
		slices.Sort(names)
		for _, name := range names {
			p := "document.agents." + name
			if !envelope.ValidAgentName(name) {
				return nil, policyErr(p, "%q is not an agent type: use 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit", name)
			}
			_, lm, err := object(am[name], p, "permissions")
			if err != nil {
				return nil, err
			}
			l := &layer{agent: name, list: "agents." + name + ".permissions"}
			if raw, ok := lm["permissions"]; ok {
				if err := c.readLayer(l, raw, p+".permissions"); err != nil {
					return nil, err
				}
			}
			c.agents = append(c.agents, l)
		}
	}
	if raw, ok := m["subagents"]; ok {
		_, sm, err := object(raw, "document.subagents", "maxDepth", "allowAgents")
		if err != nil {
			return nil, err
		}
		if raw, ok := sm["maxDepth"]; ok {
			var n int
			// Only a JSON number: null would unmarshal as 0
			// (TestCompileRefusesNullMaxDepth).
			if b := bytes.TrimSpace(raw)[0]; b != '-' && (b < '0' || b > '9') || json.Unmarshal(raw, &n) != nil || n < 0 || n > events.MaxSpawnDepth {
				return nil, policyErr("document.subagents.maxDepth", "must be an integer from 0 (no sub-agents) to %d", events.MaxSpawnDepth)
			}
			c.maxDepth = n
		}
		if raw, ok := sm["allowAgents"]; ok {
			l, err := strList(raw, "document.subagents.allowAgents")
			if err != nil {
				return nil, err
			}
			for i, a := range l {
				if a != "*" && !envelope.ValidAgentName(a) {
					return nil, policyErr(fmt.Sprintf("document.subagents.allowAgents[%d]", i), "%q is neither \"*\" nor an agent type", a)
				}
			}
			slices.Sort(l)
			c.allowAgents = slices.Compact(l)
		}
	}
	return c, nil
}

func (c *Compiled) readLayer(l *layer, raw json.RawMessage, path string) error {
	_, m, err := object(raw, path, "allow", "ask", "deny")
	if err != nil {
		return err
	}
	for b := bAllow; b <= bDeny; b++ {
		raw, ok := m[b.String()]
		if !ok {
			continue
		}
		p := path + "." + b.String()
		texts, err := strList(raw, p)
		if err != nil {
			return err
		}
		for i, t := range texts {
			r, err := compileRule(c.table, t)
			if err != nil {
				return policyErr(fmt.Sprintf("%s[%d]", p, i), "rule %q: %v", t, err)
			}
			if len(t) > events.MaxRuleLen || events.HasControl(t) {
				return policyErr(fmt.Sprintf("%s[%d]", p, i), "a rule is at most %d bytes with no control character", events.MaxRuleLen)
			}
			l.rules[b] = append(l.rules[b], ruleRef{r: r, b: b, where: where(l.list, b, t)})
		}
		if b == bAllow && len(texts) > 0 {
			l.hasAllow = true
		}
	}
	return nil
}

// agent returns the layer of an agent type, nil when it has none.
func (c *Compiled) agent(name string) *layer { return findLayer(c.agents, name) }

func findLayer(ls []*layer, name string) *layer {
	if i, ok := slices.BinarySearchFunc(ls, name, func(l *layer, n string) int { return strings.Compare(l.agent, n) }); ok {
		return ls[i]
	}
	return nil
}

// allowsAgent reports whether subagents.allowAgents admits a type.
func (c *Compiled) allowsAgent(a string) bool {
	_, ok := slices.BinarySearch(c.allowAgents, a)
	_, star := slices.BinarySearch(c.allowAgents, "*")
	return ok || star
}

// checkCatalogue refuses a catalogue entry that is not a tool name.
func checkCatalogue(cat []string) error {
	for i, t := range cat {
		if !envelope.ValidToolName(t) {
			return policyErr(fmt.Sprintf("catalogue[%d]", i), "%q is not a tool name ([A-Za-z0-9_-]{1,64})", t)
		}
	}
	return nil
}
