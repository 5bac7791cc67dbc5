package scenario

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
)

// serviceLedger adapts a service to the Ledger a runner drives.
type serviceLedger struct {
	svc *service.Service
}

func (l *serviceLedger) Append(ctx context.Context, raw []byte) (uint64, error) {
	res, err := l.svc.Append(ctx, raw)
	return res.Seq, err
}

func (l *serviceLedger) Head(context.Context) (uint64, error) { return l.svc.Position(), nil }

func (l *serviceLedger) View(ctx context.Context, key events.SessionKey, pos projection.Position, fn func(*projection.State) error) error {
	return l.svc.View(ctx, key, pos, fn)
}

// Service returns the service behind a runner made by InMemory or Embedded.
func (r *Runner) Service() *service.Service {
	if l, ok := r.Ledger.(*serviceLedger); ok {
		return l.svc
	}
	return nil
}

// InMemory returns a runner over a fresh in-memory log.
func InMemory(dialects projection.Dialects) *Runner {
	clock := NewClock()
	svc := service.New(service.Config{Log: &service.MemLog{}, Dialects: dialects, Clock: clock.Now})
	return &Runner{Ledger: &serviceLedger{svc: svc}, Clock: clock}
}

// Embedded returns a runner over the real path: an embedded nats-server
// with JetStream storing under dir, and a bbolt projection in dir. Call
// close when done.
func Embedded(ctx context.Context, dir string, dialects projection.Dialects) (r *Runner, closeFn func(), err error) {
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
	return &Runner{Ledger: &serviceLedger{svc: svc}, Clock: clock}, func() { _ = svc.Flush(); store.Close(); cleanup() }, nil
}
