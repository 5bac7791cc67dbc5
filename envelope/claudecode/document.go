package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// defaultMaxDepth is maxSubagentDepth when the document sets none.
const defaultMaxDepth = 3

// Compiled is the compiled form of one policy document (section 3). It is
// immutable once made.
type Compiled struct {
	agents        map[string]*agentDef // configured agents, by name
	agentNames    []string             // sorted
	builtIns      map[string]bool      // enabled built-ins
	rules         [3][]*rule           // allow, ask, deny, as written
	defaultMode   string               // "" when absent
	dirs          []inPath             // additionalDirectories
	disableBypass bool
	// blockReads is permissions.blockReadsOutsideWorkingDirectories
	// (row 125), blockWrites blockWritesOutsideWorkingDirectories (row
	// 126).
	blockReads, blockWrites bool
	maxDepth                int
	maxDepthRule            string // "maxSubagentDepth: 3", as reasons name it
	// release is the Claude Code release the document names (nil: none,
	// the written spec's pools); releaseRule names it for reasons.
	release     *release
	releaseRule string
	// toolsFlag is document.tools when the document names a release: the
	// --tools flag of that release's CLI (tools it names escape the
	// release layer).
	toolsFlag []string
}

// agentDef is one agent definition, configured or built-in.
type agentDef struct {
	name    string
	builtIn bool
	// toolsPresent: tools was written; wildcard: it holds a '*' entry, which
	// behaves exactly like an omitted list (pinned decision P5).
	toolsPresent bool
	wildcard     bool
	tools        []toolEntry
	disallowed   []toolEntry
	mode         string // permissionMode, normalized; "" when absent
	background   bool
	// anyType / types: which sub-agent types this definition may spawn when
	// it runs as the main thread (section 6.3).
	anyType bool
	types   []string
	// toolsRule renders the tools list as agent_tools:not_listed names it;
	// disallowedRule the blocklist, for traces.
	toolsRule, disallowedRule string
}

// where names the definition in reasons and messages.
func (a *agentDef) where() string {
	if a.builtIn {
		return "built-in agent " + strconv.Quote(a.name)
	}
	return "agents." + a.name
}

// limited reports whether layer 9 applies: tools is present and not a
// wildcard.
func (a *agentDef) limited() bool { return a.toolsPresent && !a.wildcard }

// finish derives the wildcard flag and the main-thread type list.
func (a *agentDef) finish() {
	a.anyType = !a.toolsPresent
	for i := range a.tools {
		e := &a.tools[i]
		switch {
		case e.kind == entAll:
			a.wildcard = true
		case e.kind == entExact && e.name == toolAgent:
			if e.types == nil {
				a.anyType = true
			}
			a.types = append(a.types, e.types...)
		}
	}
	if a.wildcard {
		a.anyType = true
	}
	if a.anyType {
		a.types = nil
	}
	a.toolsRule = "tools: " + quoteList(a.tools)
	a.disallowedRule = "disallowedTools: " + quoteList(a.disallowed)
}

// allowsType reports whether a main-thread session running this definition
// may spawn sub-agent type t.
func (a *agentDef) allowsType(t string) bool {
	return a.anyType || slices.Contains(a.types, t)
}

// builtInNames lists the built-in agents of a document that names no
// release, in a fixed order (section 5).
var builtInNames = []string{"general-purpose", "Explore", "Plan", "statusline-setup"}

// builtInOrder is the document's built-in agents: its release's, else
// builtInNames.
func (c *Compiled) builtInOrder() []string {
	if c.release != nil {
		return c.release.builtIns
	}
	return builtInNames
}

var builtInDefs = func() map[string]*agentDef {
	mk := func(name string, tools, disallowed []string) *agentDef {
		a := &agentDef{name: name, builtIn: true, toolsPresent: tools != nil}
		for _, t := range tools {
			e, _ := compileEntry(t)
			a.tools = append(a.tools, e)
		}
		for _, t := range disallowed {
			e, _ := compileEntry(t)
			a.disallowed = append(a.disallowed, e)
		}
		a.finish()
		return a
	}
	readOnly := []string{"Agent", "ExitPlanMode", "Edit", "Write", "NotebookEdit"}
	return map[string]*agentDef{
		"claude":           mk("claude", []string{"*"}, nil),
		"general-purpose":  mk("general-purpose", []string{"*"}, nil),
		"Explore":          mk("Explore", nil, readOnly),
		"Plan":             mk("Plan", nil, readOnly),
		"statusline-setup": mk("statusline-setup", []string{"Read", "Edit"}, nil),
	}
}()

