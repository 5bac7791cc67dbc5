package natslog_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/natslog"
)

func openLog(t testing.TB) *natslog.Log {
	t.Helper()
	ns, err := natslog.StartEmbedded(natslog.EmbeddedConfig{Dir: filepath.Join(t.TempDir(), "nats")})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := natslog.ConnectEmbedded(ns, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close(); ns.Shutdown(); ns.WaitForShutdown() })
	log, err := natslog.Open(t.Context(), nc, natslog.StreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	// Opening again is idempotent.
	if _, err := natslog.Open(t.Context(), nc, natslog.StreamConfig{}); err != nil {
		t.Fatalf("second open: %v", err)
	}
	return log
}

func TestAppendExpectsTheHead(t *testing.T) {
	log := openLog(t)
	ctx := t.Context()
	seq, err := log.Append(ctx, "ledger.policy", "01J00000000000000000000001", []byte(`{"a":1}`), 0)
	if err != nil || seq != 1 {
		t.Fatalf("first append: %d %v", seq, err)
	}
	// A writer that decided on a stale head gets a conflict.
	if _, err := log.Append(ctx, "ledger.policy", "01J00000000000000000000002", []byte(`{"a":2}`), 0); !errors.Is(err, events.ErrConflict()) {
		t.Fatalf("stale append: %v, want conflict", err)
	}
	// A standalone server answers a re-sent id with a wrong-sequence error
	// (not a duplicate ack), so after an ambiguous failure the id is looked
	// up: it landed at 1.
	if _, err := log.Append(ctx, "ledger.policy", "01J00000000000000000000001", []byte(`{"a":1}`), 0); !errors.Is(err, events.ErrConflict()) {
		t.Fatalf("re-sent id: %v", err)
	}
	if seq, ok, err := log.FindID(ctx, "01J00000000000000000000001", 1); err != nil || !ok || seq != 1 {
		t.Fatalf("FindID: %d %v %v", seq, ok, err)
	}
	if _, ok, _ := log.FindID(ctx, "01J00000000000000000000009", 1); ok {
		t.Fatal("FindID found an id that never landed")
	}
	seq, err = log.Append(ctx, "ledger.session.s", "01J00000000000000000000003", []byte(`{"a":3}`), 1)
	if err != nil || seq != 2 {
		t.Fatalf("second append: %d %v", seq, err)
	}
	recs, err := log.Read(ctx, 1, 99)
	if err != nil || len(recs) != 2 || string(recs[1]) != `{"a":3}` {
		t.Fatalf("read: %q %v", recs, err)
	}
	if head, _ := log.Head(ctx); head != 2 {
		t.Fatalf("head %d", head)
	}
}

func TestStreamRefusesDeletes(t *testing.T) {
	log := openLog(t)
	ctx := t.Context()
	if _, err := log.Append(ctx, "ledger.policy", "01J00000000000000000000001", []byte(`{}`), 0); err != nil {
		t.Fatal(err)
	}
	st, err := log.JetStream().Stream(ctx, log.Name())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteMsg(ctx, 1); err == nil {
		t.Fatal("the stream must deny deleting a record")
	}
	if err := st.Purge(ctx); err == nil {
		t.Fatal("the stream must deny purging")
	}
}
