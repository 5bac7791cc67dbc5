package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/wire"
)

// flagSet reports whether the flag name was given.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// connectAPI connects to the NATS server of --nats as --user, to talk to
// the ledger's API rather than to the stream.
func (f *ledgerFlags) connectAPI(ctx context.Context) (*nats.Conn, error) {
	opts := append([]nats.Option{nats.Name("ledger append"), nats.Timeout(connectTimeout)}, f.authOptions()...)
	nc, err := nats.Connect(f.natsURL, opts...)
	if err != nil {
		return nil, fmt.Errorf("connecting to NATS at %s as %q: %w (are --user and --password right?)", redactURL(f.natsURL), f.user, err)
	}
	return nc, nil
}

// apiRequestTimeout bounds one append request to the API.
const apiRequestTimeout = 10 * time.Second

// apiAppend appends raws through the ledger's API as user, in order: each
// run of session events as one batch append on ledger.v1.append.<user>,
// each policy event on ledger.v1.policy.<user>. The outcomes are in raws'
// order; an event the API refused carries its code and message.
func apiAppend(ctx context.Context, nc *nats.Conn, user string, raws [][]byte) []service.Outcome {
	outs := make([]service.Outcome, len(raws))
	isPolicy := func(raw []byte) bool {
		var head struct {
			Type events.Type `json:"type"`
		}
		return json.Unmarshal(raw, &head) == nil && head.Type.IsPolicy()
	}
	for i := 0; i < len(raws); {
		if isPolicy(raws[i]) {
			outs[i] = apiRequest(ctx, nc, wire.Subject(wire.EndpointPolicy, user), raws[i])
			i++
			continue
		}
		j := i
		for j < len(raws) && j-i < wire.MaxBatchEvents && !isPolicy(raws[j]) {
			j++
		}
		body := []byte{'['}
		for k := i; k < j; k++ {
			if k > i {
				body = append(body, ',')
			}
			body = append(body, raws[k]...)
		}
		body = append(body, ']')
		var batch []wire.AppendOutcome
		o := apiCall(ctx, nc, wire.Subject(wire.EndpointAppend, user), body, &batch)
		for k := i; k < j; k++ {
			switch {
			case o.Err != nil:
				outs[k] = o
			case len(batch) != j-i:
				outs[k] = service.Outcome{Err: fmt.Errorf("the ledger answered %d outcomes for %d events", len(batch), j-i)}
			case batch[k-i].Error != nil:
				e := batch[k-i].Error
				outs[k] = service.Outcome{Result: service.Result{Seq: e.Seq}, Err: events.Errorf(e.Code, "%s", e.Message)}
			default:
				b := batch[k-i]
				outs[k] = service.Outcome{Result: service.Result{Seq: b.Seq, ID: b.ID, Duplicate: b.Duplicate}}
			}
		}
		i = j
	}
	return outs
}

// apiRequest appends one event on subject.
func apiRequest(ctx context.Context, nc *nats.Conn, subject string, raw []byte) service.Outcome {
	var res wire.AppendResult
	o := apiCall(ctx, nc, subject, raw, &res)
	if o.Err == nil {
		o.Result = service.Result{Seq: res.Seq, ID: res.ID, Duplicate: res.Duplicate}
	}
	return o
}

// apiCall sends one request and decodes its answer into out; a refusal is
// an *events.Error, a failure to get an answer an error without a code.
func apiCall(ctx context.Context, nc *nats.Conn, subject string, body []byte, out any) service.Outcome {
	rctx, cancel := context.WithTimeout(ctx, apiRequestTimeout)
	defer cancel()
	msg, err := nc.RequestWithContext(rctx, subject, body)
	if err != nil {
		return service.Outcome{Err: fmt.Errorf("%s: %w (is 'ledger serve' running on that server, and may %s publish there?)", subject, err, subjectUser(subject))}
	}
	if code := msg.Header.Get(wire.ErrorCodeHeader); code != "" {
		var eb wire.ErrorBody
		_ = json.Unmarshal(msg.Data, &eb)
		return service.Outcome{Result: service.Result{Seq: eb.Seq}, Err: events.Errorf(events.Code(code), "%s", msg.Header.Get(wire.ErrorHeader))}
	}
	if err := json.Unmarshal(msg.Data, out); err != nil {
		return service.Outcome{Err: fmt.Errorf("%s: the answer does not decode: %w", subject, err)}
	}
	return service.Outcome{}
}

// subjectUser is the last token of an API subject: the user it acts as.
func subjectUser(subject string) string {
	for i := len(subject) - 1; i >= 0; i-- {
		if subject[i] == '.' {
			return subject[i+1:]
		}
	}
	return subject
}

// oneAppender is how a command that appends one event (policy set, deny)
// appends it: through the API as --user when --nats and --user are given
// (the actor, unless --actor was set, the user), else on the ledger the
// flags open, whose handle it returns too (nil over the API). done closes
// what it opened.
func (f *ledgerFlags) oneAppender(ctx context.Context, fl *flag.FlagSet, actor *string) (appendOne func(context.Context, []byte) service.Outcome, h *ledgerHandle, done func(), err error) {
	if f.natsURL != "" && f.user != "" {
		nc, err := f.connectAPI(ctx)
		if err != nil {
			return nil, nil, nil, err
		}
		if !flagSet(fl, "actor") {
			*actor = f.user
		}
		return func(ctx context.Context, raw []byte) service.Outcome {
			return apiAppend(ctx, nc, f.user, [][]byte{raw})[0]
		}, nil, nc.Close, nil
	}
	h, err = f.open(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	return func(ctx context.Context, raw []byte) service.Outcome {
		return h.svc.AppendMany(ctx, [][]byte{raw})[0]
	}, h, func() { h.Close() }, nil
}
