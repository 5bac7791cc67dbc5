// Package clienttest runs a ledger in process for the tests and examples
// of programs that use package client, as net/http/httptest runs an HTTP
// server: an embedded nats-server with JetStream storing in a temporary
// directory, the ledger's service with a bbolt projection and its
// follower, and the ledger's NATS API, as 'ledger serve' runs them, with
// every dialect the ledger supports and no access control.
//
//	l := clienttest.New(t, clienttest.Options{})   // stopped when t ends
//	acme, err := l.Client(client.Options{Owner: "acme"})
//
// Outside a test, Start and Close do the same:
//
//	l, err := clienttest.Start(ctx, clienttest.Options{})
//	if err != nil { ... }
//	defer l.Close()
//
// The server accepts in-process connections only (Connect, Client),
// unless Options.Listen also opens it on loopback, on a port the system
// picks (URL). Nothing is written outside the ledger's directory.
//
// # Caveats
//
// Close stops the parts in the order that lets each end cleanly (the
// API, the follower, the connections, the projection, the server) and
// returns once every goroutine the ledger started has ended
// (TestStartCloseLeavesNoGoroutine); a client whose connection it closed
// fails its calls afterwards. It is a test ledger: the server keeps
// every write it acknowledged (fsync on every write), but there is no
// cluster, no auth and no metrics.
package clienttest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
)

// Options say where the ledger keeps its data and whether it listens.
// The zero value is a ledger in a new temporary directory that accepts
// in-process connections only.
type Options struct {
	// Dir holds the ledger's data (its JetStream store and projection
	// file). Empty means a new temporary directory, which Close removes;
	// a Dir given is kept, and a ledger started on it again resumes its
	// log.
	Dir string
	// Listen also opens the server to NATS clients over TCP on 127.0.0.1,
	// on a port the system picks (URL).
	Listen bool
}

// Ledger is a running in-process ledger.
type Ledger struct {
	ns     *server.Server
	svcNC  *nats.Conn
	store  *projection.Store
	svc    *service.Service
	api    *api.Server
	cancel context.CancelFunc
	// followed is closed when the service's follower has returned.
	followed chan struct{}
	// dir holds the data; tmp is dir when Close removes it.
	dir, tmp string

	mu     sync.Mutex
	conns  []*nats.Conn
	closed bool
	err    error
}

// Start starts a ledger. ctx bounds the start only: the ledger runs until
// Close. On an error, everything started is stopped again.
func Start(ctx context.Context, opts Options) (l *Ledger, err error) {
	l = &Ledger{followed: make(chan struct{})}
	dir := opts.Dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "ledger-clienttest-"); err != nil {
			return nil, fmt.Errorf("clienttest: %w", err)
		}
		l.tmp = dir
	}
	l.dir = dir
	// Whatever fails below, what was started is stopped (close knows
	// which parts exist).
	defer func() {
		if err != nil {
			close(l.followed)
			_ = l.close()
			l = nil
		}
	}()
	ecfg := natslog.EmbeddedConfig{Dir: filepath.Join(dir, "nats"), Name: "ledger-clienttest"}
	if opts.Listen {
		ecfg.Listen = "127.0.0.1:-1"
	}
	if l.ns, err = natslog.StartEmbedded(ecfg); err != nil {
		return nil, fmt.Errorf("clienttest: %w", err)
	}
	if l.svcNC, err = natslog.ConnectEmbedded(l.ns, "ledger"); err != nil {
		return nil, fmt.Errorf("clienttest: connecting the service: %w", err)
	}
	log, err := natslog.Open(ctx, l.svcNC, natslog.StreamConfig{})
	if err != nil {
		return nil, fmt.Errorf("clienttest: %w", err)
	}
	if l.store, err = projection.OpenStore(filepath.Join(dir, "projection.db"), projection.StoreOptions{}); err != nil {
		return nil, fmt.Errorf("clienttest: %w", err)
	}
	if l.svc, err = service.Open(ctx, service.Config{Log: log, Dialects: dialects.All(), Store: l.store}); err != nil {
		return nil, fmt.Errorf("clienttest: %w", err)
	}
	run, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	if l.api, err = api.Start(run, l.svcNC, api.Config{Service: l.svc, Instance: "clienttest"}); err != nil {
		return nil, fmt.Errorf("clienttest: %w", err)
	}
	go func() {
		defer close(l.followed)
		_ = l.svc.Run(run)
	}()
	return l, nil
}

// New starts a ledger for a test: it fails t (t.Fatal) when the ledger
// does not start, and closes it when t ends, failing t if Close fails.
// The ledger's directory is a t.TempDir unless opts.Dir is set.
func New(t testing.TB, opts Options) *Ledger {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	l, err := Start(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("clienttest: closing the ledger: %v", err)
		}
	})
	return l
}

// Connect opens an in-process connection to the ledger's server, which
// Close closes.
func (l *Ledger) Connect() (*nats.Conn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, errors.New("clienttest: the ledger is closed")
	}
	nc, err := natslog.ConnectEmbedded(l.ns, "clienttest")
	if err != nil {
		return nil, fmt.Errorf("clienttest: %w", err)
	}
	l.conns = append(l.conns, nc)
	return nc, nil
}

// Client returns a client with opts on a connection of its own (Connect).
// Options that do not validate (client.Options.Validate) are refused
// here, before any connection is made.
func (l *Ledger) Client(opts client.Options) (*client.Client, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	nc, err := l.Connect()
	if err != nil {
		return nil, err
	}
	return client.New(nc, opts), nil
}

// Dir is the directory that holds the ledger's data (Options.Dir, or the
// temporary directory Close removes).
func (l *Ledger) Dir() string { return l.dir }

// URL is the server's NATS URL on loopback ("nats://127.0.0.1:PORT")
// when Options.Listen was set, else "".
func (l *Ledger) URL() string {
	if l.ns.Addr() == nil {
		return ""
	}
	return l.ns.ClientURL()
}

// Close stops the ledger and waits until every part has ended; it then
// removes the ledger's temporary directory. Later calls return what the
// first returned.
func (l *Ledger) Close() error {
	l.mu.Lock()
	if l.closed {
		defer l.mu.Unlock()
		return l.err
	}
	l.closed = true
	l.mu.Unlock()
	err := l.close()
	l.mu.Lock()
	l.err = err
	l.mu.Unlock()
	return err
}

// close stops the parts that were started, in order: the API and the
// follower (their context), the API's handlers, the connections, the
// projection (its last commit first), the server, the directory.
func (l *Ledger) close() error {
	var errs []error
	if l.cancel != nil {
		l.cancel()
	}
	<-l.followed
	if l.api != nil {
		if err := l.api.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("clienttest: stopping the API: %w", err))
		}
	}
	l.mu.Lock()
	conns := l.conns
	l.conns = nil
	l.mu.Unlock()
	for _, nc := range conns {
		nc.Close()
	}
	if l.svc != nil {
		if err := l.svc.Flush(context.Background()); err != nil {
			errs = append(errs, fmt.Errorf("clienttest: committing the projection: %w", err))
		}
	}
	if l.store != nil {
		if err := l.store.Close(); err != nil {
			errs = append(errs, fmt.Errorf("clienttest: closing the projection: %w", err))
		}
	}
	if l.svcNC != nil {
		l.svcNC.Close()
	}
	if l.ns != nil {
		l.ns.Shutdown()
		l.ns.WaitForShutdown()
	}
	if l.tmp != "" {
		if err := os.RemoveAll(l.tmp); err != nil {
			errs = append(errs, fmt.Errorf("clienttest: %w", err))
		}
	}
	return errors.Join(errs...)
}
