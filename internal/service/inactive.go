package service

import (
	"bytes"
	"context"
	"fmt"

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
		if rec, err = s.lastRecordOf(ctx, in.Session, in.RecordType(), max(in.After, at-min(at, inactiveScan)), at); err != nil {
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
