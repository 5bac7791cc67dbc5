package openclaw

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

func TestAdmissionOrder(t *testing.T) {
	// Each case fails several checks; the first in section 8's order answers.
	tests := []struct {
		name, doc string
		setup     func(w *world)
		parent    string
		key       string
		agent     string
		sandboxed *bool
		want      events.Code
		msg       string
	}{
		{name: "depth before children", doc: `{"agents":{"defaults":{"subagents":{"maxSpawnDepth":1,"maxChildrenPerAgent":1}}}}`,
			setup: func(w *world) {
				w.spawn("agent:main:subagent:p", "agent:main:main", "main").ActiveChildren = 1
			}, parent: "agent:main:subagent:p", agent: "ghost", want: events.CodeDepthLimit,
			msg: "sessions_spawn is not allowed at this depth (current depth: 1, max: 1; agents.defaults.subagents.maxSpawnDepth)"},
		{name: "children before target", doc: `{"agents":{"defaults":{"subagents":{"maxChildrenPerAgent":1}}}}`,
			setup:  func(w *world) { w.spawn("agent:main:subagent:p", "agent:main:main", "main") },
			parent: "agent:main:main", agent: "ghost", want: events.CodeMaxChildren,
			msg: "sessions_spawn has reached max active children for this session (1/1; agents.defaults.subagents.maxChildrenPerAgent)"},
		{name: "not configured before not allowed", doc: `{"agents":{"list":[{"id":"main","subagents":{"allowAgents":[]}}]}}`,
			parent: "agent:main:main", agent: "ghost", want: events.CodeAgentNotConfigured, msg: `agent "ghost" is not configured`},
		{name: "not allowed", doc: `{"agents":{"list":[{"id":"main","subagents":{"allowAgents":[]}},{"id":"w"}]}}`,
			parent: "agent:main:main", agent: "w", want: events.CodeAgentNotAllowed, msg: "agents.list[0].subagents.allowAgents"},
		{name: "target before sandbox", doc: `{"agents":{"list":[{"id":"w"}]}}`,
			parent: "agent:main:sb", agent: "w", sandboxed: ptr(false), want: events.CodeAgentNotAllowed},
		{name: "sandbox required", doc: `{}`, parent: "agent:main:sb", agent: "main", sandboxed: ptr(false), want: events.CodeSandboxRequired},
		{name: "sandboxed true under sandboxed", doc: `{}`, parent: "agent:main:sb", agent: "main", sandboxed: ptr(true)},
		{name: "unsandboxed under unsandboxed", doc: `{}`, parent: "agent:main:main", agent: "main", sandboxed: ptr(false)},
		{name: "sandbox before delegation", doc: `{"tools":{"allow":["read"]},"agents":{"list":[{"id":"main","tools":{"deny":["exec"]},"subagents":{"allowAgents":["w"],"delegateToolsTo":["w"]}},{"id":"w"}]}}`,
			parent: "agent:main:sb", agent: "w", sandboxed: ptr(false), want: events.CodeSandboxRequired},
		{name: "delegation unavailable", doc: `{"tools":{"allow":["read"]},"agents":{"list":[{"id":"main","tools":{"deny":["exec"]},"subagents":{"allowAgents":["w"],"delegateToolsTo":["w"]}},{"id":"w"}]}}`,
			parent: "agent:main:main", agent: "w", want: events.CodeDelegationUnavail, msg: "global layer, tools.allow"},
		{name: "requireAgentId removes the self exemption", doc: `{"agents":{"defaults":{"subagents":{"requireAgentId":true,"allowAgents":[]}}}}`,
			parent: "agent:main:main", agent: "main", want: events.CodeAgentNotAllowed},
		{name: "requireAgentId without a list still implies the requester", doc: `{"agents":{"defaults":{"subagents":{"requireAgentId":true}}}}`,
			parent: "agent:main:main", agent: "main"},
		{name: "requireAgentId with self listed", doc: `{"agents":{"defaults":{"subagents":{"requireAgentId":true,"allowAgents":["main"]}}}}`,
			parent: "agent:main:main", agent: "main"},
		{name: "unconfigured requester spawns itself", doc: `{}`, parent: "agent:main:x", agent: "x"},
		{name: "wildcard includes unconfigured requester", doc: `{"agents":{"defaults":{"subagents":{"allowAgents":["*"],"requireAgentId":true}}}}`,
			parent: "agent:main:x", agent: "x", want: events.CodeAgentNotConfigured},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, tt.doc, "read", "exec")
			w.start("agent:main:main", events.StartedData{Agent: "main"})
			w.start("agent:main:sb", events.StartedData{Agent: "main", Sandboxed: ptr(true)})
			w.start("agent:main:x", events.StartedData{Agent: "x"})
			if tt.setup != nil {
				tt.setup(w)
			}
			agent := tt.agent
			var mods []func(*events.SpawnedData)
			if tt.sandboxed != nil {
				mods = append(mods, withSandboxed(*tt.sandboxed))
			}
			_, err := w.trySpawn("agent:"+agent+":subagent:new", tt.parent, agent, mods...)
			if got := events.CodeOf(err); got != tt.want {
				t.Fatalf("code = %q (%v), want %q", got, err, tt.want)
			}
			if tt.msg != "" && !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("message %q lacks %q", err, tt.msg)
			}
		})
	}
}

