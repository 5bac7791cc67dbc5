package projection_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/envelope/ledgerpolicy"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// wantRevoked asserts that a check of tool by key is denied by the
// revocation layer and that the session's tool set lists tool as denied
// (or, with whole false, only the check).
func wantRevoked(t *testing.T, st *projection.State, key events.SessionKey, tool string, input json.RawMessage, whole bool) {
	t.Helper()
	v, err := st.Check(key, tool, input)
	if err != nil {
		t.Fatalf("check %s %s: %v", key, tool, err)
	}
	if v.Decision != envelope.Deny || v.Reason.Code != envelope.ReasonRevoked {
		t.Errorf("check %s %s: %s %s (%s), want deny %s", key, tool, v.Decision, v.Reason.Code, v.Reason.Rule, envelope.ReasonRevoked)
	}
	if !whole {
		return
	}
	ts, err := st.Tools(key)
	if err != nil {
		t.Fatalf("tools %s: %v", key, err)
	}
	for _, a := range ts.Allowed {
		if a == tool {
			t.Errorf("tools %s: %s is allowed, want it denied by %s", key, tool, envelope.ReasonRevoked)
		}
	}
}

// TestRevocationOfAgentTypeReachesNormalizedAgentIDs (review F1): under
// the openclaw dialect's packaged releases an agent id is compared as
// OpenClaw's normalizeAgentId reads it, so a deny.added for agent "coder"
// reaches a session spawned as "Coder" (which the dialect already decides
// as agents.list's "coder"), and the other way round, roots included.
func TestRevocationOfAgentTypeReachesNormalizedAgentIDs(t *testing.T) {
	h := &harness{t: t, st: projection.New(bothDialects())}
	h.mustAppend(pol("policy.set", `{"dialect":"openclaw","document":{"agents":{"list":[`+
		`{"id":"main","subagents":{"allowAgents":["coder"]}},`+
		`{"id":"coder","tools":{"deny":["write"]}}]}},"catalogue":["exec","read","write","sessions_spawn"]}`))
	h.mustAppend(ev("session.started", "r1", `{"agent":"main"}`))
	h.mustAppend(ev("turn.started", "r1", `{"turn":1}`))
	h.mustAppend(ev("session.started", "r2", `{"agent":"Main"}`))
	h.mustAppend(ev("turn.started", "r2", `{"turn":1}`))
	h.mustAppend(pol("deny.added", `{"rule":"exec","agent":"coder","note":"coder must not exec"}`))
	h.mustAppend(pol("deny.added", `{"rule":"read","agent":"main"}`))
	h.mustAppend(pol("deny.added", `{"rule":"sessions_spawn","agent":"Coder"}`))
	h.mustAppend(ev("session.spawned", "agent:Coder:subagent:b", `{"parent":"r1","agent":"Coder"}`))
	h.mustAppend(ev("turn.started", "agent:Coder:subagent:b", `{"turn":1}`))
	h.mustAppend(ev("session.spawned", "agent:coder:subagent:c", `{"parent":"r1","agent":"coder"}`))
	h.mustAppend(ev("turn.started", "agent:coder:subagent:c", `{"turn":1}`))

	// The dialect reads "Coder" as "coder": its document deny applies.
	if v, _ := h.st.Check("agent:Coder:subagent:b", "write", nil); v.Decision != envelope.Deny || v.Reason.Code != "agent:deny" {
		t.Fatalf("write by Coder: %s %s, want deny agent:deny (the dialect's own reading of the id)", v.Decision, v.Reason.Code)
	}
	for _, k := range []events.SessionKey{"agent:Coder:subagent:b", "agent:coder:subagent:c"} {
		wantRevoked(t, h.st, k, "exec", nil, true)
		wantRevoked(t, h.st, k, "sessions_spawn", nil, true)
	}
	wantRevoked(t, h.st, "r2", "read", nil, true)
	wantRevoked(t, h.st, "r1", "read", nil, true)
	// The revocation keeps its identity as written: lifting names it so.
	h.wantCode(pol("deny.lifted", `{"rule":"exec","agent":"Coder"}`), events.CodeUnknownRevocation)
	h.mustAppend(pol("deny.lifted", `{"rule":"exec","agent":"coder"}`))
	if v, _ := h.st.Check("agent:Coder:subagent:b", "exec", nil); v.Decision != envelope.Allow {
		t.Errorf("exec by Coder after the lift: %s %s, want allow", v.Decision, v.Reason.Code)
	}
}

