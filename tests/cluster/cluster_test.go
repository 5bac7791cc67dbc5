package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/natslogtest"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
)

// replica is one `ledger serve`: its own connection, projection file,
// service (following the stream) and micro service endpoint.
type replica struct {
	name  string
	nc    *nats.Conn
	log   *natslog.Log
	store *projection.Store
	svc   *service.Service
	srv   *api.Server
	stop  context.CancelFunc
	done  chan struct{}
}

func startReplica(t *testing.T, name, urls, dir string) *replica {
	t.Helper()
	nc, err := nats.Connect(urls, nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	log, err := natslog.Open(t.Context(), nc, natslog.StreamConfig{Replicas: 3})
	if err != nil {
		t.Fatal(err)
	}
	store, err := projection.OpenStore(filepath.Join(dir, name+".db"), projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.Open(t.Context(), service.Config{Log: log, Dialects: dialects.All(), Store: store})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := api.Start(ctx, nc, api.Config{Service: svc, Instance: name, MaxWait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r := &replica{name: name, nc: nc, log: log, store: store, svc: svc, srv: srv, stop: cancel, done: make(chan struct{})}
	go func() { defer close(r.done); _ = svc.Run(ctx) }()
	t.Cleanup(r.kill)
	return r
}

// kill stops the replica as a crash would: no more answers, no more
// applying.
func (r *replica) kill() {
	select {
	case <-r.done:
		return
	default:
	}
	r.stop()
	<-r.done
	r.srv.Stop()
	r.nc.Close()
	_ = r.svc.Flush(context.Background())
	r.store.Close()
}

func startCluster(t *testing.T) *natslogtest.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	c, err := natslogtest.StartCluster(ctx, t.TempDir(), 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Shutdown)
	return c
}

func policy(t *testing.T, c *client.Client) {
	t.Helper()
	doc := json.RawMessage(`{"agents":{"list":[{"id":"main","subagents":{"allowAgents":["coder"]}},{"id":"coder"}]}}`)
	if _, err := c.Append(t.Context(), client.SetPolicy(events.PolicySetData{Dialect: "openclaw", Document: doc,
		Catalogue: []string{"read", "write", "exec"}})); err != nil {
		t.Fatal(err)
	}
}

// waitPosition waits until a replica has applied seq.
func waitPosition(t *testing.T, r *replica, seq uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := r.svc.WaitApplied(ctx, seq); err != nil {
		t.Fatalf("%s: %v", r.name, err)
	}
}

// TestConcurrentAppendsThroughTwoReplicas: writers append to the same
// sessions through both replicas at once; nothing is lost, nothing is
// written twice, and both replicas end with identical projections.
func TestConcurrentAppendsThroughTwoReplicas(t *testing.T) {
	c := startCluster(t)
	dir := t.TempDir()
	a := startReplica(t, "a", c.URLs(), dir)
	b := startReplica(t, "b", c.URLs(), dir)
	ops := client.New(a.nc, client.Options{})
	policy(t, ops)

	sessions := []events.SessionKey{"agent:main:s1", "agent:main:s2", "agent:main:s3"}
	for _, s := range sessions {
		for _, raw := range []string{
			fmt.Sprintf(`{"type":"session.started","v":1,"actor":"acme","session":%q,"data":{"agent":"main"}}`, s),
			fmt.Sprintf(`{"type":"turn.started","v":1,"actor":"acme","session":%q,"data":{"turn":1}}`, s),
		} {
			if _, err := a.svc.Append(t.Context(), []byte(raw)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Two writers per replica, each checking tools on every session.
	const perWriter = 40
	type landed struct {
		id  string
		seq uint64
	}
	var mu sync.Mutex
	var got []landed
	var wg sync.WaitGroup
	for w, r := range []*replica{a, a, b, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				s := sessions[i%len(sessions)]
				raw := fmt.Sprintf(`{"type":"tool.checked","v":1,"actor":"acme","session":%q,"data":{"turn":1,"tool":"exec","call":"w%d-%d"}}`, s, w, i)
				res, err := r.svc.Append(context.Background(), []byte(raw))
				if err != nil {
					t.Errorf("%s writer %d: %v", r.name, w, err)
					return
				}
				mu.Lock()
				got = append(got, landed{res.ID, res.Seq})
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	head, err := a.log.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := uint64(1 + 2*len(sessions) + 4*perWriter)
	if head != want || len(got) != 4*perWriter {
		t.Fatalf("head %d with %d acknowledged appends, want %d records", head, len(got), want)
	}
	// Every acknowledged id is in the log exactly once, at its sequence.
	recs, err := service.ReadRecords(t.Context(), a.log, 1, head)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range recs {
		seen[r.ID]++
	}
	for _, l := range got {
		if seen[l.id] != 1 || recs[l.seq-1].ID != l.id {
			t.Fatalf("id %s at %d seen %d times", l.id, l.seq, seen[l.id])
		}
	}
	waitPosition(t, a, head)
	waitPosition(t, b, head)
	if err := errors.Join(a.svc.Flush(t.Context()), b.svc.Flush(t.Context())); err != nil {
		t.Fatal(err)
	}
	ha, _ := a.store.DumpHash()
	hb, _ := b.store.DumpHash()
	if ha != hb {
		t.Fatalf("replicas differ: a %s, b %s", ha, hb)
	}
}

// TestWatchSurvivesAReplicaKill: a Watch runs while appends go on; one
// replica is killed mid-stream; the watch resumes from its last sequence
// and sees every change, in order, once.
func TestWatchSurvivesAReplicaKill(t *testing.T) {
	c := startCluster(t)
	dir := t.TempDir()
	a := startReplica(t, "a", c.URLs(), dir)
	b := startReplica(t, "b", c.URLs(), dir)
	nc, err := nats.Connect(c.URLs())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ops := client.New(nc, client.Options{})
	policy(t, ops)
	acme := client.New(nc, client.Options{Owner: "acme", Timeout: 2 * time.Second, Retries: 5})
	root := events.SessionKey("agent:main:w")
	if _, err := acme.Append(t.Context(), client.Start(root, events.StartedData{Agent: "main"})); err != nil {
		t.Fatal(err)
	}
	const turns = 30
	var mu sync.Mutex
	var changes []client.Change
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(changes) }
	watch := func(ctx context.Context) error {
		mu.Lock()
		from := uint64(1)
		if len(changes) > 0 {
			from = changes[len(changes)-1].Seq + 1
		}
		mu.Unlock()
		return acme.Watch(ctx, client.WatchOptions{Root: root, From: from}, func(ch client.Change) error {
			mu.Lock()
			changes = append(changes, ch)
			mu.Unlock()
			return nil
		})
	}
	wctx, wcancel := context.WithCancel(t.Context())
	watchDone := make(chan error, 1)
	go func() { watchDone <- watch(wctx) }()

	for turn := 1; turn <= turns; turn++ {
		if turn == turns/2 {
			a.kill() // mid-stream: requests now go to b only
			wcancel()
			<-watchDone
			wctx, wcancel = context.WithCancel(t.Context())
			go func() { watchDone <- watch(wctx) }()
		}
		if _, err := acme.Append(t.Context(), client.Turn(root, events.TurnData{Turn: turn})); err != nil {
			t.Fatalf("turn %d: %v", turn, err)
		}
	}
	defer func() {
		if n := count(); n < turns && t.Failed() {
			t.Logf("the watch saw %d of %d turns", n, turns)
		}
	}()
	ledgertest.WaitFor(t, 30*time.Second, fmt.Sprintf("the watch seeing all %d turns", turns), func() bool {
		select {
		case err := <-watchDone:
			t.Fatalf("watch ended with %d changes: %v", count(), err)
		default:
		}
		return count() >= turns
	})
	wcancel()
	<-watchDone
	if len(changes) != turns {
		t.Fatalf("%d changes, want %d: %+v", len(changes), turns, changes)
	}
	for i, ch := range changes {
		if ch.Turn != i+1 || (i > 0 && ch.Seq <= changes[i-1].Seq) {
			t.Fatalf("change %d: turn %d at seq %d (changes %+v)", i, ch.Turn, ch.Seq, changes)
		}
	}
	_ = b
}
