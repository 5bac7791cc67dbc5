package claudecodetest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// TestNestedSubagentPlaced (docs/claude-code-hooks.md, "Sub-agents"): with
// the hooks 'ledger hook install' writes, the main thread spawns a sibling
// and then a nester, which spawns a leaf. The sibling, the session's first
// sub-agent, is placed at its SubagentStart; the nester and the leaf are
// placed from the metadata 2.1.328 writes beside their transcripts
// (parentAgentId), which is there by their first call: the leaf is
// recorded under the nester, not under the main session, and its call
// runs.
func TestNestedSubagentPlaced(t *testing.T) {
	CLI(t)
	bin := ledgertest.BuildLedger(t)
	url := ledgertest.ServeLedger(t, bin)
	echo := func(id, text string) Block {
		return Block{ID: id, Tool: "Bash", Input: map[string]any{"command": "echo " + text, "description": "d"}}
	}
	spawn := func(id, typ string) Block {
		return Block{ID: id, Tool: "Agent", Input: map[string]any{"description": "run " + typ, "prompt": "script:" + typ,
			"subagent_type": typ, "run_in_background": false}}
	}
	r := Run(t.Context(), t, Case{
		Name:     "nested",
		Settings: Settings{Allow: []string{"Bash(echo *)"}},
		Agents:   []Agent{{Name: "sibling", Tools: "Bash"}, {Name: "nester", Tools: "Agent, Bash"}, {Name: "leaf", Tools: "Bash"}},
		Scripts: Scripts{
			"main":    {{spawn("toolu_sibling", "sibling")}, {spawn("toolu_nester", "nester")}},
			"sibling": {{echo("toolu_echo_sibling", "sibling")}},
			"nester":  {{echo("toolu_echo_nester", "nester")}, {spawn("toolu_leaf", "leaf")}},
			"leaf":    {{echo("toolu_echo_leaf", "leaf")}},
		},
		Timeout: 180 * time.Second,
		Setup: func(dir, home string) {
			ledgertest.LedgerCmd(t, bin, "hook", "install", "--project", dir, "--", "--nats", url)
		},
	})
	var out struct {
		SessionID string `json:"session_id"`
	}
	must(t, json.Unmarshal(r.Output, &out))
	ids := map[string]string{}
	for _, h := range r.Hooks {
		if h["hook_event_name"] == "SubagentStart" {
			typ, _ := h["agent_type"].(string)
			ids[typ], _ = h["agent_id"].(string)
		}
	}
	for _, typ := range []string{"sibling", "nester", "leaf"} {
		if ids[typ] == "" {
			t.Fatalf("no SubagentStart for %s: %v", typ, ids)
		}
	}
	for _, id := range []string{"toolu_echo_sibling", "toolu_echo_nester", "toolu_echo_leaf"} {
		if c := r.Call(id); c == nil || !c.PostToolUse {
			t.Errorf("%s did not run: %+v", id, c)
		}
	}
	nc, err := nats.Connect(url, nats.Timeout(5*time.Second), nats.MaxReconnects(0))
	must(t, err)
	defer nc.Close()
	view := client.New(nc, client.Options{Owner: hookOwner})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	root := events.SessionKey(out.SessionID)
	key := func(typ string) events.SessionKey { return root + ":" + events.SessionKey(ids[typ]) }
	for typ, parent := range map[string]events.SessionKey{"sibling": root, "nester": root, "leaf": key("nester")} {
		s, err := view.Session(ctx, key(typ))
		if err != nil || s.Parent != parent || s.Agent != typ {
			t.Errorf("%s is recorded as %q under %q (%v); want under %q", typ, s.Agent, s.Parent, err, parent)
		}
	}
}
