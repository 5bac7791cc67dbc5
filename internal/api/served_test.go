package api_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/nats-io/nats.go/micro"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/wire"
)

// TestWireHeadersAreMicros: the error headers of package wire are the
// NATS micro service's, which the API sets.
func TestWireHeadersAreMicros(t *testing.T) {
	if wire.ErrorHeader != micro.ErrorHeader || wire.ErrorCodeHeader != micro.ErrorCodeHeader {
		t.Errorf("wire's error headers %q, %q are not micro's %q, %q", wire.ErrorHeader, wire.ErrorCodeHeader, micro.ErrorHeader, micro.ErrorCodeHeader)
	}
}

// TestServedAnswersAreWire asks every endpoint of a running API and
// decodes each answer into its wire type with no field unknown, and
// checks that the wire type encodes back to the very bytes served: what
// the service sends is what the client's types hold, nothing more.
func TestServedAnswersAreWire(t *testing.T) {
	l := apitest.Start(t, apitest.Options{})
	nc := l.Connect()
	// ask sends body on subject and decodes the answer strictly into out;
	// wantErr is the error code the answer must carry ("" for none).
	ask := func(subject string, body any, out any, wantErr events.Code) {
		t.Helper()
		b, ok := body.([]byte)
		if !ok {
			var err error
			if b, err = json.Marshal(body); err != nil {
				t.Fatal(err)
			}
		}
		m, err := nc.Request(subject, b, 5*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", subject, err)
		}
		if code := events.Code(m.Header.Get(wire.ErrorCodeHeader)); code != wantErr {
			t.Fatalf("%s %s: code %q (%s), want %q", subject, b, code, m.Header.Get(wire.ErrorHeader), wantErr)
		}
		dec := json.NewDecoder(bytes.NewReader(m.Data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(out); err != nil {
			t.Fatalf("%s: the answer does not decode into %T: %v\n%s", subject, out, err, m.Data)
		}
		again, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, m.Data) {
			t.Errorf("%s: %T encodes the answer differently:\nserved %s\n  wire %s", subject, out, m.Data, again)
		}
		if wantErr != "" {
			if eb, ok := out.(*wire.ErrorBody); !ok || eb.Code != wantErr || eb.Message != m.Header.Get(wire.ErrorHeader) {
				t.Errorf("%s: error body %+v, headers %v", subject, out, m.Header)
			}
		}
	}
	const root, child = events.SessionKey("agent:main:main"), events.SessionKey("agent:coder:subagent:c1")
	var res wire.AppendResult
	ask(wire.Subject(wire.EndpointPolicy, "alice"), []byte(`{"type":"policy.set","v":1,"data":{"dialect":"openclaw","document":{"agents":{"list":[{"id":"main","subagents":{"allowAgents":["coder"]}},{"id":"coder","tools":{"deny":["browser"]}}]}},"catalogue":["read","exec","browser"]}}`), &res, "")
	ask(wire.Subject(wire.EndpointAppend, "acme"), []byte(`{"type":"session.started","v":1,"session":"`+string(root)+`","data":{"agent":"main"}}`), &res, "")
	var outs []wire.AppendOutcome
	ask(wire.Subject(wire.EndpointAppend, "acme"), []byte(`[{"type":"turn.started","v":1,"session":"`+string(root)+`","data":{"turn":1}},
		{"type":"session.spawned","v":1,"session":"`+string(child)+`","data":{"parent":"`+string(root)+`","agent":"coder"}},
		{"type":"turn.started","v":1,"session":"`+string(child)+`","data":{"turn":1}},
		{"type":"turn.started","v":1,"session":"agent:main:none","data":{"turn":1}}]`), &outs, "")
	if len(outs) != 4 || outs[0].Error != nil || outs[3].Error == nil || outs[3].Error.Code != events.CodeUnknownSession {
		t.Fatalf("batch outcomes %+v", outs)
	}
	var eb wire.ErrorBody
	ask(wire.Subject(wire.EndpointTools, "acme"), wire.Query{Session: "agent:main:none"}, &eb, events.CodeUnknownSession)

	var tools wire.ToolsResult
	ask(wire.Subject(wire.EndpointTools, "acme"), wire.Query{Session: child}, &tools, "")
	var check wire.CheckResult
	ask(wire.Subject(wire.EndpointCheck, "acme"), wire.Query{Session: child, Tool: "browser"}, &check, "")
	ask(wire.Subject(wire.EndpointCheck, "acme"), wire.Query{Session: child, Tool: "read", Record: true, Call: "c1"}, &check, "")
	if check.Recorded == 0 {
		t.Errorf("a recorded check: %+v", check)
	}
	// Each answer decodes into a fresh value: decoding into one that holds
	// an earlier answer keeps the fields this one leaves out.
	var whyTurn, why, whyCall wire.WhyResult
	ask(wire.Subject(wire.EndpointWhy, wire.ScopeAll), wire.Query{Session: child, Tool: "browser", Turn: 1}, &whyTurn, "")
	if whyTurn.Turn == nil || len(whyTurn.Turn.Calls) != 1 {
		t.Errorf("why at a turn: %+v", whyTurn.Turn)
	}
	ask(wire.Subject(wire.EndpointWhy, "acme"), wire.Query{Call: "c1"}, &whyCall, "")
	if whyCall.Call == nil || whyCall.Call.Record.Seq != check.Recorded || whyCall.Call.Cause == nil {
		t.Errorf("why about a call: %+v", whyCall.Call)
	}
	ask(wire.Subject(wire.EndpointWhy, "acme"), wire.Query{Session: child, Tool: "browser"}, &why, "")
	if why.Envelope == nil || why.Policy == nil || len(why.Verdict.Trace) == 0 {
		t.Errorf("why: %+v", why)
	}
	var sv wire.SessionView
	ask(wire.Subject(wire.EndpointSession, "acme"), wire.Query{Session: child}, &sv, "")
	if sv.Key != child || len(sv.Turns) != 1 {
		t.Errorf("session: %+v", sv)
	}
	var trees []*wire.TreeNode
	ask(wire.Subject(wire.EndpointTree, wire.ScopeAll), wire.Query{}, &trees, "")
	if len(trees) != 1 || !reflect.DeepEqual(trees[0].Keys(), []events.SessionKey{root, child}) {
		t.Errorf("tree: %+v", trees)
	}
	var changes wire.WatchResult
	ask(wire.Subject(wire.EndpointWatch, "acme"), wire.WatchQuery{Root: root, From: 1}, &changes, "")
	if len(changes.Changes) != 2 || changes.Next == 0 {
		t.Errorf("watch: %+v", changes)
	}
	var denials wire.DenialsResult
	ask(wire.Subject(wire.EndpointDenials, wire.ScopeAll), wire.DenialsQuery{}, &denials, "")
	if denials.Next == 0 {
		t.Errorf("denials: %+v", denials)
	}
}
