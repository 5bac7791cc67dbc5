package service_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
)

// TestResultCheckIsDecided: every append path gives a tool.checked's
// outcome its decision as a value (Result.Check), the decision and reason
// its Decided holds, which the API answers a recorded check from
// (api.TestRecordedCheckAnswerBytes); another event's, and a re-sent id's,
// has none.
func TestResultCheckIsDecided(t *testing.T) {
	mem := service.New(service.Config{Log: &service.MemLog{}, Dialects: dialects.All()})
	n := startNode(t, t.TempDir())
	defer n.stop()
	for _, c := range []struct {
		name string
		svc  *service.Service
	}{{"memory (single, pipelined rounds)", mem}, {"JetStream (single, atomic batches)", n.svc}} {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			svc := c.svc
			if _, err := svc.Append(ctx, workload.Policy()); err != nil {
				t.Fatal(err)
			}
			var outs []service.Outcome
			for _, raw := range []string{
				`{"type":"session.started","v":1,"actor":"a","session":"agent:main:s","data":{"agent":"main"}}`,
				`{"type":"turn.started","v":1,"actor":"a","session":"agent:main:s","data":{"turn":1}}`,
				`{"id":"01KAAAAAAAAAAAAAAAAAAAAAAA","type":"tool.checked","v":1,"actor":"a","session":"agent:main:s","data":{"turn":1,"tool":"read","call":"c0"}}`,
			} {
				res, err := svc.Append(ctx, []byte(raw))
				outs = append(outs, service.Outcome{Result: res, Err: err})
			}
			var evs []*events.Event
			for i, tool := range []string{"read", "exec", "no-such-tool"} {
				ev, err := events.Parse(fmt.Appendf(nil, `{"type":"tool.checked","v":1,"actor":"a","session":"agent:main:s","data":{"turn":1,"tool":%q,"call":"c%d"}}`, tool, i+1))
				if err != nil {
					t.Fatal(err)
				}
				evs = append(evs, ev)
			}
			outs = append(outs, svc.AppendEvents(ctx, evs, nil)...)
			// A re-send of the first check: a duplicate, nothing decided.
			dup, err := svc.Append(ctx, []byte(`{"id":"01KAAAAAAAAAAAAAAAAAAAAAAA","type":"tool.checked","v":1,"actor":"a","session":"agent:main:s","data":{"turn":1,"tool":"read","call":"c0"}}`))
			if err != nil || !dup.Duplicate || dup.Check != nil {
				t.Errorf("re-sent check: %+v, %v; want a duplicate without Check", dup, err)
			}
			for i, o := range outs {
				if o.Err != nil {
					t.Fatalf("outcome %d: %v", i, o.Err)
				}
				if i < 2 {
					if o.Result.Check != nil {
						t.Errorf("outcome %d, not a check: Check %+v", i, o.Result.Check)
					}
					continue
				}
				if o.Result.Check == nil {
					t.Fatalf("check %d: no Check (decided %s)", i, o.Result.Decided)
				}
				var dec, val struct {
					Decision json.RawMessage `json:"decision"`
					Reason   json.RawMessage `json:"reason"`
				}
				b, _ := json.Marshal(o.Result.Check)
				if json.Unmarshal(o.Result.Decided, &dec) != nil || json.Unmarshal(b, &val) != nil ||
					string(dec.Decision) != string(val.Decision) || string(dec.Reason) != string(val.Reason) {
					t.Errorf("check %d: Check %s, Decided %s", i, b, o.Result.Decided)
				}
			}
		})
	}
}
