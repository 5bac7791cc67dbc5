package service

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/wire"
)

// Questions about calls: why a recorded call was decided as it was and
// what caused it (WhyCall), the calls of a turn (TurnCalls), and the
// denied and asked calls of every session (Denials). Each answer is a
// function of the records read: no clock, no map order.

// CodeUnknownCall answers a why about a call the log does not hold
// (wire.CodeUnknownCall).
const CodeUnknownCall = wire.CodeUnknownCall

// CallQuery names a call: by its id (Call; Session narrows it to one
// session), or by the sequence of one of its records (Seq).
type CallQuery struct {
	Call    string
	Session events.SessionKey
	Seq     uint64
	// Owner, when set and not wire.ScopeAll, sees only the calls of its
	// own sessions (those it started or spawned): another's are answered
	// as calls the log does not hold.
	Owner string
	// Root narrows a call id to the sessions of root's spawn tree, looked
	// for from the root's start (TestWhyCallInTree).
	Root events.SessionKey
	// Brief answers the records and the recorded decision only, folding
	// nothing (TestWhyCallBrief).
	Brief bool
}

// sees reports whether the query's owner may see session key's calls.
func (q *CallQuery) sees(st *projection.State, key events.SessionKey) bool {
	if q.Owner == "" || q.Owner == wire.ScopeAll {
		return true
	}
	sess := st.Session(key)
	return sess != nil && sess.Actor == q.Owner
}

// visible keeps the records of the sessions the query's owner sees.
func (s *Service) visible(ctx context.Context, q *CallQuery, records []wire.CallRecord) ([]wire.CallRecord, error) {
	if q.Owner == "" || q.Owner == wire.ScopeAll {
		return records, nil
	}
	var out []wire.CallRecord
	err := s.View(ctx, "", projection.Position{}, func(st *projection.State) error {
		for _, c := range records {
			if q.sees(st, c.Session) {
				out = append(out, c)
			}
		}
		return nil
	})
	return out, err
}

// scanChunk is how many records a scan reads at a time.
const scanChunk = 4096

// scan calls fn for every record from sequence from to to, in order,
// decoding only those keep passes (keep nil: every one).
func (s *Service) scan(ctx context.Context, from, to uint64, keep func(raw []byte) bool, fn func(seq uint64, rec *events.Record, raw []byte) (bool, error)) error {
	for from <= to {
		raw, err := s.cfg.Log.Read(ctx, from, min(to, from+scanChunk-1))
		if err != nil {
			return err
		}
		if len(raw) == 0 {
			return fmt.Errorf("service: the log has no record %d although its head is %d", from, to)
		}
		for i, b := range raw {
			if keep != nil && !keep(b) {
				continue
			}
			seq := from + uint64(i)
			rec, err := events.DecodeRecord(b)
			if err != nil {
				return fmt.Errorf("service: record %d: %w", seq, err)
			}
			more, err := fn(seq, rec, b)
			if err != nil || !more {
				return err
			}
		}
		from += uint64(len(raw))
	}
	return nil
}

// CallRecordOf reads a tool.checked or tool.effect_started; ok is false for
// a record of another type.
func CallRecordOf(seq uint64, rec *events.Record) (c wire.CallRecord, ok bool, err error) {
	c = wire.CallRecord{Seq: seq, ID: rec.ID, Type: rec.Type, Time: rec.Time, Actor: rec.Actor, Session: rec.Session}
	switch rec.Type {
	case events.ToolChecked:
		var d events.CheckedData
		var dec projection.CheckDecided
		if err := json.Unmarshal(rec.Data, &d); err != nil {
			return c, false, fmt.Errorf("service: record %d: %w", seq, err)
		}
		if err := json.Unmarshal(rec.Decided, &dec); err != nil {
			return c, false, fmt.Errorf("service: record %d: %w", seq, err)
		}
		c.Turn, c.Tool, c.Call, c.Input, c.Effect, c.Unreadable = d.Turn, d.Tool, d.Call, d.Input, d.Effect, d.Unreadable
		c.Decision, c.Reason, c.PreparedAt, c.Scope = dec.Decision, dec.Reason, dec.PreparedAt, events.ScopeName(dec.Scope)
	case events.EffectStarted:
		var d events.EffectData
		var dec projection.EffectDecided
		if err := json.Unmarshal(rec.Data, &d); err != nil {
			return c, false, fmt.Errorf("service: record %d: %w", seq, err)
		}
		if err := json.Unmarshal(rec.Decided, &dec); err != nil {
			return c, false, fmt.Errorf("service: record %d: %w", seq, err)
		}
		c.Turn, c.Tool, c.Call = d.Turn, d.Tool, d.Call
		c.Decision, c.Reason, c.PreparedAt, c.Scope = dec.Decision, dec.Reason, dec.PreparedAt, events.ScopeName(dec.Scope)
	default:
		return c, false, nil
	}
	return c, true, nil
}

