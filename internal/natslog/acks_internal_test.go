package natslog

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/events"
)

// TestPubAckForms: an acknowledgement in the forms nats-server writes by
// hand is read in place, any other through encoding/json, with the same
// answer; an error is the stream's *jetstream.APIError, and an answer
// that is not an acknowledgement of this stream's is an error.
func TestPubAckForms(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		fast       bool
		seq        uint64
		dup        bool
		code       jetstream.ErrorCode // an APIError's
		bad        bool                // another error
	}{
		{name: "landed", data: `{"stream":"LEDGER","seq":42}`, fast: true, seq: 42},
		{name: "duplicate", data: `{"stream":"LEDGER","seq":7,"duplicate": true}`, fast: true, seq: 7, dup: true},
		{name: "duplicate, no space", data: `{"stream":"LEDGER","seq":7,"duplicate":true}`, fast: true, seq: 7, dup: true},
		{name: "the largest sequence", data: `{"stream":"LEDGER","seq":18446744073709551615}`, seq: 1<<64 - 1},
		{name: "a domain", data: `{"stream":"LEDGER","domain":"hub","seq":3}`, seq: 3},
		{name: "spaced", data: `{ "stream": "LEDGER", "seq": 3 }`, seq: 3},
		{name: "fields in another order", data: `{"seq":9,"stream":"LEDGER"}`, seq: 9},
		{name: "a batch's", data: `{"stream":"LEDGER","seq":5,"batch":"b1","count":2}`, seq: 5},
		{name: "an error", data: `{"error":{"code":400,"err_code":10071,"description":"wrong last sequence: 4"},"stream":"LEDGER","seq":0}`, code: 10071},
		{name: "another stream", data: `{"stream":"LEDGER-2","seq":4}`, bad: true},
		{name: "a stream whose name starts the same", data: `{"stream":"LEDGERX","seq":4}`, bad: true},
		{name: "a stream whose name is as long", data: `{"stream":"LEDGES","seq":4}`, bad: true},
		{name: "no stream", data: `{"seq":4}`, bad: true},
		{name: "sequence zero", data: `{"stream":"LEDGER","seq":0}`, bad: true},
		{name: "a leading zero", data: `{"stream":"LEDGER","seq":012}`, bad: true},
		{name: "past the largest sequence", data: `{"stream":"LEDGER","seq":18446744073709551616}`, bad: true},
		{name: "cut short", data: `{"stream":"LEDGER","seq":4`, bad: true},
		{name: "trailing bytes", data: `{"stream":"LEDGER","seq":4}x`, bad: true},
		{name: "empty", data: ``, bad: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, fast := pubAckFast([]byte(tc.data), "LEDGER")
			if fast != tc.fast {
				t.Errorf("read in place: %v, want %v", fast, tc.fast)
			}
			seq, dup, err := pubAck([]byte(tc.data), "LEDGER")
			var ae *jetstream.APIError
			switch {
			case tc.code != 0:
				if !errors.As(err, &ae) || ae.ErrorCode != tc.code {
					t.Fatalf("pubAck = %d, %v, %v; want the stream's error %d", seq, dup, err, tc.code)
				}
			case tc.bad:
				if err == nil || errors.As(err, &ae) {
					t.Fatalf("pubAck = %d, %v, %v; want an error of its own", seq, dup, err)
				}
			case err != nil || seq != tc.seq || dup != tc.dup:
				t.Fatalf("pubAck = %d, %v, %v; want %d, %v", seq, dup, err, tc.seq, tc.dup)
			}
		})
	}
	ack := []byte(`{"stream":"LEDGER","seq":42}`)
	if n := testing.AllocsPerRun(100, func() {
		if _, _, err := pubAck(ack, "LEDGER"); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("reading an acknowledgement in place makes %v allocations, want 0", n)
	}
}

func internalLog(t *testing.T) (*Log, *nats.Conn) {
	t.Helper()
	ns, err := StartEmbedded(EmbeddedConfig{Dir: filepath.Join(t.TempDir(), "nats")})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := ConnectEmbedded(ns, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close(); ns.Shutdown(); ns.WaitForShutdown() })
	log, err := Open(t.Context(), nc, StreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return log, nc
}

