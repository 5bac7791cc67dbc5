package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/wire"
)

// countingObserver counts the requests the API tells it about.
type countingObserver struct {
	mu              sync.Mutex
	appends, checks int
}

func (o *countingObserver) Append(string, time.Duration) { o.mu.Lock(); o.appends++; o.mu.Unlock() }
func (o *countingObserver) Query(endpoint string, _ time.Duration) {
	o.mu.Lock()
	if endpoint == wire.EndpointCheck {
		o.checks++
	}
	o.mu.Unlock()
}

// TestLocalAnswersAsNATS sends the same requests over NATS and through
// Server.RequestWithContext and compares the answers: the queries' bodies
// and error headers byte for byte, the appends' codes (each way appends
// its own record), every refusal's words. The local path goes through the
// same handlers, so ScopeLimits, validation, the owner of a session and
// the Observer apply to it as they do over NATS.
func TestLocalAnswersAsNATS(t *testing.T) {
	limits, err := api.ParseScopeLimits("acme=cc:a+default")
	if err != nil {
		t.Fatal(err)
	}
	obs := &countingObserver{}
	l := apitest.Start(t, apitest.Options{API: api.Config{ScopeLimits: limits, Observer: obs}})
	nc := l.Connect()
	ctx := t.Context()
	type answer struct {
		code, msg string
		body      []byte
	}
	over := func(m *nats.Msg) answer {
		return answer{m.Header.Get(wire.ErrorCodeHeader), m.Header.Get(wire.ErrorHeader), m.Data}
	}
	both := func(subject string, body []byte) (viaNATS, local answer) {
		t.Helper()
		m, err := nc.Request(subject, body, 5*time.Second)
		if err != nil {
			t.Fatalf("%s over NATS: %v", subject, err)
		}
		lm, err := l.API.RequestWithContext(ctx, subject, body)
		if err != nil {
			t.Fatalf("%s locally: %v", subject, err)
		}
		return over(m), over(lm)
	}
	enc := func(v any) []byte {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ops := client.New(nc, client.Options{})
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw",
		Document: json.RawMessage(`{"tools":{"profile":"coding"}}`), Catalogue: []string{"read", "write", "exec"}})); err != nil {
		t.Fatal(err)
	}
	key := events.SessionKey("agent:main:main")
	acme := client.NewOn(l.API, client.Options{Owner: "acme"})
	for _, ev := range []client.Event{client.Start(key, events.StartedData{Agent: "main"}), client.Turn(key, events.TurnData{Turn: 1})} {
		if _, err := acme.Append(ctx, ev); err != nil {
			t.Fatalf("an append through the local path: %v", err)
		}
	}
	pos := l.Service.Position()

	// Read-only requests: the same bytes either way.
	for _, c := range []struct {
		name, subject string
		body          []byte
		code          events.Code
	}{
		{"a check", wire.Subject(wire.EndpointCheck, "acme"), enc(wire.Query{Session: key, Tool: "exec", MinSeq: pos}), ""},
		{"a why", wire.Subject(wire.EndpointWhy, "acme"), enc(wire.Query{Session: key, Tool: "browser", MinSeq: pos}), ""},
		{"the tools of all", wire.Subject(wire.EndpointTools, wire.ScopeAll), enc(wire.Query{Session: key, MinSeq: pos}), ""},
		{"another owner's session", wire.Subject(wire.EndpointCheck, "globex"), enc(wire.Query{Session: key, Tool: "exec", MinSeq: pos}), events.CodeUnknownSession},
		{"a query that does not decode", wire.Subject(wire.EndpointCheck, "acme"), []byte(`{"session":`), events.CodeInvalidEvent},
		{"a scope token that names no one", wire.Prefix + ".check.a-b-c-d-e-f-g-h-i-j-k-l-m-n-o-p-q-r-s-t-u-v-w-x-y-z-0-1-2-3-4-5-6-7-8", enc(wire.Query{Session: key, Tool: "exec"}), events.CodeInvalidEvent},
		{"a session append refused by validation", wire.Subject(wire.EndpointAppend, "acme"), []byte(`{"type":"turn.started","v":1,"session":"agent:main:main","data":{"turn":0}}`), events.CodeInvalidEvent},
		{"a policy out of the user's scopes", wire.Subject(wire.EndpointPolicy, "acme"), enc(map[string]any{"type": "policy.set", "v": 1, "actor": "acme",
			"data": map[string]any{"scope": "cc:b", "dialect": "openclaw", "document": map[string]any{}, "catalogue": []string{"read"}}}), ""},
	} {
		viaNATS, local := both(c.subject, c.body)
		if c.code != "" && viaNATS.code != string(c.code) {
			t.Errorf("%s over NATS: code %q (%s), want %q", c.name, viaNATS.code, viaNATS.msg, c.code)
		}
		if viaNATS.code != local.code || viaNATS.msg != local.msg || !bytes.Equal(viaNATS.body, local.body) {
			t.Errorf("%s: over NATS %q %q %s\nlocally %q %q %s", c.name, viaNATS.code, viaNATS.msg, viaNATS.body, local.code, local.msg, local.body)
		}
	}

	// A recorded check through a client on the local path is recorded
	// and counted by the Observer.
	obs.mu.Lock()
	told := obs.checks + obs.appends
	obs.mu.Unlock()
	r, err := acme.CheckAndStart(ctx, key, "exec", "call-local")
	if err != nil || r.Decision != envelope.Allow || r.Recorded == 0 {
		t.Fatalf("a recorded check through the local path: %+v, %v", r, err)
	}
	// The Observer is told after the answer is sent: wait for it.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		obs.mu.Lock()
		now := obs.checks + obs.appends
		obs.mu.Unlock()
		if now > told {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Observer was not told of the local recorded check in 5s (it counts %d requests)", now)
		}
	}

	// What no endpoint answers is no responder, as over NATS.
	for _, subject := range []string{"ledger.v2.check.acme", wire.Prefix + ".nothing.acme", wire.Prefix + ".check", wire.Prefix + ".check.acme.more"} {
		if _, err := nc.Request(subject, []byte(`{}`), time.Second); !errors.Is(err, nats.ErrNoResponders) {
			t.Fatalf("%s over NATS: %v, the test's premise is that no one answers", subject, err)
		}
		if _, err := l.API.RequestWithContext(ctx, subject, []byte(`{}`)); !errors.Is(err, nats.ErrNoResponders) {
			t.Errorf("%s locally: %v, want no responders", subject, err)
		}
	}
}