// plainID reports whether a call id holds only characters no JSON
// encoder escapes: letters, digits and _ - . :
func plainID(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' || r == ':') {
			return false
		}
	}
	return true
}

// isCallType reports, without decoding it, whether a stored record may be
// a call's (its bytes name one of the two types).
func isCallType(raw []byte) bool {
	return bytes.Contains(raw, []byte(`"`+events.ToolChecked+`"`)) || bytes.Contains(raw, []byte(`"`+events.EffectStarted+`"`))
}

// WhyCall answers why a recorded call was decided as it was: the record
// asked about (by sequence, or the last record of the call id), every
// record of the call, the decision at the state the record was decided
// on with its trace, and the cause: the latest record before it after
// which the tool's decision for the session changed.
func (s *Service) WhyCall(ctx context.Context, q CallQuery) (a wire.WhyResult, err error) {
	head := s.Position()
	var records []wire.CallRecord
	switch {
	case q.Seq != 0:
		if q.Seq > head {
			return a, events.Errorf(wire.CodeUnknownCall, "sequence %d is beyond the head (%d): name the sequence of a tool.checked or tool.effect_started record ('ledger log' lists them)", q.Seq, head)
		}
		var target wire.CallRecord
		err = s.scan(ctx, q.Seq, q.Seq, nil, func(seq uint64, rec *events.Record, _ []byte) (bool, error) {
			c, ok, err := CallRecordOf(seq, rec)
			if err != nil {
				return false, err
			}
			if !ok {
				return false, events.Errorf(wire.CodeUnknownCall, "record %d is a %s, not a call's tool.checked or tool.effect_started: name the sequence of one ('ledger log' and 'ledger denials' list them), or the call's id with --call", seq, rec.Type)
			}
			target = c
			return false, nil
		})
		if err == nil {
			var seen []wire.CallRecord
			if seen, err = s.visible(ctx, &q, []wire.CallRecord{target}); err == nil && len(seen) == 0 {
				err = events.Errorf(wire.CodeUnknownCall, "record %d is not a call of a session of %s's", q.Seq, q.Owner)
			}
		}
		if err != nil {
			if q.Owner != "" && q.Owner != wire.ScopeAll && events.CodeOf(err) == wire.CodeUnknownCall {
				// The same answer whatever another's record is.
				err = events.Errorf(wire.CodeUnknownCall, "record %d is not a call of a session of %s's: name the sequence of a tool.checked or tool.effect_started of one, or the call's id with call", q.Seq, q.Owner)
			}
			return a, err
		}
		if q.Session != "" && target.Session != q.Session {
			return a, events.Errorf(wire.CodeUnknownCall, "record %d is a call of session %q, not of %q", q.Seq, target.Session, q.Session)
		}
		if q.Call != "" && target.Call != q.Call {
			// Both given (the commands the ledger prints name both): the
			// record must be that call's.
			return a, events.Errorf(wire.CodeUnknownCall, "record %d is of call %q, not %q", q.Seq, target.Call, q.Call)
		}
		if target.Call == "" {
			records = []wire.CallRecord{target}
			break
		}
		all, err := s.callRecords(ctx, target.Call, target.Session, head)
		if err != nil {
			return a, err
		}
		for _, c := range all {
			if c.Seq <= q.Seq {
				records = append(records, c)
			}
		}
	case q.Call != "":
		from, in, err := s.callSpan(ctx, &q)
		if err != nil {
			return a, err
		}
		if records, err = s.callRecordsFrom(ctx, q.Call, q.Session, from, head); err != nil {
			return a, err
		}
		if in != nil {
			records = slices.DeleteFunc(records, func(c wire.CallRecord) bool { return !in[c.Session] })
		}
		if records, err = s.visible(ctx, &q, records); err != nil {
			return a, err
		}
		if len(records) == 0 {
			in := ""
			if q.Session != "" {
				in = fmt.Sprintf(" of session %q", q.Session)
			}
			return a, events.Errorf(wire.CodeUnknownCall, "no tool.checked or tool.effect_started%s names call %q: check the id (a Claude Code tool_use_id, an OpenClaw or gateway call id), or name the record's sequence with --record ('ledger denials' lists the denied calls)", in, q.Call)
		}
		var sessions []string
		for _, c := range records {
			if !slices.Contains(sessions, string(c.Session)) {
				sessions = append(sessions, string(c.Session))
			}
		}
		if len(sessions) > 1 {
			return a, events.Errorf(events.CodeInvalidEvent, "call %q was checked in %d sessions (%s): name one with --session", q.Call, len(sessions), strings.Join(sessions, ", "))
		}
	default:
		return a, events.Errorf(events.CodeInvalidEvent, "a why about a call names the call's id or the sequence of its record")
	}
	target := records[len(records)-1]
	input := target.Input
	if len(input) == 0 && target.PreparedAt != 0 {
		// An effect carries no input: its preparing check does.
		for _, c := range records {
			if c.Seq == target.PreparedAt {
				input = c.Input
			}
		}
	}
	target.Input = input
	if q.Brief {
		return wire.WhyResult{Seq: target.Seq - 1, Scope: target.Scope, Call: &wire.CallAnswer{Record: target, Records: records}}, nil
	}
	return s.explainCall(ctx, target, records)
}

