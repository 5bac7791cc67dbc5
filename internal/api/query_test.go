package api_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
)

// queryServer serves the API over a service whose clock ticks one second at every
// reading, from 2026-03-01T13:18:18Z, and returns the times of its four
// records: policy.set, session.started, turn 1, turn 2.
func queryServer(t *testing.T) (*nats.Conn, []time.Time) {
	t.Helper()
	ns, err := natslog.StartEmbedded(natslog.EmbeddedConfig{Dir: filepath.Join(t.TempDir(), "nats")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := natslog.ConnectEmbedded(ns, "ledger")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	next := time.Date(2026, 3, 1, 13, 18, 18, 0, time.UTC)
	clock := func() time.Time { t := next; next = next.Add(time.Second); return t }
	svc, err := service.Open(t.Context(), service.Config{Log: &service.MemLog{}, Dialects: dialects.All(), Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{
		`{"type":"policy.set","v":1,"actor":"ops","data":{"dialect":"openclaw","document":{},"catalogue":["read"]}}`,
		`{"type":"session.started","v":1,"session":"agent:main:main","actor":"acme","data":{"agent":"main"}}`,
		`{"type":"turn.started","v":1,"session":"agent:main:main","actor":"acme","data":{"turn":1}}`,
		`{"type":"turn.started","v":1,"session":"agent:main:main","actor":"acme","data":{"turn":2}}`,
	} {
		if _, err := svc.Append(t.Context(), []byte(ev)); err != nil {
			t.Fatalf("%s: %v", ev, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv, err := api.Start(ctx, nc, api.Config{Service: svc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	raws, err := svc.Log().Read(t.Context(), 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	var times []time.Time
	for _, raw := range raws {
		rec, err := events.DecodeRecord(raw)
		if err != nil {
			t.Fatal(err)
		}
		tm, err := time.Parse(time.RFC3339, rec.Time)
		if err != nil {
			t.Fatal(err)
		}
		times = append(times, tm)
	}
	return nc, times
}

// ask sends a raw query and returns the answer's seq or its error code and
// message.
func ask(t *testing.T, nc *nats.Conn, subject, body string) (uint64, string, string) {
	t.Helper()
	msg, err := nc.Request(subject, []byte(body), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if code := msg.Header.Get("Nats-Service-Error-Code"); code != "" {
		return 0, code, msg.Header.Get("Nats-Service-Error")
	}
	var r struct{ Seq uint64 }
	if err := json.Unmarshal(msg.Data, &r); err != nil {
		t.Fatalf("%s: %v", msg.Data, err)
	}
	return r.Seq, "", ""
}

// TestQueryTimeIsATime: a query's time is compared as an instant: the same
// instant with Z, with an offset, or with a fraction finds the same record,
// the last one at or before it.
func TestQueryTimeIsATime(t *testing.T) {
	nc, times := queryServer(t)
	plus1, minus30 := time.FixedZone("", 3600), time.FixedZone("", -1800)
	turn1, turn2 := times[2], times[3]
	if turn2.Sub(turn1) < time.Second {
		t.Fatalf("records %v are less than a second apart", times)
	}
	for _, tc := range []struct {
		time string
		seq  uint64
	}{
		{turn1.Format(time.RFC3339), 3},
		{turn1.In(plus1).Format(time.RFC3339), 3},
		{turn1.Add(500 * time.Millisecond).Format(time.RFC3339Nano), 3},
		{turn1.Add(999 * time.Millisecond).In(plus1).Format(time.RFC3339Nano), 3},
		{turn2.In(minus30).Format(time.RFC3339), 4},
		{turn1.Add(-time.Nanosecond).Format(time.RFC3339Nano), 2},
	} {
		seq, code, msg := ask(t, nc, "ledger.v1.tools.all", `{"session":"agent:main:main","time":"`+tc.time+`"}`)
		if code != "" || seq != tc.seq {
			t.Errorf("time %s: seq %d (%s %s), want %d", tc.time, seq, code, msg, tc.seq)
		}
	}
	for _, bad := range []string{"yesterday", "2026-13-45", "2026-03-01", "13:18:20"} {
		_, code, msg := ask(t, nc, "ledger.v1.tools.all", `{"session":"agent:main:main","time":"`+bad+`"}`)
		if code != string(events.CodeInvalidEvent) || !strings.Contains(msg, "not an RFC 3339 time") {
			t.Errorf("time %q: %s %q, want invalid_event saying it is not an RFC 3339 time", bad, code, msg)
		}
	}
}

// TestQueryUnknownField: a misspelled field is refused, naming it and the
// fields a query has, rather than ignored (and answered at the head).
func TestQueryUnknownField(t *testing.T) {
	nc, _ := queryServer(t)
	for _, tc := range []struct{ body, field string }{
		{`{"session":"agent:main:main","tim":"2026-03-01T13:18:20Z"}`, "tim"},
		{`{"sesion":"agent:main:main"}`, "sesion"},
		{`{"session":"agent:main:main","tool":"read","minseq":3}`, "minseq"},
	} {
		_, code, msg := ask(t, nc, "ledger.v1.check.all", tc.body)
		want := `unknown field "` + tc.field + `"`
		if code != string(events.CodeInvalidEvent) || !strings.Contains(msg, want) || !strings.Contains(msg, "session, tool, input, seq, turn, time, min_seq, record, call") {
			t.Errorf("%s: %s %q, want invalid_event naming %s and the known fields", tc.body, code, msg, want)
		}
	}
	_, code, msg := ask(t, nc, "ledger.v1.tools.all", `{"session":"agent:main:main"} {"seq":1}`)
	if code != string(events.CodeInvalidEvent) {
		t.Errorf("two objects: %s %q, want invalid_event", code, msg)
	}
	if seq, code, msg := ask(t, nc, "ledger.v1.tools.all", `{"session":"agent:main:main","seq":2}`); code != "" || seq != 2 {
		t.Errorf("a good query: %d %s %q", seq, code, msg)
	}
}
