package service_test

import (
	"bytes"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
)

// TestFullDiskDoesNotFailAppends commits after every append into a
// projection file that cannot grow past a cap, as on a full disk: the
// background commits start failing, yet every append lands, the state
// stays the fold of the log, and a restart with room catches up to it.
func TestFullDiskDoesNotFailAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "projection.db")
	store, err := projection.OpenStore(path, projection.StoreOptions{MaxSize: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	log := &service.MemLog{}
	var logged bytes.Buffer
	cfg := service.Config{Log: log, Dialects: dialects.All(), Store: store, CommitInterval: time.Nanosecond,
		Logger: slog.New(slog.NewTextHandler(&logged, nil))}
	svc, err := service.Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	evs := workload.Sessions(120)
	for _, half := range [][][]byte{evs[:len(evs)/2], evs[len(evs)/2:]} {
		appendAll(t, svc, half[:len(half)/2])
		for _, o := range svc.AppendMany(t.Context(), half[len(half)/2:]) {
			if o.Err != nil {
				t.Fatal(o.Err)
			}
		}
	}
	if err := svc.Flush(t.Context()); err == nil {
		t.Fatal("the file was never full: raise the number of sessions or lower the cap")
	}
	if !strings.Contains(logged.String(), "reloading it and catching up") {
		t.Fatalf("no background commit failed:\n%s", logged.String())
	}
	// A failed background write moved the commit policy to the
	// foreground, where it stays while its commits fail.
	if got := svc.CommitState(); got != "foreground" {
		t.Errorf("after failed commits the commit policy is %s, want foreground", got)
	}
	recs, err := service.ReadRecords(t.Context(), log, 1, uint64(len(evs)+1))
	if err != nil {
		t.Fatal(err)
	}
	want, err := replay.Fold(dialects.All(), recs, uint64(len(recs)))
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.View(t.Context(), "", projection.Position{}, func(st *projection.State) error {
		if !bytes.Equal(ledgertest.Dump(t, st), ledgertest.Dump(t, want)) {
			t.Error("the state after failed commits is not the fold of the log")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	store.Close()

	// With room again, a restart resumes from the last commit that made
	// it and catches up.
	if store, err = projection.OpenStore(path, projection.StoreOptions{}); err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	cfg.Store = store
	if svc, err = service.Open(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if err := svc.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	got, err := store.DumpHash()
	if err != nil {
		t.Fatal(err)
	}
	wantHash, err := replay.RebuildHash(t.Context(), log, dialects.All(), t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got != wantHash {
		t.Fatalf("after the restart the projection is %s, a rebuild %s", got, wantHash)
	}
}