// callSpan is where a why about a call id looks for its records: from the
// start (or spawn) record of the session it names, else of q.Root's root,
// and, with q.Root, only in the sessions of that root's tree (in; nil
// keeps every session). A session of no start known looks from the log's
// first record; a root the query's owner does not see, or that is not a
// root, answers unknown_call.
func (s *Service) callSpan(ctx context.Context, q *CallQuery) (from uint64, in map[events.SessionKey]bool, err error) {
	from = 1
	err = s.View(ctx, "", projection.Position{}, func(st *projection.State) error {
		if q.Root != "" {
			root := st.Session(q.Root)
			if root == nil || !root.Root() || !q.sees(st, q.Root) {
				return events.Errorf(wire.CodeUnknownCall, "no call %q in the tree of %q: the ledger holds no root session %q of yours", q.Call, q.Root, q.Root)
			}
			in = map[events.SessionKey]bool{}
			for todo := []events.SessionKey{q.Root}; len(todo) > 0; todo = todo[1:] {
				in[todo[0]] = true
				if sess := st.Session(todo[0]); sess != nil {
					todo = append(todo, sess.Children...)
				}
			}
			from = max(from, root.Origin.Seq)
		}
		if q.Session != "" {
			if sess := st.Session(q.Session); sess != nil {
				from = max(from, sess.Origin.Seq)
			}
		}
		return nil
	})
	return from, in, err
}

// callRecords lists the records of a call id, of one session when key is
// set, up to the head.
func (s *Service) callRecords(ctx context.Context, call string, key events.SessionKey, head uint64) ([]wire.CallRecord, error) {
	return s.callRecordsFrom(ctx, call, key, 1, head)
}

// callRecordsFrom is callRecords from sequence from on.
func (s *Service) callRecordsFrom(ctx context.Context, call string, key events.SessionKey, from, head uint64) ([]wire.CallRecord, error) {
	var out []wire.CallRecord
	keep := isCallType
	if plainID(call) {
		// A plain id is stored as it is, between quotes, whatever JSON
		// escaping the record's encoder does; others are decoded to see.
		quoted := []byte(`"` + call + `"`)
		keep = func(raw []byte) bool { return isCallType(raw) && bytes.Contains(raw, quoted) }
	}
	err := s.scan(ctx, from, head, keep, func(seq uint64, rec *events.Record, _ []byte) (bool, error) {
		c, ok, err := CallRecordOf(seq, rec)
		if err == nil && ok && c.Call == call && (key == "" || c.Session == key) {
			out = append(out, c)
		}
		return true, err
	})
	return out, err
}

