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
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/wire"
)

// TestRecordedCheckDeadline: a recorded check carries how long its caller
// waits (within_ms); a round that decides it past that refuses it with
// deadline_passed and records nothing, and one within it records it. The
// API's clock moves a second at every reading, and a check's readings are
// its arrival and the round that decides it: one second apart. Within_ms
// is refused where it means nothing.
func TestRecordedCheckDeadline(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}
	l := apitest.Start(t, apitest.Options{API: api.Config{Clock: clock}})
	ctx := t.Context()
	ops := client.New(l.Connect(), client.Options{Actor: "ops"})
	acme := client.New(l.Connect(), client.Options{Owner: "acme"})
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw", Document: json.RawMessage(`{}`), Catalogue: []string{"read"}})); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []client.Event{client.Start("s1", events.StartedData{Agent: "main"}), client.Turn("s1", events.TurnData{Turn: 1})} {
		if _, err := acme.Append(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	nc := l.Connect()
	ask := func(body string) (wire.CheckResult, string) { t.Helper(); return askCheck(t, nc, body) }
	head := func() uint64 { t.Helper(); return logHead(t, l) }

	before := head()
	if _, e := ask(`{"session":"s1","tool":"read","record":true,"call":"late","effect":true,"within_ms":500}`); !strings.HasPrefix(e, string(events.CodeDeadlinePassed)) || !strings.Contains(e, "nothing was recorded") {
		t.Errorf("a check decided a second after it came, its caller waiting 500 ms: %q, want deadline_passed", e)
	}
	if h := head(); h != before {
		t.Errorf("the refused check recorded something: head %d -> %d", before, h)
	}
	if r, e := ask(`{"session":"s1","tool":"read","record":true,"call":"inTime","effect":true,"within_ms":5000}`); r.Recorded != before+1 || r.Decision != "allow" {
		t.Errorf("a check decided a second after it came, its caller waiting 5 s: %+v %q, want recorded at %d", r, e, before+1)
	}
	if r, e := ask(`{"session":"s1","tool":"read","record":true,"call":"unbounded","effect":true}`); r.Recorded != before+2 {
		t.Errorf("a check with no within_ms: %+v %q, want recorded at %d", r, e, before+2)
	}
	for _, body := range []string{
		`{"session":"s1","tool":"read","within_ms":500}`,
		`{"session":"s1","tool":"read","record":true,"call":"neg","within_ms":-1}`,
	} {
		if _, e := ask(body); !strings.HasPrefix(e, string(events.CodeInvalidEvent)+" ") || !strings.Contains(e, "within_ms") {
			t.Errorf("%s: %q, want invalid_event about within_ms", body, e)
		}
	}
}

// TestRecordedCheckWithin: the client's recorded checks tell the ledger
// how long each attempt waits: its Timeout, or less when the caller's
// context ends sooner.
func TestRecordedCheckWithin(t *testing.T) {
	l := apitest.Start(t, apitest.Options{})
	ctx := t.Context()
	seen := make(chan wire.Query, 4)
	watcher := l.Connect()
	sub, err := watcher.Subscribe("ledger.v1.check.acme", func(m *nats.Msg) {
		var q wire.Query
		_ = json.Unmarshal(m.Data, &q)
		seen <- q
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	// The server holds the subscription once the flush returns: the
	// check comes on another connection, which does not wait for it (CI
	// at b8b3c01 hung here, the check published before the subscription
	// and never seen).
	if err := watcher.Flush(); err != nil {
		t.Fatal(err)
	}
	acme := client.New(l.Connect(), client.Options{Owner: "acme", Timeout: 3 * time.Second})
	within := func(ctx context.Context) int64 {
		t.Helper()
		_, _ = acme.CheckAndStart(ctx, "s1", "read", "c1") // an unknown session: refused, as it may be
		select {
		case q := <-seen:
			return q.WithinMS
		case <-time.After(10 * time.Second):
			t.Fatal("the check request was not seen on its subject in 10 s")
			return 0
		}
	}
	if w := within(ctx); w <= 2000 || w > 3000 {
		t.Errorf("no deadline: within_ms %d, want the 3 s Timeout", w)
	}
	dctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if w := within(dctx); w <= 0 || w > 1000 {
		t.Errorf("a 1 s context: within_ms %d, want at most 1000", w)
	}
}
