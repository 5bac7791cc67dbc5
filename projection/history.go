package projection

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sort"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// history is the part of the folded state that later decisions and queries
// read one key at a time: where each record id landed, each record's
// reference and time, checks, turns, tool sets, chain heads and yields. It
// holds what was folded after base; for a state in memory base is 0 and it
// holds everything, for a state committed to a store the rest is in the
// store.
type history struct {
	base uint64
	// ids maps a record id to where it first landed.
	ids map[string]landed
	// refs and times are the reference and time of record base+1+i.
	refs  []envelope.RecordRef
	times []string
	// checks holds tool.checked records by sequence; calls indexes the
	// latest check that prepares effects by session, tool and call.
	checks map[uint64]*check
	calls  map[string]uint64
	// turns holds each session's turns folded after base, numbered on from
	// the turns it had at base.
	turns map[events.SessionKey]*turnList
	// toolsets holds each distinct tool set once, by hash.
	toolsets map[string]envelope.ToolSet
	// chains holds, for every subject, the hash of its last record: each
	// record's decided.prev links to it (a hash chain per session, policy
	// and decision subject).
	chains map[string]string
	// yields holds each session's most recent yield.
	yields map[events.SessionKey]*yield
}

type turnList struct {
	stored int // turns the session had at base
	list   []Turn
}

func newHistory(base uint64) *history {
	return &history{
		base:     base,
		ids:      map[string]landed{},
		checks:   map[uint64]*check{},
		calls:    map[string]uint64{},
		turns:    map[events.SessionKey]*turnList{},
		toolsets: map[string]envelope.ToolSet{},
		chains:   map[string]string{},
		yields:   map[events.SessionKey]*yield{},
	}
}