// explainCall folds the log up to the record before target, noting after
// each record that may change the tool's decision for the session (its
// own records but its calls', and its scope's policy records) whether it
// did, and answers the decision at the end, the records and the cause.
func (s *Service) explainCall(ctx context.Context, target wire.CallRecord, records []wire.CallRecord) (a wire.WhyResult, err error) {
	key := target.Session
	st := projection.New(s.cfg.Dialects)
	var (
		have     bool
		prev     envelope.Decision
		prevWhat decider
		cause    *wire.Cause
	)
	err = s.scan(ctx, 1, target.Seq-1, nil, func(seq uint64, rec *events.Record, raw []byte) (bool, error) {
		if err := st.Apply(projection.Decode(rec, raw), seq); err != nil {
			return false, fmt.Errorf("service: %w", err)
		}
		if !mayChange(st, key, rec) {
			return true, nil
		}
		v, err := st.Why(key, target.Tool, target.Input)
		if err != nil {
			return true, nil // no decision yet (no policy, no session)
		}
		// A record that changes what decides (the reason and the record
		// that introduced it) is a cause even when the decision stays:
		// a revocation lifted after a policy.set came to deny the tool
		// too is not what denies it (TestWhyCauseFollowsWhatDecides).
		switch what := deciderOf(v); {
		case !have:
			have, prev, prevWhat = true, v.Decision, what
			cause = causeOf(seq, rec, "", v.Decision)
		case v.Decision != prev || what != prevWhat:
			cause = causeOf(seq, rec, prev, v.Decision)
			prev, prevWhat = v.Decision, what
		}
		return true, nil
	})
	if err != nil {
		return a, err
	}
	v, err := st.Why(key, target.Tool, target.Input)
	if err != nil {
		return a, err
	}
	if target.Reason.Code == projection.ReasonUnreadable {
		// Denied unread by its attach point: the policy decided nothing
		// of it, and the policy's decision with no input (an allow,
		// maybe) is not the call's (TestWhyUnreadableCall).
		v = unreadableVerdict(target)
		cause = nil
	}
	sess := st.Session(key)
	return wire.WhyResult{Seq: st.Position(), Scope: events.ScopeName(sess.Scope), Verdict: v, Policy: st.SessionPolicy(key),
		Context: sess.Context, Envelope: sess.Envelope,
		Call: &wire.CallAnswer{Record: target, Records: records, Cause: cause}}, nil
}

// mayChange reports whether rec, just folded into st, may change a
// decision for session key: one of the session's own records but a
// call's, or a policy record of the session's scope.
func mayChange(st *projection.State, key events.SessionKey, rec *events.Record) bool {
	if rec.Session == key {
		return rec.Type != events.ToolChecked && rec.Type != events.EffectStarted
	}
	if !rec.Type.IsPolicy() || st.Session(key) == nil {
		return false
	}
	return policyScope(rec) == st.ScopeOf(key)
}

// policyScope is the scope a policy record changes.
func policyScope(rec *events.Record) string {
	p, err := rec.Event().Payload()
	if err != nil {
		return ""
	}
	name, _ := events.NamedScope(p)
	return events.ScopeName(name)
}

// causeOf is the cause a record is, with what it did in its own words.
// decider is what decided a verdict: its reason's code and the record
// that introduced its rule.
type decider struct {
	code string
	seq  uint64
}

func deciderOf(v envelope.Verdict) decider {
	d := decider{code: v.Reason.Code}
	if v.Reason.Record != nil {
		d.seq = v.Reason.Record.Seq
	}
	return d
}

func causeOf(seq uint64, rec *events.Record, before, after envelope.Decision) *wire.Cause {
	return &wire.Cause{Seq: seq, ID: rec.ID, Type: rec.Type, Time: rec.Time, Actor: rec.Actor, Before: before, After: after, Text: recordText(rec)}
}

// recordText says what a record did: a revocation's rule, target and
// note, a grant's edit, a turn's number, ...
func recordText(rec *events.Record) string {
	p, err := rec.Event().Payload()
	if err != nil {
		return string(rec.Type)
	}
	switch d := p.(type) {
	case *events.DenyData:
		r := envelope.Revocation{Data: *d}
		if rec.Type == events.DenyLifted {
			return "lifted: " + r.Rule()
		}
		return r.Rule()
	case *events.GrantData:
		text := fmt.Sprintf("%s %s for agent %s, target %s", rec.Type, d.Kind, d.Agent, d.Target)
		if len(d.Tools) > 0 {
			text += ": " + strings.Join(d.Tools, ", ")
		}
		if d.Rule != "" {
			text += fmt.Sprintf(": %s %s", d.Behavior, d.Rule)
		}
		return text
	case *events.PolicySetData:
		return fmt.Sprintf("policy.set (%s) of scope %s", d.Dialect, events.ScopeName(d.Scope))
	case *events.TurnData:
		return fmt.Sprintf("turn %d of %s", d.Turn, rec.Session)
	case *events.StartedData:
		return fmt.Sprintf("session %s started", rec.Session)
	case *events.SpawnedData:
		return fmt.Sprintf("session %s spawned by %s", rec.Session, d.Parent)
	}
	return fmt.Sprintf("%s of %s", rec.Type, rec.Session)
}