// TestPubAckOfTheServer: the server of go.mod answers a publish and a
// re-sent id in the forms read in place (a change of its forms would only
// cost allocations, but should be seen), and refuses a stale head with the
// error AppendAsync takes for a conflict.
func TestPubAckOfTheServer(t *testing.T) {
	log, nc := internalLog(t)
	publish := func(id string, last uint64) *nats.Msg {
		t.Helper()
		m := nats.NewMsg("ledger.policy")
		m.Data = []byte(`{}`)
		m.Header.Set(jetstream.MsgIDHeader, id)
		m.Header.Set(jetstream.ExpectedLastSeqHeader, fmt.Sprint(last))
		resp, err := nc.RequestMsg(m, log.Timeout)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	for _, tc := range []struct {
		id   string
		last uint64
		seq  uint64
		dup  bool
	}{{"a", 0, 1, false}, {"b", 1, 2, false}, {"a", 2, 1, true}} {
		data := publish(tc.id, tc.last).Data
		seq, dup, ok := pubAckFast(data, log.Name())
		if !ok || seq != tc.seq || dup != tc.dup {
			t.Fatalf("the server's answer %s read in place: %d, %v, %v; want %d, %v", data, seq, dup, ok, tc.seq, tc.dup)
		}
	}
	data := publish("c", 1).Data
	var ae *jetstream.APIError
	if _, _, err := pubAck(data, log.Name()); !errors.As(err, &ae) || ae.ErrorCode != jetstream.JSErrCodeStreamWrongLastSequence {
		t.Fatalf("a stale head answered %s, read as %v; want error %d", data, err, jetstream.JSErrCodeStreamWrongLastSequence)
	}
}

// TestAppendAsyncAnswers: pipelined appends land in order and answer their
// sequences; a re-sent id answers where it landed; a stale head is a
// conflict; and a publish no stream takes is sent again, then fails with
// nats.go's ErrNoStreamResponse, its waiter's entry gone.
func TestAppendAsyncAnswers(t *testing.T) {
	log, _ := internalLog(t)
	ctx := t.Context()
	var waits []func() (uint64, error)
	for i := range 50 {
		w, err := log.AppendAsync(ctx, "ledger.policy", fmt.Sprintf("id-%d", i), []byte(`{}`), "", uint64(i), "")
		if err != nil {
			t.Fatal(err)
		}
		waits = append(waits, w)
	}
	for i, w := range waits {
		if seq, err := w(); err != nil || seq != uint64(i+1) {
			t.Fatalf("append %d: %d, %v", i, seq, err)
		}
	}
	w, err := log.AppendAsync(ctx, "ledger.policy", "id-3", []byte(`{}`), "", 50, "")
	if err != nil {
		t.Fatal(err)
	}
	var landed *events.AlreadyLanded
	if seq, err := w(); !errors.As(err, &landed) || seq != 4 || landed.Seq != 4 {
		t.Fatalf("a re-sent id: %d, %v; want it landed at 4", seq, err)
	}
	w, err = log.AppendAsync(ctx, "ledger.policy", "id-new", []byte(`{}`), "", 49, "")
	if err != nil {
		t.Fatal(err)
	}
	if seq, err := w(); !errors.Is(err, events.ErrConflict()) {
		t.Fatalf("a stale head: %d, %v; want a conflict", seq, err)
	}
	w, err = log.AppendAsync(ctx, "nowhere.held", "id-lost", []byte(`{}`), "", 50, "")
	if err != nil {
		t.Fatal(err)
	}
	if seq, err := w(); !errors.Is(err, jetstream.ErrNoStreamResponse) {
		t.Fatalf("a subject no stream holds: %d, %v; want %v", seq, err, jetstream.ErrNoStreamResponse)
	}
	settled(t, log, 50)
}

// TestAppendAnswers: Append, which takes its acknowledgements through
// the same routing as AppendAsync (Log.ack), answers a sequence, a
// re-sent id as landed, a stale head as a conflict, a subject no stream
// holds as no stream's answer, and an acknowledgement that never comes as
// a time-out (ambiguous: it looks the id up, does not find it, and says
// so); no waiter is left behind.
func TestAppendAnswers(t *testing.T) {
	log, nc := internalLog(t)
	ctx := t.Context()
	for i := range 20 {
		if seq, err := log.Append(ctx, "ledger.policy", fmt.Sprintf("id-%d", i), []byte(`{}`), uint64(i)); err != nil || seq != uint64(i+1) {
			t.Fatalf("append %d: %d, %v", i, seq, err)
		}
	}
	var landed *events.AlreadyLanded
	if seq, err := log.Append(ctx, "ledger.policy", "id-3", []byte(`{}`), 20); !errors.As(err, &landed) || seq != 4 || landed.Seq != 4 {
		t.Fatalf("a re-sent id: %d, %v; want it landed at 4", seq, err)
	}
	if seq, err := log.Append(ctx, "ledger.policy", "id-new", []byte(`{}`), 19); !errors.Is(err, events.ErrConflict()) {
		t.Fatalf("a stale head: %d, %v; want a conflict", seq, err)
	}
	if seq, err := log.Append(ctx, "nowhere.held", "id-lost", []byte(`{}`), 20); !errors.Is(err, jetstream.ErrNoStreamResponse) {
		t.Fatalf("a subject no stream holds: %d, %v; want %v", seq, err, jetstream.ErrNoStreamResponse)
	}
	// A subscriber that never answers: the publish has a responder, so no
	// "no responders" comes, and no acknowledgement either.
	sub, err := nc.SubscribeSync("silent.>")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	log.Timeout = 100 * time.Millisecond
	if seq, err := log.Append(ctx, "silent.one", "id-silent", []byte(`{}`), 20); !errors.Is(err, nats.ErrTimeout) {
		t.Fatalf("no acknowledgement: %d, %v; want %v", seq, err, nats.ErrTimeout)
	}
	settled(t, log, 20)
}

// settled fails t unless no acknowledgement is awaited any more and the
// log's head is head.
func settled(t *testing.T, log *Log, head uint64) {
	t.Helper()
	log.acks.mu.Lock()
	left := len(log.acks.waiting)
	log.acks.mu.Unlock()
	if left != 0 {
		t.Fatalf("%d acknowledgements still awaited after every append answered", left)
	}
	if got, err := log.Head(t.Context()); err != nil || got != head {
		t.Fatalf("head %d, %v; want %d", got, err, head)
	}
}
