package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// WatchOptions say what to watch and from where. Exactly one of Session,
// Root and All.
type WatchOptions struct {
	// Session watches one session.
	Session events.SessionKey
	// Root watches a spawn tree: the root and every session spawned under
	// it, including those spawned after the watch started.
	Root events.SessionKey
	// All watches every session.
	All bool
	// From is the first stream sequence to deliver (1 for the beginning;
	// resume with the last delivered Change.Seq + 1).
	From uint64
}

// Change is a change of a session's effective tool set: the tool set
// resolved at the start of a turn (SPEC section 5.2: a session's tools are
// fixed at each turn start, and policy changes, grants and revocations take
// effect there).
type Change struct {
	Seq         uint64            `json:"seq"`
	Session     events.SessionKey `json:"session"`
	Turn        int               `json:"turn"`
	ToolSetHash string            `json:"tool_set_hash"`
	Tools       envelope.ToolSet  `json:"tools"`
	// PolicySource and SourceReason say which policy the turn ran under.
	PolicySource string `json:"policy_source"`
	SourceReason string `json:"source_reason,omitempty"`
}

// Watch delivers every change to the watched sessions' tool sets from
// opts.From on, in stream order, until ctx ends or fn returns an error.
// It reads the ledger's stream with an ordered JetStream consumer, so no
// change is skipped and none is delivered twice, and follows the log from
// one stream segment to the next when it rolls; a From older than the
// oldest record the stream keeps fails with behind_retention naming the
// oldest sequence available.
func (c *Client) Watch(ctx context.Context, opts WatchOptions, fn func(Change) error) error {
	n := 0
	if opts.Session != "" {
		n++
	}
	if opts.Root != "" {
		n++
	}
	if opts.All {
		n++
	}
	if n != 1 {
		return errors.New("client: watch exactly one of Session, Root and All")
	}
	if opts.From == 0 {
		opts.From = 1
	}
	js, err := jetstream.New(c.nc)
	if err != nil {
		return err
	}
	w := &watch{c: c, js: js, opts: opts, fn: fn, filter: "ledger.session.>", members: map[events.SessionKey]bool{}}
	seg, err := w.segment(ctx, 1)
	if err != nil {
		return err
	}
	if first := seg.info.State.FirstSeq; seg.info.State.Msgs > 0 && opts.From < first {
		return events.Errorf(events.CodeBehindRetention, "sequence %d is no longer kept; the oldest record available is %d", opts.From, first)
	}
	switch {
	case opts.Session != "":
		w.filter = "ledger.session." + string(opts.Session)
		w.members[opts.Session] = true
	case opts.Root != "":
		// The tree only grows: its sessions now, plus those spawned under
		// a member as the feed goes on.
		trees, err := c.Tree(ctx, opts.Root)
		if err != nil {
			return err
		}
		w.members[opts.Root] = true
		for _, t := range trees {
			for _, k := range t.Keys() {
				w.members[k] = true
			}
		}
	}
	// Start in the segment that holds From. Only a segment that left the
	// ledger's subjects has a successor: a log that never rolled costs no
	// lookup (nor a permission on streams that do not exist).
	for rolled(seg.info.Config) {
		next, err := w.segment(ctx, seg.n+1)
		if errors.Is(err, jetstream.ErrStreamNotFound) || err == nil && next.base >= w.opts.From {
			break
		}
		if err != nil {
			return err
		}
		seg = next
	}
	for {
		if err := w.read(ctx, seg); err != nil {
			return err
		}
		// seg was sealed: go on in the next segment, which the ledger
		// creates right after the seal.
		if seg, err = w.await(ctx, seg.n+1); err != nil {
			return err
		}
	}
}

// The ledger's log is a chain of streams (internal/natslog, "Rolling
// segments"): the stream Options.Stream, then Stream-2, Stream-3, ... A
// later segment's metadata holds its base, the sequence just before its
// first record; a sealed segment ends with a marker message on
// sealedPrefix + its name. The strings match natslog's (a test checks).
const (
	segmentBaseKey = "ledger.base"
	sealedPrefix   = "ledger.sealed."
)

// rolled reports whether a segment left the ledger's subjects (it is
// sealed, or being sealed).
func rolled(cfg jetstream.StreamConfig) bool {
	return cfg.Sealed || len(cfg.Subjects) == 1 && strings.HasPrefix(cfg.Subjects[0], sealedPrefix)
}

type watch struct {
	c       *Client
	js      jetstream.JetStream
	opts    WatchOptions // From moves on as records are read
	fn      func(Change) error
	filter  string
	members map[events.SessionKey]bool
}

type watchSegment struct {
	n      int
	name   string
	base   uint64
	stream jetstream.Stream
	info   *jetstream.StreamInfo
}