// TestRevocationOfSpawnToolRefusesSpawn (review F2): a revocation that
// denies the parent's call of its dialect's spawn tool (claude-code's
// Agent with the child's subagent_type, the ledger dialect's runtime spawn
// tool) refuses the spawn at append time, agent_not_allowed, as a document
// deny of that tool does; its message names revocation:deny, the rule and
// the record.
func TestRevocationOfSpawnToolRefusesSpawn(t *testing.T) {
	t.Run("claude-code", func(t *testing.T) {
		h := &harness{t: t, st: projection.New(bothDialects())}
		h.mustAppend(pol("policy.set", `{"dialect":"claude-code","scope":"cc:a","document":{"permissions":{"allow":["Bash","Agent"]}},"catalogue":["Read","Bash","Agent","Write"]}`))
		h.mustAppend(pol("policy.set", `{"dialect":"claude-code","scope":"cc:b","document":{"permissions":{"allow":["Bash"],"deny":["Agent"]}},"catalogue":["Read","Bash","Agent","Write"]}`))
		for _, k := range []string{"c1", "c2", "c3"} {
			scope := "cc:a"
			if k == "c2" {
				scope = "cc:b"
			}
			h.mustAppend(ev("session.started", k, `{"agent":"main","scope":"`+scope+`"}`))
			h.mustAppend(ev("turn.started", k, `{"turn":1}`))
		}
		seq := h.mustAppend(pol("deny.added", `{"scope":"cc:a","rule":"Agent","session":"c1","note":"INC-7"}`))
		h.mustAppend(pol("deny.added", `{"scope":"cc:a","rule":"Agent(Explore)","session":"c3"}`))
		h.wantCode(ev("session.spawned", "c2:s", `{"parent":"c2","agent":"general-purpose"}`), events.CodeAgentNotAllowed)
		_, err := h.append(ev("session.spawned", "c1:s", `{"parent":"c1","agent":"general-purpose"}`))
		if events.CodeOf(err) != events.CodeAgentNotAllowed {
			t.Fatalf("spawn under c1 with Agent revoked: %v, want agent_not_allowed", err)
		}
		for _, want := range []string{envelope.ReasonRevoked, "deny Agent for session", "INC-7", "sequence " + itoa(seq), "deny.lifted"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("refusal %q does not say %q", err, want)
			}
		}
		if h.st.Session("c1:s") != nil {
			t.Error("the refused child exists")
		}
		// Agent(Explore) refuses an Explore spawn, not another type.
		h.wantCode(ev("session.spawned", "c3:e", `{"parent":"c3","agent":"Explore"}`), events.CodeAgentNotAllowed)
		h.mustAppend(ev("session.spawned", "c3:g", `{"parent":"c3","agent":"general-purpose"}`))
		// A subtree revocation of c3 reaches its child's spawns.
		h.mustAppend(pol("deny.added", `{"scope":"cc:a","rule":"Agent","session":"c3","subtree":true}`))
		h.mustAppend(ev("turn.started", "c3:g", `{"turn":1}`))
		h.wantCode(ev("session.spawned", "c3:g:s", `{"parent":"c3:g","agent":"general-purpose"}`), events.CodeAgentNotAllowed)
		// Lifted, the spawn is admitted again.
		h.mustAppend(pol("deny.lifted", `{"scope":"cc:a","rule":"Agent","session":"c1"}`))
		h.mustAppend(ev("session.spawned", "c1:s", `{"parent":"c1","agent":"general-purpose"}`))
	})
	t.Run("ledger", func(t *testing.T) {
		lp := ledgerpolicy.New()
		h := &harness{t: t, st: projection.New(projection.Dialects{lp.Name(): lp})}
		doc := `{"runtime":"codex@0.169.0","permissions":{"allow":["Bash(git *)","spawn_agent"]}}`
		h.mustAppend(pol("policy.set", `{"dialect":"ledger","scope":"cx","document":`+doc+`,"catalogue":["Bash","view_image","spawn_agent"]}`))
		h.mustAppend(ev("session.started", "root", `{"agent":"main","scope":"cx"}`))
		h.mustAppend(ev("turn.started", "root", `{"turn":1}`))
		h.mustAppend(pol("deny.added", `{"scope":"cx","rule":"spawn_agent","session":"root"}`))
		_, err := h.append(ev("session.spawned", "root:sub:1", `{"parent":"root","agent":"default"}`))
		if events.CodeOf(err) != events.CodeAgentNotAllowed || !strings.Contains(err.Error(), envelope.ReasonRevoked) {
			t.Fatalf("spawn under root with spawn_agent revoked: %v, want agent_not_allowed naming %s", err, envelope.ReasonRevoked)
		}
		h.mustAppend(pol("deny.lifted", `{"scope":"cx","rule":"spawn_agent","session":"root"}`))
		h.mustAppend(ev("session.spawned", "root:sub:1", `{"parent":"root","agent":"default"}`))
	})
}

