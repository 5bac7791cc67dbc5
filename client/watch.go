package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

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
// change is skipped and none is delivered twice; a From older than the
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
	st, err := js.Stream(ctx, c.opts.Stream)
	if err != nil {
		return fmt.Errorf("client: stream %s: %w", c.opts.Stream, err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		return fmt.Errorf("client: stream %s: %w", c.opts.Stream, err)
	}
	if first := info.State.FirstSeq; info.State.Msgs > 0 && opts.From < first {
		return events.Errorf(events.CodeBehindRetention, "sequence %d is no longer kept; the oldest record available is %d", opts.From, first)
	}
	filter := "ledger.session.>"
	members := map[events.SessionKey]bool{}
	switch {
	case opts.Session != "":
		filter = "ledger.session." + string(opts.Session)
		members[opts.Session] = true
	case opts.Root != "":
		// The tree only grows: its sessions now, plus those spawned under
		// a member as the feed goes on.
		trees, err := c.Tree(ctx, opts.Root)
		if err != nil {
			return err
		}
		members[opts.Root] = true
		for _, t := range trees {
			for _, k := range t.Keys() {
				members[k] = true
			}
		}
	}
	cons, err := st.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{filter},
		DeliverPolicy:  jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:    opts.From,
	})
	if err != nil {
		return fmt.Errorf("client: watch: %w", err)
	}
	it, err := cons.Messages()
	if err != nil {
		return fmt.Errorf("client: watch: %w", err)
	}
	defer it.Stop()
	go func() {
		<-ctx.Done()
		it.Stop()
	}()
	for {
		m, err := it.Next()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("client: watch: %w", err)
		}
		md, err := m.Metadata()
		if err != nil {
			return err
		}
		rec, err := events.DecodeRecord(m.Data())
		if err != nil {
			return fmt.Errorf("client: watch: record %d: %w", md.Sequence.Stream, err)
		}
		if rec.Type == events.SessionSpawned && opts.Root != "" {
			var d events.SpawnedData
			if json.Unmarshal(rec.Data, &d) == nil && members[d.Parent] {
				members[rec.Session] = true
			}
		}
		if rec.Type != events.TurnStarted || (!opts.All && !members[rec.Session]) {
			continue
		}
		var d events.TurnData
		var dec struct {
			PolicySource string `json:"policy_source"`
			SourceReason string `json:"source_reason"`
			ToolSetHash  string `json:"tool_set_hash"`
		}
		_ = json.Unmarshal(rec.Data, &d)
		_ = json.Unmarshal(rec.Decided, &dec)
		ts, err := c.Tools(ctx, rec.Session, AtTurn(d.Turn), WithMinSeq(md.Sequence.Stream))
		if err != nil {
			return fmt.Errorf("client: watch: tools of %s at turn %d: %w", rec.Session, d.Turn, err)
		}
		if got := ts.Tools.Hash(); got != dec.ToolSetHash {
			return fmt.Errorf("client: watch: %s turn %d: the replica's tool set hashes to %s but record %d says %s", rec.Session, d.Turn, got, md.Sequence.Stream, dec.ToolSetHash)
		}
		ch := Change{Seq: md.Sequence.Stream, Session: rec.Session, Turn: d.Turn, ToolSetHash: dec.ToolSetHash,
			Tools: ts.Tools, PolicySource: dec.PolicySource, SourceReason: dec.SourceReason}
		if err := fn(ch); err != nil {
			return err
		}
	}
}
