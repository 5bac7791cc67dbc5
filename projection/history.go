package projection

import (
	"fmt"
	"slices"
	"sort"
	"strings"

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
	calls  map[call]uint64
	// slots holds the slots made or changed after base.
	slots map[events.SessionKey]slot
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
		calls:    map[call]uint64{},
		slots:    map[events.SessionKey]slot{},
		turns:    map[events.SessionKey]*turnList{},
		toolsets: map[string]envelope.ToolSet{},
		chains:   map[string]string{},
		yields:   map[events.SessionKey]*yield{},
	}
}

// fail keeps the first error reading the store.
func (s *State) fail(err error) {
	if s.err == nil {
		s.err = fmt.Errorf("projection: reading %s: %w", s.store.path, err)
	}
}

// The overlays, newest first: what was folded since the last commit, then
// what a commit that has not finished yet is writing (see
// Store.CommitAsync).
func (s *State) layers() []*history {
	if s.flushing != nil {
		return []*history{s.recent, s.flushing}
	}
	return []*history{s.recent}
}

// base is the sequence up to which the store holds the history.
func (s *State) base() uint64 {
	if s.flushing != nil {
		return s.flushing.base
	}
	return s.recent.base
}

// landedAt returns where a record id first landed: the store and the older
// overlays hold the earlier records, so they answer first.
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
	ls := s.layers()
	for i := len(ls) - 1; i >= 0; i-- {
		if l, ok := ls[i].ids[id]; ok {
			return l, true
		}
	}
	return landed{}, false
}

// stored returns the slot of a session key when the store may hold
// something of it: a key named after the last commit has nothing there.
func (s *State) stored(key events.SessionKey) (slot, bool) {
	sl, ok := s.slots[key]
	return sl, ok && s.store != nil && sl.n <= s.base()
}

// chainHead returns the hash of the last record on subject ("" if none).
func (s *State) chainHead(subject string) string {
	for _, l := range s.layers() {
		if h, ok := l.chains[subject]; ok {
			return h
		}
	}
	if s.store == nil {
		return ""
	}
	if k, _, ok := subjectSession(subject); ok {
		if sl, named := s.slots[k]; named && sl.n > s.base() {
			return "" // named after the last commit: nothing is stored
		}
	}
	h, err := s.store.chainHead(s.chainKey(subject))
	if err != nil {
		s.fail(err)
	}
	return h
}

// checkAt returns the tool.checked record at seq, nil if there is none.
func (s *State) checkAt(seq uint64) *check {
	for _, l := range s.layers() {
		if seq > l.base {
			return l.checks[seq]
		}
	}
	if s.store == nil {
		return nil
	}
	c, err := s.store.check(seq)
	if err != nil {
		s.fail(err)
	}
	return c
}

// latestCheck returns the sequence of the latest check of a call that
// prepares effects (0 if none).
func (s *State) latestCheck(c call) uint64 {
	for _, l := range s.layers() {
		if seq, ok := l.calls[c]; ok {
			return seq
		}
	}
	sl, ok := s.stored(c.key)
	if !ok {
		return 0
	}
	seq, err := s.store.call(sessionKey(sl.n, tagCall, c.suffix()...))
	if err != nil {
		s.fail(err)
	}
	return seq
}

// yieldOf returns a session's most recent yield, nil if it never yielded.
// The caller must not change it (see yieldToChange).
func (s *State) yieldOf(key events.SessionKey) *yield {
	for _, l := range s.layers() {
		if y, ok := l.yields[key]; ok {
			return y
		}
	}
	sl, ok := s.stored(key)
	if !ok {
		return nil
	}
	y, err := s.store.yield(sl.n)
	if err != nil {
		s.fail(err)
	}
	return y
}

// yieldToChange returns a session's yield for a record to change it.
func (s *State) yieldToChange(key events.SessionKey) *yield {
	if y, ok := s.recent.yields[key]; ok {
		return y
	}
	y := s.yieldOf(key)
	if y != nil {
		// An unfinished commit may be writing the one it has.
		y = &yield{Ref: y.Ref, Children: slices.Clone(y.Children), Current: y.Current}
		s.recent.yields[key] = y
	}
	return y
}

