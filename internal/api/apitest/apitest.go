// Package apitest runs the ledger in process for tests of the API and its
// clients: an embedded NATS server, the service on a log in it, and the
// API on the service, all stopped when the test ends, in the order that
// lets each end cleanly (the API's context, the service's follower, the
// API, the connections, the store, the server).
package apitest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/wire"
)

// Options say what to run. The zero value is a ledger without roles, a
// projection store or a follower, answering queries from the appends it
// made.
type Options struct {
	// Stream configures the log.
	Stream natslog.StreamConfig
	// Roles, when set, are enforced by the NATS server (api.AuthConfig),
	// which then listens on loopback; the service connects as the first
	// of Roles.Service.
	Roles *api.Roles
	// Listen serves NATS on loopback too (NS.ClientURL); SyncInterval is
	// the embedded server's (natslog.EmbeddedConfig).
	Listen       bool
	SyncInterval time.Duration
	// GroupSync runs the embedded server as 'ledger serve' does by
	// default: it does not fsync, and the log syncs its store before it
	// answers an append (natslog.GroupSync, Ledger.Sync), pipelined.
	GroupSync bool
	// Store keeps the projection in a store, and Follow runs the service's
	// follower (service.Run) until the test ends.
	Store, Follow bool
	// Pipeline runs the service's rounds pipelined (service.Config), as
	// `ledger serve` does on its embedded server with a sync interval:
	// rounds then overlap.
	Pipeline bool
	// BatchFrom is the service's (service.Config.BatchFrom).
	BatchFrom int
	// OnRound is the service's (service.Config.OnRound).
	OnRound func(records int)
	// API configures the API; Service is filled in, and MaxWait is 200ms
	// unless set.
	API api.Config
}

// Ledger is a running ledger.
type Ledger struct {
	NS *server.Server
	// Conn is the service's connection, as the service's user with Roles.
	Conn    *nats.Conn
	Log     *natslog.Log
	Sync    *natslog.GroupSync // with Options.GroupSync
	Service *service.Service
	API     *api.Server
	t       testing.TB
	mu      sync.Mutex
	conns   []*nats.Conn
}

// Start runs a ledger until t ends.
func Start(t testing.TB, o Options) *Ledger {
	t.Helper()
	dir := t.TempDir()
	ecfg := natslog.EmbeddedConfig{Dir: filepath.Join(dir, "nats"), SyncInterval: o.SyncInterval, GroupSync: o.GroupSync}
	var gs *natslog.GroupSync
	if o.GroupSync {
		if err := os.MkdirAll(ecfg.Dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		if gs, err = natslog.OpenGroupSync(ecfg.Dir); err != nil {
			if runtime.GOOS == "linux" {
				t.Fatal(err)
			}
			t.Skipf("no group sync here: %v", err)
		}
		t.Cleanup(func() { gs.Close() })
		o.Stream.Sync, o.Pipeline = gs, true
	}
	if o.Listen {
		ecfg.Listen = "127.0.0.1:-1"
	}
	var svcUser []nats.Option
	if o.Roles != nil {
		conf, err := api.AuthConfig(o.Roles, "LEDGER")
		if err != nil {
			t.Fatal(err)
		}
		ecfg.ConfigText, ecfg.Listen = conf, "127.0.0.1:-1"
		u := o.Roles.Service[0]
		svcUser = append(svcUser, nats.UserInfo(u.Name, u.Password))
	}
	ns, err := natslog.StartEmbedded(ecfg)
	if err != nil {
		t.Fatal(err)
	}
	l := &Ledger{NS: ns, Sync: gs, t: t}
	t.Cleanup(func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	})
	nc := l.connect("ledger", svcUser...)
	log, err := natslog.Open(t.Context(), nc, o.Stream)
	if err != nil {
		t.Fatal(err)
	}
	l.Conn, l.Log = nc, log
	scfg := service.Config{Log: log, Dialects: dialects.All(), Pipeline: o.Pipeline, BatchFrom: o.BatchFrom, OnRound: o.OnRound}
	if o.Store {
		store, err := projection.OpenStore(filepath.Join(dir, "p.db"), projection.StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		scfg.Store = store
	}
	svc, err := service.Open(t.Context(), scfg)
	if err != nil {
		t.Fatal(err)
	}
	l.Service = svc
	ctx, cancel := context.WithCancel(context.Background())
	cfg := o.API
	cfg.Service = svc
	if cfg.MaxWait == 0 {
		cfg.MaxWait = 200 * time.Millisecond
	}
	srv, err := api.Start(ctx, nc, cfg)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	l.API = srv
	followed := make(chan struct{})
	if o.Follow {
		go func() { _ = svc.Run(ctx); close(followed) }()
	} else {
		close(followed)
	}
	t.Cleanup(func() {
		cancel()
		<-followed
		srv.Stop()
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, c := range l.conns {
			c.Close()
		}
	})
	return l
}

// Connect opens an in-process connection, closed when the test ends.
func (l *Ledger) Connect() *nats.Conn { return l.connect("test") }

// Dial connects as user over loopback (a ledger with Roles) with the
// inbox prefix the roles let user receive on; closed when the test ends.
func (l *Ledger) Dial(user, password string, opts ...nats.Option) *nats.Conn {
	l.t.Helper()
	opts = append([]nats.Option{nats.UserInfo(user, password), nats.CustomInboxPrefix(wire.InboxPrefix(user))}, opts...)
	nc, err := nats.Connect(l.NS.ClientURL(), opts...)
	if err != nil {
		l.t.Fatalf("%s: %v", user, err)
	}
	l.keep(nc)
	return nc
}

func (l *Ledger) connect(name string, opts ...nats.Option) *nats.Conn {
	l.t.Helper()
	nc, err := natslog.ConnectEmbedded(l.NS, name, opts...)
	if err != nil {
		l.t.Fatal(err)
	}
	l.keep(nc)
	return nc
}

func (l *Ledger) keep(nc *nats.Conn) {
	l.mu.Lock()
	l.conns = append(l.conns, nc)
	l.mu.Unlock()
}
