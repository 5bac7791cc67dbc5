package client

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/wire"
)

// The answers about calls (package wire).
type (
	// CallAnswer is what a why about a call adds (WhyResult.Call): the
	// record answered, the call's records and the cause.
	CallAnswer = wire.CallAnswer
	// CallRecord is one record of a call with its recorded decision.
	CallRecord = wire.CallRecord
	// Cause is the latest record that changed the tool's decision for the
	// session before a call's record.
	Cause = wire.Cause
	// TurnCalls is what a why at a turn adds (WhyResult.Turn).
	TurnCalls = wire.TurnCalls
	// DenialsQuery filters the denied and asked calls.
	DenialsQuery = wire.DenialsQuery
	// DenialsResult is one page of denials and where the next starts.
	DenialsResult = wire.DenialsResult
	// Denial is one denied or asked call with its root's identity.
	Denial = wire.Denial
)

// InSession narrows a why about a call id to one session's calls.
func InSession(key events.SessionKey) QueryOpt {
	return func(q *wire.Query) error { q.Session = key; return nil }
}

// InTree narrows a why about a call id to the sessions of root's spawn
// tree, whose records the ledger then looks for from the root's start on
// rather than from the log's first record.
func InTree(root events.SessionKey) QueryOpt {
	return func(q *wire.Query) error { q.Root = root; return nil }
}

// Brief has a why about a call answer the call's records and the decision
// recorded at its record (WhyResult.Call, Seq and Scope) without deciding
// it again: no verdict, trace or cause, and no fold of the log before it.
func Brief() QueryOpt {
	return func(q *wire.Query) error { q.Brief = true; return nil }
}

// WhyCall explains the decision the ledger recorded for a call, by its id
// (a Claude Code tool_use_id, an OpenClaw or gateway call id): the call's
// last record, every record of it, the decision at the state the record
// was decided on with its trace, and the cause (WhyResult.Call). A call
// the log does not hold, or another orchestrator's, fails with
// unknown_call; one id in several sessions asks for InSession.
func (c *Client) WhyCall(ctx context.Context, call string, opts ...QueryOpt) (WhyResult, error) {
	var r WhyResult
	err := c.ask(ctx, wire.EndpointWhy, wire.Query{Call: call}, opts, &r)
	return r, err
}

// WhyRecord is WhyCall for the call whose tool.checked or
// tool.effect_started is at sequence seq.
func (c *Client) WhyRecord(ctx context.Context, seq uint64, opts ...QueryOpt) (WhyResult, error) {
	var r WhyResult
	err := c.ask(ctx, wire.EndpointWhy, wire.Query{CheckSeq: seq}, opts, &r)
	return r, err
}

// Denials returns one page of the denied and asked calls of this client's
// sessions (every session's with the auditor scope, Options.Owner "all")
// that q selects, from q.From: ask again from the answer's Next for more.
// With q.Wait set, a page that finds nothing waits a bounded time for
// one to land.
func (c *Client) Denials(ctx context.Context, q DenialsQuery) (DenialsResult, error) {
	var r DenialsResult
	q.MinSeq = max(q.MinSeq, c.Token())
	body, err := json.Marshal(q)
	if err != nil {
		return r, err
	}
	err = c.request(ctx, wire.SubjectUnder(c.opts.Prefix, wire.EndpointDenials, c.scope()), body, &r)
	return r, err
}

// FollowDenials delivers every denial q selects from q.From on, in stream
// order, as they land, until ctx ends or fn returns an error. It asks
// from the last page's Next, so none is skipped or delivered twice.
func (c *Client) FollowDenials(ctx context.Context, q DenialsQuery, fn func(Denial) error) error {
	if c.invalid != nil {
		return c.invalid
	}
	q.From, q.Wait = max(q.From, 1), true
	return follow(ctx, "denials", q.From, func(from uint64) ([]Denial, uint64, error) {
		q.From = from
		res, err := c.Denials(ctx, q)
		return res.Denials, res.Next, err
	}, fn)
}

// Denied is FollowDenials as an iterator: every denial q selects from
// q.From on, in stream order, as they land, each with a nil error, until
// ctx ends or the loop breaks. A break stops the follow (no request is
// sent after it). What ends the follow otherwise (ctx's error, a refusal
// such as unknown_session, a connection that failed) is yielded once,
// with a zero Denial, as the last pair:
//
//	for d, err := range audit.Denied(ctx, client.DenialsQuery{Tool: "Bash", From: from}) {
//		if err != nil {
//			return err // resume later from the last d.Seq + 1
//		}
//		// d.Seq, d.Session, d.Tool, d.Decision, d.Reason.Code, d.Call, d.Identity
//	}
//
// The iterator may be ranged over more than once: each range is a follow
// of its own from q.From.
func (c *Client) Denied(ctx context.Context, q DenialsQuery) iter.Seq2[Denial, error] {
	return feed(func(fn func(Denial) error) error { return c.FollowDenials(ctx, q, fn) })
}