func TestTargetCheck(t *testing.T) {
	doc := `{"agents":{"defaults":{"subagents":{"requireAgentId":true,"allowAgents":["planner"]}},
	  "list":[{"id":"main","subagents":{"allowAgents":["*"]}},{"id":"planner"},{"id":"ops"},
	          {"id":"dev","subagents":{"requireAgentId":false}},{"id":"stale","subagents":{"allowAgents":["planner","gone"]}}]}}`
	tests := []struct {
		requester, target string
		want              events.Code
	}{
		{"main", "main", ""},
		{"main", "ops", ""},
		{"main", "ghost", events.CodeAgentNotConfigured},
		{"ops", "ops", events.CodeAgentNotAllowed},
		{"ops", "planner", ""},
		{"dev", "dev", ""},
		{"dev", "main", events.CodeAgentNotAllowed},
		{"stale", "gone", events.CodeAgentNotConfigured},
		{"stale", "planner", ""},
	}
	w := newWorld(t, doc, "read")
	e := w.policy.Effective.(*effective)
	for _, tt := range tests {
		if got := events.CodeOf(e.checkTarget(tt.requester, tt.target)); got != tt.want {
			t.Errorf("%s -> %s: %q, want %q", tt.requester, tt.target, got, tt.want)
		}
	}
}