// TurnCalls lists what a turn of a session covers: the records from its
// turn.started to the session's last record before its next turn, and
// the calls checked in it.
func (s *Service) TurnCalls(ctx context.Context, key events.SessionKey, turn int) (*wire.TurnCalls, error) {
	var from uint64
	s.lock()
	tv, err := s.head.AtTurn(key, turn)
	if err == nil {
		from = tv.Position()
	}
	head := s.head.Position()
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	tc := &wire.TurnCalls{Turn: turn, From: from, To: from, Calls: []wire.CallRecord{}}
	err = s.scan(ctx, from+1, head, nil, func(seq uint64, rec *events.Record, _ []byte) (bool, error) {
		if rec.Session != key {
			return true, nil
		}
		if rec.Type == events.TurnStarted {
			return false, nil
		}
		tc.To = seq
		c, ok, err := CallRecordOf(seq, rec)
		if ok {
			tc.Calls = append(tc.Calls, c)
		}
		return true, err
	})
	return tc, err
}

// Denials pages through the denied and asked calls (a deny or ask
// decision, a refused effect included) from q.From, reading at most
// scanChunk records and answering at most maxDenials, of the sessions
// visible passes (nil: all) that the query's filters select. Next is
// where the next page starts; Next past the head means the page reached
// it.
func (s *Service) Denials(ctx context.Context, q wire.DenialsQuery, visible func(*envelope.Session) bool) (wire.DenialsResult, error) {
	const maxDenials = 256
	for _, t := range []*string{&q.Since, &q.Until} {
		if *t == "" {
			continue
		}
		parsed, err := time.Parse(time.RFC3339, *t)
		if err != nil {
			return wire.DenialsResult{}, events.Errorf(events.CodeInvalidEvent, "time %q is not an RFC 3339 time such as 2026-01-02T15:04:05Z or 2026-01-02T16:04:05.250+01:00", *t)
		}
		// Compared as the records' times are written, an instant.
		*t = events.FormatTime(parsed)
	}
	from := max(q.From, 1)
	res := wire.DenialsResult{Denials: []wire.Denial{}, Next: from}
	if q.Session != "" {
		// A session the ledger does not hold is unknown, as to tools and
		// why: not a page of no denials, which a mistyped key would read
		// as nothing denied (TestDenialsOfUnknownSession).
		err := s.View(ctx, "", projection.Position{}, func(st *projection.State) error {
			if st.Session(q.Session) == nil {
				return events.UnknownSession(q.Session)
			}
			return nil
		})
		if err != nil {
			return res, err
		}
	}
	head := s.Position()
	if from > head {
		return res, nil
	}
	to := min(head, from+scanChunk-1)
	type found struct {
		c   wire.CallRecord
		seq uint64
	}
	var calls []found
	err := s.scan(ctx, from, to, isCallType, func(seq uint64, rec *events.Record, _ []byte) (bool, error) {
		res.Next = seq + 1
		c, ok, err := CallRecordOf(seq, rec)
		if err != nil || !ok || c.Decision == envelope.Allow {
			return true, err
		}
		if (q.Session != "" && c.Session != q.Session) || (q.Tool != "" && c.Tool != q.Tool) ||
			(q.Reason != "" && c.Reason.Code != q.Reason) || (q.Since != "" && c.Time < q.Since) || (q.Until != "" && c.Time > q.Until) {
			return true, nil
		}
		calls = append(calls, found{c, seq})
		return len(calls) < maxDenials, nil
	})
	if err != nil {
		return res, err
	}
	if len(calls) < maxDenials {
		res.Next = to + 1
	}
	// The sessions' roots, their scopes and identities, as the head has
	// them (a session's root, scope and identity never change).
	err = s.View(ctx, "", projection.Position{}, func(st *projection.State) error {
		for _, f := range calls {
			sess := st.Session(f.c.Session)
			if sess == nil || (visible != nil && !visible(sess)) {
				continue
			}
			root := envelope.RootOf(st, sess)
			if root == nil || !q.Filter.Match(root.Scope, root.Start) {
				continue
			}
			res.Denials = append(res.Denials, wire.Denial{CallRecord: f.c, Identity: wire.IdentityOf(root.Start)})
		}
		return nil
	})
	return res, err
}

// unreadableVerdict is the verdict of a check its attach point recorded
// for a call whose payload it could not read: deny, unreadable:payload,
// the record itself as the reason's record.
func unreadableVerdict(c wire.CallRecord) envelope.Verdict {
	what := c.Unreadable
	if what == "" {
		what = "the payload"
	}
	r := envelope.Reason{Code: projection.ReasonUnreadable, Rule: "the attach point could not read the call: " + what,
		Record: &envelope.RecordRef{Seq: c.Seq, ID: c.ID, Type: c.Type}}
	return envelope.Verdict{Tool: c.Tool, Decision: envelope.Deny, Reason: r, Trace: []envelope.Step{{Layer: "payload", Outcome: envelope.Decided,
		Detail: "the hook or plugin could not read the call's payload, so it denied the call unread, before any policy layer; fix what sent it", Reason: &r}}}
}
