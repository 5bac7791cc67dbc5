package service

import (
	"context"
	"crypto/rand"
	"slices"
	"sync"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/replay"
)

var defaultEntropy = rand.Reader

// MemLog is a Log in memory, for tests and scenario runs.
type MemLog struct {
	mu   sync.Mutex
	recs [][]byte
	ids  []string
}

// Head implements Log.
func (m *MemLog) Head(context.Context) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return uint64(len(m.recs)), nil
}

// AppendHashed implements Log: Append, the hash being the record's.
func (m *MemLog) AppendHashed(ctx context.Context, subject, id string, rec []byte, _ string, expected uint64) (uint64, error) {
	return m.Append(ctx, subject, id, rec, expected)
}

// Append writes rec at expected+1. It does not de-duplicate ids: the
// projection's index of ids answers re-sends before anything reaches the
// log.
func (m *MemLog) Append(_ context.Context, _, id string, rec []byte, expected uint64) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if expected != uint64(len(m.recs)) {
		return 0, events.ErrConflict()
	}
	m.recs = append(m.recs, slices.Clone(rec))
	m.ids = append(m.ids, id)
	return uint64(len(m.recs)), nil
}

// EachMsg implements replay.MsgSource, on the records appended when it
// is called.
func (m *MemLog) EachMsg(_ context.Context, from uint64, fn func(replay.Msg) error) error {
	m.mu.Lock()
	recs := m.recs[:len(m.recs):len(m.recs)]
	m.mu.Unlock()
	for i := max(from, 1); i <= uint64(len(recs)); i++ {
		b := recs[i-1]
		if err := fn(replay.Msg{Seq: i, Data: b, Hash: events.HashBytes(b)}); err != nil {
			return err
		}
	}
	return nil
}

// AppendAsync implements AsyncLog; in memory the outcome is known at once.
func (m *MemLog) AppendAsync(ctx context.Context, subject, id string, rec []byte, hash string, expected uint64, prevID string) (func() (uint64, error), error) {
	m.mu.Lock()
	if prevID != "" && (len(m.ids) == 0 || m.ids[len(m.ids)-1] != prevID) {
		m.mu.Unlock()
		return func() (uint64, error) { return 0, events.ErrConflict() }, nil
	}
	m.mu.Unlock()
	seq, err := m.Append(ctx, subject, id, rec, expected)
	return func() (uint64, error) { return seq, err }, nil
}

// Read implements Log.
func (m *MemLog) Read(_ context.Context, from, to uint64) ([][]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if from < 1 {
		from = 1
	}
	if to > uint64(len(m.recs)) {
		to = uint64(len(m.recs))
	}
	if from > to {
		return nil, nil
	}
	return slices.Clone(m.recs[from-1 : to]), nil
}
