package faults

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
)

// replica is one ledger replica in the test process, as `ledger serve
// --nats` runs it: its own connection (reconnecting forever), projection
// file, service following the stream, and the micro service.
type replica struct {
	name  string
	nc    *nats.Conn
	log   *natslog.Log
	path  string
	store *projection.Store
	svc   *service.Service
	srv   *api.Server
	stop  context.CancelFunc
	done  chan struct{}
	err   error // Run's result, once done is closed

	closeOnce sync.Once
}

func startReplica(t *testing.T, name, urls string, replicas int, dir string) *replica {
	t.Helper()
	nc := dial(t, urls, name)
	log := openLog(t, nc, natslog.StreamConfig{Replicas: replicas})
	path := filepath.Join(dir, name+".db")
	store, err := projection.OpenStore(path, projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.Open(t.Context(), service.Config{Log: log, Dialects: dialects.All(), Store: store})
	if err != nil {
		store.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := api.Start(ctx, nc, api.Config{Service: svc, Instance: name, MaxWait: 5 * time.Second})
	if err != nil {
		cancel()
		store.Close()
		t.Fatal(err)
	}
	r := &replica{name: name, nc: nc, log: log, path: path, store: store, svc: svc, srv: srv, stop: cancel, done: make(chan struct{})}
	go func() { defer close(r.done); r.err = svc.Run(ctx) }()
	t.Cleanup(r.close)
	return r
}

// close stops the replica: the API, the follower, the connection and the
// projection file.
func (r *replica) close() {
	r.closeOnce.Do(func() {
		r.stop()
		<-r.done
		r.srv.Stop()
		r.nc.Close()
		r.store.Close()
	})
}

// waitApplied waits until the replica has applied seq.
func (r *replica) waitApplied(t *testing.T, seq uint64, timeout time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	if err := r.svc.WaitApplied(ctx, seq); err != nil {
		select {
		case <-r.done:
			t.Fatalf("replica %s: its follower stopped: %v", r.name, r.err)
		default:
		}
		t.Fatalf("replica %s: %v", r.name, err)
	}
}