func itoa(n uint64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// revokedSpawnLogHash is the state hash the old log of
// TestRevokedSpawnInOldLogFoldsUnchanged folded to with the code from
// before spawn admission read revocations (review F2).
const revokedSpawnLogHash = "sha256:f5b63560cc727837bdb1485a6bf13d54ed1ea79f279f31c6755fbc9facd21a7e"

// TestRevokedSpawnInOldLogFoldsUnchanged: the refusal of a spawn whose
// spawn tool call a revocation denies happens when the spawn is appended
// (Prepare), never in the fold. A log that already holds such a spawn,
// admitted before the refusal existed, folds as it did: the child exists
// with the envelope its record captured, takes its turn, and the state
// hashes as it did; only a new append (or ledger verify's recheck) is
// refused.
func TestRevokedSpawnInOldLogFoldsUnchanged(t *testing.T) {
	cc := claudecode.New()
	dialects := projection.Dialects{cc.Name(): cc}
	head := []string{
		pol("policy.set", `{"dialect":"claude-code","scope":"cc:a","document":{"permissions":{"allow":["Bash","Agent"]}},"catalogue":["Read","Bash","Agent","Write"]}`),
		ev("session.started", "c1", `{"agent":"main","scope":"cc:a"}`),
		ev("turn.started", "c1", `{"turn":1}`),
	}
	revoke := pol("deny.added", `{"scope":"cc:a","rule":"Agent","session":"c1"}`)
	spawn := ev("session.spawned", "c1:s", `{"parent":"c1","agent":"general-purpose"}`)

	// The old writer: the same log with a revocation the spawn does not
	// meet at that position, so the spawn is admitted and recorded as the
	// code before the fix recorded it under the revocation of Agent (its
	// envelope is the dialect's capture, which reads no revocation).
	old := &harness{t: t, st: projection.New(dialects)}
	for _, raw := range head {
		old.mustAppend(raw)
	}
	old.mustAppend(pol("deny.added", `{"scope":"cc:a","rule":"Write","session":"c1"}`))
	old.mustAppend(spawn)
	oldSpawn := old.log[len(old.log)-1]

	// The log as it stands: the revocation of Agent, then that spawn.
	h := &harness{t: t, st: projection.New(dialects)}
	for _, raw := range head {
		h.mustAppend(raw)
	}
	h.mustAppend(revoke)
	if _, err := h.append(spawn); events.CodeOf(err) != events.CodeAgentNotAllowed {
		t.Fatalf("appending the spawn now: %v, want agent_not_allowed", err)
	}
	recs := append(h.log[:len(h.log):len(h.log)], oldSpawn)
	h.log = recs
	if err := h.st.Apply(projection.Input{Record: oldSpawn}, uint64(len(recs))); err != nil {
		t.Fatalf("folding the recorded spawn: %v", err)
	}
	h.mustAppend(ev("turn.started", "c1:s", `{"turn":1}`))

	// Folded from the records alone, from the start.
	st := projection.New(dialects)
	for i, r := range h.log {
		if err := st.Apply(projection.Input{Record: r}, uint64(i+1)); err != nil {
			t.Fatalf("fold record %d (%s): %v", i+1, r.Type, err)
		}
	}
	child := st.Session("c1:s")
	if child == nil || child.State != envelope.Active || child.Turn != 1 {
		t.Fatalf("the recorded child after the fold: %+v, want active at turn 1", child)
	}
	var dec projection.SpawnDecided
	if err := json.Unmarshal(oldSpawn.Decided, &dec); err != nil {
		t.Fatal(err)
	}
	if child.Envelope == nil || child.Envelope.Hash != dec.Envelope.Hash {
		t.Errorf("the child's envelope %+v is not the one its record captured (%s)", child.Envelope, dec.Envelope.Hash)
	}
	got, err := st.StateHash()
	if err != nil {
		t.Fatal(err)
	}
	live, err := h.st.StateHash()
	if err != nil {
		t.Fatal(err)
	}
	if got != live {
		t.Errorf("state hash folded from the log %s, live %s", got, live)
	}
	if got != revokedSpawnLogHash {
		t.Errorf("state hash %s, want %s (what the log folded to before spawn admission read revocations)", got, revokedSpawnLogHash)
	}
}

// TestRevocationOfSessionInAnotherScopeRefused (review F3): a deny.added
// naming a session bound to another scope would take effect nowhere (a
// session is decided under its own scope's revocations only); it is
// refused, invalid_event, with the scope to name. A session not started
// yet may still be named, and the session's own scope takes it.
func TestRevocationOfSessionInAnotherScopeRefused(t *testing.T) {
	h := &harness{t: t, st: projection.New(bothDialects())}
	h.mustAppend(pol("policy.set", `{"dialect":"openclaw","document":{},"catalogue":["exec","read"]}`))
	h.mustAppend(pol("policy.set", `{"dialect":"claude-code","scope":"cc:b","document":{"permissions":{"allow":["Bash","Agent"]}},"catalogue":["Read","Bash","Agent"]}`))
	h.mustAppend(ev("session.started", "c2", `{"agent":"main","scope":"cc:b"}`))
	h.mustAppend(ev("turn.started", "c2", `{"turn":1}`))
	h.mustAppend(ev("session.spawned", "c2:s", `{"parent":"c2","agent":"general-purpose"}`))
	for _, raw := range []string{
		pol("deny.added", `{"rule":"Bash","session":"c2"}`),
		pol("deny.added", `{"scope":"default","rule":"exec","session":"c2"}`),
		pol("deny.added", `{"rule":"exec","session":"c2:s","subtree":true}`),
		pol("deny.added", `{"rule":"Bash(git push *)","session":"c2"}`),
	} {
		_, err := h.append(raw)
		if events.CodeOf(err) != events.CodeInvalidEvent || !strings.Contains(err.Error(), `"scope": "cc:b"`) {
			t.Errorf("append %s: %v, want invalid_event naming \"scope\": \"cc:b\"", raw, err)
		}
	}
	h.mustAppend(pol("deny.added", `{"rule":"exec","session":"later"}`))
	h.mustAppend(pol("deny.added", `{"scope":"cc:b","rule":"Bash","session":"c2"}`))
	wantRevoked(t, h.st, "c2", "Bash", json.RawMessage(`"ls"`), false)
}
