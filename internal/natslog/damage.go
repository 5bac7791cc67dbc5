package natslog

// This file is how the log notices that its store lost records: the
// package documentation ("Damage") says what is checked when.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// ErrDamaged is what a DamagedError is (errors.Is).
var ErrDamaged = errors.New("log damaged")

// DamagedError is a sequence the stream reports (it lies between the
// stream's first and last sequence) but cannot return: the record was lost
// from the server's store (a torn or truncated block file, a deleted one, a
// record whose checksum no longer matches), or deleted through the API.
type DamagedError struct {
	Seq    uint64 // the first global sequence that cannot be read
	Stream string // the segment that should hold it
	What   string // what the stream's state says
}

func (e *DamagedError) Error() string {
	kept := "no record before it is left"
	if e.Seq > 1 {
		kept = fmt.Sprintf("records 1 to %d are intact ('ledger export --to %d' saves them)", e.Seq-1, e.Seq-1)
	}
	return fmt.Sprintf("log damaged at %d: %s; recover with a copy: stop every ledger and restore stream %s "+
		"from before the damage (the server's store directory, DATA/nats for the embedded server, or a "+
		"'nats stream backup' with 'nats stream restore'; on a replicated stream, remove the damaged "+
		"server from the stream's peers with 'nats stream cluster peer-remove' so a new replica catches up "+
		"from the others); %s; the stream denies purges, so the hole cannot be cut off in place",
		e.Seq, e.What, e.Stream, kept)
}

func (e *DamagedError) Is(target error) bool { return target == ErrDamaged }

// errStalled: the stream holds the record a read waits for (it returns it
// when asked) but the read's ordered consumer has delivered nothing for
// stallAfter. That is no damage (a consumer left on a stream leader that
// went away stalls so), so the callers read on with a new consumer from
// the same sequence (TestClusterLeaderFailover under -race).
var errStalled = errors.New("natslog: the stream's consumer stalled")

// readWait is how long a read waits for the next record it knows the
// stream holds before asking the stream for that record directly.
var readWait = time.Second

// missing tells a stall of the ordered consumer at stream sequence local
// (which the caller expects the stream to hold) from damage: it asks the
// stream for the record itself. It returns a *DamagedError when the stream
// reports the sequence but cannot return it, nil when the record is there
// (the consumer is only slow), or the error of asking; reported says
// whether the stream reports local at all (past its last sequence, waiting
// for it is tailing, not a stall).
func missing(ctx context.Context, seg *segment, local uint64) (reported bool, err error) {
	info, err := seg.stream.Info(ctx, jetstream.WithDeletedDetails(true))
	if err != nil {
		return false, fmt.Errorf("natslog: stream info: %w", err)
	}
	st := info.State
	if local > st.LastSeq {
		return false, nil
	}
	_, err = seg.stream.GetMsg(ctx, local)
	if notFound(err) && info.Config.Replicas > 1 {
		// A direct get may have been answered by a replica behind the
		// leader: only the leader's own "not found" is damage.
		if lerr := leaderGetMsg(ctx, seg, local); !notFound(lerr) {
			if lerr != nil {
				return true, fmt.Errorf("natslog: a replica of %s cannot return sequence %d, and asking the stream's leader failed: %w", seg.name, local, lerr)
			}
			return true, nil
		}
	}
	switch {
	case err == nil:
		return true, nil
	case notFound(err):
		// Name the first sequence lost, which may come before this one.
		first := local
		if lost, ok := firstLost(st, 1); ok {
			first = min(first, lost)
		}
		return true, &DamagedError{Seq: seg.base + first, Stream: seg.name, What: fmt.Sprintf(
			"stream %s reports sequences %d to %d (%d records) but cannot return %d", seg.name,
			st.FirstSeq, st.LastSeq, st.Msgs, first)}
	default:
		return true, fmt.Errorf("natslog: reading %s sequence %d: %w", seg.name, local, err)
	}
}