func TestEnvelopeCapture(t *testing.T) {
	tests := []struct {
		name   string
		doc    string
		cat    []string
		start  events.StartedData
		sender string
		want   envelope.Envelope
	}{
		{name: "no restriction", doc: `{}`, cat: []string{"read"},
			want: envelope.Envelope{InheritedDeny: []string{}, Source: "config"}},
		{name: "normalized sorted deny and ceiling", doc: `{"tools":{"allow":["sessions_spawn","read",""," READ "],"deny":["bash","exec","BASH",""]}}`,
			cat:  []string{"sessions_spawn", "read", "exec", "write"},
			want: envelope.Envelope{InheritedAllow: []string{"read", "sessions_spawn"}, InheritedDeny: []string{"exec"}, Source: "config"}},
		{name: "empty ceiling", doc: `{"tools":{"allow":["wat"]}}`, cat: []string{"read"},
			want: envelope.Envelope{InheritedAllow: []string{}, InheritedDeny: []string{}, Source: "config"}},
		{name: "star allow is no ceiling", doc: `{"tools":{"allow":["*"],"deny":["group:fs"]}}`, cat: []string{"read"},
			want: envelope.Envelope{InheritedDeny: []string{"group:fs"}, Source: "config"}},
		{name: "profile is restrictive", doc: `{"tools":{"profile":"minimal"}}`, cat: []string{"read", "session_status"},
			want: envelope.Envelope{InheritedAllow: []string{"session_status"}, InheritedDeny: []string{}, Source: "config"}},
		{name: "sandbox default allow is restrictive, deny captured", doc: `{}`, cat: []string{"read", "browser"},
			start: events.StartedData{Sandboxed: ptr(true)},
			want:  envelope.Envelope{InheritedAllow: []string{"read"}, InheritedDeny: []string{"automations", "browser", "canvas", "gateway", "nodes"}, Source: "config"}},
		{name: "sender source", doc: `{"tools":{"toolsBySender":{"id:bob":{"deny":["exec"]}}}}`, cat: []string{"read", "exec"}, sender: "bob",
			want: envelope.Envelope{InheritedDeny: []string{"exec"}, Source: "sender"}},
		{name: "empty sender entry is config", doc: `{"tools":{"toolsBySender":{"id:bob":{},"*":{"deny":["exec"]}}}}`, cat: []string{"read", "exec"}, sender: "bob",
			want: envelope.Envelope{InheritedDeny: []string{}, Source: "config"}},
		{name: "group source", doc: `{"channels":{"c":{"groups":{"g":{"tools":{"allow":["read"]}}}}}}`, cat: []string{"read", "exec"},
			start: events.StartedData{Channel: "c", Group: "g"},
			want:  envelope.Envelope{InheritedAllow: []string{"read"}, InheritedDeny: []string{}, Source: "sender"}},
		{name: "every layer's deny", doc: `{"tools":{"deny":["a"],"byProvider":{"p":{"deny":["b"]}},"toolsBySender":{"*":{"deny":["c"]}}},
			"agents":{"list":[{"id":"main","tools":{"deny":["d"],"byProvider":{"p":{"deny":["e"]}}}}]},
			"channels":{"ch":{"groups":{"g":{"tools":{"deny":["f"]}}}}}}`, cat: []string{"read"},
			start: events.StartedData{Provider: "p", Channel: "ch", Group: "g"},
			want:  envelope.Envelope{InheritedDeny: []string{"a", "b", "c", "d", "e", "f"}, Source: "sender"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, tt.doc, tt.cat...)
			tt.start.Agent = "main"
			w.start("agent:main:r", tt.start)
			w.turn("agent:main:r", tt.sender, false)
			c := w.spawn("agent:main:subagent:c", "agent:main:r", "main")
			got := c.Envelope
			want := tt.want
			want.Requester, want.Agent, want.Depth, want.Role, want.Revision = "agent:main:r", "main", 1, "orchestrator", 1
			want.Hash = got.Hash
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("envelope\n got %+v\nwant %+v", *got, want)
			}
			if !got.Verified("agent:main:r") {
				t.Error("envelope does not verify")
			}
			// A child never exceeds the ceiling.
			if got.InheritedAllow != nil {
				for _, a := range w.tools("agent:main:subagent:c").Allowed {
					if !contains(got.InheritedAllow, a) {
						t.Errorf("child allowed %s outside its ceiling", a)
					}
				}
			}
		})
	}
}

func TestCaptureFromAChildIncludesItsLayersAndSnapshot(t *testing.T) {
	w := newWorld(t, `{"agents":{"defaults":{"subagents":{"maxSpawnDepth":2}},"list":[{"id":"main","tools":{"deny":["write"]}}]},
	  "tools":{"subagents":{"tools":{"deny":["web_fetch"]}}}}`, "read", "write", "web_fetch", "sessions_spawn")
	w.start("agent:main:main", events.StartedData{Agent: "main"})
	w.spawn("agent:main:subagent:a", "agent:main:main", "main")
	b := w.spawn("agent:main:subagent:b", "agent:main:subagent:a", "main")
	want := []string{"agents_list", "automations", "conversations_*", "gateway", "message", "progress_card",
		"session_status", "sessions_send", "web_fetch", "write"}
	if !reflect.DeepEqual(b.Envelope.InheritedDeny, want) || b.Envelope.Role != "leaf" || b.Envelope.Depth != 2 {
		t.Errorf("envelope %+v", b.Envelope)
	}
}

