package projection

import (
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// The sessions a state that reads from a store holds in memory.
//
// It must hold the sessions it changed since the last commit (the store
// does not have them as they are now). It also holds, as a cache, sessions
// it read from the store: the session of a query, and the sessions a
// decision reads besides (a child's parent, an envelope's requester). A
// query of a session held costs no read and no decoding, whatever the size
// of the store; a query of another reads one key of the store.
//
// The cache is bounded in entries: at most 2*maxSessions+1 besides the
// changed ones (a few kilobytes each). When it is full, and at a commit
// when it holds more than maxSessions, it keeps the sessions queries asked
// about since the last eviction and lets the others go, so that sessions
// being queried stay hot however many others a fold or a burst of cold
// queries reads.
//
// Caveats: a session held and not changed is the session the store holds,
// so what is held never changes an answer, a dump or a hash. That holds
// only if nothing is let go while a commit is being written (see
// Store.CommitAsync): the sessions it writes are in neither the store nor
// the changed set then, so eviction waits for the next commit.

// maxSessions is how many sessions a state that reads from a store keeps
// in memory after a commit, besides those the commit wrote.
var maxSessions = 1 << 13

// hold keeps a session read from the store.
func (s *State) hold(key events.SessionKey, sess *envelope.Session) {
	if s.flushing == nil && len(s.sessions) > 2*maxSessions+len(s.changed) {
		// A replica that only answers queries commits nothing.
		s.evictSessions(s.changed)
	}
	s.sessions[key] = sess
}

// ask notes that a query asked about a session.
func (s *State) ask(key events.SessionKey) {
	if s.hist == nil || s.asked[key] {
		return
	}
	if s.asked == nil {
		s.asked = map[events.SessionKey]bool{}
	}
	s.asked[key] = true
}

// evictSessions keeps a state that reads from a store from holding every
// session it ever read: it keeps the sessions in wrote (changed since the
// last commit, or just written by it) and, up to maxSessions/2, those
// queries asked about since the last eviction; it lets the others go.
// Keeping at most half leaves room for maxSessions/2 reads before the next
// eviction, so that evicting (a pass over what is held) costs a constant
// per session read, and a session queried at least once in that many
// reads stays.
func (s *State) evictSessions(wrote map[events.SessionKey]bool) {
	if len(s.sessions) <= maxSessions+len(wrote) {
		return
	}
	room := maxSessions / 2
	for k := range s.sessions {
		switch {
		case wrote[k]:
		case s.asked[k] && room > 0:
			room--
		default:
			delete(s.sessions, k)
		}
	}
	clear(s.asked)
}
