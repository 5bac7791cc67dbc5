package cchook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// allowLedger answers every recorded check allowed, at once: the hook's
// own work on a call, without a ledger.
type allowLedger struct{ DownLedger }

func (allowLedger) Start(_ context.Context, key events.SessionKey, tool string, _ json.RawMessage, _ string) (client.CheckResult, error) {
	return client.CheckResult{Session: key, Tool: tool, Decision: envelope.Allow, Recorded: 5}, nil
}

// BenchmarkPreToolUseHook is the hook's own work on an allowed call of a
// running session (the ledger answers at once): parse, the call's input,
// the answer.
//
//	go test ./internal/cchook -run XXX -bench PreToolUseHook -benchmem
func BenchmarkPreToolUseHook(b *testing.B) {
	raw := loadPayload(&testing.T{}, "PreToolUse.json", nil)
	h := &Hook{L: allowLedger{}, Opts: Options{Home: b.TempDir()}}
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		if res := h.Handle(ctx, raw); res.Denied || len(res.Appended) != 1 {
			b.Fatalf("%+v", res)
		}
	}
}

// TestCallInputOfIsCanonical: objectOf then events.CanonicalJSON writes
// what events.Canonical writes of the same members (json.Marshal then
// CanonicalJSON), over keys that need escaping and odd values; and
// CallInput and the call's input made from the members Parse kept agree.
func TestCallInputOfIsCanonical(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 3))
	keys := []string{"command", "file_path", "description", "a<b", "é", "\x01k", `q"`, "ledger:paths", "ledger:cut", "timeout", "", "\xff"}
	vals := []string{`"echo hi"`, `1e3`, `-0`, `true`, `null`, `"\u00e9\n"`, `"` + strings.Repeat("x", 300) + `"`, `{"b":1, "a":[2]}`, `[1, 2]`, `"<&>"`, `12345678901234567890`, ` "x" `}
	for i := 0; i < 5000; i++ {
		m := map[string]json.RawMessage{}
		for n := rng.IntN(6); n > 0; n-- {
			m[keys[rng.IntN(len(keys))]] = json.RawMessage(vals[rng.IntN(len(vals))])
		}
		want, werr := events.Canonical(m)
		got, gerr := events.CanonicalJSON(objectOf(m))
		if string(got) != string(want) || (werr == nil) != (gerr == nil) {
			t.Fatalf("%q:\n got %s (%v)\nwant %s (%v)", m, got, gerr, want, werr)
		}
		raw, _ := json.Marshal(m)
		p, err := Parse(fmt.Appendf(nil, `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"c","tool_input":%s}`, raw))
		if err != nil {
			continue // an input Parse refuses has no call input
		}
		if a, b := CallInput("Bash", raw, "/home/dev/p", "/home/dev"), callInputOf("Bash", p.inputFields, "/home/dev/p", "/home/dev", "", false); string(a) != string(b) {
			t.Fatalf("%s: CallInput %s, from Parse's members %s", raw, a, b)
		}
	}
}

// BenchmarkHandlerPreToolUse is serve --hooks's handler on an allowed call
// (the ledger answering at once), without the network: what the handler
// adds to BenchmarkPreToolUseHook (its checks of the request, the body's
// read, the run under Within, the answer).
func BenchmarkHandlerPreToolUse(b *testing.B) {
	raw := loadPayload(&testing.T{}, "PreToolUse.json", nil)
	h := &Handler{Hook: &Hook{L: allowLedger{}, Opts: Options{Home: b.TempDir()}}, Token: "t"}
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:1"+HTTPPath, bytes.NewReader(raw))
		r.Header.Set("Authorization", "Bearer t")
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK || w.Body.Len() == 0 {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}
