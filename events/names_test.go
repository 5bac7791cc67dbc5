package events

import (
	"strings"
	"testing"
)

// TestCheckActor: an actor is one subject token (issue 15: empty and
// wildcard actors were accepted).
func TestCheckActor(t *testing.T) {
	for _, tc := range []struct {
		actor string
		ok    bool
	}{
		{"acme", true}, {"ops:alice", true}, {"ledger-import", true}, {"\u00e9t\u00e9", true},
		{strings.Repeat("a", MaxActorLen), true},
		{"", false}, {"*", false}, {">", false}, {"ops.alice", false}, {"ops alice", false},
		{"ops\x00", false}, {"ops\u0085", false}, {"ops\x7f", false}, {"a*", false},
		{strings.Repeat("a", MaxActorLen+1), false},
	} {
		err := CheckActor(tc.actor)
		if (err == nil) != tc.ok {
			t.Errorf("actor %q: %v, want accepted %v", tc.actor, err, tc.ok)
		}
		if err != nil && CodeOf(err) != CodeInvalidEvent {
			t.Errorf("actor %q: code %q, want invalid_event", tc.actor, CodeOf(err))
		}
		ev := &Event{Type: PolicySet, Actor: tc.actor}
		if got := CheckKey(ev) == nil; got != tc.ok {
			t.Errorf("CheckKey with actor %q: accepted %v, want %v", tc.actor, got, tc.ok)
		}
	}
}

