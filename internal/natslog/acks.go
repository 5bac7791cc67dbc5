package natslog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// acks routes the stream's acknowledgements of a log's appends (Append and
// AppendAsync, through Log.ack) to their waiters. It does what nats.go's
// publishes do for them, with less: one subscription on an inbox of its
// own, a reply subject a publish, and the acknowledgement's common forms
// read without encoding/json (about twelve allocations a record fewer,
// docs/bench.md "Issue 28: acknowledgements read by the log"). Waiting,
// time-outs and what an error means stay with Log.ack and its callers.
type acks struct {
	nc   *nats.Conn
	sync *GroupSync // the log's, or nil: an acknowledgement notes the syncs begun

	once   sync.Once
	err    error  // of the subscription, when it could not be made
	prefix string // the subscription's inbox, with its trailing "."

	mu      sync.Mutex
	n       uint64                // replies made so far (a reply's token)
	waiting map[string]*pooledMsg // by reply subject
}

// Retries of a publish no stream answered (a leader being elected), as
// nats.go's asynchronous publish makes them.
const (
	pubRetries   = jetstream.DefaultPubRetryAttempts
	pubRetryWait = jetstream.DefaultPubRetryWait
)

// start subscribes to a's inbox, once.
func (a *acks) start() error {
	a.once.Do(func() {
		a.prefix = a.nc.NewRespInbox() + "."
		a.waiting = make(map[string]*pooledMsg)
		sub, err := a.nc.Subscribe(a.prefix+"*", a.deliver)
		if err != nil {
			a.err = fmt.Errorf("natslog: subscribing to acknowledgements: %w", err)
			return
		}
		// The handler only hands a message on: its queue never grows
		// while it runs, and a limit would drop acknowledgements.
		a.err = sub.SetPendingLimits(-1, -1)
	})
	return a.err
}

// publish sends pm with a new reply subject, where its acknowledgement is
// routed to pm.ack.
func (a *acks) publish(pm *pooledMsg) error {
	if err := a.start(); err != nil {
		return err
	}
	if pm.ack == nil {
		pm.ack = make(chan *nats.Msg, 1)
	}
	a.mu.Lock()
	a.n++
	reply := a.prefix + strconv.FormatUint(a.n, 36)
	a.waiting[reply] = pm
	a.mu.Unlock()
	pm.msg.Reply = reply
	if err := a.nc.PublishMsg(&pm.msg); err != nil {
		a.forget(pm)
		return err
	}
	return nil
}

// forget stops routing pm's acknowledgement (its waiter gave up): one that
// comes later is dropped, and pm is never used again (its channel may hold
// one).
func (a *acks) forget(pm *pooledMsg) {
	a.mu.Lock()
	delete(a.waiting, pm.msg.Reply)
	a.mu.Unlock()
}

// deliver hands an acknowledgement to its waiter. A reply is routed at
// most once (it leaves waiting here), so the send never blocks.
func (a *acks) deliver(m *nats.Msg) {
	a.mu.Lock()
	pm := a.waiting[m.Subject]
	delete(a.waiting, m.Subject)
	a.mu.Unlock()
	if pm != nil {
		if a.sync != nil {
			pm.gen = a.sync.Started()
		}
		pm.ack <- m
	}
}

// await returns pm's acknowledgement, or an error when none came within
// timeout or ctx ended (pm is then forgotten). One already there takes no
// timer.
func (a *acks) await(ctx context.Context, pm *pooledMsg, id string, timeout time.Duration) (*nats.Msg, error) {
	select {
	case m := <-pm.ack:
		return m, nil
	default:
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case m := <-pm.ack:
		return m, nil
	case <-timer.C:
		a.forget(pm)
		return nil, fmt.Errorf("natslog: no acknowledgement for %s within %s: %w", id, timeout, nats.ErrTimeout)
	case <-ctx.Done():
		a.forget(pm)
		return nil, ctx.Err()
	}
}

// noResponders reports whether m is the server's answer that no stream
// took the publish.
func noResponders(m *nats.Msg) bool {
	return len(m.Data) == 0 && m.Header.Get("Status") == "503"
}

// pubAck reads a stream's acknowledgement of a publish to stream: the
// stream's sequence and whether the message id had landed before, or the
// stream's error (a *jetstream.APIError, as nats.go gives it). The forms
// nats-server writes by hand (server/stream.go: {"stream":S,"seq":N}, with
// ,"duplicate": true when the id had landed) are read in place; any other
// goes through encoding/json. An acknowledgement from another stream is
// an error: Nats-Expected-Stream makes the server refuse such a publish,
// so one would mean the answer is not to this publish.
// TestPubAckForms guards both readings.
func pubAck(data []byte, stream string) (seq uint64, duplicate bool, err error) {
	if seq, dup, ok := pubAckFast(data, stream); ok {
		return seq, dup, nil
	}
	var pa struct {
		Error     *jetstream.APIError `json:"error"`
		Stream    string              `json:"stream"`
		Seq       uint64              `json:"seq"`
		Duplicate bool                `json:"duplicate"`
	}
	if err := json.Unmarshal(data, &pa); err != nil {
		return 0, false, fmt.Errorf("%w: %q", jetstream.ErrInvalidJSAck, data)
	}
	switch {
	case pa.Error != nil:
		return 0, false, pa.Error
	case pa.Stream == "" || pa.Seq == 0:
		return 0, false, fmt.Errorf("%w: %q", jetstream.ErrInvalidJSAck, data)
	case pa.Stream != stream:
		return 0, false, fmt.Errorf("natslog: an acknowledgement from stream %q to a publish to %q", pa.Stream, stream)
	}
	return pa.Seq, pa.Duplicate, nil
}

// pubAckFast reads the acknowledgement's forms nats-server writes by hand.
func pubAckFast(data []byte, stream string) (seq uint64, duplicate bool, ok bool) {
	rest, ok := bytes.CutPrefix(data, []byte(`{"stream":"`))
	if !ok || len(rest) < len(stream) || string(rest[:len(stream)]) != stream {
		return 0, false, false
	}
	if rest, ok = bytes.CutPrefix(rest[len(stream):], []byte(`","seq":`)); !ok {
		return 0, false, false
	}
	i := 0
	for ; i < len(rest) && rest[i] >= '0' && rest[i] <= '9'; i++ {
		if seq > (1<<64-1-9)/10 { // past what any stream holds: leave it to encoding/json
			return 0, false, false
		}
		seq = seq*10 + uint64(rest[i]-'0')
	}
	if seq == 0 || rest[0] == '0' {
		return 0, false, false
	}
	switch string(rest[i:]) {
	case `}`:
		return seq, false, true
	case `,"duplicate": true}`, `,"duplicate":true}`:
		return seq, true, true
	}
	return 0, false, false
}