// agent returns the definition an agent name resolves to: a configured
// agent, else an enabled built-in; nil when there is none.
func (c *Compiled) agent(name string) *agentDef {
	if a, ok := c.agents[name]; ok {
		return a
	}
	if c.builtIns[name] {
		return builtInDefs[name]
	}
	return nil
}

// The keys a document, its permissions and its agents accept.
var (
	topKeys        = []string{"release", "tools", "agents", "builtInAgents", "permissions", "maxSubagentDepth"}
	permissionKeys = []string{"allow", "ask", "deny", "defaultMode", "additionalDirectories", "disableBypassPermissionsMode",
		"blockReadsOutsideWorkingDirectories", "blockWritesOutsideWorkingDirectories"}
	agentKeys   = []string{"description", "tools", "disallowedTools", "permissionMode", "background", "model"}
	ignoredKeys = []string{"name", "prompt", "skills", "hooks", "mcpServers", "maxTurns", "isolation",
		"effort", "memory", "color", "initialPrompt"}
)

func policyErr(path, format string, args ...any) *events.Error {
	return events.Errorf(events.CodeInvalidPolicy, "%s: %s", path, fmt.Sprintf(format, args...))
}

// object decodes a JSON object, refusing any other value.
func object(raw json.RawMessage, path string) (map[string]json.RawMessage, error) {
	if jsonKind(raw) != '{' {
		return nil, policyErr(path, "must be an object, got %s", short(raw))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, policyErr(path, "does not decode: %v", err)
	}
	return m, nil
}

