package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/sessionledger/ledger/events"
)

// Msg is a stored record with its sequence and the content hash the store
// keeps beside it ("" when there is none).
type Msg = events.StoredMsg

// MsgSource is a log whose stored records can be read with their
// sequences, gaps included, for tamper checks: EachMsg calls fn with each
// record from sequence from to the head, in order, holding none of them,
// and an error fn returns ends the read and is EachMsg's.
type MsgSource interface {
	EachMsg(ctx context.Context, from uint64, fn func(Msg) error) error
}

// Tamper is the first place where the log is not what the ledger wrote.
type Tamper struct {
	Seq     uint64 `json:"seq"`
	Problem string `json:"problem"`
	// Format says the record is one this build does not read (a newer
	// version or an unknown type): written by a newer build of the ledger,
	// or altered; either way the log cannot be verified by this build
	// (TestVerifyNewerFormat).
	Format bool `json:"format,omitempty"`
}

// CheckChain checks the stored records for tampering, in order, and
// returns the first bad sequence: a missing record (a gap), a record whose
// bytes do not match the hash stored beside them, a record that claims
// another sequence than the one it sits at, or a record whose link to the
// previous record of its subject (decided.prev) does not match that
// record's hash (then the previous record was altered: it no longer hashes
// to what the chain holds for it). A forger who rewrites every hash, link
// and sequence from the altered record on is not found: the chain has no
// secret key, so keep an off-site copy of the stream or of a recent head
// hash to compare.
func CheckChain(msgs []Msg) *Tamper {
	c := newChainCheck()
	for _, m := range msgs {
		if t := c.add(m); t != nil {
			return t
		}
	}
	return nil
}

// chainCheck is CheckChain one record at a time: what it keeps is a link
// per subject, not the records (ledger verify checks a log of any length
// as it reads it).
type chainCheck struct {
	chains map[string]chainLink
	// scopes holds the scope of every session bound to one other than
	// the default, for its records' subjects.
	scopes map[events.SessionKey]string
	next   uint64
}

type chainLink struct {
	hash string
	seq  uint64
}

func newChainCheck() *chainCheck {
	return &chainCheck{chains: map[string]chainLink{}, scopes: map[events.SessionKey]string{}, next: 1}
}

// add checks the next stored record, and returns the first bad sequence
// it shows, if any.
func (c *chainCheck) add(m Msg) *Tamper {
	if m.Seq != c.next {
		if m.Seq > c.next {
			return &Tamper{Seq: c.next, Problem: fmt.Sprintf("record %d is missing: the stream goes from %d to %d (deleted?)", c.next, c.next-1, m.Seq)}
		}
		return &Tamper{Seq: m.Seq, Problem: fmt.Sprintf("record %d appears again after %d", m.Seq, c.next-1)}
	}
	c.next++
	h := events.HashBytes(m.Data)
	if m.Hash != "" && m.Hash != h {
		return &Tamper{Seq: m.Seq, Problem: fmt.Sprintf("record %d was altered: its bytes hash to %s, the store says %s", m.Seq, h, m.Hash)}
	}
	rec, err := events.DecodeRecord(m.Data)
	if err != nil {
		var head struct {
			V int `json:"v"`
		}
		if json.Unmarshal(m.Data, &head) == nil && head.V > events.Version || events.CodeOf(err) == events.CodeUnknownType {
			return &Tamper{Seq: m.Seq, Format: true, Problem: fmt.Sprintf("record %d is of a format this build does not read (%v): it was written by a newer build of the ledger, or altered; verify with a build at least as new as the one that wrote it", m.Seq, err)}
		}
		return &Tamper{Seq: m.Seq, Problem: fmt.Sprintf("record %d does not decode: %v", m.Seq, err)}
	}
	// Stored as the ledger writes a record (its canonical encoding), so
	// that verify, which folds records re-encoded, hashes the bytes a
	// rebuild hashes (TestVerifyRefusesNonCanonicalRecord).
	if b, err := rec.Encode(); err != nil || !bytes.Equal(b, m.Data) {
		return &Tamper{Seq: m.Seq, Problem: fmt.Sprintf("record %d (%s %s) is not stored as the ledger writes records (canonical JSON): written by something else, or altered", m.Seq, rec.Type, rec.ID)}
	}
	var l struct {
		Seq  uint64 `json:"seq"`
		Prev string `json:"prev"`
	}
	if err := json.Unmarshal(rec.Decided, &l); err != nil {
		return &Tamper{Seq: m.Seq, Problem: fmt.Sprintf("record %d: decided does not decode: %v", m.Seq, err)}
	}
	if l.Seq != m.Seq {
		return &Tamper{Seq: m.Seq, Problem: fmt.Sprintf("record %d (%s %s) was written as record %d: moved or inserted", m.Seq, rec.Type, rec.ID, l.Seq)}
	}
	subject := events.SubjectIn(recordScope(rec, c.scopes), rec.Type, rec.Session)
	if prev := c.chains[subject]; l.Prev != prev.hash {
		if prev.seq == 0 {
			return &Tamper{Seq: m.Seq, Problem: fmt.Sprintf("record %d (%s) links to a previous record of %s, but there is none: inserted or moved", m.Seq, rec.Type, subject)}
		}
		return &Tamper{Seq: prev.seq, Problem: fmt.Sprintf("record %d was altered: it hashes to %s, but record %d, the next on %s, holds %s for it", prev.seq, prev.hash, m.Seq, subject, l.Prev)}
	}
	c.chains[subject] = chainLink{hash: h, seq: m.Seq}
	return nil
}

// recordScope is the scope of a record's subject (as
// projection.State.recordScope decides it, from the records alone), and
// it notes the scope of a session a record starts or spawns.
func recordScope(rec *events.Record, scopes map[events.SessionKey]string) string {
	switch rec.Type {
	case events.PolicySet, events.GrantAdded, events.GrantRevoked, events.DenyAdded, events.DenyLifted,
		events.SessionStarted, events.SessionSpawned:
	default:
		return scopes[rec.Session]
	}
	p, err := rec.Event().Payload()
	if err != nil {
		return ""
	}
	sc, named := events.NamedScope(p)
	if d, ok := p.(*events.SpawnedData); ok {
		sc = scopes[d.Parent]
	}
	if (named && rec.Type == events.SessionStarted || rec.Type == events.SessionSpawned) && events.ScopeName(sc) != events.DefaultScope {
		scopes[rec.Session] = sc
	}
	return sc
}
