package report

import (
	"encoding/json"
	"slices"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// causes finds, while the log is folded, the record that changed each
// tool a turn gained or lost: the last record since the session's
// previous turn after which the tool's decision at the head flipped (a
// grant, a revocation, a policy change of its scope, one of its own
// records), or the turn's own record when the turn itself changed it (a
// continuation's context, a mode).
//
// Each watched session's tools are decided again after every record that
// may change them; a session is watched from its first turn to its
// completion or end.
type causes struct {
	sessions map[events.SessionKey]*watch
	// byTurn holds, by the sequence of a turn.started, the cause of each
	// tool whose decision differs from the session's previous turn.
	byTurn map[uint64]map[string]uint64
}

// watch is a session's tools as last decided: allowed or not, and the
// record that last flipped each since its last turn.
type watch struct {
	tools   []string
	allowed map[string]bool
	flipped map[string]uint64
	// policy is the last policy record of the session's scope since its
	// last turn: the cause of a tool the catalogue did not have.
	policy uint64
}

func newCauses() *causes {
	return &causes{sessions: map[events.SessionKey]*watch{}, byTurn: map[uint64]map[string]uint64{}}
}

// after notes what rec, just folded into st at seq, changed.
func (c *causes) after(st *projection.State, rec *events.Record, seq uint64) {
	switch {
	case rec.Type == events.TurnStarted:
		c.turn(st, rec, seq)
	case rec.Type == events.SessionCompleted || rec.Type == events.SessionEnded:
		delete(c.sessions, rec.Session)
	case rec.Type.IsPolicy():
		scope := PolicyScope(rec)
		// Each session is decided on its own: the order they are visited
		// in changes nothing.
		for key, w := range c.sessions {
			if st.ScopeOf(key) == scope {
				w.policy = seq
				w.recheck(st, key, seq)
			}
		}
	case rec.Type != events.ToolChecked && rec.Type != events.EffectStarted:
		if w := c.sessions[rec.Session]; w != nil {
			w.recheck(st, rec.Session, seq)
		}
	}
}

func (w *watch) recheck(st *projection.State, key events.SessionKey, seq uint64) {
	for _, t := range w.tools {
		v, err := st.Why(key, t, nil)
		if err != nil {
			continue
		}
		if now := v.Decision == envelope.Allow; now != w.allowed[t] {
			w.allowed[t], w.flipped[t] = now, seq
		}
	}
}

func (c *causes) turn(st *projection.State, rec *events.Record, seq uint64) {
	var d events.TurnData
	if json.Unmarshal(rec.Data, &d) != nil {
		return
	}
	tv, err := st.AtTurn(rec.Session, d.Turn)
	if err != nil {
		return
	}
	ts := tv.Tools()
	next := &watch{allowed: map[string]bool{}, flipped: map[string]uint64{}}
	for _, t := range ts.Allowed {
		next.tools, next.allowed[t] = append(next.tools, t), true
	}
	for _, dn := range ts.Denied {
		next.tools = append(next.tools, dn.Tool)
	}
	slices.Sort(next.tools)
	if w := c.sessions[rec.Session]; w != nil {
		by := map[string]uint64{}
		for _, t := range next.tools {
			was, known := w.allowed[t]
			switch {
			case !known && w.policy != 0:
				by[t] = w.policy
			case !known || was != next.allowed[t]:
				by[t] = seq // the turn's start decided it anew
			case w.flipped[t] != 0:
				by[t] = w.flipped[t]
			}
		}
		c.byTurn[seq] = by
	}
	c.sessions[rec.Session] = next
}
