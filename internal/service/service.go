// Package service is the ledger's append and query path over a Log: it
// validates each event against the state at the head, decides what the
// ledger records, appends the record expecting that head, and folds it. It
// owns the head state; time travel folds a fresh state from the log.
package service

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
)

// Log is where records are kept, in one total order.
type Log interface {
	// Append writes rec at expected+1, failing with events.ErrConflict when
	// the log's last sequence is not expected.
	Append(ctx context.Context, rec []byte, expected uint64) (uint64, error)
	// Read returns the records from sequence from to to, inclusive.
	Read(ctx context.Context, from, to uint64) ([][]byte, error)
}

// Config wires a Service. The zero value of every field but Log and
// Dialects means its default.
type Config struct {
	Log      Log
	Dialects projection.Dialects
	// Clock stamps records; nil means time.Now.
	Clock func() time.Time
	// Entropy makes record ids when callers send none; nil means the
	// ulid default source.
	Entropy io.Reader
	// Actor is filled in when an event has no actor ("" keeps it empty).
	Actor string
}

// Service is the append and query path.
type Service struct {
	cfg  Config
	mu   sync.Mutex
	head *projection.State
}

// New returns a service over an empty or existing log; call Catchup before
// use when the log may hold records.
func New(cfg Config) *Service {
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	return &Service{cfg: cfg, head: projection.New(cfg.Dialects)}
}

// Result is the answer to an append.
type Result struct {
	Seq uint64 `json:"seq"`
	ID  string `json:"id"`
	// Duplicate is true when the id had already landed and nothing was
	// written.
	Duplicate bool `json:"duplicate,omitempty"`
}

// Append validates, decides and appends one event given as JSON.
func (s *Service) Append(ctx context.Context, raw []byte) (Result, error) {
	ev, err := events.Parse(raw)
	if err != nil {
		return Result{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ev.ID == "" {
		ev.ID = events.NewID(s.cfg.Clock(), s.entropy())
	}
	prep := s.head.Prepare(ev, events.FormatTime(s.cfg.Clock()))
	if prep.Record == nil {
		if prep.Err != nil {
			return Result{Seq: prep.Landed, ID: ev.ID, Duplicate: prep.Landed != 0}, prep.Err
		}
		return Result{Seq: prep.Landed, ID: ev.ID, Duplicate: true}, nil
	}
	b, err := prep.Record.Encode()
	if err != nil {
		return Result{}, fmt.Errorf("service: encoding record: %w", err)
	}
	seq, err := s.cfg.Log.Append(ctx, b, s.head.Position())
	if err != nil {
		return Result{}, err
	}
	if err := s.head.Apply(prep.Record, seq); err != nil {
		return Result{}, err
	}
	return Result{Seq: seq, ID: ev.ID}, prep.Err
}

func (s *Service) entropy() io.Reader {
	if s.cfg.Entropy != nil {
		return s.cfg.Entropy
	}
	return defaultEntropy
}

// View runs fn on the state at a position of the session key (the head when
// the position is empty). fn must not keep the state.
func (s *Service) View(ctx context.Context, key events.SessionKey, pos projection.Position, fn func(*projection.State) error) error {
	s.mu.Lock()
	seq, err := s.head.Resolve(key, pos)
	if err != nil {
		s.mu.Unlock()
		return err
	}
	if seq == s.head.Position() {
		defer s.mu.Unlock()
		return fn(s.head)
	}
	s.mu.Unlock()
	st, err := s.stateAt(ctx, seq)
	if err != nil {
		return err
	}
	return fn(st)
}

func (s *Service) stateAt(ctx context.Context, seq uint64) (*projection.State, error) {
	if seq == 0 {
		return projection.New(s.cfg.Dialects), nil
	}
	raw, err := s.cfg.Log.Read(ctx, 1, seq)
	if err != nil {
		return nil, err
	}
	recs := make([]*events.Record, len(raw))
	for i, b := range raw {
		if recs[i], err = events.DecodeRecord(b); err != nil {
			return nil, err
		}
	}
	return replay.Fold(s.cfg.Dialects, recs, seq)
}

// Tools answers the tools query.
func (s *Service) Tools(ctx context.Context, key events.SessionKey, pos projection.Position) (ts envelope.ToolSet, err error) {
	err = s.View(ctx, key, pos, func(st *projection.State) error {
		ts, err = st.Tools(key)
		return err
	})
	return ts, err
}

// Why answers the why query (and check, without the trace).
func (s *Service) Why(ctx context.Context, key events.SessionKey, tool string, input json.RawMessage, pos projection.Position) (v envelope.Verdict, err error) {
	err = s.View(ctx, key, pos, func(st *projection.State) error {
		v, err = st.Why(key, tool, input)
		return err
	})
	return v, err
}