// toolSet returns a tool set by hash.
func (s *State) toolSet(hash string) envelope.ToolSet {
	for _, l := range s.layers() {
		if ts, ok := l.toolsets[hash]; ok {
			return ts
		}
	}
	if s.store == nil {
		return envelope.ToolSet{}
	}
	ts, err := s.store.toolSet(hash)
	if err != nil {
		s.fail(err)
	}
	return ts
}

// turnCount is how many turns a session has taken.
func (s *State) turnCount(key events.SessionKey) int {
	for _, l := range s.layers() {
		if tl := l.turns[key]; tl != nil {
			return tl.stored + len(tl.list)
		}
	}
	sl, ok := s.stored(key)
	if !ok {
		return 0
	}
	n, err := s.store.turnCount(sl.n)
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
	for _, l := range s.layers() {
		if tl := l.turns[key]; tl != nil && turn > tl.stored {
			if i := turn - tl.stored - 1; i < len(tl.list) {
				return tl.list[i], true
			}
			return Turn{}, false
		}
	}
	sl, ok := s.stored(key)
	if !ok {
		return Turn{}, false
	}
	t, ok, err := s.store.turn(sl.n, turn)
	if err != nil {
		s.fail(err)
	}
	return t, ok
}

// addTurn folds a session's turn.
func (s *State) addTurn(sess *envelope.Session, t Turn) {
	tl := s.recent.turns[sess.Key]
	if tl == nil {
		tl = &turnList{stored: s.turnCount(sess.Key)}
		s.recent.turns[sess.Key] = tl
	}
	tl.list = append(tl.list, t)
}

// Session returns a session by key, nil when it does not exist.
func (s *State) Session(key events.SessionKey) *envelope.Session {
	if sess := s.sessions[key]; sess != nil || s.store == nil {
		return sess
	}
	sl := s.slots[key]
	if !sl.session {
		return nil
	}
	sess, err := s.store.session(sl.n)
	if err != nil {
		s.fail(err)
		return nil
	}
	if sess != nil {
		s.hold(key, sess)
	}
	return sess
}

// exists reports whether a session exists, without reading it.
func (s *State) exists(key events.SessionKey) bool { return s.slots[key].session }

// name gives a session key its slot, if it has none, when a record at seq
// names it; session says the record makes it a session.
func (s *State) name(key events.SessionKey, seq uint64, session bool) {
	sl, ok := s.slots[key]
	if ok && (sl.session || !session) {
		return
	}
	if !ok {
		sl.n = seq
	}
	sl.session = sl.session || session
	// Kept for as long as the state: a key of its own, not one sharing
	// bytes with a record's other strings (assigning to a map key that is
	// there replaces the key too).
	key = events.SessionKey(strings.Clone(string(key)))
	s.slots[key] = sl
	s.recent.slots[key] = sl
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
	s.name(sess.Key, sess.Origin.Seq, true)
	s.sessions[sess.Key] = sess
	s.changed[sess.Key] = true
}

// Keys returns every session key in sorted order.
func (s *State) Keys() []events.SessionKey {
	keys := make([]events.SessionKey, 0, len(s.slots))
	for k, sl := range s.slots {
		if sl.session {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// Ref returns the RecordRef of the record at seq.
func (s *State) Ref(seq uint64) (envelope.RecordRef, bool) {
	if seq == 0 || seq > s.seq {
		return envelope.RecordRef{}, false
	}
	for _, l := range s.layers() {
		if seq > l.base {
			return l.refs[seq-l.base-1], true
		}
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
	for _, l := range s.layers() {
		if len(l.times) > 0 && l.times[0] <= t || s.store == nil && l.base == 0 {
			return l.base + uint64(sort.Search(len(l.times), func(i int) bool { return l.times[i] > t })), nil
		}
	}
	return s.store.atTime(t, s.base())
}
