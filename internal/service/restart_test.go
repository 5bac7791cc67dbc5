package service_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
)

// node is one run of the ledger on a data directory: an embedded server,
// the stream, the projection file and the service.
type node struct {
	stop  func()
	log   *natslog.Log
	store *projection.Store
	svc   *service.Service
}

func startNode(t *testing.T, dir string) *node {
	t.Helper()
	ns, err := natslog.StartEmbedded(natslog.EmbeddedConfig{Dir: filepath.Join(dir, "nats")})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := natslog.ConnectEmbedded(ns, "test")
	if err != nil {
		t.Fatal(err)
	}
	log, err := natslog.Open(t.Context(), nc, natslog.StreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	store, err := projection.OpenStore(filepath.Join(dir, "projection.db"), projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.Open(t.Context(), service.Config{Log: log, Dialects: dialects.All(), Store: store})
	if err != nil {
		t.Fatal(err)
	}
	n := &node{log: log, store: store, svc: svc}
	n.stop = func() {
		_ = svc.Flush(context.Background())
		store.Close()
		nc.Close()
		ns.Shutdown()
		ns.WaitForShutdown()
	}
	return n
}

func appendAll(t *testing.T, svc *service.Service, evs [][]byte) {
	t.Helper()
	for i, ev := range evs {
		if _, err := svc.Append(context.Background(), ev); err != nil {
			t.Fatalf("event %d: %v\n%s", i, err, ev)
		}
	}
}

// TestRestartResumesFromCheckpoint stops the ledger in-process mid-stream,
// starts it again on the same data, appends the rest, and checks that the
// projection ends byte-identical to a full rebuild from the log.
func TestRestartResumesFromCheckpoint(t *testing.T) {
	dir := t.TempDir()
	evs := workload.Sessions(6)
	half := len(evs) / 2

	n := startNode(t, dir)
	appendAll(t, n.svc, evs[:half])
	n.stop()

	n = startNode(t, dir)
	defer n.stop()
	if got := n.svc.Position(); got != uint64(half) {
		t.Fatalf("after restart the projection is at %d, want %d", got, half)
	}
	appendAll(t, n.svc, evs[half:])

	want, err := replay.RebuildHash(t.Context(), n.log, dialects.All(), t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.svc.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	got, _ := n.store.DumpHash()
	if got != want {
		t.Fatalf("projection after restart %s, full rebuild %s", got, want)
	}
}

// TestStaleWriterCatchesUp: two services on one log; the second decides on
// a stale view, gets a conflict, catches up and re-validates.
func TestStaleWriterCatchesUp(t *testing.T) {
	dir := t.TempDir()
	a := startNode(t, dir)
	defer a.stop()
	b, err := service.Open(t.Context(), service.Config{Log: a.log, Dialects: dialects.All()})
	if err != nil {
		t.Fatal(err)
	}
	evs := workload.Sessions(2)
	appendAll(t, a.svc, evs[:5])
	// b has seen nothing: its first append conflicts, catches up, and lands.
	res, err := b.Append(t.Context(), evs[5])
	if err != nil {
		t.Fatal(err)
	}
	if res.Seq != 6 {
		t.Fatalf("b appended at %d, want 6", res.Seq)
	}
	// A re-validation refuses what the catch-up made invalid: a duplicate
	// start of a session a already started.
	if _, err := b.Append(t.Context(), evs[1]); err == nil {
		t.Fatal("re-validated duplicate start must be refused")
	}
	// a catches up with b's record on its next append.
	if _, err := a.svc.Append(t.Context(), evs[6]); err != nil {
		t.Fatal(err)
	}
	if a.svc.Position() != 7 {
		t.Fatalf("a at %d, want 7", a.svc.Position())
	}
}

// TestResentIDNeverWritesTwice: a retry of an append that already landed,
// sent by a writer that has not seen it, is answered with the first
// outcome and writes nothing.
func TestResentIDNeverWritesTwice(t *testing.T) {
	a := startNode(t, t.TempDir())
	defer a.stop()
	evs := workload.Sessions(1)
	appendAll(t, a.svc, evs[:2])
	withID := []byte(`{"id":"01JRESEND00000000000000001",` + string(evs[2][1:]))
	first, err := a.svc.Append(t.Context(), withID)
	if err != nil {
		t.Fatal(err)
	}
	b, err := service.Open(t.Context(), service.Config{Log: a.log, Dialects: dialects.All()})
	if err != nil {
		t.Fatal(err)
	}
	// b caught up at open; make it stale again with one more record of a's.
	appendAll(t, a.svc, evs[3:4])
	again, err := b.Append(t.Context(), withID)
	if err != nil || !again.Duplicate || again.Seq != first.Seq {
		t.Fatalf("re-send: %+v %v, want duplicate of seq %d", again, err, first.Seq)
	}
	if head, _ := a.log.Head(t.Context()); head != 4 {
		t.Fatalf("head %d, want 4: the re-send must write nothing", head)
	}
}
