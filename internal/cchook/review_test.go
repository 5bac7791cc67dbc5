package cchook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// TestOverMaxPayloadDenies: a call whose check is over the NATS server's
// max_payload (1 MiB by default; the hook reads payloads up to 16 MiB) never
// reaches the ledger, which did not judge it: it is denied with that
// cause, under --unreachable allow too, and not counted as an unreachable
// ledger (whose reason would point at the fail-open switch).
func TestOverMaxPayloadDenies(t *testing.T) {
	for _, opt := range []Unreachable{UnreachableDeny, UnreachableAllow} {
		a := newAPIHook(t)
		a.must(t, start(sub), turn(sub, 1))
		a.h.Opts.Unreachable = opt
		input := map[string]any{"command": "rm -rf important #" + strings.Repeat("x", 2<<20)}
		res := a.h.Handle(t.Context(), loadPayload(t, "PreToolUse.json", map[string]any{"tool_use_id": "toolu_BIG_1", "tool_input": input}))
		checkOutput(t, res, "deny", []string{"max_payload", "smaller input"})
		if res.Unreachable || strings.Contains(res.Reason, "--unreachable") || strings.Contains(res.Reason, "cannot be reached") {
			t.Errorf("--unreachable %s: a request over max_payload answered as an unreachable ledger: %+v", opt, res)
		}
	}
}

// TestUnreachedIsTransportOnly: only a transport failure is an unreachable
// ledger (which --unreachable allow lets a call through on); any other
// error denies a call with its cause.
func TestUnreachedIsTransportOnly(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("client: ledger.v1.check.claude-code: %w", err) }
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{wrap(nats.ErrNoResponders), true},
		{wrap(nats.ErrTimeout), true},
		{wrap(nats.ErrConnectionClosed), true},
		{fmt.Errorf("client: x: no answer after 2 attempts: %w", nats.ErrNoResponders), true},
		{context.DeadlineExceeded, true},
		{events.Errorf(events.CodeDeadlinePassed, "too late"), true},
		{downErr(errors.New("dial tcp 127.0.0.1:4222: connect: connection refused")), true},
		{downErr(nats.ErrAuthorization), true},
		{wrap(nats.ErrMaxPayload), false},
		{errors.New("client: x: response does not decode: unexpected end of JSON input"), false},
		{events.Errorf("internal", "the ledger failed"), false},
		{events.Errorf(events.CodeConflict, "another writer appended first"), false},
		{events.Errorf(events.CodeNotCaughtUp, "wait"), false},
		{events.Errorf(events.CodeInvalidPolicy, "no policy"), false},
	} {
		if got := Unreached(tt.err); got != tt.want {
			t.Errorf("Unreached(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// downErr is DownLedger's error for err.
func downErr(err error) error {
	_, e := DownLedger{Err: err}.Start(context.Background(), "", "", nil, "")
	return e
}

// decisionLedger answers every recorded check with the decision d.
type decisionLedger struct {
	*svcLedger
	d envelope.Decision
}

func (l decisionLedger) Start(ctx context.Context, key events.SessionKey, tool string, input json.RawMessage, call string) (client.CheckResult, error) {
	r, err := l.svcLedger.Start(ctx, key, tool, input, call)
	r.Decision = l.d
	return r, err
}

// TestUnknownDecisionDenies: a check answered with a decision the hook
// does not know (none, or another word) denies the call; allow and ask go
// on (Claude Code decides an asked call).
func TestUnknownDecisionDenies(t *testing.T) {
	for _, tt := range []struct {
		d    envelope.Decision
		want string
	}{
		{"", "deny"},
		{"permit", "deny"},
		{envelope.Allow, "{}"},
		{envelope.Ask, "{}"},
	} {
		l := decisionLedger{newLedger(t, testDoc), tt.d}
		h := &Hook{L: l, Opts: Options{Locate: func(string) Location { return testLoc }, Who: func() Who { return testWho }}}
		res := h.Handle(context.Background(), loadPayload(t, "PreToolUse.json", map[string]any{"tool_input": map[string]any{"command": "echo hi"}}))
		var reasons []string
		if tt.want == "deny" {
			reasons = []string{"no decision the hook knows"}
		}
		checkOutput(t, res, tt.want, reasons)
	}
}
