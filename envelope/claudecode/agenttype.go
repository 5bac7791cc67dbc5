package claudecode

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Which agent an Agent call launches (section 9.2, section 0.2 row 35).
//
// Claude Code 2.1.328 launches, for a subagent_type, the agent of exactly
// that name; failing that, the one agent whose name folds to the same
// text (foldAgentType): "explore" and "EXPLORE" launch Explore, "WORKER"
// a custom agent named worker, "General_Purpose" general-purpose. Two or
// more agents folding alike ("TWIN" with agents twin and Twin) is
// ambiguous and launches none. Its Agent(type) deny rules then refuse the
// call when a rule names, exactly, the subagent_type as written or the
// agent it launches: under Agent(Explore) "explore" is refused, under
// Agent(Worker) "Worker" is refused while "worker" and "WORKER" launch
// worker. A main thread's tools: Agent(type) list must name both, exactly
// (TestDifferential/agents-type-case-*).

// foldAgentType is the text Claude Code 2.1.328 compares agent names by
// when no agent has exactly the name a call asks for: NFKC, lower case as
// JavaScript's toLowerCase makes it, then without white space, dashes
// (Unicode Pd) and underscores.
func foldAgentType(s string) string {
	s = norm.NFKC.String(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == 'İ':
			// toLowerCase's one unconditional mapping to two code points.
			b.WriteString("i\u0307")
		case r == '_' || unicode.Is(unicode.White_Space, r) || unicode.Is(unicode.Pd, r):
		default:
			r = unicode.ToLower(r)
			if r == '_' || unicode.Is(unicode.White_Space, r) || unicode.Is(unicode.Pd, r) {
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// agentType is the agent an Agent call's subagent_type t launches: the
// configured or enabled built-in agent named t, else the one whose name
// folds as t does; "" when there is none or more than one.
func (c *Compiled) agentType(t string) string {
	if c.agent(t) != nil {
		return t
	}
	k := foldAgentType(t)
	found := ""
	for _, name := range c.agentNames {
		if foldAgentType(name) == k {
			if found != "" {
				return ""
			}
			found = name
		}
	}
	for _, name := range c.builtInOrder() {
		if c.builtIns[name] && c.agents[name] == nil && foldAgentType(name) == k {
			if found != "" {
				return ""
			}
			found = name
		}
	}
	return found
}