// TestLocalRequestEnds: a local request whose context ends first returns
// the context's error, and a stopped server answers no one.
func TestLocalRequestEnds(t *testing.T) {
	l := apitest.Start(t, apitest.Options{API: api.Config{MaxWait: 5 * time.Second}})
	// A query for a sequence far ahead waits (MaxWait) for the replica.
	q, _ := json.Marshal(wire.Query{Session: "agent:main:main", Tool: "exec", MinSeq: 1 << 40})
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if _, err := l.API.RequestWithContext(ctx, wire.Subject(wire.EndpointCheck, "acme"), q); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a query waiting past its context: %v, want the context's deadline", err)
	}
	if err := l.API.Stop(); err != nil {
		t.Fatal(err)
	}
	c := client.NewOn(l.API, client.Options{Owner: "acme", Retries: 1, Timeout: 200 * time.Millisecond})
	_, err := c.Check(t.Context(), "agent:main:main", "exec")
	if !errors.Is(err, nats.ErrNoResponders) {
		t.Errorf("a stopped server: %v, want no responders", err)
	}
}

// TestLocalAnswersAreTheirOwn: many local requests at once, recorded
// checks and appends of their own sessions, each get their own answer.
// The append path's answers are written in pooled buffers that the next
// answer reuses, so a local answer keeps a copy, as the NATS connection
// does (before: 64 concurrent recorded checks through `serve --hooks`'
// path got answers that were empty or another request's).
func TestLocalAnswersAreTheirOwn(t *testing.T) {
	l := apitest.Start(t, apitest.Options{})
	ctx := t.Context()
	ops := client.New(l.Connect(), client.Options{})
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw",
		Document: json.RawMessage(`{"tools":{"profile":"coding"}}`), Catalogue: []string{"read", "write", "exec"}})); err != nil {
		t.Fatal(err)
	}
	const n, calls = 32, 40
	key := func(i int) events.SessionKey { return events.SessionKey(fmt.Sprintf("agent:main:own%02d", i)) }
	c := client.NewOn(l.API, client.Options{Owner: "acme"})
	for i := range n {
		for _, ev := range []client.Event{client.Start(key(i), events.StartedData{Agent: "main"}), client.Turn(key(i), events.TurnData{Turn: 1})} {
			if _, err := c.Append(ctx, ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			for j := range calls {
				call := fmt.Sprintf("c%02d-%d", i, j)
				r, err := c.CheckAndStart(ctx, key(i), "read", call)
				if err != nil {
					errs <- fmt.Errorf("%s %s: %v", key(i), call, err)
					return
				}
				if r.Session != key(i) || r.Tool != "read" || r.Decision != envelope.Allow || r.Recorded == 0 {
					errs <- fmt.Errorf("%s %s: answered %+v", key(i), call, r)
					return
				}
				a, err := c.Append(ctx, client.Checked(key(i), events.CheckedData{Turn: 1, Tool: "exec", Call: call + "x"}))
				if err != nil {
					errs <- fmt.Errorf("%s %s append: %v", key(i), call, err)
					return
				}
				if a.Seq == 0 || a.Seq == r.Recorded {
					errs <- fmt.Errorf("%s %s: append answered %+v after the check's record %d", key(i), call, a, r.Recorded)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
