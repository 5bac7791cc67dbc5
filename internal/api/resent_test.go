package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/wire"
)

// resentLedger is a ledger whose orchestrator acme runs session s1 at turn
// 1 under an openclaw policy that allows read and denies exec.
func resentLedger(t *testing.T) *apitest.Ledger {
	t.Helper()
	l := apitest.Start(t, apitest.Options{})
	ctx := t.Context()
	ops := client.New(l.Connect(), client.Options{Actor: "ops"})
	acme := client.New(l.Connect(), client.Options{Owner: "acme"})
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw", Document: json.RawMessage(`{"tools":{"deny":["exec"]}}`), Catalogue: []string{"read", "exec"}})); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []client.Event{client.Start("s1", events.StartedData{Agent: "main"}), client.Turn("s1", events.TurnData{Turn: 1})} {
		if _, err := acme.Append(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// askCheck sends body to acme's check endpoint and returns the answer and
// its error code and message ("" and "" when none, joined by a space).
func askCheck(t *testing.T, nc *nats.Conn, body string) (wire.CheckResult, string) {
	t.Helper()
	m, err := nc.RequestWithContext(t.Context(), "ledger.v1.check.acme", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	var r wire.CheckResult
	_ = json.Unmarshal(m.Data, &r)
	return r, m.Header.Get(wire.ErrorCodeHeader) + " " + m.Header.Get(wire.ErrorHeader)
}

// logHead is the last sequence of l's log.
func logHead(t *testing.T, l *apitest.Ledger) uint64 {
	t.Helper()
	h, err := l.Log.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// record is the record at seq.
func record(t *testing.T, l *apitest.Ledger, seq uint64) *events.Record {
	t.Helper()
	recs, err := service.ReadRecords(t.Context(), l.Log, seq, seq)
	if err != nil || len(recs) != 1 {
		t.Fatalf("record %d: %v", seq, err)
	}
	return recs[0]
}

// TestRecordedCheckResent: a recorded check sent with an id (wire.Query.ID)
// and sent again with the same id (a retry after a lost answer) records
// one tool.checked, and the re-send is answered with the check that
// landed, its decision, reason and record; the id of another call's check,
// an id that is no ULID, and an id on a query that records nothing are
// refused (invalid_event), recording nothing.
func TestRecordedCheckResent(t *testing.T) {
	l := resentLedger(t)
	nc := l.Connect()
	ask := func(body string) (wire.CheckResult, string) { t.Helper(); return askCheck(t, nc, body) }
	head := func() uint64 { t.Helper(); return logHead(t, l) }
	const allowID, denyID = "01KBFX0000000000000000A001", "01KBFX0000000000000000D001"
	for _, tc := range []struct {
		id, tool, call, decision string
	}{
		{allowID, "read", "c-read", "allow"},
		{denyID, "exec", "c-exec", "deny"},
	} {
		body := `{"session":"s1","tool":"` + tc.tool + `","record":true,"call":"` + tc.call + `","effect":true,"id":"` + tc.id + `"}`
		first, e := ask(body)
		if strings.TrimSpace(e) != "" || string(first.Decision) != tc.decision || first.Recorded == 0 {
			t.Fatalf("%s: %+v %q, want %s recorded", tc.tool, first, e, tc.decision)
		}
		at := head()
		for range 2 {
			again, e := ask(body)
			if strings.TrimSpace(e) != "" || again.Recorded != first.Recorded || again.Decision != first.Decision || again.Reason.Code != first.Reason.Code || again.Tool != tc.tool {
				t.Errorf("%s re-sent: %+v %q, want the first answer %+v", tc.tool, again, e, first)
			}
		}
		if h := head(); h != at {
			t.Errorf("%s: the re-sends recorded something: head %d -> %d", tc.tool, at, h)
		}
		if got := record(t, l, first.Recorded); got.ID != tc.id || got.Type != events.ToolChecked {
			t.Errorf("%s: record %d is %s %s, want the check with id %s", tc.tool, first.Recorded, got.Type, got.ID, tc.id)
		}
	}
	at := head()
	for _, tc := range []struct{ body, want string }{
		{`{"session":"s1","tool":"read","record":true,"call":"other","effect":true,"id":"` + allowID + `"}`, "a re-sent check keeps"},
		{`{"session":"s1","tool":"exec","record":true,"call":"c-read","effect":true,"id":"` + allowID + `"}`, "a re-sent check keeps"},
		{`{"session":"s1","tool":"read","record":true,"call":"c-read","id":"` + allowID + `"}`, "a re-sent check keeps"},
		{`{"session":"s1","tool":"read","record":true,"call":"x","effect":true,"id":"not-a-ulid"}`, "ULID"},
		{`{"session":"s1","tool":"read","id":"` + allowID + `"}`, "recorded check"},
	} {
		if _, e := ask(tc.body); !strings.HasPrefix(e, string(events.CodeInvalidEvent)+" ") || !strings.Contains(e, tc.want) {
			t.Errorf("%s: %q, want invalid_event saying %q", tc.body, e, tc.want)
		}
	}
	if h := head(); h != at {
		t.Errorf("the refused checks recorded something: head %d -> %d", at, h)
	}
}

// loseFirstAnswer passes requests on to a NATS connection but loses the
// answer to the first recorded check (it waits the attempt out as a lost
// answer does), so the client retries it.
type loseFirstAnswer struct {
	nc     *nats.Conn
	mu     sync.Mutex
	bodies []string
}

func (r *loseFirstAnswer) RequestWithContext(ctx context.Context, subject string, data []byte) (*nats.Msg, error) {
	m, err := r.nc.RequestWithContext(ctx, subject, data)
	if !strings.HasPrefix(subject, "ledger.v1.check.") {
		return m, err
	}
	r.mu.Lock()
	r.bodies = append(r.bodies, string(data))
	first := len(r.bodies) == 1
	r.mu.Unlock()
	if first {
		return nil, nats.ErrTimeout
	}
	return m, err
}

// TestRecordedCheckRetryKeepsItsID: the client sends a recorded check with
// an id, the same on its retry, so a call whose first answer was lost is
// recorded once, and the retry is answered with that record.
func TestRecordedCheckRetryKeepsItsID(t *testing.T) {
	l := resentLedger(t)
	ctx := t.Context()
	lose := &loseFirstAnswer{nc: l.Connect()}
	c := client.NewOn(lose, client.Options{Owner: "acme", Timeout: 10 * time.Second})
	at, err := l.Log.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.CheckAndStart(ctx, "s1", "read", "toolu_retry")
	if err != nil || r.Decision != "allow" || r.Recorded != at+1 {
		t.Fatalf("CheckAndStart after a lost answer: %+v %v, want allow recorded at %d", r, err, at+1)
	}
	if h, _ := l.Log.Head(ctx); h != at+1 {
		t.Errorf("the call was recorded %d times, want once", h-at)
	}
	lose.mu.Lock()
	bodies := lose.bodies
	lose.mu.Unlock()
	id := func(body string) string {
		var q wire.Query
		if err := json.Unmarshal([]byte(body), &q); err != nil {
			t.Fatal(err)
		}
		return q.ID
	}
	if len(bodies) != 2 || id(bodies[0]) == "" || id(bodies[0]) != id(bodies[1]) {
		t.Errorf("the check and its retry: %q, want two with one id", bodies)
	}
	if rec := record(t, l, r.Recorded); rec.ID != id(bodies[0]) {
		t.Errorf("the record's id is %s, want the one the client sent, %s", rec.ID, id(bodies[0]))
	}
	// A second call gets an id of its own.
	r2, err := c.CheckAndStart(ctx, "s1", "read", "toolu_next")
	if err != nil || r2.Recorded != at+2 {
		t.Errorf("the next call: %+v %v, want recorded at %d", r2, err, at+2)
	}
}

// oldLedger passes requests on, but refuses a query that names an id as a
// ledger from before ids on recorded checks does (unknown field).
type oldLedger struct {
	nc      *nats.Conn
	refused int
}

func (r *oldLedger) RequestWithContext(ctx context.Context, subject string, data []byte) (*nats.Msg, error) {
	if strings.HasPrefix(subject, "ledger.v1.check.") && strings.Contains(string(data), `"id":`) {
		r.refused++
		m := nats.NewMsg(subject)
		m.Header.Set(wire.ErrorCodeHeader, string(events.CodeInvalidEvent))
		m.Header.Set(wire.ErrorHeader, `unknown field "id" in the query; a query's fields are session, tool, ...`)
		return m, nil
	}
	return r.nc.RequestWithContext(ctx, subject, data)
}

// TestRecordedCheckOnAnOldLedger: a ledger that does not know a recorded
// check's id refuses the field; the client sends the check again without
// it, and the call is recorded (once).
func TestRecordedCheckOnAnOldLedger(t *testing.T) {
	l := resentLedger(t)
	ctx := t.Context()
	old := &oldLedger{nc: l.Connect()}
	c := client.NewOn(old, client.Options{Owner: "acme"})
	at, err := l.Log.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.CheckAndStart(ctx, "s1", "read", "toolu_old")
	if err != nil || r.Decision != "allow" || r.Recorded != at+1 || old.refused != 1 {
		t.Fatalf("CheckAndStart on an old ledger: %+v %v (id refused %d times), want allow recorded at %d after one refusal", r, err, old.refused, at+1)
	}
}
