package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// Drift is a record whose decision newer code would make differently.
type Drift struct {
	Seq        uint64          `json:"seq"`
	ID         string          `json:"id"`
	Type       events.Type     `json:"type"`
	Recorded   json.RawMessage `json:"recorded"`
	Recomputed json.RawMessage `json:"recomputed"`
	// Refused is the code the record's event would be refused with now, if
	// any.
	Refused string `json:"refused,omitempty"`
}

// Report is the outcome of Verify.
type Report struct {
	Records   uint64 `json:"records"`
	StateHash string `json:"state_hash"`
	// ProjectionHash is the hash of the projection being verified, when one
	// was given; Match says whether it equals the rebuilt one.
	ProjectionHash string  `json:"projection_hash,omitempty"`
	RebuiltHash    string  `json:"rebuilt_hash,omitempty"`
	Match          *bool   `json:"projection_matches,omitempty"`
	Drifts         []Drift `json:"drifts,omitempty"`
	DriftCount     int     `json:"drift_count"`
	// Tamper is the first bad sequence of the stored log, when the log was
	// altered (a record deleted, changed, moved or inserted).
	Tamper *Tamper `json:"tamper,omitempty"`
}

// OK reports whether the log is intact, nothing drifted and the projection
// matched.
func (r *Report) OK() bool {
	return r.Tamper == nil && r.DriftCount == 0 && (r.Match == nil || *r.Match)
}

// MaxDrifts bounds how many drifts a report lists (all are counted).
const MaxDrifts = 100

// Verify replays the log and recomputes every decision it recorded: each
// record's event is decided again on the state folded up to the record
// before it, and what the ledger decides now is compared with what the
// record says it decided then. The log stays the truth: the original record
// is folded either way.
func Verify(ctx context.Context, src Source, dialects projection.Dialects, progress Progress) (*projection.State, *Report, error) {
	st := projection.New(dialects)
	rep, err := verifyInto(ctx, st, src, progress, nil)
	if err != nil {
		return nil, nil, err
	}
	return st, rep, nil
}

// VerifyStored is Verify with the state it folds committed as it goes to a
// projection file it makes in dir (the system's temporary directory when
// dir is ""), as Rebuild commits one, and removes when it returns: its
// memory is that of a rebuild, not of the whole log folded in memory
// (ledger verify; docs/bench.md, "Issue 28: a verify in bounded memory").
// The report is Verify's (TestVerifyStoredReportsAsVerify).
func VerifyStored(ctx context.Context, src Source, dialects projection.Dialects, dir string, progress Progress) (*Report, error) {
	dir, err := os.MkdirTemp(dir, "ledger-verify-")
	if err != nil {
		return nil, fmt.Errorf("replay: a file to verify in: %w", err)
	}
	defer os.RemoveAll(dir)
	store, err := projection.OpenStore(filepath.Join(dir, "verify.db"), projection.StoreOptions{NoSync: true, HoldToolSets: true})
	if err != nil {
		return nil, err
	}
	defer store.Close()
	return verifyInto(ctx, projection.New(dialects), src, progress, store)
}