func TestDelegation(t *testing.T) {
	const front = `{"tools":{"deny":["browser"]},"agents":{"list":[
	  {"id":"front","tools":{"deny":["exec","write"]},"subagents":{"allowAgents":["worker"],"delegateToolsTo":["worker"]}},
	  {"id":"worker","subagents":{"allowAgents":["third"]}},{"id":"third"}]}}`
	cat := []string{"read", "exec", "write", "browser", "message"}

	t.Run("floor and requester unchanged", func(t *testing.T) {
		w := newWorld(t, front, cat...)
		w.start("agent:front:main", events.StartedData{Agent: "front"})
		c := w.spawn("agent:worker:subagent:t", "agent:front:main", "worker")
		if d := c.Envelope.Delegated; d == nil || d.Requester != "agent:front:main" || d.Target != "worker" || !reflect.DeepEqual(d.Deny, []string{"browser"}) {
			t.Fatalf("delegated %+v", c.Envelope.Delegated)
		}
		got := codes(w.tools("agent:worker:subagent:t"))
		want := map[string]string{"read": "allow", "exec": "allow", "write": "allow", "browser": "global:deny", "message": codeHardDeny}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("worker %v", got)
		}
		if got := codes(w.tools("agent:front:main")); got["exec"] != "agent:deny" {
			t.Errorf("front %v", got)
		}
		// The third agent gets the full snapshot, no delegation.
		third := w.spawn("agent:third:subagent:x", "agent:worker:subagent:t", "third")
		if third.Envelope.Delegated != nil || !contains(third.Envelope.InheritedDeny, "exec") {
			t.Errorf("third %+v", third.Envelope)
		}
		if got := codes(w.tools("agent:third:subagent:x")); got["exec"] != "inherited:deny" {
			t.Errorf("third tools %v", got)
		}
	})

	t.Run("external turn and revocation", func(t *testing.T) {
		w := newWorld(t, `{"agents":{"list":[{"id":"front","tools":{"deny":["exec"]},"subagents":{"allowAgents":["worker"]}},{"id":"worker"}]}}`, cat...)
		w.grant(events.GrantDelegateTools, "front", "worker")
		w.start("agent:front:main", events.StartedData{Agent: "front"})
		w.spawn("agent:worker:subagent:t", "agent:front:main", "worker")
		if got := codes(w.tools("agent:worker:subagent:t"))["exec"]; got != "allow" {
			t.Fatalf("floor: %s", got)
		}
		w.turn("agent:worker:subagent:t", "visitor", false)
		if got := codes(w.tools("agent:worker:subagent:t"))["exec"]; got != "inherited:deny" {
			t.Errorf("external turn: %s", got)
		}
		w.turn("agent:worker:subagent:t", "", false)
		w.revoke(events.GrantDelegateTools, "front", "worker")
		if got := codes(w.tools("agent:worker:subagent:t"))["exec"]; got != "inherited:deny" {
			t.Errorf("after revocation: %s", got)
		}
		later := w.spawn("agent:worker:subagent:later", "agent:front:main", "worker")
		if later.Envelope.Delegated != nil {
			t.Error("no delegation without the grant")
		}
		w.grant(events.GrantDelegateTools, "front", "worker")
		if got := codes(w.tools("agent:worker:subagent:t"))["exec"]; got != "allow" {
			t.Errorf("granting again: %s", got)
		}
		if got := codes(w.tools("agent:worker:subagent:later"))["exec"]; got != "inherited:deny" {
			t.Errorf("no retroactive upgrade: %s", got)
		}
		// Revoking the allow_agent side ends the grant too.
		w.setPolicy(`{"agents":{"list":[{"id":"front","tools":{"deny":["exec"]},"subagents":{"allowAgents":[]}},{"id":"worker"}]}}`, nil)
		if got := codes(w.tools("agent:worker:subagent:t"))["exec"]; got != "inherited:deny" {
			t.Errorf("target no longer allowed: %s", got)
		}
	})

	t.Run("no own deny, sender source, restrictive", func(t *testing.T) {
		w := newWorld(t, `{"agents":{"list":[{"id":"front","tools":{"toolsBySender":{"id:o":{"deny":["browser"]}}},"subagents":{"allowAgents":["worker"],"delegateToolsTo":["worker"]}},{"id":"worker"}]}}`, cat...)
		w.start("agent:front:main", events.StartedData{Agent: "front"})
		if c := w.spawn("agent:worker:subagent:a", "agent:front:main", "worker"); c.Envelope.Delegated != nil {
			t.Errorf("nothing to relax: %+v", c.Envelope.Delegated)
		}
		w.setPolicy(`{"agents":{"list":[{"id":"front","tools":{"deny":["exec"],"toolsBySender":{"id:o":{"deny":["browser"]}}},"subagents":{"allowAgents":["worker"],"delegateToolsTo":["worker"]}},{"id":"worker"}]}}`, nil)
		w.turn("agent:front:main", "o", false)
		if c := w.spawn("agent:worker:subagent:b", "agent:front:main", "worker"); c.Envelope.Delegated != nil || c.Envelope.Source != "sender" {
			t.Errorf("sender source: %+v", c.Envelope)
		}
		w.setPolicy(`{"tools":{"profile":"coding"},"agents":{"list":[{"id":"front","tools":{"deny":["exec"]},"subagents":{"allowAgents":["worker"],"delegateToolsTo":["worker"]}},{"id":"worker"}]}}`, nil)
		w.turn("agent:front:main", "", false)
		if _, err := w.trySpawn("agent:worker:subagent:c", "agent:front:main", "worker"); events.CodeOf(err) != events.CodeDelegationUnavail {
			t.Errorf("restrictive profile: %v", err)
		}
	})

	t.Run("propagation to a same-agent helper", func(t *testing.T) {
		w := newWorld(t, `{"agents":{"list":[{"id":"front","tools":{"deny":["exec","write"]},"subagents":{"allowAgents":["worker"],"delegateToolsTo":["worker"]}},
		  {"id":"worker","tools":{"allow":["sessions_spawn","read","exec"]}}]}}`, "read", "exec", "browser", "write", "sessions_spawn")
		w.start("agent:front:main", events.StartedData{Agent: "front"})
		w.spawn("agent:worker:subagent:t", "agent:front:main", "worker")
		h := w.spawn("agent:worker:subagent:h", "agent:worker:subagent:t", "worker")
		d := h.Envelope.Delegated
		if d == nil || d.Requester != "agent:front:main" || d.Target != "worker" || contains(d.Deny, "exec") || !contains(d.Deny, "gateway") {
			t.Fatalf("helper delegation %+v", d)
		}
		if !reflect.DeepEqual(h.Envelope.InheritedAllow, []string{"exec", "read", "sessions_spawn"}) || !contains(h.Envelope.InheritedDeny, "exec") {
			t.Errorf("helper envelope %+v", h.Envelope)
		}
		if got := codes(w.tools("agent:worker:subagent:h")); got["exec"] != "allow" || got["browser"] != "agent:allow" {
			t.Errorf("helper tools %v", got)
		}
		// A continuation of the requester with the worker's envelope applies
		// the full snapshot: the floor serves the target agent only.
		w.complete("agent:worker:subagent:t")
		w.resume("agent:front:main", envelope.SourceCompletionHandoff, w.sessions["agent:worker:subagent:t"].Envelope)
		if got := codes(w.tools("agent:front:main")); got["exec"] != "agent:deny" || got["write"] != "agent:deny" {
			t.Errorf("requester continuation %v", got)
		}
	})
}

