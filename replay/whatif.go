package replay

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// Flip is one tool whose decision at one turn would differ under the
// candidate policy.
type Flip struct {
	Seq       uint64            `json:"seq"`
	Session   events.SessionKey `json:"session"`
	Turn      int               `json:"turn"`
	Tool      string            `json:"tool"`
	Was       envelope.Decision `json:"was"`
	WasReason string            `json:"was_reason,omitempty"`
	Would     envelope.Decision `json:"would"`
	// WouldReason is the candidate's reason code; WouldRule the rule that
	// matched under the candidate.
	WouldReason string `json:"would_reason,omitempty"`
	WouldRule   string `json:"would_rule,omitempty"`
}

// WhatIfReport lists the flips of a what-if replay and counts them.
type WhatIfReport struct {
	// Scope is the scope whose policy the candidate replaces, and whose
	// sessions' turns are compared.
	Scope       string `json:"scope"`
	From        uint64 `json:"from"`
	To          uint64 `json:"to"`
	Turns       int    `json:"turns_compared"`
	Flips       []Flip `json:"flips"`
	AllowToDeny int    `json:"allow_to_deny"`
	DenyToAllow int    `json:"deny_to_allow"`
	SessionsHit int    `json:"sessions_affected"`
}

// WhatIf replays the log from sequence 1 to to (0: the head) and, at every
// turn start at or after from, compares the tool set the ledger recorded
// with the one the candidate policy document would have given (with the
// grants then in force, and the envelopes recorded at spawn). It reports
// each tool that flips between allow and deny, with both reasons. The
// candidate replaces the default scope's policy; WhatIfIn names another.
func WhatIf(ctx context.Context, src Source, dialects projection.Dialects, candidate json.RawMessage, from, to uint64, progress Progress) (*WhatIfReport, error) {
	return WhatIfIn(ctx, src, dialects, "", candidate, from, to, progress)
}

// WhatIfIn is WhatIf with the candidate as the policy document of a scope
// ("" for the default scope): only the turns of that scope's sessions are
// compared, since no other session's tool set depends on its policy. A
// scope that never had a policy in the replayed log is invalid_policy.
func WhatIfIn(ctx context.Context, src Source, dialects projection.Dialects, scope string, candidate json.RawMessage, from, to uint64, progress Progress) (*WhatIfReport, error) {
	st := projection.New(dialects)
	scope = events.ScopeName(scope)
	rep := &WhatIfReport{Scope: scope, From: from, Flips: []Flip{}}
	var cand *projection.Candidate
	hit := map[events.SessionKey]bool{}
	last, err := each(ctx, src, to, progress, func(seq uint64, rec *events.Record) error {
		if err := st.Apply(projection.Input{Record: rec}, seq); err != nil {
			return err
		}
		if cand == nil && st.PolicyOf(scope) != nil {
			c, err := st.CandidateIn(scope, candidate)
			if err != nil {
				return fmt.Errorf("the candidate policy: %w", err)
			}
			cand = c
		}
		if rec.Type != events.TurnStarted || seq < from || st.ScopeOf(rec.Session) != scope {
			return nil
		}
		sess := st.Session(rec.Session)
		was, _, ok := st.TurnSet(rec.Session, sess.Turn)
		if !ok {
			return fmt.Errorf("turn %d of %s has no stored tool set", sess.Turn, rec.Session)
		}
		would, err := cand.Tools(rec.Session)
		if err != nil {
			return err
		}
		rep.Turns++
		for _, f := range compare(was, would) {
			f.Seq, f.Session, f.Turn = seq, rec.Session, sess.Turn
			rep.Flips = append(rep.Flips, f)
			hit[rec.Session] = true
			if f.Would == envelope.Deny {
				rep.AllowToDeny++
			} else {
				rep.DenyToAllow++
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if cand == nil {
		// The scope's name was mistyped, or its policy came later, or
		// the default scope has none (each Claude Code project is a
		// scope of its own): say which scopes there are, rather than
		// pass a candidate nothing was compared with
		// (TestWhatIfDefaultScopeWithoutPolicyRefused).
		if _, err := st.CandidateIn(scope, candidate); err != nil {
			return nil, err
		}
	}
	rep.To = last
	rep.SessionsHit = len(hit)
	return rep, nil
}

// compare lists the tools allowed in one set and denied in the other, in
// the order of the recorded set.
func compare(was, would envelope.ToolSet) []Flip {
	type verdict struct {
		d envelope.Decision
		r envelope.Reason
	}
	index := func(ts envelope.ToolSet) (map[string]verdict, []string) {
		m := map[string]verdict{}
		var order []string
		for _, t := range ts.Allowed {
			m[t] = verdict{d: envelope.Allow}
			order = append(order, t)
		}
		for _, d := range ts.Denied {
			m[d.Tool] = verdict{d: envelope.Deny, r: d.Reason}
			order = append(order, d.Tool)
		}
		return m, order
	}
	a, order := index(was)
	b, _ := index(would)
	var flips []Flip
	for _, t := range order {
		x, y := a[t], b[t]
		if y.d == "" || x.d == y.d {
			continue
		}
		flips = append(flips, Flip{Tool: t, Was: x.d, WasReason: x.r.Code, Would: y.d, WouldReason: y.r.Code, WouldRule: y.r.Rule})
	}
	return flips
}
