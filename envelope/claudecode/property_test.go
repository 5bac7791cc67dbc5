package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// Pools of parts the property tests draw from (a fixed seed keeps runs
// reproducible).
var (
	propTools = []string{"Read", "Grep", "Glob", "LSP", "Edit", "Write", "NotebookEdit", "Bash", "Monitor",
		"PowerShell", "WebFetch", "WebSearch", "Agent", "Skill", "TodoWrite", "AskUserQuestion", "EndConversation",
		"ExitPlanMode", "SendMessage", "TaskCreate", "mcp__github__get_issue", "mcp__slack__post"}
	propRules = []string{"Bash", "Bash(npm test)", "Bash(rm *)", "Bash(git push *)", "Bash(echo:*)", "Bash(timeout:60)",
		"Read", "Read(./.env)", "Read(secrets/**)", "Read(//etc/**)", "Edit", "Edit(src/**)", "Edit(*.md)", "Write",
		"WebFetch(domain:example.com)", "WebFetch(domain:*.evil.com)", "Agent(Explore)", "Agent(model:opus)",
		"mcp__github", "mcp__github__*", "mcp__*", "*", "B*", "Skill(deploy *)", "Monitor(tail *)",
		"PowerShell(Get-*)", "Task", "EndConversation", "AskUserQuestion", "WebSearch"}
	propInputs = []any{nil, "ls", "npm test", "rm -rf build", "git push origin", "echo $(rm x)", "echo hi && rm y",
		"timeout 60 make", "src/a.go", ".env", "secrets/k", "/etc/hosts", "docs/a.md", ".git/config", "../x",
		"https://example.com/x", "https://a.evil.com/", "Explore", "deploy prod", "tail -f log", "Get-Item x",
		map[string]any{"command": "make", "timeout": 60}, map[string]any{"subagent_type": "gp", "model": "opus"},
		map[string]any{"file_path": "src/x.md"}, map[string]any{"path": "secrets"}, map[string]any{"url": "http://example.com"}}
	propModes = []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"}
)

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

