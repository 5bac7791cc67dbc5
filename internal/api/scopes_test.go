package api_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/wire"
)

// TestScopeLimits: an operator limited to some scopes changes their
// policy, grants and revocations and no other's; an orchestrator limited
// to some scopes starts roots in them only, and its sub-agents follow
// their root's scope; users not listed are not limited.
func TestScopeLimits(t *testing.T) {
	limits, err := api.ParseScopeLimits("alice=cc:a+default,acme=cc:a")
	if err != nil {
		t.Fatal(err)
	}
	roles := &api.Roles{
		Service:       []api.User{{Name: "ledger", Password: "svc-pw"}},
		Orchestrators: []api.User{{Name: "acme", Password: "acme-pw"}, {Name: "globex", Password: "globex-pw"}},
		Operators:     []api.User{{Name: "alice", Password: "alice-pw"}, {Name: "root", Password: "root-pw"}},
	}
	l := apitest.Start(t, apitest.Options{Roles: roles, API: api.Config{MaxWait: time.Second, ScopeLimits: limits}})
	ctx := t.Context()
	opts := func(actor, owner string) client.Options {
		return client.Options{Actor: actor, Owner: owner, Timeout: 2 * time.Second, Retries: 1}
	}
	alice := client.New(l.Dial("alice", "alice-pw"), opts("alice", ""))
	root := client.New(l.Dial("root", "root-pw"), opts("root", ""))
	acme := client.New(l.Dial("acme", "acme-pw"), opts("", "acme"))
	globex := client.New(l.Dial("globex", "globex-pw"), opts("", "globex"))
	policy := func(scope string) client.Event {
		return client.SetPolicy(events.PolicySetData{Scope: scope, Dialect: "openclaw", Document: json.RawMessage(`{}`), Catalogue: []string{"exec", "read"}})
	}
	for _, tc := range []struct {
		name string
		c    *client.Client
		ev   client.Event
		code events.Code
	}{
		{"limited operator, its scope", alice, policy("cc:a"), ""},
		{"limited operator, the default scope it holds", alice, policy(""), ""},
		{"limited operator, another scope", alice, policy("cc:b"), events.CodeScopeNotAllowed},
		{"unlimited operator", root, policy("cc:b"), ""},
		{"limited operator's grant elsewhere", alice, client.AddGrant(events.GrantData{Scope: "cc:b", Kind: "also_allow", Agent: "main", Target: "main", Tools: []string{"exec"}}), events.CodeScopeNotAllowed},
		{"limited operator's revocation elsewhere", alice, client.Deny(events.DenyData{Scope: "cc:b", Rule: "exec"}), events.CodeScopeNotAllowed},
		{"limited operator's revocation in its scope", alice, client.Deny(events.DenyData{Scope: "cc:a", Rule: "exec"}), ""},
		{"limited orchestrator, its scope", acme, client.Start("a1", events.StartedData{Agent: "main", Scope: "cc:a"}), ""},
		{"limited orchestrator, the default scope", acme, client.Start("a2", events.StartedData{Agent: "main"}), events.CodeScopeNotAllowed},
		{"limited orchestrator, another scope", acme, client.Start("a3", events.StartedData{Agent: "main", Scope: "cc:b"}), events.CodeScopeNotAllowed},
		{"limited orchestrator's child follows its root", acme, client.Spawn("agent:main:subagent:x", events.SpawnedData{Parent: "a1", Agent: "main"}), ""},
		{"unlimited orchestrator", globex, client.Start("g1", events.StartedData{Agent: "main", Scope: "cc:b"}), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.c.Append(ctx, tc.ev)
			if got := events.CodeOf(err); got != tc.code || (tc.code == "" && err != nil) {
				t.Fatalf("append: %v (code %q), want code %q", err, got, tc.code)
			}
		})
	}
	s, err := acme.Session(ctx, "agent:main:subagent:x")
	if err != nil || s.Scope != "cc:a" {
		t.Fatalf("the child's scope: %q, %v; want cc:a", s.Scope, err)
	}
}

