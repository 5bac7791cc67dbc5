package scenario

import (
	"context"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
)

// serviceLedger adapts a service to the Ledger a runner drives.
type serviceLedger struct {
	svc *service.Service
	log *service.MemLog
}

func (l *serviceLedger) Append(ctx context.Context, raw []byte) (uint64, error) {
	res, err := l.svc.Append(ctx, raw)
	return res.Seq, err
}

func (l *serviceLedger) Head(ctx context.Context) (uint64, error) {
	recs, err := l.log.Read(ctx, 1, 1<<62)
	return uint64(len(recs)), err
}

func (l *serviceLedger) View(ctx context.Context, key events.SessionKey, pos projection.Position, fn func(*projection.State) error) error {
	return l.svc.View(ctx, key, pos, fn)
}

// InMemory returns a runner over a fresh in-memory log.
func InMemory(dialects projection.Dialects) *Runner {
	clock := NewClock()
	log := &service.MemLog{}
	svc := service.New(service.Config{Log: log, Dialects: dialects, Clock: clock.Now})
	return &Runner{Ledger: &serviceLedger{svc: svc, log: log}, Clock: clock}
}