func marshal(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPropertyDenyWins: adding allow rules (the same rule as the deny rule,
// and another) never weakens a denial, in any mode.
func TestPropertyDenyWins(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		rule := pick(r, propRules)
		extra := pick(r, propRules)
		mode := pick(r, propModes)
		tool := pick(r, propTools)
		input := pick(r, propInputs)
		both := fmt.Sprintf(`{"permissions": {"allow": [%q, %q], "deny": [%q]}}`, rule, extra, rule)
		only := fmt.Sprintf(`{"permissions": {"allow": [%q], "deny": [%q]}}`, extra, rule)
		var got [2]envelope.Verdict
		for j, doc := range []string{both, only} {
			w := newWorld(t, doc, propTools...)
			w.start(t, "lead", events.StartedData{Agent: "main", Mode: mode})
			got[j] = w.decide("lead", tool, input)
		}
		if got[1].Decision == envelope.Deny && (got[0].Decision != got[1].Decision || got[0].Reason.Code != got[1].Reason.Code) {
			t.Fatalf("rule %q, extra allow %q, mode %s, %s %v: with allow %s %s, without %s %s", rule, extra, mode, tool, input,
				got[0].Decision, got[0].Reason.Code, got[1].Decision, got[1].Reason.Code)
		}
	}
}

// TestPropertyChildWithinEnvelope: whatever the document, the grants and
// later revisions, a child's pool never exceeds its inherited_allow plus
// its own MCP additions.
func TestPropertyChildWithinEnvelope(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	randomDoc := func() string {
		var agents []string
		for _, name := range []string{"a", "b", "c"} {
			def := map[string]any{"description": name}
			if r.IntN(2) == 0 {
				def["tools"] = []string{pick(r, propTools), pick(r, propTools), pick(r, []string{"*", "Agent", "mcp__github"})}
			}
			if r.IntN(2) == 0 {
				def["disallowedTools"] = []string{pick(r, propTools)}
			}
			if r.IntN(3) == 0 {
				def["background"] = true
			}
			agents = append(agents, fmt.Sprintf("%q: %s", name, marshal(t, def)))
		}
		deny := []string{pick(r, propRules)}
		return fmt.Sprintf(`{"agents": {%s, %s, %s}, "permissions": {"deny": %s}}`, agents[0], agents[1], agents[2], marshal(t, deny))
	}
	for i := 0; i < 300; i++ {
		w := newWorld(t, randomDoc(), propTools...)
		w.start(t, "lead", events.StartedData{Agent: "main", Tools: list("mcp__db__q")})
		keys := []string{"lead"}
		for j := 0; j < 6; j++ {
			parent := pick(r, keys)
			key := parent + ":" + strconv.Itoa(j)
			d := events.SpawnedData{Parent: events.SessionKey(parent), Agent: pick(r, []string{"a", "b", "c", "general-purpose", "Explore"})}
			switch r.IntN(4) {
			case 0:
				d.Agent, d.Fork = "fork", true
			case 1:
				d.Teammate = true
			}
			if r.IntN(3) == 0 {
				d.Tools = list("mcp__own__" + strconv.Itoa(j))
			}
			if _, err := w.trySpawn(key, d); err == nil {
				keys = append(keys, key)
			}
			if r.IntN(3) == 0 {
				w.setPolicy(t, randomDoc(), nil)
			}
			if r.IntN(3) == 0 {
				b, rule := pick(r, []string{"allow", "ask", "deny"}), pick(r, propRules)
				id := w.d.GrantIdentity(&events.GrantData{Kind: events.GrantPermission, Behavior: b, Rule: rule})
				if !slices.ContainsFunc(w.policy.Grants, func(g envelope.Grant) bool { return g.Identity == id }) {
					w.grant(t, b, rule)
				}
			}
		}
		if r.IntN(2) == 0 {
			// A continuation in force on the root, capped by a child's pool.
			if c := w.sessions[events.SessionKey(pick(r, keys))]; c.Envelope != nil {
				w.resume("lead", c.Envelope)
			}
		}
		// The pool and the decisions agree: a tool is denied in the set
		// exactly when its decision stops at the pool, with the same reason.
		for _, key := range keys {
			ts := w.tools(key)
			for _, d := range ts.Denied {
				if v := w.decide(key, d.Tool, nil); v.Decision != envelope.Deny || !reflect.DeepEqual(v.Reason, d.Reason) {
					t.Fatalf("%s %s: set says %+v, decide says %s %+v", key, d.Tool, d.Reason, v.Decision, v.Reason)
				}
			}
			for _, tool := range ts.Allowed {
				v := w.decide(key, tool, nil)
				for _, st := range v.Trace[:numLayers] {
					if st.Outcome != envelope.Kept && st.Outcome != envelope.Absent {
						t.Fatalf("%s %s: allowed in the set, decide's pool layer %s is %s", key, tool, st.Layer, st.Outcome)
					}
				}
			}
		}
		for _, key := range keys[1:] {
			s := w.sessions[events.SessionKey(key)]
			for _, tool := range w.tools(key).Allowed {
				if !slices.Contains(s.Envelope.InheritedAllow, tool) && !slices.Contains(s.Envelope.ExtraTools, tool) {
					t.Fatalf("%s has %s outside its envelope %q + %q", key, tool, s.Envelope.InheritedAllow, s.Envelope.ExtraTools)
				}
			}
			if !slices.IsSorted(s.Envelope.InheritedAllow) || !slices.IsSorted(s.Envelope.InheritedDeny) {
				t.Fatalf("%s: envelope lists are sorted", key)
			}
			if !s.Envelope.Verified(s.Parent) {
				t.Fatalf("%s: envelope does not verify", key)
			}
		}
	}
}

// TestPropertyDeterministic: the same inputs give the same bytes.
func TestPropertyDeterministic(t *testing.T) {
	doc := `{"agents": {"a": {"description": "a", "tools": ["Read", "Bash", "mcp__github", "Agent(x)"], "disallowedTools": ["Edit"]},
		"x": {"description": "x", "tools": "Read, Grep"}},
		"permissions": {"allow": ["Bash(npm *)"], "ask": ["Read(.env)"], "deny": ["WebFetch", "mcp__slack"]}}`
	run := func() []byte {
		var buf bytes.Buffer
		w := newWorld(t, doc, propTools...)
		w.start(t, "lead", events.StartedData{Agent: "main", Mode: "acceptEdits"})
		w.grant(t, "deny", "Bash(rm *)")
		s := w.spawn(t, "lead:a", events.SpawnedData{Parent: "lead", Agent: "a", Tools: list("mcp__z__y", "mcp__a__b")})
		w.spawn(t, "lead:a:x", events.SpawnedData{Parent: "lead:a", Agent: "x"})
		buf.Write(marshal(t, s.Envelope))
		for _, key := range []string{"lead", "lead:a", "lead:a:x"} {
			ts := w.tools(key)
			buf.Write(marshal(t, ts))
			buf.WriteString(ts.Hash())
			for _, tool := range propTools {
				for _, in := range propInputs[:8] {
					buf.Write(marshal(t, w.decide(key, tool, in)))
				}
			}
		}
		return buf.Bytes()
	}
	a, b := run(), run()
	if !bytes.Equal(a, b) {
		t.Fatal("two runs over the same inputs differ")
	}
}
