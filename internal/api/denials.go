package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/nats-io/nats.go/micro"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/wire"
)

// Questions about calls: the why endpoint about one recorded call (a
// query naming call or check_seq), and the denials endpoint,
// ledger.v1.denials.<owner> (or .all), which pages through the denied and
// asked calls of the owner's sessions (of every session for all), as the
// watch endpoint pages through changes: a long poll from From, answered
// with Next to ask from again.

// whyAboutCall reports whether a query asks why about a recorded call.
func whyAboutCall(name string, q wire.Query) bool {
	return name == wire.EndpointWhy && (q.CheckSeq != 0 || q.Call != "" && !q.Record)
}

// answerWhyCall answers a why about a recorded call. An orchestrator
// sees only its own sessions' calls: another's is answered as one the log
// does not hold.
func (s *Server) answerWhyCall(ctx context.Context, r micro.Request, owner string, q wire.Query) {
	if q.Tool != "" || len(q.Input) > 0 || q.Seq != 0 || q.Turn != 0 || q.Time != "" || q.WithinMS != 0 {
		respondError(r, events.Errorf(events.CodeInvalidEvent, "a why about a call (call or check_seq) answers the decision recorded at the call's record: it takes no tool, input or position"), 0)
		return
	}
	if q.CheckSeq != 0 && q.Call != "" {
		respondError(r, events.Errorf(events.CodeInvalidEvent, "name one of call and check_seq"), 0)
		return
	}
	if q.CheckSeq != 0 && q.Root != "" {
		respondError(r, events.Errorf(events.CodeInvalidEvent, "root narrows a call id to a tree; check_seq names one record already"), 0)
		return
	}
	a, err := s.cfg.Service.WhyCall(ctx, service.CallQuery{Call: q.Call, Session: q.Session, Seq: q.CheckSeq, Owner: owner, Root: q.Root, Brief: q.Brief})
	if err != nil {
		respondError(r, err, 0)
		return
	}
	respondJSON(r, a)
}

// withTurn adds to a why at a turn what the turn covers.
func (s *Server) withTurn(ctx context.Context, q wire.Query, a wire.WhyResult) (wire.WhyResult, error) {
	if q.Turn == 0 {
		return a, nil
	}
	tc, err := s.cfg.Service.TurnCalls(ctx, q.Session, q.Turn)
	a.Turn = tc
	return a, err
}

func decodeDenials(data []byte) (wire.DenialsQuery, error) {
	var q wire.DenialsQuery
	if len(data) == 0 {
		return q, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil {
		return q, events.Errorf(events.CodeInvalidEvent, "the denials request is not JSON of scope, user, project, runtime, session, tool, reason, since, until, from, wait and min_seq: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return q, events.Errorf(events.CodeInvalidEvent, "the denials request is one JSON object; something follows it")
	}
	for _, t := range []*string{&q.Since, &q.Until} {
		if *t != "" {
			n, err := NormalizeTime(*t)
			if err != nil {
				return q, err
			}
			*t = n
		}
	}
	q.From = max(q.From, 1)
	return q, nil
}

// handleDenials answers a denials request: the denials from From as far
// as the replica has applied, or, with Wait and nothing found, those that
// land within MaxWait.
func (s *Server) handleDenials(ctx context.Context, r micro.Request) {
	start := time.Now()
	defer func() { s.observeQuery(wire.EndpointDenials, start) }()
	owner, ok := queryScope(r)
	if !ok {
		return
	}
	q, err := decodeDenials(r.Data())
	if err != nil {
		respondError(r, err, 0)
		return
	}
	svc := s.cfg.Service
	if q.MinSeq != 0 && svc.Position() < q.MinSeq {
		// As a query waiting for min_seq does: on a goroutine of its
		// own, holding no worker.
		if !s.waiting.acquire(owner) {
			respondError(r, events.Errorf(events.CodeNotCaughtUp, "%d requests of %q are waiting for a min_seq already; this replica has applied up to sequence %d, not %d: retry after a pause", s.cfg.MaxWaiting, owner, svc.Position(), q.MinSeq), 0)
			return
		}
		s.goWaited(func() {
			defer s.waiting.release(owner)
			wctx, cancel := context.WithTimeout(s.life, s.cfg.MaxWait)
			err := svc.WaitApplied(wctx, q.MinSeq)
			cancel()
			if err != nil {
				respondError(r, err, 0)
				return
			}
			q.MinSeq, q.Wait = 0, false
			s.answerDenials(ctx, r, owner, q)
		})
		return
	}
	s.answerDenials(ctx, r, owner, q)
}

// answerDenials answers a denials request the replica has applied the
// min_seq of.
func (s *Server) answerDenials(ctx context.Context, r micro.Request, owner string, q wire.DenialsQuery) {
	svc := s.cfg.Service
	if q.Session != "" {
		// Another orchestrator's session is answered as one that does
		// not exist.
		if err := svc.View(ctx, "", projection.Position{}, func(st *projection.State) error { return owned(st, q.Session, owner) }); err != nil {
			respondError(r, err, 0)
			return
		}
	}
	var visible func(*envelope.Session) bool
	if owner != wire.ScopeAll {
		visible = func(sess *envelope.Session) bool { return sess.Actor == owner }
	}
	busy := wire.DenialsResult{Denials: []wire.Denial{}, Next: q.From}
	longPoll(s, r, owner, q.Wait, busy, func(from uint64) (wire.DenialsResult, uint64, bool, error) {
		if from != 0 {
			q.From = from
		}
		res, err := svc.Denials(ctx, q, visible)
		return res, res.Next, len(res.Denials) == 0, err
	})
}