// unknownKey returns the first key of m (in byte order) not listed.
func unknownKey(m map[string]json.RawMessage, lists ...[]string) string {
	var bad []string
	for k := range m {
		known := false
		for _, l := range lists {
			if slices.Contains(l, k) {
				known = true
				break
			}
		}
		if !known {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return ""
	}
	slices.Sort(bad)
	return bad[0]
}

func jsonKind(raw json.RawMessage) byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// short renders a JSON value for a message, cut to a readable length.
func short(raw json.RawMessage) string {
	s := string(bytes.TrimSpace(raw))
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

func str(raw json.RawMessage, path string) (string, error) {
	var s string
	if jsonKind(raw) != '"' || json.Unmarshal(raw, &s) != nil {
		return "", policyErr(path, "must be a string, got %s", short(raw))
	}
	return s, nil
}

func boolean(raw json.RawMessage, path string) (bool, error) {
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, policyErr(path, "must be true or false, got %s", short(raw))
}

// strs decodes a list of strings; null entries are refused.
func strs(raw json.RawMessage, path string) ([]string, error) {
	if jsonKind(raw) != '[' {
		return nil, policyErr(path, "must be a list of strings, got %s", short(raw))
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, policyErr(path, "does not decode: %v", err)
	}
	out := make([]string, len(items))
	for i, it := range items {
		s, err := str(it, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// mode reads a written mode (manual is default; auto and unknown refused).
func mode(raw json.RawMessage, path string) (string, error) {
	s, err := str(raw, path)
	if err != nil {
		return "", err
	}
	m, ok := parseMode(s)
	if !ok {
		if s == modeAuto {
			return "", policyErr(path, "mode \"auto\" is not supported in the claude-code dialect; use one of %s", modeList)
		}
		return "", policyErr(path, "unknown mode %q; use one of %s", s, modeList)
	}
	return m, nil
}

// compileDocument validates and compiles a policy document (section 3.2).
func compileDocument(doc json.RawMessage) (*Compiled, error) {
	top, err := object(doc, "document")
	if err != nil {
		return nil, err
	}
	if k := unknownKey(top, topKeys); k != "" {
		return nil, policyErr("document", "unknown key %q (keys: %s)", k, strings.Join(topKeys, ", "))
	}
	c := &Compiled{agents: map[string]*agentDef{}, builtIns: map[string]bool{}, maxDepth: defaultMaxDepth}
	if raw, ok := top["release"]; ok {
		name, err := str(raw, "document.release")
		if err != nil {
			return nil, err
		}
		r := releases[name]
		if r == nil {
			return nil, policyErr("document.release", "%q is not a Claude Code release this ledger knows (known: %s)", name, knownReleases())
		}
		c.release, c.releaseRule = r, "release: "+strconv.Quote(name)
	}
	if raw, ok := top["tools"]; ok {
		// The catalogue is data.catalogue; a document list is checked like
		// one and otherwise has no effect.
		l, err := strs(raw, "document.tools")
		if err != nil {
			return nil, err
		}
		if err := checkCatalogue(l, "document.tools"); err != nil {
			return nil, err
		}
		if c.release != nil {
			for _, t := range l {
				c.toolsFlag = append(c.toolsFlag, normalizeTool(t))
			}
		}
	}
	if raw, ok := top["agents"]; ok {
		m, err := object(raw, "document.agents")
		if err != nil {
			return nil, err
		}
		names := make([]string, 0, len(m))
		for k := range m {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, name := range names {
			a, err := compileAgent(name, m[name])
			if err != nil {
				return nil, err
			}
			c.agents[name] = a
		}
		c.agentNames = names
	}
	for _, b := range c.builtInOrder() {
		c.builtIns[b] = true
	}
	if raw, ok := top["builtInAgents"]; ok {
		switch jsonKind(raw) {
		case '[':
			l, err := strs(raw, "document.builtInAgents")
			if err != nil {
				return nil, err
			}
			clear(c.builtIns)
			for i, b := range l {
				if builtInDefs[b] == nil || !slices.Contains(c.builtInOrder(), b) {
					return nil, policyErr(fmt.Sprintf("document.builtInAgents[%d]", i),
						"%q is not a built-in agent (built-ins: %s)", b, strings.Join(c.builtInOrder(), ", "))
				}
				c.builtIns[b] = true
			}
		default:
			on, err := boolean(raw, "document.builtInAgents")
			if err != nil {
				return nil, policyErr("document.builtInAgents", "must be true, false or a list of built-in agent names, got %s", short(raw))
			}
			if !on {
				clear(c.builtIns)
			}
		}
	}
	if raw, ok := top["permissions"]; ok {
		if err := c.compilePermissions(raw); err != nil {
			return nil, err
		}
	}
	if raw, ok := top["maxSubagentDepth"]; ok {
		s := string(bytes.TrimSpace(raw))
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || !allDigits(s) {
			return nil, policyErr("document.maxSubagentDepth", "must be an integer of at least 1, got %s", short(raw))
		}
		c.maxDepth = n
	}
	c.maxDepthRule = "maxSubagentDepth: " + strconv.Itoa(c.maxDepth)
	return c, nil
}

func (c *Compiled) compilePermissions(raw json.RawMessage) error {
	m, err := object(raw, "document.permissions")
	if err != nil {
		return err
	}
	if k := unknownKey(m, permissionKeys); k != "" {
		return policyErr("document.permissions", "unknown key %q (keys: %s)", k, strings.Join(permissionKeys, ", "))
	}
	for b := bAllow; b <= bDeny; b++ {
		raw, ok := m[b.String()]
		if !ok {
			continue
		}
		path := "document.permissions." + b.String()
		l, err := strs(raw, path)
		if err != nil {
			return err
		}
		for i, text := range l {
			r, err := compileRule(text)
			if err != nil {
				return policyErr(fmt.Sprintf("%s[%d]", path, i), "rule %q does not parse: %v", text, err)
			}
			c.rules[b] = append(c.rules[b], r)
		}
	}
	if raw, ok := m["defaultMode"]; ok {
		if c.defaultMode, err = mode(raw, "document.permissions.defaultMode"); err != nil {
			return err
		}
	}
	if raw, ok := m["additionalDirectories"]; ok {
		l, err := strs(raw, "document.permissions.additionalDirectories")
		if err != nil {
			return err
		}
		for i, d := range l {
			if d == "" {
				return policyErr(fmt.Sprintf("document.permissions.additionalDirectories[%d]", i), "must be a non-empty path")
			}
			c.dirs = append(c.dirs, parseInputPath(d))
		}
	}
	if raw, ok := m["disableBypassPermissionsMode"]; ok {
		s, err := str(raw, "document.permissions.disableBypassPermissionsMode")
		if err != nil || s != "disable" {
			return policyErr("document.permissions.disableBypassPermissionsMode", "the only value is \"disable\", got %s", short(raw))
		}
		c.disableBypass = true
	}
	if raw, ok := m["blockReadsOutsideWorkingDirectories"]; ok {
		if c.blockReads, err = boolean(raw, "document.permissions.blockReadsOutsideWorkingDirectories"); err != nil {
			return err
		}
	}
	if raw, ok := m["blockWritesOutsideWorkingDirectories"]; ok {
		if c.blockWrites, err = boolean(raw, "document.permissions.blockWritesOutsideWorkingDirectories"); err != nil {
			return err
		}
	}
	return nil
}

func compileAgent(name string, raw json.RawMessage) (*agentDef, error) {
	path := "document.agents." + name
	if !envelope.ValidAgentName(name) {
		return nil, policyErr("document.agents", "agent name %q is invalid: use 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit", name)
	}
	if name == agentMain || name == agentFork {
		return nil, policyErr("document.agents", "agent name %q is reserved; choose another name", name)
	}
	m, err := object(raw, path)
	if err != nil {
		return nil, err
	}
	if k := unknownKey(m, agentKeys, ignoredKeys); k != "" {
		return nil, policyErr(path, "unknown key %q (keys: %s; ignored: %s)", k,
			strings.Join(agentKeys, ", "), strings.Join(ignoredKeys, ", "))
	}
	a := &agentDef{name: name}
	if raw, ok := m["name"]; ok {
		s, err := str(raw, path+".name")
		if err != nil {
			return nil, err
		}
		if s != name {
			return nil, policyErr(path+".name", "%q must equal the agent's key %q (or be left out)", s, name)
		}
	}
	raw, ok := m["description"]
	if !ok {
		return nil, policyErr(path, "needs a description (a non-empty string)")
	}
	desc, err := str(raw, path+".description")
	if err != nil {
		return nil, err
	}
	if desc == "" {
		return nil, policyErr(path+".description", "must not be empty")
	}
	if raw, ok := m["tools"]; ok {
		if a.tools, err = entries(raw, path+".tools"); err != nil {
			return nil, err
		}
		a.toolsPresent = true
	}
	if raw, ok := m["disallowedTools"]; ok {
		if a.disallowed, err = entries(raw, path+".disallowedTools"); err != nil {
			return nil, err
		}
	}
	if raw, ok := m["permissionMode"]; ok {
		if a.mode, err = mode(raw, path+".permissionMode"); err != nil {
			return nil, err
		}
	}
	if raw, ok := m["background"]; ok {
		if a.background, err = boolean(raw, path+".background"); err != nil {
			return nil, err
		}
	}
	if raw, ok := m["model"]; ok {
		if _, err := str(raw, path+".model"); err != nil {
			return nil, err
		}
	}
	a.finish()
	return a, nil
}

// entries reads a tools / disallowedTools value: a list of entries or one
// comma-separated string.
func entries(raw json.RawMessage, path string) ([]toolEntry, error) {
	var texts []string
	if jsonKind(raw) == '"' {
		s, err := str(raw, path)
		if err != nil {
			return nil, err
		}
		texts = SplitToolList(s)
	} else {
		l, err := strs(raw, path)
		if err != nil {
			return nil, policyErr(path, "must be a list of tool entries or one comma-separated string, got %s", short(raw))
		}
		texts = l
	}
	out := make([]toolEntry, 0, len(texts))
	for i, t := range texts {
		e, err := compileEntry(t)
		if err != nil {
			return nil, policyErr(fmt.Sprintf("%s[%d]", path, i), "entry %q does not parse: %v", t, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// checkCatalogue validates a catalogue: valid names, no duplicates after the
// Task alias, MCP names with a tool part.
func checkCatalogue(cat []string, path string) error {
	seen := make(map[string]int, len(cat))
	for i, t := range cat {
		p := fmt.Sprintf("%s[%d]", path, i)
		if !envelope.ValidToolName(t) {
			return policyErr(p, "%q is not a tool name (1-64 letters, digits, '_' or '-')", t)
		}
		if isMCP(t) && !validMCPName(t) {
			return policyErr(p, "%q is an MCP name without a tool part; write mcp__<server>__<tool>", t)
		}
		n := normalizeTool(t)
		if j, dup := seen[n]; dup {
			return policyErr(p, "%q repeats %s[%d] (Task is an alias of Agent); list each tool once", t, path, j)
		}
		seen[n] = i
	}
	return nil
}
