package scenario

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/svcledger"
	"github.com/sessionledger/ledger/projection"
)

// InMemory returns a runner over a fresh in-memory log that folds with
// dialects (by name, as a scenario's "dialect" names one). It fails,
// never panics, when the ledger cannot be made: with no dialects, for
// one.
func InMemory(dialects projection.Dialects) (*Runner, error) {
	if err := checkDialects(dialects); err != nil {
		return nil, err
	}
	clock := NewClock()
	svc, err := service.Open(context.Background(), service.Config{Log: &service.MemLog{}, Dialects: dialects, Clock: clock.Now})
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return &Runner{Ledger: svcledger.New(svc), Clock: clock}, nil
}

// checkDialects refuses a runner that could fold no scenario.
func checkDialects(dialects projection.Dialects) error {
	if len(dialects) == 0 {
		return errors.New("scenario: no dialects: a runner needs the dialects its scenarios name, keyed by name " +
			"(openclaw.New() as \"openclaw\", claudecode.New() as \"claude-code\", of envelope/openclaw and envelope/claudecode)")
	}
	return nil
}

// Embedded returns a runner over the real path: an embedded nats-server
// with JetStream storing under dir, and a bbolt projection in dir. Call
// close when done.
func Embedded(ctx context.Context, dir string, dialects projection.Dialects) (r *Runner, closeFn func(), err error) {
	if err := checkDialects(dialects); err != nil {
		return nil, nil, err
	}
	ns, err := natslog.StartEmbedded(natslog.EmbeddedConfig{Dir: filepath.Join(dir, "nats")})
	if err != nil {
		return nil, nil, err
	}
	nc, err := natslog.ConnectEmbedded(ns, "ledger-scenario")
	if err != nil {
		ns.Shutdown()
		return nil, nil, err
	}
	cleanup := func() {
		nc.Close()
		ns.Shutdown()
		ns.WaitForShutdown()
	}
	log, err := natslog.Open(ctx, nc, natslog.StreamConfig{})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	store, err := projection.OpenStore(filepath.Join(dir, "projection.db"), projection.StoreOptions{})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	clock := NewClock()
	svc, err := service.Open(ctx, service.Config{Log: log, Dialects: dialects, Store: store, Clock: clock.Now})
	if err != nil {
		store.Close()
		cleanup()
		return nil, nil, fmt.Errorf("scenario: %w", err)
	}
	return &Runner{Ledger: svcledger.New(svc), Clock: clock}, func() { _ = svc.Flush(context.Background()); store.Close(); cleanup() }, nil
}
