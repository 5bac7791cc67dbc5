package service_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
)

// panicky is the openclaw dialect with a bug: its decision of tool boom
// panics.
type panicky struct{ envelope.Dialect }

func (p panicky) Decide(w envelope.World, s *envelope.Session, tool string, in json.RawMessage) envelope.Verdict {
	if tool == "boom" {
		panic("dialect bug")
	}
	return p.Dialect.Decide(w, s, tool, in)
}

// TestCheckPanicLeavesServiceUsable: a panic in a dialect's decision of a
// check at the head, which the API recovers (its guard), releases the
// service's lock: the next check answers.
func TestCheckPanicLeavesServiceUsable(t *testing.T) {
	ctx := t.Context()
	svc := service.New(service.Config{Log: &service.MemLog{}, Dialects: projection.Dialects{"openclaw": panicky{openclaw.New()}}})
	for _, ev := range []string{
		`{"type":"policy.set","v":1,"actor":"ops","data":{"dialect":"openclaw","document":{"tools":{}},"catalogue":["read","boom"]}}`,
		`{"type":"session.started","v":1,"actor":"acme","session":"s1","data":{"agent":"main"}}`,
		`{"type":"turn.started","v":1,"actor":"acme","session":"s1","data":{"turn":1}}`,
	} {
		if _, err := svc.Append(ctx, []byte(ev)); err != nil {
			t.Fatal(err)
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the check of boom did not panic")
			}
		}()
		_, _ = svc.Check(ctx, "s1", "boom", nil, projection.Position{})
	}()
	done := make(chan error, 1)
	go func() {
		_, err := svc.Check(ctx, "s1", "read", nil, projection.Position{})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a check after a recovered panic did not answer: the service's lock was left held")
	}
}