// callKey names the checks of one call: session, tool and call id, each
// length-prefixed so no two triples share a key.
func callKey(key events.SessionKey, tool, call string) string {
	b := make([]byte, 0, len(key)+len(tool)+len(call)+6)
	for _, f := range []string{string(key), tool, call} {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	return string(b)
}

// fail keeps the first error reading the store.
func (s *State) fail(err error) {
	if s.err == nil {
		s.err = fmt.Errorf("projection: reading %s: %w", s.store.path, err)
	}
}

// landedAt returns where a record id first landed. The store holds the
// earlier records, so it answers first.
func (s *State) landedAt(id string) (landed, bool) {
	if s.store != nil {
		l, ok, err := s.store.landed(id)
		if err != nil {
			s.fail(err)
			return landed{}, false
		}
		if ok {
			return l, true
		}
	}
	l, ok := s.recent.ids[id]
	return l, ok
}

// chainHead returns the hash of the last record on subject ("" if none).
func (s *State) chainHead(subject string) string {
	if h, ok := s.recent.chains[subject]; ok || s.store == nil {
		return h
	}
	h, err := s.store.chainHead(subject)
	if err != nil {
		s.fail(err)
	}
	return h
}

// checkAt returns the tool.checked record at seq, nil if there is none.
func (s *State) checkAt(seq uint64) *check {
	if seq > s.recent.base || s.store == nil {
		return s.recent.checks[seq]
	}
	c, err := s.store.check(seq)
	if err != nil {
		s.fail(err)
	}
	return c
}

// latestCheck returns the sequence of the latest check of a call that
// prepares effects (0 if none).
func (s *State) latestCheck(key events.SessionKey, tool, call string) uint64 {
	k := callKey(key, tool, call)
	if seq, ok := s.recent.calls[k]; ok || s.store == nil {
		return seq
	}
	seq, err := s.store.call(k)
	if err != nil {
		s.fail(err)
	}
	return seq
}

// yieldOf returns a session's most recent yield, nil if it never yielded.
// The caller must not change it (see yieldToChange).
func (s *State) yieldOf(key events.SessionKey) *yield {
	if y, ok := s.recent.yields[key]; ok || s.store == nil {
		return y
	}
	y, err := s.store.yield(key)
	if err != nil {
		s.fail(err)
	}
	return y
}

// yieldToChange returns a session's yield for a record to change it.
func (s *State) yieldToChange(key events.SessionKey) *yield {
	y := s.yieldOf(key)
	if y != nil {
		s.recent.yields[key] = y
	}
	return y
}

// toolSet returns a tool set by hash.
func (s *State) toolSet(hash string) envelope.ToolSet {
	if ts, ok := s.recent.toolsets[hash]; ok || s.store == nil {
		return ts
	}
	ts, err := s.store.toolSet(hash)
	if err != nil {
		s.fail(err)
	}
	return ts
}

// turnCount is how many turns a session has taken.
func (s *State) turnCount(key events.SessionKey) int {
	if tl := s.recent.turns[key]; tl != nil {
		return tl.stored + len(tl.list)
	}
	return s.storedTurns(key)
}

// storedTurns is how many turns a session had at base.
func (s *State) storedTurns(key events.SessionKey) int {
	if s.store == nil {
		return 0
	}
	n, err := s.store.turnCount(key)
	if err != nil {
		s.fail(err)
	}
	return n
}

// turnAt returns a session's turn (numbered from 1).
func (s *State) turnAt(key events.SessionKey, turn int) (Turn, bool) {
	if turn < 1 {
		return Turn{}, false
	}
	tl := s.recent.turns[key]
	if tl != nil && turn > tl.stored {
		if i := turn - tl.stored - 1; i < len(tl.list) {
			return tl.list[i], true
		}
		return Turn{}, false
	}
	if s.store == nil {
		return Turn{}, false
	}
	t, ok, err := s.store.turn(key, turn)
	if err != nil {
		s.fail(err)
	}
	return t, ok
}

// addTurn folds a session's turn.
func (s *State) addTurn(sess *envelope.Session, t Turn) {
	tl := s.recent.turns[sess.Key]
	if tl == nil {
		tl = &turnList{}
		if sess.Origin.Seq <= s.recent.base {
			// A session started after base has no stored turns.
			tl.stored = s.storedTurns(sess.Key)
		}
		s.recent.turns[sess.Key] = tl
	}
	tl.list = append(tl.list, t)
}

// Session returns a session by key, nil when it does not exist.
func (s *State) Session(key events.SessionKey) *envelope.Session {
	if sess := s.sessions[key]; sess != nil || s.store == nil {
		return sess
	}
	sess, err := s.store.session(key)
	if err != nil {
		s.fail(err)
		return nil
	}
	if sess != nil {
		s.sessions[key] = sess
	}
	return sess
}

// maxSessions is how many sessions a state that reads from a store keeps
// in memory after a commit, besides those the commit wrote.
var maxSessions = 1 << 13

// evictSessions keeps a state that reads from a store from holding every
// session it ever read: after a commit it keeps the sessions the commit
// wrote (the active ones) and, up to maxSessions, the others it read.
func (s *State) evictSessions(wrote map[events.SessionKey]bool) {
	if len(s.sessions) <= maxSessions+len(wrote) {
		return
	}
	for k := range s.sessions {
		if !wrote[k] {
			delete(s.sessions, k)
		}
	}
}

// exists reports whether a session exists, without reading it.
func (s *State) exists(key events.SessionKey) bool {
	if s.sessions[key] != nil || s.store == nil {
		return s.sessions[key] != nil
	}
	ok, err := s.store.hasSession(key)
	if err != nil {
		s.fail(err)
	}
	return ok
}

// toChange returns a session for the record being folded to change, nil
// when it does not exist.
func (s *State) toChange(key events.SessionKey) *envelope.Session {
	sess := s.Session(key)
	if sess != nil {
		s.changed[key] = true
	}
	return sess
}

// add folds a new session.
func (s *State) add(sess *envelope.Session) {
	s.sessions[sess.Key] = sess
	s.changed[sess.Key] = true
}

// Keys returns every session key in sorted order.
func (s *State) Keys() []events.SessionKey {
	keys := make([]events.SessionKey, 0, len(s.sessions))
	for k := range s.sessions {
		keys = append(keys, k)
	}
	if s.store != nil {
		stored, err := s.store.sessionKeys()
		if err != nil {
			s.fail(err)
		}
		keys = append(keys, stored...)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// Ref returns the RecordRef of the record at seq.
func (s *State) Ref(seq uint64) (envelope.RecordRef, bool) {
	if seq == 0 || seq > s.seq {
		return envelope.RecordRef{}, false
	}
	if seq > s.recent.base {
		return s.recent.refs[seq-s.recent.base-1], true
	}
	e, ok, err := s.store.logEntry(seq)
	if err != nil {
		s.fail(err)
	}
	return envelope.RecordRef{Seq: seq, ID: e.ID, Type: e.Type}, ok
}

// Landed returns the sequence at which a record id landed.
func (s *State) Landed(id string) (uint64, bool) {
	l, ok := s.landedAt(id)
	return l.Seq, ok
}

// ChainHead returns the hash of the last record on subject ("" if none).
func (s *State) ChainHead(subject string) string { return s.chainHead(subject) }

// atTime returns how many records have a time at or before t. Record times
// never decrease along the log.
func (s *State) atTime(t string) (uint64, error) {
	r := s.recent
	if len(r.times) > 0 && r.times[0] <= t || s.store == nil {
		return r.base + uint64(sort.Search(len(r.times), func(i int) bool { return r.times[i] > t })), nil
	}
	return s.store.atTime(t, r.base)
}
