package openclaw

import (
	"strings"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// sandboxedRoot is section 6.1 for a root: an explicit sandboxed wins, else
// the agent's mode decides; non-main exempts only the key agent:<agent>:main.
func (e *effective) sandboxedRoot(key events.SessionKey, d *events.StartedData) bool {
	if d.Sandboxed != nil {
		return *d.Sandboxed
	}
	switch e.agent(d.Agent).mode {
	case "all":
		return true
	case "non-main":
		return string(key) != "agent:"+e.rel.agentID(d.Agent)+":main"
	}
	return false
}

// admit runs checks 6-10 of section 8 for a spawn under parent and returns
// the child's unsealed envelope and facts.
func (e *effective) admit(w envelope.World, parent *envelope.Session, d *events.SpawnedData) (*envelope.Envelope, envelope.Facts, error) {
	if parent.Depth >= e.maxDepth {
		return nil, envelope.Facts{}, events.Errorf(events.CodeDepthLimit,
			"sessions_spawn is not allowed at this depth (current depth: %d, max: %d; agents.defaults.subagents.maxSpawnDepth)",
			parent.Depth, e.maxDepth)
	}
	if parent.ActiveChildren >= e.maxChildren {
		return nil, envelope.Facts{}, events.Errorf(events.CodeMaxChildren,
			"sessions_spawn has reached max active children for this session (%d/%d; agents.defaults.subagents.maxChildrenPerAgent)",
			parent.ActiveChildren, e.maxChildren)
	}
	if err := e.checkTarget(parent.Agent, d.Agent); err != nil {
		return nil, envelope.Facts{}, err
	}
	sandboxed, err := e.sandboxedChild(parent, d)
	if err != nil {
		return nil, envelope.Facts{}, err
	}
	depth := parent.Depth + 1
	env, err := e.capture(w, parent, d.Agent, depth)
	if err != nil {
		return nil, envelope.Facts{}, err
	}
	return env, envelope.Facts{Sandboxed: sandboxed, Role: env.Role}, nil
}

// sandboxedChild is section 6.1 for a child and check 9 of section 8. An
// explicit sandboxed wins. Otherwise the legacy release lets a child
// inherit its requester's sandbox; the packaged releases sandbox it as its
// own agent's mode says (a child's key is never a main key), as OpenClaw's
// resolveSandboxRuntimeStatus does, and then, as its
// resolveSpawnSandboxError, refuse an unsandboxed child of a sandboxed
// requester.
func (e *effective) sandboxedChild(parent *envelope.Session, d *events.SpawnedData) (bool, error) {
	m := e.agent(d.Agent).mode
	byMode := m == "all" || m == "non-main"
	if e.rel.Rules != rulesPackage {
		sandboxed := parent.Facts.Sandboxed
		if d.Sandboxed != nil {
			if !*d.Sandboxed && parent.Facts.Sandboxed {
				return false, events.Errorf(events.CodeSandboxRequired,
					"requester %s is sandboxed, so its children are too; drop \"sandboxed\": false from the spawn", parent.Key)
			}
			sandboxed = *d.Sandboxed
		} else if byMode {
			sandboxed = true
		}
		return sandboxed, nil
	}
	sandboxed := byMode
	if d.Sandboxed != nil {
		sandboxed = *d.Sandboxed
	}
	if parent.Facts.Sandboxed && !sandboxed {
		if d.Sandboxed != nil {
			return false, events.Errorf(events.CodeSandboxRequired,
				"requester %s is sandboxed and cannot spawn an unsandboxed child; drop \"sandboxed\": false from the spawn", parent.Key)
		}
		return false, events.Errorf(events.CodeSandboxRequired,
			"requester %s is sandboxed and cannot spawn an unsandboxed child: agent %q runs unsandboxed (sandbox mode %q); set its sandbox.mode to \"all\" or \"non-main\", or spawn a sandboxed agent", parent.Key, d.Agent, m)
	}
	return sandboxed, nil
}

// checkTarget is step 8 of section 8.
func (e *effective) checkTarget(r, t string) error {
	if e.rel.Rules == rulesPackage {
		return e.checkTargetPackage(r, t)
	}
	ap := e.agent(r)
	if t == r && !ap.requireAgentID {
		return nil // upstream's spawn without an agent id runs the requester's own agent
	}
	if !e.configured(t) {
		return events.Errorf(events.CodeAgentNotConfigured,
			"agent %q is not configured (configured agents: %s); add {\"id\": %q} to agents.list",
			t, strings.Join(e.policy.agentIDs, ", "), t)
	}
	allowed := e.allowedTargets(r)
	if !contains(allowed, t) {
		where := "agents.defaults.subagents.allowAgents"
		if ap.path != "" {
			where = ap.path + ".subagents.allowAgents"
		}
		list := "none"
		if len(allowed) > 0 {
			list = strings.Join(allowed, ", ")
		}
		return events.Errorf(events.CodeAgentNotAllowed,
			"agent %q may not spawn agent %q (allowed targets: %s); add %q to %s or add an allow_agent grant",
			r, t, list, t, where)
	}
	return nil
}

// checkTargetPackage is the target check as OpenClaw's
// resolveSubagentTargetPolicy makes it: a spawn of the requester's own
// agent counts as a spawn without an agent id and is admitted unless
// requireAgentId is set; otherwise the target must be in the requester's
// allowed set, and a refused target is reported as not configured when the
// requester's allowAgents names it (or "*"), else as not allowed.
func (e *effective) checkTargetPackage(r, t string) error {
	ap := e.agent(r)
	r, t = e.rel.agentID(r), e.rel.agentID(t)
	if t == r && !ap.requireAgentID {
		return nil
	}
	allowed := e.allowedTargets(r)
	if contains(allowed, t) {
		return nil
	}
	list := "none"
	if len(allowed) > 0 {
		list = strings.Join(allowed, ", ")
	}
	where := "agents.defaults.subagents.allowAgents"
	if ap.path != "" {
		where = ap.path + ".subagents.allowAgents"
	}
	if e.listed(r, t) {
		return events.Errorf(events.CodeAgentNotConfigured,
			"agent %q is not configured (configured agents: %s; allowed targets of %q: %s); add {\"id\": %q} to agents.list",
			t, strings.Join(e.policy.agentIDs, ", "), r, list, t)
	}
	return events.Errorf(events.CodeAgentNotAllowed,
		"agent %q may not spawn agent %q (allowed targets: %s); add %q to %s or add an allow_agent grant",
		r, t, list, t, where)
}
