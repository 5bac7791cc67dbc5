// Package svcledger is the ledger a scenario runner drives over the
// ledger's service: scenario.InMemory and scenario.Embedded run over it,
// and the ledger's own commands and tests reach the service behind such a
// runner with Of. It keeps internal/service out of scenario's exported API
// (tests/arch's TestPublicAPIHidesInternal).
package svcledger

import (
	"context"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
)

// Ledger is a scenario.Ledger over a service.
type Ledger struct {
	svc *service.Service
}

// New returns the ledger over svc.
func New(svc *service.Service) *Ledger { return &Ledger{svc: svc} }

// Append appends a record and returns its sequence.
func (l *Ledger) Append(ctx context.Context, raw []byte) (uint64, error) {
	res, err := l.svc.Append(ctx, raw)
	return res.Seq, err
}

// Head returns the service's position.
func (l *Ledger) Head(context.Context) (uint64, error) { return l.svc.Position(), nil }

// View runs fn on the state at a position of the session.
func (l *Ledger) View(ctx context.Context, key events.SessionKey, pos projection.Position, fn func(*projection.State) error) error {
	return l.svc.View(ctx, key, pos, fn)
}

// Of returns the service behind l when l is a *Ledger (the Ledger of a
// runner made by scenario.InMemory or scenario.Embedded), else nil.
func Of(l any) *service.Service {
	if sl, ok := l.(*Ledger); ok {
		return sl.svc
	}
	return nil
}
