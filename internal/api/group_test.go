package api_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
)

// TestCallsShareRounds: 64 sessions, each on its own client, each making
// calls that are checked and started as they run (CheckAndStart, one
// record a call) share the ledger's durable writes: the records of many
// calls land in one round (one atomic batch with fsync on every write,
// also when rounds smaller than FsyncBatchFrom go as single appends, as
// `ledger serve` runs; one pipelined round with a sync interval), so there
// are far fewer rounds than calls (issue 28, point 4: group commit under
// concurrency). Every
// call is answered with its own record, and every record is counted in
// exactly one round.
func TestCallsShareRounds(t *testing.T) {
	for _, mode := range []struct {
		name      string
		interval  time.Duration
		pipeline  bool
		batchFrom int
		groupSync bool
	}{
		{"fsync on every write", 0, false, 0, false},
		// As `ledger serve` runs on its embedded server: rounds smaller
		// than FsyncBatchFrom go as single appends, each its own round.
		{"fsync on every write, small rounds as singles", 0, false, service.FsyncBatchFrom, false},
		{"sync interval, pipelined", time.Second, true, 0, false},
		// As `ledger serve` runs its embedded server by default: the log
		// syncs the store, once for the records acknowledged by then.
		{"group sync", 0, true, 0, true},
	} {
		t.Run(mode.name, func(t *testing.T) {
			var rounds, records atomic.Int64
			counting := atomic.Bool{}
			l := apitest.Start(t, apitest.Options{SyncInterval: mode.interval, Pipeline: mode.pipeline, BatchFrom: mode.batchFrom, GroupSync: mode.groupSync,
				OnRound: func(n int) {
					if counting.Load() {
						rounds.Add(1)
						records.Add(int64(n))
					}
				}})
			ops := client.New(l.Connect(), client.Options{Timeout: 20 * time.Second})
			if _, err := ops.Append(t.Context(), workload.ClientEvent(workload.Policy())); err != nil {
				t.Fatal(err)
			}
			const sessions, calls = 64, 8
			clients := make([]*client.Client, sessions)
			for i := range sessions {
				c := client.New(l.Connect(), client.Options{Owner: "acme", Timeout: 20 * time.Second})
				key := events.SessionKey(fmt.Sprintf("agent:main:g%d", i))
				for _, ev := range []client.Event{client.Start(key, events.StartedData{Agent: "main"}), client.Turn(key, events.TurnData{Turn: 1})} {
					if _, err := c.Append(t.Context(), ev); err != nil {
						t.Fatal(err)
					}
				}
				clients[i] = c
			}
			var syncsBefore uint64
			if l.Sync != nil {
				syncsBefore = l.Sync.Count()
			}
			counting.Store(true)
			var wg sync.WaitGroup
			seqs := make(chan uint64, sessions*calls)
			for i, c := range clients {
				key := events.SessionKey(fmt.Sprintf("agent:main:g%d", i))
				wg.Go(func() {
					for j := range calls {
						r, err := c.CheckAndStart(t.Context(), key, "read", fmt.Sprintf("g%d-c%d", i, j))
						if err != nil || r.Decision != "allow" || r.Recorded == 0 {
							t.Errorf("session %d call %d: %+v %v", i, j, r, err)
							return
						}
						seqs <- r.Recorded
					}
				})
			}
			wg.Wait()
			counting.Store(false)
			close(seqs)
			seen := map[uint64]bool{}
			for s := range seqs {
				if seen[s] {
					t.Fatalf("two calls answered with record %d", s)
				}
				seen[s] = true
			}
			n := int64(sessions * calls)
			if int64(len(seen)) != n || records.Load() != n {
				t.Fatalf("%d calls answered with %d records, rounds counted %d records; want %d of each", n, len(seen), records.Load(), n)
			}
			writes := rounds.Load()
			if l.Sync != nil {
				// Under group sync a durable write is a sync of the store.
				writes = int64(l.Sync.Count() - syncsBefore)
			}
			per := float64(records.Load()) / float64(writes)
			t.Logf("%d calls in %d rounds, %d durable writes: %.1f records a durable write", n, rounds.Load(), writes, per)
			// Each round waits for its write; the calls that arrive meanwhile
			// make the next one. 64 writers that each wait for their answer
			// give a round of many calls; one call a round would be no group
			// commit at all.
			if per < 4 {
				t.Fatalf("%.1f records a durable write (%d for %d calls): the calls do not share durable writes", per, writes, n)
			}
		})
	}
}