func TestInheritedLayerUsesTheCapturedEnvelopeOfAContinuation(t *testing.T) {
	w := newWorld(t, `{"tools":{"toolsBySender":{"id:alice":{"allow":["read","message"],"deny":["exec"]}}}}`, "read", "message", "exec", "write")
	w.start("agent:main:r", events.StartedData{Agent: "main"})
	w.turn("agent:main:r", "alice", false)
	c := w.spawn("agent:main:subagent:c", "agent:main:r", "main")
	w.complete("agent:main:subagent:c")
	s := w.resume("agent:main:r", envelope.SourceCompletionHandoff, c.Envelope)
	got := w.d.Tools(w, s)
	want := map[string]string{"read": "allow", "message": "allow", "exec": "inherited:deny", "write": "inherited:allow"}
	if !reflect.DeepEqual(codes(got), want) {
		t.Errorf("tools %v", codes(got))
	}
	for _, d := range got.Denied {
		if d.Reason.Record == nil || d.Reason.Record.Type != events.SessionResumed {
			t.Errorf("%s: the reason names the resume record, got %+v", d.Tool, d.Reason.Record)
		}
	}
	// Spawning under the continuation captures the captured snapshot.
	c2 := w.spawn("agent:main:subagent:c2", "agent:main:r", "main")
	if c2.Envelope.Source != "sender" || !reflect.DeepEqual(c2.Envelope.InheritedAllow, []string{"message", "read"}) {
		t.Errorf("capture under a continuation %+v", c2.Envelope)
	}
}
