package cchook

import (
	"context"
	"encoding/json"
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
