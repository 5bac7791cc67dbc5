package projection

import (
	"encoding/binary"
	"errors"
	"strings"

	"github.com/sessionledger/ledger/events"
)

// How the store lays out what it knows of sessions.
//
// Every session key the records name gets a slot, the sequence of the
// first record that named it (a session's own start or spawn, unless a log
// the ledger did not write named it before). The sessions bucket keeps
// everything about a session under its slot, big-endian, followed by a
// tag: sessions made together sit together in the file, and a commit that
// changes the sessions of the last few thousand records writes the last
// few pages of the bucket rather than a page per session. The slots bucket
// maps each slot back to its key. The tags reach disk: never change one.
const (
	tagSession = 's' // the session
	tagTurn    = 't' // then the turn number (4 bytes, big-endian): a turn
	tagYield   = 'y' // its most recent yield
	tagChain   = 'h' // then 's' or 'd': the chain head of its session or decision subject
	tagCall    = 'c' // then the tool (after its length) and the call: the latest check of the call that prepares effects
)

// slot is a session key's place in the store, and whether a record made it
// a session.
type slot struct {
	n       uint64
	session bool
}

// slotValue is a slot's entry in the slots bucket: 1 for a session (0 for a
// key no record created), then the key.
func slotValue(key events.SessionKey, sl slot) []byte {
	return appendSlotValue(make([]byte, 0, len(key)+1), key, sl)
}

// appendSlotValue appends slotValue(key, sl) to b.
func appendSlotValue(b []byte, key events.SessionKey, sl slot) []byte {
	var flag byte
	if sl.session {
		flag = 1
	}
	return append(append(b, flag), key...)
}

// sessionKey is where something of a session is stored in the sessions
// bucket.
func sessionKey(n uint64, tag byte, rest ...byte) []byte {
	return appendSessionKey(make([]byte, 0, 9+len(rest)), n, tag, rest...)
}

// appendSessionKey appends sessionKey(n, tag, rest...) to b.
func appendSessionKey(b []byte, n uint64, tag byte, rest ...byte) []byte {
	b = binary.BigEndian.AppendUint64(b, n)
	return append(append(b, tag), rest...)
}

// parseSessionKey splits a key of the sessions bucket.
func parseSessionKey(k []byte) (n uint64, tag byte, rest []byte, ok bool) {
	if len(k) < 9 {
		return 0, 0, nil, false
	}
	return binary.BigEndian.Uint64(k), k[8], k[9:], true
}

func turnKey(n uint64, turn int) []byte {
	return sessionKey(n, tagTurn, binary.BigEndian.AppendUint32(nil, uint32(turn))...)
}

// call names one call of a session, for the index of checks by call.
type call struct {
	key        events.SessionKey
	tool, call string
}

func (c call) suffix() []byte { return c.appendSuffix(nil) }

// appendSuffix appends c.suffix() to b.
func (c call) appendSuffix(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(c.tool)))
	b = append(b, c.tool...)
	return append(b, c.call...)
}

// The subjects whose chain heads are kept with their session.
var (
	sessionSubject  = events.Subject(events.SessionStarted, "")
	decisionSubject = events.Subject(events.ToolChecked, "")
)

// subjectSession returns the session of a session or decision subject and
// the byte that tells the two apart.
func subjectSession(subject string) (events.SessionKey, byte, bool) {
	if k, ok := strings.CutPrefix(subject, sessionSubject); ok {
		return events.SessionKey(k), 's', true
	}
	if k, ok := strings.CutPrefix(subject, decisionSubject); ok {
		return events.SessionKey(k), 'd', true
	}
	return "", 0, false
}

// chainSubject is the subject of a chain head kept with a session.
func chainSubject(key events.SessionKey, rest []byte) (string, bool) {
	switch string(rest) {
	case "s":
		return sessionSubject + string(key), true
	case "d":
		return decisionSubject + string(key), true
	}
	return "", false
}

// chainKey is where a subject's chain head is stored: with its session
// (when the key has a slot), else (the policy subject) in the chains
// bucket.
func (s *State) chainKey(subject string) (bucket, key []byte) {
	return s.appendChainKey(nil, subject)
}

// appendChainKey is chainKey with the key appended to b.
func (s *State) appendChainKey(b []byte, subject string) (bucket, key []byte) {
	if k, kind, ok := subjectSession(subject); ok {
		if sl, ok := s.slots[k]; ok {
			return bucketSessions, appendSessionKey(b, sl.n, tagChain, kind)
		}
	}
	return bucketChains, append(b, subject...)
}

// Bucket names. They reach disk: never rename one.
var (
	bucketMeta     = []byte("meta")
	bucketPolicy   = []byte("policy")
	bucketSessions = []byte("sessions") // keyed as layout.go says
	bucketSlots    = []byte("slots")
	bucketIDs      = []byte("ids")
	bucketToolSets = []byte("toolsets")
	// The bases of tool sets (see toolSetFormat); not in Store.Dump, which
	// shows each set joined.
	bucketToolSetBases = []byte("toolsetbases")
	bucketLog          = []byte("log")
	bucketChains       = []byte("chains")
	allBuckets         = [][]byte{bucketMeta, bucketPolicy, bucketSessions, bucketSlots, bucketIDs,
		bucketToolSets, bucketLog, bucketChains, bucketToolSetBases}
)

// SchemaVersion is the layout version of the store; a store of another
// version is refused with a message that says to rebuild it.
//
// Version 4 keeps everything about a session (turns, yield, chain heads,
// the latest check of each call) with it in "sessions", under the session
// key's slot (see layout.go), and writes ids and log entries in binary (see
// logValue and landedValue). Version 5 stores a tool set as its base,
// shared by the sets that differ only in the records their reasons name,
// and those records (see toolSetFormat). Version 6 stores a check in its
// record's log entry, not in a bucket of its own (see logValue).
const SchemaVersion = "6"

// ErrSchema is returned for a store written by another layout version.
var ErrSchema = errors.New("projection: the store was written by another layout version; rebuild it with 'ledger replay --out NEW' and move NEW over it")