func TestHasControl(t *testing.T) {
	for s, want := range map[string]bool{
		"": false, "read": false, "mcp__gh__pr": false, "Bash(npm run test:*)": false, "\u00e9\u00a0x": false,
		"a\x00": true, "\t": true, "a\nb": true, "\x1f": true, "\x7f": true, "\u0080": true, "x\u009f": true,
	} {
		if got := HasControl(s); got != want {
			t.Errorf("HasControl(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestCheckNames: the bounds on names and texts in data (issue 15:
// NUL bytes in grant agents, rules, catalogue entries and tool names; a
// 64 KiB agent id and ma.in>; tool names without a length limit).
func TestCheckNames(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	for _, tc := range []struct {
		name    string
		payload any
		ok      bool
	}{
		{"tool", &CheckedData{Turn: 1, Tool: "mcp__server__tool", Call: "toolu_01"}, true},
		{"tool with spaces (openclaw trims them)", &CheckedData{Turn: 1, Tool: " Read "}, true},
		{"shell metacharacters in a tool", &CheckedData{Turn: 1, Tool: "x$(touch f);id"}, true},
		{"tool of MaxNameLen", &CheckedData{Turn: 1, Tool: long(MaxNameLen)}, true},
		{"tool over MaxNameLen", &CheckedData{Turn: 1, Tool: long(MaxNameLen + 1)}, false},
		{"tool with NUL", &CheckedData{Turn: 1, Tool: "read\x00"}, false},
		{"tool with a newline", &CheckedData{Turn: 1, Tool: "read\n"}, false},
		{"tool with C1", &CheckedData{Turn: 1, Tool: "read\u0085"}, false},
		{"effect tool with DEL", &EffectData{Turn: 1, Tool: "re\x7fad", Call: "c"}, false},
		{"call with NUL", &CheckedData{Turn: 1, Tool: "read", Call: "c\x00"}, false},
		{"catalogue", &PolicySetData{Catalogue: []string{"read", "exec"}}, true},
		{"catalogue entry with NUL", &PolicySetData{Catalogue: []string{"read", "ex\x00ec"}}, false},
		{"catalogue entry of 64 KiB", &PolicySetData{Catalogue: []string{long(64 << 10)}}, false},
		{"grant", &GrantData{Kind: GrantAllowAgent, Agent: "main", Target: "coder"}, true},
		{"grant to any agent", &GrantData{Kind: GrantPermission, Agent: "*", Target: "*", Behavior: "allow", Rule: "Bash(npm run test:*)"}, true},
		{"grant agent with NUL", &GrantData{Kind: GrantAllowAgent, Agent: "ma\x00in", Target: "coder"}, false},
		{"grant agent ma.in>", &GrantData{Kind: GrantAllowAgent, Agent: "ma.in>", Target: "coder"}, false},
		{"grant target with a wildcard inside", &GrantData{Kind: GrantAllowAgent, Agent: "main", Target: "co*"}, false},
		{"grant agent of 64 KiB", &GrantData{Kind: GrantAllowAgent, Agent: long(64 << 10), Target: "coder"}, false},
		{"grant rule with NUL", &GrantData{Kind: GrantPermission, Agent: "*", Target: "*", Behavior: "deny", Rule: "Bash(rm\x00)"}, false},
		{"grant rule over MaxRuleLen", &GrantData{Kind: GrantPermission, Agent: "*", Target: "*", Behavior: "deny", Rule: "Bash(" + long(MaxRuleLen) + ")"}, false},
		{"grant tool with NUL", &GrantData{Kind: GrantAlsoAllow, Agent: "main", Target: "main", Tools: []string{"ex\x00ec"}}, false},
		{"agent", &StartedData{Agent: "main"}, true},
		{"agent with a dot (claude-code names)", &StartedData{Agent: "code.reviewer"}, true},
		{"agent of MaxAgentIDLen", &StartedData{Agent: long(MaxAgentIDLen)}, true},
		{"agent of 64 KiB", &StartedData{Agent: long(64 << 10)}, false},
		{"agent ma.in>", &SpawnedData{Parent: "p", Agent: "ma.in>"}, false},
		{"agent *", &SpawnedData{Parent: "p", Agent: "*"}, false},
		{"agent with a space", &StartedData{Agent: "my agent"}, false},
		{"sender with NUL", &StartedData{Agent: "main", Sender: "bob\x00"}, false},
		{"turn sender with ESC", &TurnData{Turn: 2, Sender: "\x1b[31mbob"}, false},
		{"label with NUL", &SpawnedData{Parent: "p", Agent: "main", Label: "a\x00"}, false},
		{"session tool with NUL", &StartedData{Agent: "main", Tools: []string{"mcp__a__b\x00"}}, false},
		{"conversation", &StartedData{Agent: "main", Channel: "telegram", Conversation: "agent:main:telegram:group:g1:topic:7"}, true},
		{"conversation that is no session key", &StartedData{Agent: "main", Conversation: "agent:main:matrix:channel:!room:example.org"}, false},
		{"conversation with a group", &StartedData{Agent: "main", Group: "g1", Conversation: "agent:main:telegram:group:g1"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckNames(tc.payload)
			if (err == nil) != tc.ok {
				t.Fatalf("%v, want accepted %v", err, tc.ok)
			}
			want := CodeInvalidEvent
			if _, ok := tc.payload.(*PolicySetData); ok {
				want = CodeInvalidPolicy
			}
			if err != nil && (CodeOf(err) != want || len(err.Error()) > 400) {
				t.Fatalf("%v: want a short %s", err, want)
			}
		})
	}
}

// TestCheckNamesAllocationFree: the checks run on every append, tool.checked
// included.
func TestCheckNamesAllocationFree(t *testing.T) {
	d := &CheckedData{Turn: 1, Tool: "mcp__server__tool", Call: "toolu_01"}
	s := &StartedData{Agent: "main", Sender: "alice", Tools: []string{"mcp__a__b"}}
	if n := testing.AllocsPerRun(100, func() {
		_ = CheckNames(d)
		_ = CheckNames(s)
		_ = CheckActor("acme")
	}); n != 0 {
		t.Errorf("CheckNames allocates %v times", n)
	}
}

// TestCheckNamesReportsTheFirstProblem: with several problems, CheckNames
// reports the first in each payload type's order of checks (issue 27,
// point 9: the per-type checkers keep the old messages and their order).
func TestCheckNamesReportsTheFirstProblem(t *testing.T) {
	for _, tc := range []struct {
		name    string
		payload any
		want    string // the field the message names first
	}{
		{"grant kind before agent", &GrantData{Kind: "k\x00", Agent: "", Target: ""}, "kind "},
		{"grant agent before target", &GrantData{Agent: "", Target: ""}, "agent must not be empty"},
		{"grant target before rule", &GrantData{Agent: "*", Target: "", Rule: "r\x00"}, "target must not be empty"},
		{"grant rule before tools", &GrantData{Agent: "*", Target: "*", Rule: "r\x00", Tools: []string{"t\x00"}}, "rule "},
		{"started agent before texts", &StartedData{Agent: "", Sender: "s\x00"}, "agent must not be empty"},
		{"started texts in order", &StartedData{Agent: "a", Model: "m\x00", Host: "h\x00"}, "model "},
		{"started texts before conversation", &StartedData{Agent: "a", Host: "h\x00", Conversation: "!"}, "host "},
		{"started conversation before tools", &StartedData{Agent: "a", Conversation: "!", Tools: []string{"t\x00"}}, "conversation "},
		{"started bad conversation before group", &StartedData{Agent: "a", Group: "g", Conversation: "!"}, "conversation "},
		{"deny rule before agent", &DenyData{Rule: "r\x00", Agent: "a b"}, "rule "},
		{"deny agent before texts", &DenyData{Agent: "a b", User: "u\x00"}, "agent "},
		{"deny empty agent is no problem", &DenyData{User: "u\x00"}, "user "},
		{"spawned agent before label", &SpawnedData{Agent: "", Label: "l\x00"}, "agent must not be empty"},
		{"spawned label before tools", &SpawnedData{Agent: "a", Label: "l\x00", Tools: []string{"t\x00"}}, "label "},
		{"checked tool before call", &CheckedData{Tool: "t\x00", Call: "c\x00"}, "tool "},
		{"effect tool before call", &EffectData{Tool: "t\x00", Call: "c\x00"}, "tool "},
		{"catalogue entry", &PolicySetData{Catalogue: []string{"ok", "e\x00"}}, "a catalogue entry "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckNames(tc.payload)
			if err == nil {
				t.Fatalf("got no error, want one naming %q", tc.want)
			}
			if got := err.(*Error).Msg; !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %q, want it to start with %q", got, tc.want)
			}
		})
	}
}