// segment looks segment n of the log up.
func (w *watch) segment(ctx context.Context, n int) (*watchSegment, error) {
	name := w.c.opts.Stream
	if n > 1 {
		name += "-" + strconv.Itoa(n)
	}
	st, err := w.js.Stream(ctx, name)
	if err != nil {
		if n > 1 && errors.Is(err, jetstream.ErrStreamNotFound) {
			return nil, err
		}
		return nil, fmt.Errorf("client: stream %s: %w", name, err)
	}
	seg := &watchSegment{n: n, name: name, stream: st, info: st.CachedInfo()}
	if n > 1 {
		if seg.base, err = strconv.ParseUint(seg.info.Config.Metadata[segmentBaseKey], 10, 64); err != nil {
			return nil, fmt.Errorf("client: stream %s has no %s: it is no segment of %s", name, segmentBaseKey, w.c.opts.Stream)
		}
	}
	return seg, nil
}

// await waits until segment n exists and answers.
func (w *watch) await(ctx context.Context, n int) (*watchSegment, error) {
	for pause := 5 * time.Millisecond; ; pause = min(2*pause, 500*time.Millisecond) {
		// A replicated stream just created answers nothing until its
		// replicas elect a leader.
		sctx, cancel := context.WithTimeout(ctx, time.Second)
		seg, err := w.segment(sctx, n)
		cancel()
		switch {
		case err == nil:
			return seg, nil
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case !errors.Is(err, jetstream.ErrStreamNotFound) && !errors.Is(err, context.DeadlineExceeded):
			return nil, err
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// read delivers the changes in seg from w.opts.From on. It returns nil
// when it reached seg's seal marker.
func (w *watch) read(ctx context.Context, seg *watchSegment) error {
	start := max(w.opts.From-seg.base, 1)
	if !seg.info.Config.Sealed {
		// Start no later than just past its last record, so the seal
		// marker, if it comes, is seen.
		start = min(start, seg.info.State.LastSeq+1)
	}
	cons, err := seg.stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{w.filter, sealedPrefix + seg.name},
		DeliverPolicy:  jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:    start,
	})
	if err != nil {
		return fmt.Errorf("client: watch: %w", err)
	}
	// The server would keep the consumer for minutes after the watch
	// ends (an ordered consumer's inactive threshold); readers may delete
	// consumers of the ledger's stream (see `ledger serve --gen-auth`).
	defer func() {
		if info := cons.CachedInfo(); info != nil {
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			_ = seg.stream.DeleteConsumer(dctx, info.Name)
		}
	}()
	it, err := cons.Messages()
	if err != nil {
		return fmt.Errorf("client: watch: %w", err)
	}
	defer it.Stop()
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
			it.Stop()
		case <-stopped:
		}
	}()
	for {
		m, err := it.Next()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("client: watch: %w", err)
		}
		if strings.HasPrefix(m.Subject(), sealedPrefix) {
			return nil
		}
		md, err := m.Metadata()
		if err != nil {
			return err
		}
		seq := seg.base + md.Sequence.Stream
		if seq < w.opts.From {
			continue
		}
		w.opts.From = seq + 1
		if err := w.record(ctx, seq, m.Data()); err != nil {
			return err
		}
	}
}

// record delivers the change the record at seq makes, if any.
func (w *watch) record(ctx context.Context, seq uint64, data []byte) error {
	rec, err := events.DecodeRecord(data)
	if err != nil {
		return fmt.Errorf("client: watch: record %d: %w", seq, err)
	}
	if rec.Type == events.SessionSpawned && w.opts.Root != "" {
		var d events.SpawnedData
		if json.Unmarshal(rec.Data, &d) == nil && w.members[d.Parent] {
			w.members[rec.Session] = true
		}
	}
	if rec.Type != events.TurnStarted || (!w.opts.All && !w.members[rec.Session]) {
		return nil
	}
	var d events.TurnData
	var dec struct {
		PolicySource string `json:"policy_source"`
		SourceReason string `json:"source_reason"`
		ToolSetHash  string `json:"tool_set_hash"`
	}
	_ = json.Unmarshal(rec.Data, &d)
	_ = json.Unmarshal(rec.Decided, &dec)
	ts, err := w.c.Tools(ctx, rec.Session, AtTurn(d.Turn), WithMinSeq(seq))
	if err != nil {
		return fmt.Errorf("client: watch: tools of %s at turn %d: %w", rec.Session, d.Turn, err)
	}
	if got := ts.Tools.Hash(); got != dec.ToolSetHash {
		return fmt.Errorf("client: watch: %s turn %d: the replica's tool set hashes to %s but record %d says %s", rec.Session, d.Turn, got, seq, dec.ToolSetHash)
	}
	return w.fn(Change{Seq: seq, Session: rec.Session, Turn: d.Turn, ToolSetHash: dec.ToolSetHash,
		Tools: ts.Tools, PolicySource: dec.PolicySource, SourceReason: dec.SourceReason})
}
