package projection

import (
	"errors"
	"slices"
	"sort"
	"strings"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// history is where a state reads the history it does not hold in memory:
// what was folded up to the last commit, one key at a time. Every read
// answers an error when the history cannot be read, and the state answers
// it to its caller as a storage error (see readError), never as an absent
// value. A Store is one; a state in memory has none.
//
// The keys are the store's layout (see layout.go): slots of session keys,
// the sessions bucket's keys, sequences, record ids and tool-set hashes.
type history interface {
	// Path names the history in errors (the file of a Store).
	Path() string
	// landed is where a record id first landed.
	landed(id string) (landed, bool, error)
	// chainHead is the hash stored under a subject's chain key (see
	// State.chainKey), "" when none.
	chainHead(bucket, key []byte) (string, error)
	// check is the tool.checked record at seq, nil when none.
	check(seq uint64) (*check, error)
	// call is the sequence stored under a call's key, 0 when none.
	call(key []byte) (uint64, error)
	// yield is the most recent yield of the session in a slot, nil when
	// none.
	yield(slot uint64) (*yield, error)
	// toolSet is a tool set by hash.
	toolSet(hash string) (envelope.ToolSet, error)
	// session is the session in a slot, nil when none.
	session(slot uint64) (*envelope.Session, error)
	// turn is a turn (numbered from 1) of the session in a slot.
	turn(slot uint64, turn int) (Turn, bool, error)
	// turnCount is how many turns the session in a slot took.
	turnCount(slot uint64) (int, error)
	// logEntry is the id, type and time of the record at seq.
	logEntry(seq uint64) (logEntry, bool, error)
	// atTime is how many of the records 1..n have a time at or before t.
	atTime(t string, n uint64) (uint64, error)
	// scan calls fn with a reader of every stored entry of a bucket, in
	// key order, all from one snapshot (for the dump).
	scan(fn func(each func(bucket []byte, fn func(k, v []byte) error) error) error) error
}

var _ history = (*Store)(nil)

// overlay is the part of the folded state that later decisions and queries
// read one key at a time: where each record id landed, each record's
// reference and time, checks, turns, tool sets, chain heads and yields. It
// holds what was folded after base; for a state in memory base is 0 and it
// holds everything, for a state committed to a store the rest is in the
// store.
type overlay struct {
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
	// slab is where the next checks are made (newCheck).
	slab []check
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

// newCheck is a new check of o's, made with others, one allocation for
// many (a check lives as long as its overlay; TestDecideAllocs counts it).
func (o *overlay) newCheck() *check {
	if len(o.slab) == 0 {
		o.slab = make([]check, 32)
	}
	c := &o.slab[0]
	o.slab = o.slab[1:]
	return c
}

type turnList struct {
	stored int // turns the session had at base
	list   []Turn
}

func newOverlay(base uint64) *overlay { return newOverlayLike(base, &overlay{}) }

// newOverlayLike is newOverlay with its maps made for as many entries as
// prev's: the overlay after a commit gathers about what the one before it
// did, and a map grown from empty rehashes its entries at each doubling
// (a rebuild's commits of 2,048 records each spent about 3% of its CPU
// there). prev is left as it is: its commit may still read it.
func newOverlayLike(base uint64, prev *overlay) *overlay {
	return &overlay{
		base:     base,
		ids:      make(map[string]landed, len(prev.ids)),
		checks:   make(map[uint64]*check, len(prev.checks)),
		calls:    make(map[call]uint64, len(prev.calls)),
		slots:    make(map[events.SessionKey]slot, len(prev.slots)),
		turns:    make(map[events.SessionKey]*turnList, len(prev.turns)),
		toolsets: make(map[string]envelope.ToolSet, len(prev.toolsets)),
		chains:   make(map[string]string, len(prev.chains)),
		yields:   make(map[events.SessionKey]*yield, len(prev.yields)),
	}
}

// fail keeps the first error reading the history in the operation under
// way (see enter), as a storage error.
func (s *State) fail(err error) {
	if s.readErr == nil {
		s.readErr = readError(s.hist.Path(), err)
	}
}

// enter starts an operation that reads the history: it answers the first
// error reading it of the operations under way, for leave, and keeps from
// now on the first of this one's.
func (s *State) enter() error {
	saved := s.readErr
	s.readErr = nil
	return saved
}

// leave ends an operation: when one of its reads failed, the operation
// answers that error instead of its own (a query answered from a history
// that could not be read is no answer: not an unknown session, not a
// missing turn), and so do the operations under way it is part of.
func (s *State) leave(saved error, err *error) {
	if s.readErr != nil && err != nil {
		*err = s.readErr
	}
	if saved != nil {
		s.readErr = saved
	}
}

// The overlays, newest first: what was folded since the last commit, then
// what a commit that has not finished yet is writing (see
// Store.CommitAsync).
func (s *State) layers() []*overlay {
	if s.flushing != nil {
		return []*overlay{s.recent, s.flushing}
	}
	return []*overlay{s.recent}
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
	if s.hist != nil {
		l, ok, err := s.hist.landed(id)
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
	return sl, ok && s.hist != nil && sl.n <= s.base()
}

// chainHead returns the hash of the last record on subject ("" if none).
func (s *State) chainHead(subject string) string {
	for _, l := range s.layers() {
		if h, ok := l.chains[subject]; ok {
			return h
		}
	}
	if s.hist == nil {
		return ""
	}
	if k, _, ok := subjectSession(subject); ok {
		if sl, named := s.slots[k]; named && sl.n > s.base() {
			return "" // named after the last commit: nothing is stored
		}
	}
	h, err := s.hist.chainHead(s.chainKey(subject))
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
	if s.hist == nil {
		return nil
	}
	c, err := s.hist.check(seq)
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
	seq, err := s.hist.call(sessionKey(sl.n, tagCall, c.suffix()...))
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
	y, err := s.hist.yield(sl.n)
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
	if s.hist == nil {
		return envelope.ToolSet{}
	}
	ts, err := s.hist.toolSet(hash)
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
	n, err := s.hist.turnCount(sl.n)
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
	t, ok, err := s.hist.turn(sl.n, turn)
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

// Session returns a session by key, nil when it does not exist. It
// implements envelope.World. A state that reads from a store answers nil
// as well when the session cannot be read, and the operation it is part
// of (Prepare, Apply, a query, Read) answers the storage error; Lookup
// answers it alone.
func (s *State) Session(key events.SessionKey) *envelope.Session {
	if sess := s.sessions[key]; sess != nil || s.hist == nil {
		return sess
	}
	sl := s.slots[key]
	if !sl.session {
		return nil
	}
	sess, err := s.hist.session(sl.n)
	if err != nil {
		s.fail(err)
		return nil
	}
	if sess != nil {
		s.hold(key, sess)
	}
	return sess
}

// Lookup returns a session by key: nil and no error when it does not
// exist, and an error with the code events.CodeStorage when it cannot be
// read.
func (s *State) Lookup(key events.SessionKey) (sess *envelope.Session, err error) {
	defer s.leave(s.enter(), &err)
	return s.Session(key), nil
}

// Read runs fn, a read of s made of several calls (as a view of the
// service is), and answers the first error reading the history during fn
// in place of fn's own: what fn concluded from a history that could not be
// read (an absent session, say) is no answer.
func (s *State) Read(fn func() error) (err error) {
	defer s.leave(s.enter(), &err)
	return fn()
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
	e, ok, err := s.hist.logEntry(seq)
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
		if len(l.times) > 0 && l.times[0] <= t || s.hist == nil && l.base == 0 {
			return l.base + uint64(sort.Search(len(l.times), func(i int) bool { return l.times[i] > t })), nil
		}
	}
	n, err := s.hist.atTime(t, s.base())
	if err != nil {
		s.fail(err)
		return 0, s.readErr
	}
	return n, nil
}

// storageError is the error of a read of the history that failed: the
// code events.CodeStorage, with a message that names the file and says
// how to get a good one back, and the read's own error (errors.Is and
// errors.As reach both).
type storageError struct {
	coded *events.Error
	err   error
}

func (e *storageError) Error() string   { return e.coded.Error() }
func (e *storageError) Unwrap() []error { return []error{e.coded, e.err} }

// readError is the storage error of a failed read of the history at path.
func readError(path string, err error) error {
	var se *storageError
	if errors.As(err, &se) {
		return err
	}
	msg := err.Error()
	var df *damagedFile
	var closed errStoreClosed
	if !errors.As(err, &df) && !errors.As(err, &closed) {
		msg = damaged(path, err).Error()
	}
	return &storageError{coded: &events.Error{Code: events.CodeStorage, Msg: msg}, err: err}
}