func TestParseScopeLimits(t *testing.T) {
	for _, bad := range []string{"alice", "alice=", "=cc", "alice=a.b", "al ice=cc", "alice=cc+"} {
		if _, err := api.ParseScopeLimits(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
	l, err := api.ParseScopeLimits(" alice=cc:a+cc:b , acme=default")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(l)
	back, err := api.DecodeScopeLimits(b)
	if err != nil || len(back.Users["alice"]) != 2 || back.Users["acme"][0] != "default" {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	if _, err := api.DecodeScopeLimits([]byte(`{"users":{"alice":["cc"]},"other":1}`)); err == nil {
		t.Error("an unknown field was accepted")
	}
}

// TestRecordedCheckAnswersScope: a recorded check's answer names the scope
// whose policy decided, as a plain check's does: "default" for a session
// of the default scope, its own for a session bound to another (before,
// a recorded check answered "scope": "" for both).
func TestRecordedCheckAnswersScope(t *testing.T) {
	l := apitest.Start(t, apitest.Options{})
	ctx := t.Context()
	ops := client.New(l.Connect(), client.Options{})
	for _, scope := range []string{"", "cc:a"} {
		if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Scope: scope, Dialect: "openclaw", Document: json.RawMessage(`{}`), Catalogue: []string{"exec", "read"}})); err != nil {
			t.Fatal(err)
		}
	}
	acme := client.New(l.Connect(), client.Options{Owner: "acme"})
	for _, c := range []struct {
		key         events.SessionKey
		scope, want string
	}{{"agent:main:d", "", events.DefaultScope}, {"agent:main:a", "cc:a", "cc:a"}} {
		for _, ev := range []client.Event{client.Start(c.key, events.StartedData{Agent: "main", Scope: c.scope}), client.Turn(c.key, events.TurnData{Turn: 1})} {
			if _, err := acme.Append(ctx, ev); err != nil {
				t.Fatal(err)
			}
		}
		plain, err := acme.Check(ctx, c.key, "read")
		if err != nil {
			t.Fatal(err)
		}
		recorded, err := acme.CheckAndRecord(ctx, c.key, "read", "c1")
		if err != nil {
			t.Fatal(err)
		}
		started, err := acme.CheckAndStart(ctx, c.key, "exec", "c2")
		if err != nil {
			t.Fatal(err)
		}
		if plain.Scope != c.want || recorded.Scope != c.want || started.Scope != c.want {
			t.Errorf("%s: scope %q (check), %q (recorded), %q (started), want %q", c.key, plain.Scope, recorded.Scope, started.Scope, c.want)
		}
	}
}

// TestCheckSaysNotActive: the API's plain check and why of an ended
// session answer the policy's decision with the refusal a recorded check
// gets beside it (not_active), and without it once the session is
// reopened; the recorded check itself is refused.
func TestCheckSaysNotActive(t *testing.T) {
	l := apitest.Start(t, apitest.Options{})
	ctx := t.Context()
	ops := client.New(l.Connect(), client.Options{})
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw", Document: json.RawMessage(`{}`), Catalogue: []string{"exec", "read"}})); err != nil {
		t.Fatal(err)
	}
	c := client.New(l.Connect(), client.Options{Owner: "acme"})
	key := events.SessionKey("agent:main:e")
	for _, ev := range []client.Event{
		client.Start(key, events.StartedData{Agent: "main"}), client.Turn(key, events.TurnData{Turn: 1}), client.End(key, "exit"),
	} {
		if _, err := c.Append(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	chk, err := c.Check(ctx, key, "read")
	if err != nil {
		t.Fatal(err)
	}
	why, err := c.Why(ctx, key, "read")
	if err != nil {
		t.Fatal(err)
	}
	tools, err := c.Tools(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	for name, na := range map[string]*wire.ErrorBody{"check": chk.NotActive, "why": why.NotActive, "tools": tools.NotActive} {
		if na == nil || na.Code != events.CodeSessionNotActive || !strings.Contains(na.Message, "has ended") {
			t.Errorf("%s: not_active %+v, want session_not_active naming the end", name, na)
		}
	}
	if chk.Decision != envelope.Allow || why.Verdict.Decision != envelope.Allow {
		t.Errorf("decision %s (check), %s (why): want the policy's allow", chk.Decision, why.Verdict.Decision)
	}
	if _, err := c.CheckAndRecord(ctx, key, "read", "c1"); events.CodeOf(err) != events.CodeSessionNotActive {
		t.Errorf("recorded check: %v, want session_not_active", err)
	}
	if _, err := c.Append(ctx, client.Reopen(key, "resume")); err != nil {
		t.Fatal(err)
	}
	if chk, err = c.Check(ctx, key, "read"); err != nil || chk.NotActive != nil {
		t.Errorf("check once reopened: not_active %+v (%v), want none", chk.NotActive, err)
	}
	if tools, err = c.Tools(ctx, key); err != nil || tools.NotActive != nil || tools.Scope != events.DefaultScope {
		t.Errorf("tools once reopened: not_active %+v, scope %q (%v), want none and %q", tools.NotActive, tools.Scope, err, events.DefaultScope)
	}
}