// notFound reports whether err is a stream's "no message found".
func notFound(err error) bool {
	var ae *jetstream.APIError
	return errors.Is(err, jetstream.ErrMsgNotFound) || errors.As(err, &ae) && ae.ErrorCode == jetstream.JSErrCodeMessageNotFound
}

// leaderGetMsg asks the stream's leader for the record at sequence local
// (the API's message get, never a direct get). The stream's info comes from
// its leader, and on a replicated stream that allows direct gets a direct
// get may be answered by a replica behind the leader, which does not hold
// the record yet: only the leader's "not found" for a sequence its own info
// reports is damage (TestConcurrentReplicasOnR3 once saw a replica's answer
// reported as a damaged log). A reader allowed only direct gets gets no
// answer here, and its read fails without calling the log damaged.
func leaderGetMsg(ctx context.Context, seg *segment, local uint64) error {
	if seg.nc == nil {
		return errors.New("natslog: no connection to ask the stream's leader")
	}
	req, err := json.Marshal(struct {
		Seq uint64 `json:"seq"`
	}{local})
	if err != nil {
		return err
	}
	rctx := ctx
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
	}
	m, err := seg.nc.RequestWithContext(rctx, jetstream.DefaultAPIPrefix+"STREAM.MSG.GET."+seg.name, req)
	if err != nil {
		return err
	}
	var resp struct {
		Error *jetstream.APIError `json:"error"`
	}
	if err := json.Unmarshal(m.Data, &resp); err != nil {
		return fmt.Errorf("natslog: the stream's answer to a message get does not decode: %w", err)
	}
	if resp.Error != nil {
		return resp.Error
	}
	return nil
}

// Check reports whether every segment of the log holds every sequence it
// reports, from its first record to its last, without reading them: from
// the stream's state (its message count against its sequence range, and
// its deleted sequences) and by reading each segment's first and last
// record, where a torn write or a stale checksum shows. A live segment
// whose StreamConfig has MaxAge or MaxMsgs may have dropped its oldest
// records; that is no damage. The error is a *DamagedError naming the
// first sequence that cannot be read.
func (l *Log) Check(ctx context.Context) error {
	_, segs, err := l.head(ctx)
	if err != nil {
		return err
	}
	for i, seg := range segs {
		info, err := seg.stream.Info(ctx, jetstream.WithDeletedDetails(true))
		if err != nil {
			return fmt.Errorf("natslog: stream info: %w", err)
		}
		st := info.State
		if st.LastSeq == 0 {
			continue // nothing written yet
		}
		dropping := i == len(segs)-1 && (l.cfg.MaxAge > 0 || l.cfg.MaxMsgs > 0)
		first := uint64(1)
		if dropping {
			first = max(st.FirstSeq, 1)
		}
		if lost, ok := firstLost(st, first); ok {
			return &DamagedError{Seq: seg.base + lost, Stream: seg.name, What: fmt.Sprintf(
				"stream %s reports sequences %d to %d but holds %d records", seg.name, st.FirstSeq, st.LastSeq, st.Msgs)}
		}
		for _, local := range []uint64{max(st.FirstSeq, first), st.LastSeq} {
			if _, err := missing(ctx, seg, local); err != nil {
				return err
			}
		}
	}
	return nil
}

// firstLost returns the first sequence from first to the stream's last that
// its state (with deleted details) says it does not hold, and whether there
// is one. A state whose count disagrees with its range but names no
// sequence (a server that left the details out) names where it starts.
func firstLost(st jetstream.StreamState, first uint64) (uint64, bool) {
	if st.LastSeq < first {
		return 0, false
	}
	var lost []uint64
	if st.FirstSeq > first || st.Msgs == 0 {
		lost = append(lost, first)
	}
	for _, seq := range st.Deleted {
		if seq >= first {
			lost = append(lost, seq)
		}
	}
	if len(lost) > 0 {
		return slices.Min(lost), true
	}
	if st.NumDeleted > 0 || st.Msgs != st.LastSeq-max(st.FirstSeq, first)+1 {
		return max(st.FirstSeq, first), true
	}
	return 0, false
}
