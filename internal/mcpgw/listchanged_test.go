package mcpgw

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
)

// rawEnv makes the test binary a stdio MCP server written by hand
// (TestMain), which can send notifications as fast as a pipe takes them:
// its tool flood sends notifications/tools/list_changed as many times as
// its text says before it answers, and lists answers how many tools/list
// requests it has had.
const rawEnv = "MCPGW_TEST_RAW"

func runRawUpstream() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 16<<20)
	out := bufio.NewWriter(os.Stdout)
	send := func(v any) {
		b, _ := json.Marshal(v)
		out.Write(append(b, '\n'))
	}
	text := func(s string) map[string]any {
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}
	}
	lists := 0
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string          `json:"protocolVersion"`
				Name            string          `json:"name"`
				Arguments       json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		answer := func(result any) { send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result}) }
		switch m.Method {
		case "initialize":
			answer(map[string]any{"protocolVersion": m.Params.ProtocolVersion, "serverInfo": map[string]any{"name": "raw", "version": "1"},
				"capabilities": map[string]any{"tools": map[string]any{"listChanged": true}}})
		case "tools/list":
			lists++
			obj := map[string]any{"type": "object"}
			answer(map[string]any{"tools": []any{map[string]any{"name": "flood", "inputSchema": obj}, map[string]any{"name": "lists", "inputSchema": obj}}})
		case "tools/call":
			switch m.Params.Name {
			case "flood":
				var a struct{ Text string }
				_ = json.Unmarshal(m.Params.Arguments, &a)
				n, _ := strconv.Atoi(a.Text)
				for range n {
					send(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
				}
				answer(text("flooded"))
			case "lists":
				answer(text(strconv.Itoa(lists)))
			}
		default:
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
		}
		out.Flush()
	}
}

// TestUpstreamListChangedIsCoalesced: 5,000 list_changed notifications
// from one upstream make the gateway list it again a few times, not once
// for each, and the clients of another ledger session are served all the
// while (its calls to another upstream answer in the time they take
// without the flood).
func TestUpstreamListChangedIsCoalesced(t *testing.T) {
	f := start(t)
	doc := json.RawMessage(`{"permissions": {"allow": ["mcp__t", "mcp__raw"], "deny": ["mcp__t__secret"]}}`)
	cat := append([]string{"mcp__raw__flood", "mcp__raw__lists"}, testCatalogue...)
	if _, err := f.ops.Append(t.Context(), client.SetPolicy(events.PolicySetData{Dialect: "claude-code", Document: doc, Catalogue: cat})); err != nil {
		t.Fatal(err)
	}
	f.turn(t, 2)
	for _, key := range []events.SessionKey{"s2"} {
		if _, err := f.orch.Append(t.Context(), client.Start(key, events.StartedData{Agent: "main"})); err != nil {
			t.Fatal(err)
		}
		if _, err := f.orch.Append(t.Context(), client.Turn(key, events.TurnData{Turn: 1})); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f.gateway(t, fmt.Appendf(nil, `{"servers": {"t": {"command": [%q], "env": {%q: "1"}}, "raw": {"command": [%q], "env": {%q: "1"}}}}`,
		exe, upstreamEnv, exe, rawEnv), Options{})
	cs, other := f.dial(t, f.key), f.dial(t, "s2")
	listed(t, cs)
	listed(t, other)
	count := func() int {
		t.Helper()
		res, err := call(t, cs, "raw__lists", nil)
		if err != nil || res.IsError {
			t.Fatalf("lists = %v, %v", res, err)
		}
		n, _ := strconv.Atoi(resultText(res))
		return n
	}
	before := count()
	// Another session's calls while the flood lands: each one timed.
	stop := make(chan struct{})
	slowest := make(chan time.Duration, 1)
	go func() {
		var worst time.Duration
		defer func() { slowest <- worst }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			began := time.Now()
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			_, err := other.ListTools(ctx, nil)
			cancel()
			if err != nil {
				t.Error(err)
				return
			}
			worst = max(worst, time.Since(began))
		}
	}()
	const flood = 5000
	res, err := call(t, cs, "raw__flood", map[string]any{"text": strconv.Itoa(flood)})
	if err != nil || res.IsError {
		t.Fatalf("flood = %v, %v", res, err)
	}
	// Wait for the refreshes to settle: the count stops moving.
	last, deadline := -1, time.Now().Add(20*time.Second)
	for n := count(); n != last; n = count() {
		if time.Now().After(deadline) {
			t.Fatalf("the upstream is still being listed 20s after the flood (%d lists)", n)
		}
		last = n
		// Not a wait for an event: no sign marks the last of the
		// coalesced refreshes; 300 ms with no list is "settled".
		time.Sleep(300 * time.Millisecond)
	}
	close(stop)
	worst := <-slowest
	relists := last - before
	t.Logf("%d list_changed: the upstream listed %d times; another session's slowest tools/list took %v", flood, relists, worst)
	if relists < 1 || relists > 20 {
		t.Errorf("%d list_changed made the gateway list the upstream %d times; want a few (at least 1, at most 20)", flood, relists)
	}
	if worst > 2*time.Second {
		t.Errorf("another session's tools/list took %v during the flood", worst)
	}
}
