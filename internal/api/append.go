package api

import (
	"context"
	"encoding/json"
	"time"

	"github.com/nats-io/nats.go/micro"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// AppendResult is the response to an append.
type AppendResult struct {
	Seq       uint64 `json:"seq"`
	ID        string `json:"id"`
	Duplicate bool   `json:"duplicate,omitempty"`
}

type pendingAppend struct {
	r     micro.Request
	raw   []byte
	start time.Time
	// owner is the orchestrator of a session event ("" for policy events)
	// and rt what the ownership check reads.
	owner string
	rt    routing
}

// envelopeOf reads the fields the API routes on, without judging the event
// (the ledger does that).
type routing struct {
	Type    events.Type       `json:"type"`
	Session events.SessionKey `json:"session"`
	Data    struct {
		Parent events.SessionKey `json:"parent"`
	} `json:"data"`
}

func (s *Server) handleAppend(r micro.Request) {
	start := time.Now()
	owner := scope(r)
	if !ValidOwner(owner) {
		respondError(r, events.Errorf(events.CodeInvalidEvent, "append on %s: the last token must name the orchestrator ([A-Za-z0-9_-], not %q)", r.Subject(), ScopeAll), 0)
		return
	}
	raw, rt, err := withOwner(r.Data(), owner)
	if err != nil {
		respondError(r, err, 0)
		return
	}
	if rt.Type.IsPolicy() {
		respondError(r, events.Errorf(events.CodeInvalidEvent, "%s is a policy event: operators send it to %s.policy", rt.Type, Prefix), 0)
		return
	}
	// Ownership is checked by the batcher, for a whole round at once, so
	// that this handler never waits for the service while a round runs
	// and requests keep arriving to fill the next round.
	s.appends <- &pendingAppend{r: r, raw: raw, start: start, owner: owner, rt: rt}
}

// foreign checks that a session event touches only its orchestrator's
// sessions: an event on another orchestrator's session (or a spawn under
// one) is answered as if that session did not exist.
func foreign(st *projection.State, p *pendingAppend) error {
	if p.owner == "" {
		return nil
	}
	if p.rt.Type == events.SessionSpawned {
		if parent := st.Session(p.rt.Data.Parent); parent != nil && parent.Actor != p.owner {
			return events.Errorf(events.CodeUnknownParent, "parent %q does not exist for orchestrator %q", p.rt.Data.Parent, p.owner)
		}
		return nil
	}
	if sess := st.Session(p.rt.Session); sess != nil && sess.Actor != p.owner {
		return events.Errorf(events.CodeUnknownSession, "session %q does not exist for orchestrator %q", p.rt.Session, p.owner)
	}
	return nil
}

func (s *Server) handlePolicy(r micro.Request) {
	var rt routing
	if err := json.Unmarshal(r.Data(), &rt); err == nil && rt.Type.Known() && !rt.Type.IsPolicy() {
		respondError(r, events.Errorf(events.CodeInvalidEvent, "%s is a session event: orchestrators send it to %s.append.<orchestrator>", rt.Type, Prefix), 0)
		return
	}
	s.appends <- &pendingAppend{r: r, raw: r.Data(), start: time.Now()}
}

// withOwner sets the event's actor to the owner token the NATS server
// authorised, refusing a different actor.
func withOwner(raw []byte, owner string) ([]byte, routing, error) {
	var rt routing
	// Judge the bytes as sent before re-encoding them: re-encoding would
	// quietly resolve a repeated key or a lone surrogate.
	if err := events.CheckJSON(raw); err != nil {
		return nil, rt, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return raw, rt, nil // the ledger answers malformed events itself
	}
	_ = json.Unmarshal(raw, &rt)
	if a, ok := m["actor"]; ok {
		var actor string
		if len(a) == 0 || a[0] != '"' {
			return nil, rt, events.Errorf(events.CodeInvalidEvent, "actor must be a string, got %s", a)
		}
		if json.Unmarshal(a, &actor) != nil || (actor != "" && actor != owner) {
			return nil, rt, events.Errorf(events.CodeInvalidEvent, "actor %s does not match the orchestrator %q this subject belongs to; leave actor out", a, owner)
		}
	}
	m["actor"], _ = json.Marshal(owner)
	b, err := json.Marshal(m)
	return b, rt, err
}

// batchAppends runs appends in pipelined rounds: every append waiting when
// a round starts goes into it, so concurrent writers share acknowledgement
// round trips.
func (s *Server) batchAppends(ctx context.Context) {
	for {
		var batch []*pendingAppend
		select {
		case <-ctx.Done():
			return
		case p := <-s.appends:
			batch = append(batch, p)
		}
	drain:
		for len(batch) < s.cfg.Batch {
			select {
			case p := <-s.appends:
				batch = append(batch, p)
			default:
				break drain
			}
		}
		// One look at the head for the whole round's ownership checks.
		var kept []*pendingAppend
		_ = s.cfg.Service.View(ctx, "", projection.Position{}, func(st *projection.State) error {
			for _, p := range batch {
				if err := foreign(st, p); err != nil {
					respondErrorAsync(p.r, err, 0)
					if s.cfg.Observer != nil {
						s.cfg.Observer.Append("refused", time.Since(p.start))
					}
					continue
				}
				kept = append(kept, p)
			}
			return nil
		})
		batch = kept
		if len(batch) == 0 {
			continue
		}
		raws := make([][]byte, len(batch))
		for i, p := range batch {
			raws[i] = p.raw
		}
		outs := s.cfg.Service.AppendMany(ctx, raws)
		for i, p := range batch {
			o := outs[i]
			result := "accepted"
			switch {
			case o.Err != nil && events.CodeOf(o.Err) == "":
				result = "error"
				s.log.Error("append failed", "err", o.Err)
				respondErrorAsync(p.r, o.Err, o.Result.Seq)
			case o.Err != nil:
				result = "refused"
				respondErrorAsync(p.r, o.Err, o.Result.Seq)
			default:
				if o.Result.Duplicate {
					result = "duplicate"
				}
				respondJSON(p.r, AppendResult{Seq: o.Result.Seq, ID: o.Result.ID, Duplicate: o.Result.Duplicate})
			}
			if s.cfg.Observer != nil {
				s.cfg.Observer.Append(result, time.Since(p.start))
			}
		}
	}
}
