package service

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/wire"
)

// A plain check, why or tools of a session that takes no check at its
// position (projection.Inactive: it or its root has ended, it is yielded,
// it has completed) answers what a recorded check of it would meet: deny,
// session_not_active, the record that put the session in its state as
// the reason's record. A question at a turn is about that turn's start,
// when the session was active, and is answered as it was decided then
// (TestPlainCheckOfInactiveSession).

// denyInactive is the verdict v (the policy's) of a call of a session that
// is not active at position at, as the lifecycle layer decides it.
func (s *Service) denyInactive(ctx context.Context, in *projection.Inactive, at uint64, v envelope.Verdict) (envelope.Verdict, error) {
	r, err := s.inactiveReason(ctx, in, at)
	if err != nil {
		return envelope.Verdict{}, err
	}
	return in.Deny(v, r), nil
}

// notActive is the tools answer's account of a session that is not active
// at position at.
func (s *Service) notActive(ctx context.Context, in *projection.Inactive, at uint64) (*wire.NotActive, error) {
	r, err := s.inactiveReason(ctx, in, at)
	if err != nil {
		return nil, err
	}
	return &wire.NotActive{Session: in.Session, State: in.State, Reason: r}, nil
}

// inactiveScan bounds the records a check of a session that is not
// active reads to find the record that put it in its state: an ended
// session's end may lie a million records back, and every check of it
// would read them all. A record farther back is not named; the rule says
// where to look (TestPlainCheckFindsAnEndFarBack).
const inactiveScan = 4 * scanChunk

// inactiveReason is in's reason, with the record that put its session in
// its state, read from the log when the projection does not hold it.
func (s *Service) inactiveReason(ctx context.Context, in *projection.Inactive, at uint64) (envelope.Reason, error) {
	rec := in.SetBy
	if rec == nil && in.Session != "" {
		var err error
		if rec, err = s.inactive.find(ctx, s, in, at); err != nil {
			return envelope.Reason{}, err
		}
		if rec == nil {
			r := in.Reason(nil)
			r.Rule += fmt.Sprintf(" (its %s is more than %d records before seq %d: 'ledger log --json' lists it)", in.RecordType(), inactiveScan, at)
			return r, nil
		}
	}
	return in.Reason(rec), nil
}

// inactiveMemo remembers, for a session not active (its key, the type of
// the record that put it in its state, and its context's record: After),
// the record the last search found and the position it searched up to,
// so that repeated checks of a session that ended long ago read only the
// records since, not the 16,384 before each time. What find answers is
// what a search from the position alone gives: the log's records are
// fixed, and the memo is used only when it covers the search's window
// (TestInactiveMemoAnswersAsASearch). It holds at most inactiveMemoSize
// entries, and starts over when full.
type inactiveMemo struct {
	mu sync.Mutex
	m  map[inactiveKey]inactiveFound
}

const inactiveMemoSize = 4096

type inactiveKey struct {
	session events.SessionKey
	t       events.Type
	after   uint64
}

type inactiveFound struct {
	rec *envelope.RecordRef // the last record of its type in (.., to]; nil: none in the window
	to  uint64
}

// find is in's session's last record of in.RecordType() in the window
// (max(in.After, at-inactiveScan), at], nil when there is none.
func (m *inactiveMemo) find(ctx context.Context, s *Service, in *projection.Inactive, at uint64) (*envelope.RecordRef, error) {
	k := inactiveKey{session: in.Session, t: in.RecordType(), after: in.After}
	lo := max(in.After, at-min(at, inactiveScan))
	m.mu.Lock()
	f, ok := m.m[k]
	m.mu.Unlock()
	var rec *envelope.RecordRef
	var err error
	if ok && f.to <= at && f.to >= lo {
		// (lo, f.to] was searched: f.rec is its last match, if above lo.
		if rec, err = s.lastRecordOf(ctx, in.Session, k.t, f.to, at); err != nil {
			return nil, err
		}
		if rec == nil && f.rec != nil && f.rec.Seq > lo {
			rec = f.rec
		}
	} else if rec, err = s.lastRecordOf(ctx, in.Session, k.t, lo, at); err != nil {
		return nil, err
	}
	if !ok || at > f.to {
		m.mu.Lock()
		if m.m == nil || len(m.m) >= inactiveMemoSize {
			m.m = make(map[inactiveKey]inactiveFound)
		}
		m.m[k] = inactiveFound{rec: rec, to: at}
		m.mu.Unlock()
	}
	return rec, nil
}

// lastRecordOf is session key's last record of type t in the sequences
// after+1 to to, read from the log backwards; nil when there is none. It
// decodes only the records that name t, and reads no clock.
func (s *Service) lastRecordOf(ctx context.Context, key events.SessionKey, t events.Type, after, to uint64) (*envelope.RecordRef, error) {
	typ := []byte(`"` + string(t) + `"`)
	for to > after {
		from := after + 1
		if to-after > scanChunk {
			from = to - scanChunk + 1
		}
		raw, err := s.cfg.Log.Read(ctx, from, to)
		if err != nil {
			return nil, err
		}
		if uint64(len(raw)) != to-from+1 {
			return nil, fmt.Errorf("service: the log holds %d of the records %d to %d", len(raw), from, to)
		}
		for i := len(raw) - 1; i >= 0; i-- {
			if !bytes.Contains(raw[i], typ) {
				continue
			}
			seq := from + uint64(i)
			rec, err := events.DecodeRecord(raw[i])
			if err != nil {
				return nil, fmt.Errorf("service: record %d: %w", seq, err)
			}
			if rec.Type == t && rec.Session == key {
				return &envelope.RecordRef{Seq: seq, ID: rec.ID, Type: t}, nil
			}
		}
		to = from - 1
	}
	return nil, nil
}
