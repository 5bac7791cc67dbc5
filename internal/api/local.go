package api

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"

	"github.com/sessionledger/ledger/wire"
)

// RequestWithContext answers one request made in this process, without
// the NATS server: the request goes through the very lane, guard and
// handler of its endpoint that a request on subject arriving over NATS
// goes through, so every rule of the API applies to it unchanged (the
// owner and scope of the subject's last token, ScopeLimits, validation,
// the Observer, a recorded check's within_ms, the lanes' limits); only the
// two hops through the NATS server are gone, and an append or a check,
// whose handlers parse the request and queue it for the batcher (or, for
// a check not recorded, decide it at once), runs on the caller's goroutine
// when its lane is idle (lanes.run: a hand-off less on an enforced call;
// ctx is then heeded once the handler returns). Its answer is the message a NATS requester would
// receive: the same body, the same error headers (TestLocalAnswersAsNATS).
//
// It is the client.Requester of a front end that runs in the ledger's own
// process (`serve --hooks`, the console): whoever holds the Server is the
// ledger, as its own NATS connection is, and the NATS server's permissions
// do not apply, as they do not to that connection. A subject that names no
// endpoint of the API is answered nats.ErrNoResponders, as over NATS; when
// ctx ends first, ctx.Err() (the request may still be handled, as one
// whose requester gave up over NATS may be).
func (s *Server) RequestWithContext(ctx context.Context, subject string, data []byte) (*nats.Msg, error) {
	h := s.localHandler(subject)
	if h == nil {
		return nil, nats.ErrNoResponders
	}
	if s.life.Err() != nil {
		// A stopped server answers nothing, as a stopped service has no
		// subscription: no one responds.
		return nil, nats.ErrNoResponders
	}
	r := &localRequest{subject: subject, data: bytes.Clone(data), answer: make(chan *nats.Msg, 1)}
	h(r)
	select {
	case m := <-r.answer:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.life.Done():
		// Stop does not answer the requests left in the lanes.
		return nil, nats.ErrNoResponders
	}
}

// localHandler is the handler of the endpoint subject names, as
// addEndpoints subscribed it (dispatch into its lane), or nil.
func (s *Server) localHandler(subject string) micro.HandlerFunc {
	rest, ok := strings.CutPrefix(subject, wire.Prefix+".")
	if !ok {
		return nil
	}
	if rest == wire.EndpointPolicy {
		return s.local["policy-unbound"]
	}
	endpoint, owner, ok := strings.Cut(rest, ".")
	if !ok || owner == "" || strings.Contains(owner, ".") {
		return nil
	}
	return s.local[endpoint]
}

// localRequest is a request made in this process: micro.Request over a
// channel that takes its first answer.
type localRequest struct {
	subject string
	data    []byte
	answer  chan *nats.Msg
}

// Respond answers data, which it copies, as a NATS connection's Respond
// copies it into the connection's buffer: the append path's answers are
// written in a pooled buffer the next answer reuses (respondJSONWith;
// TestLocalAnswersAreTheirOwn).
func (r *localRequest) Respond(data []byte, opts ...micro.RespondOpt) error {
	m := &nats.Msg{Subject: r.subject, Data: bytes.Clone(data)}
	for _, o := range opts {
		o(m)
	}
	select {
	case r.answer <- m:
	default:
		// A second answer to one request is dropped, as a requester over
		// NATS keeps only the first.
	}
	return nil
}

func (r *localRequest) RespondJSON(v any, opts ...micro.RespondOpt) error {
	b, err := json.Marshal(v)
	if err != nil {
		return micro.ErrMarshalResponse
	}
	return r.Respond(b, opts...)
}

func (r *localRequest) Error(code, description string, data []byte, opts ...micro.RespondOpt) error {
	return r.Respond(data, append(opts, micro.WithHeaders(micro.Headers{micro.ErrorHeader: {description}, micro.ErrorCodeHeader: {code}}))...)
}

func (r *localRequest) Data() []byte           { return r.data }
func (r *localRequest) Headers() micro.Headers { return micro.Headers{} }
func (r *localRequest) Subject() string        { return r.subject }
func (r *localRequest) Reply() string          { return "" }
