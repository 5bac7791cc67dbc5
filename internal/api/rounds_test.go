package api_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
)

// TestOverlappedRoundsRace runs two pipelined replicas of the API on one
// stream, answering the same subjects, so that their overlapping rounds
// race: a round that loses fails the round its replica began on top of
// it, and the batcher decides the events of both again (requeue). Every
// append is answered once, accepted, at a sequence that holds its id; the
// log holds every id once; each replica's state is a fold of the log.
func TestOverlappedRoundsRace(t *testing.T) {
	var conflicts atomic.Int64
	l := apitest.Start(t, apitest.Options{Pipeline: true, SyncInterval: time.Minute, Follow: true})
	nc2 := l.Connect()
	log2, err := natslog.Open(t.Context(), nc2, natslog.StreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	svc2, err := service.Open(t.Context(), service.Config{Log: log2, Dialects: dialects.All(), Pipeline: true,
		OnConflict: func() { conflicts.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv2, err := api.Start(ctx, nc2, api.Config{Service: svc2, MaxWait: time.Second})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	followed := make(chan struct{})
	go func() { _ = svc2.Run(ctx); close(followed) }()
	defer func() { cancel(); <-followed; srv2.Stop() }()

	ops := client.New(l.Connect(), client.Options{Timeout: 10 * time.Second})
	if _, err := ops.Append(t.Context(), workload.ClientEvent(workload.Policy())); err != nil {
		t.Fatal(err)
	}
	const writers, sessions = 8, 6
	type ack struct {
		id  string
		seq uint64
	}
	var mu sync.Mutex
	var acks []ack
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			c := client.New(l.Connect(), client.Options{Owner: "acme", Timeout: 10 * time.Second})
			for j := range sessions {
				for _, raw := range workload.Session(w*sessions + j) {
					ev := workload.ClientEvent(raw)
					ev.ID = events.NewID(time.Now(), rand.Reader)
					res, err := c.Append(t.Context(), ev)
					if err != nil {
						t.Errorf("writer %d: %s %s: %v", w, ev.Type, ev.Session, err)
						return
					}
					if res.ID != ev.ID || res.Duplicate {
						t.Errorf("writer %d: answered %+v for %s", w, res, ev.ID)
					}
					mu.Lock()
					acks = append(acks, ack{ev.ID, res.Seq})
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	head, err := l.Log.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	recs, err := service.ReadRecords(t.Context(), l.Log, 1, head)
	if err != nil {
		t.Fatal(err)
	}
	if want := uint64(1 + writers*sessions*13); head != want {
		t.Errorf("the log holds %d records, want %d: one for each event", head, want)
	}
	ids := map[string]int{}
	for _, r := range recs {
		ids[r.ID]++
	}
	for _, a := range acks {
		if ids[a.id] != 1 {
			t.Errorf("id %s is in the log %d times", a.id, ids[a.id])
		}
		if a.seq == 0 || a.seq > head || recs[a.seq-1].ID != a.id {
			t.Errorf("id %s answered at %d, which holds another record", a.id, a.seq)
		}
	}
	want, err := replay.Fold(dialects.All(), recs, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, svc := range []*service.Service{l.Service, svc2} {
		if err := svc.WaitApplied(t.Context(), head); err != nil {
			t.Fatal(err)
		}
		_ = svc.View(t.Context(), "", projection.Position{}, func(st *projection.State) error {
			if st.Position() != head || fmt.Sprint(st.Keys()) != fmt.Sprint(want.Keys()) {
				t.Errorf("replica %d: at %d with %d sessions, the log's fold at %d with %d", i+1, st.Position(), len(st.Keys()), head, len(want.Keys()))
			}
			return nil
		})
	}
	t.Logf("%d appends through two racing replicas; replica 2 lost %d rounds or appends to replica 1 and decided them again", len(acks), conflicts.Load())
}