// verifyInto is Verify folding into st, committed to store every chunk
// records and before the state is hashed when store is not nil.
func verifyInto(ctx context.Context, st *projection.State, src Source, progress Progress, store *projection.Store) (*Report, error) {
	rep := &Report{}
	// First the stored log itself: a log that was tampered with is not
	// replayed.
	if ms, ok := src.(MsgSource); ok {
		// Checked as it is read, the log counted to its end past a bad
		// record (the report's records), none of it held.
		c, n := newChainCheck(), uint64(0)
		err := ms.EachMsg(ctx, 1, func(m Msg) error {
			n++
			if rep.Tamper == nil {
				rep.Tamper = c.add(m)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if rep.Tamper != nil {
			rep.Records = n
			return rep, nil
		}
	}
	n, err := each(ctx, src, 0, progress, func(seq uint64, rec *events.Record) error {
		if d := recheck(st, rec, seq); d != nil {
			rep.DriftCount++
			if len(rep.Drifts) < MaxDrifts {
				rep.Drifts = append(rep.Drifts, *d)
			}
		}
		if err := st.Apply(projection.Input{Record: rec}, seq); err != nil {
			return err
		}
		if store != nil && seq%chunk == 0 {
			return store.CommitAsync(st)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if store != nil {
		if err := store.Commit(st); err != nil {
			return nil, err
		}
	}
	rep.Records = n
	if rep.StateHash, err = st.StateHash(); err != nil {
		return nil, err
	}
	return rep, nil
}

// recheck decides rec's event again at st and compares.
func recheck(st *projection.State, rec *events.Record, seq uint64) *Drift {
	ev := rec.Event()
	if isRefusal(rec) {
		// The decision record of a refused effect: decide the effect again.
		var d events.CheckedData
		var dec projection.CheckDecided
		_ = json.Unmarshal(rec.Data, &d)
		_ = json.Unmarshal(rec.Decided, &dec)
		data, _ := json.Marshal(events.EffectData{Turn: d.Turn, Tool: d.Tool, Call: d.Call, PreparedAt: dec.PreparedAt})
		ev = &events.Event{ID: rec.ID, Type: events.EffectStarted, V: rec.V, Session: rec.Session, Actor: rec.Actor, Data: data}
	}
	p := st.Prepare(ev, rec.Time)
	drift := &Drift{Seq: seq, ID: rec.ID, Type: rec.Type, Recorded: rec.Decided}
	switch {
	case p.Record == nil:
		drift.Refused = string(events.CodeOf(p.Err))
		if drift.Refused == "" && p.Err == nil {
			drift.Refused = "already landed"
		}
		return drift
	case p.Err != nil && !isRefusal(rec):
		drift.Refused = string(events.CodeOf(p.Err))
		drift.Recomputed = p.Record.Decided
		return drift
	}
	a, err1 := events.CanonicalJSON(rec.Decided)
	b, err2 := events.CanonicalJSON(p.Record.Decided)
	if err1 == nil && err2 == nil && !bytes.Equal(a, b) {
		b = legacyAllow(rec.Decided, p.Record.Decided, b)
	}
	if err1 != nil || err2 != nil || !bytes.Equal(a, b) || p.Record.Type != rec.Type {
		drift.Recomputed = p.Record.Decided
		return drift
	}
	return nil
}

// legacyAllow returns the recomputed decided object (canonical b) with its
// reason replaced by the recorded one when the record is an allow written
// before allows carried reasons (issue 15: "reason":{"code":""}) and the
// allow is recomputed: the decision did not change, only what is said about
// it, so an old log does not drift on every allow.
func legacyAllow(recorded, recomputed json.RawMessage, b []byte) []byte {
	var r, n map[string]json.RawMessage
	if json.Unmarshal(recorded, &r) != nil || json.Unmarshal(recomputed, &n) != nil {
		return b
	}
	if string(r["decision"]) != `"allow"` || string(n["decision"]) != `"allow"` {
		return b
	}
	if c, err := events.CanonicalJSON(r["reason"]); err != nil || string(c) != `{"code":""}` {
		return b
	}
	n["reason"] = r["reason"]
	m, err := json.Marshal(n)
	if err != nil {
		return b
	}
	if c, err := events.CanonicalJSON(m); err == nil {
		return c
	}
	return b
}

func isRefusal(rec *events.Record) bool {
	if rec.Type != events.ToolChecked {
		return false
	}
	var dec struct {
		Reason envelope.Reason `json:"reason"`
	}
	return json.Unmarshal(rec.Decided, &dec) == nil && dec.Reason.Code == projection.ReasonAuthorizationChanged
}

// String renders a drift for people.
func (d *Drift) String() string {
	s := fmt.Sprintf("seq %d %s %s: recorded %s", d.Seq, d.Type, d.ID, d.Recorded)
	if d.Refused != "" {
		s += ", now refused (" + d.Refused + ")"
	}
	if d.Recomputed != nil {
		s += fmt.Sprintf(", recomputed %s", d.Recomputed)
	}
	return s
}
