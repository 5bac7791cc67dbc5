package projection

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// Dialects maps a dialect name to its implementation.
type Dialects map[string]envelope.Dialect

// State is the ledger's state folded up to a position of the log.
//
// It keeps in memory what the next decision needs: the policy history and
// the sessions. The rest is history (record ids and references, checks,
// turns, tool sets, chain heads, yields): a state in memory keeps all of it
// in recent; a state committed to a Store keeps in recent only what it
// folded since the last commit and reads the rest from the store, one key
// at a time, and keeps in memory only the sessions it changed since the
// last commit and a bounded number of others.
//
// A State is not safe for concurrent use, not even by queries (they cache
// what they read): its owner serialises every call, and the Store's
// commits of it (see the package documentation, "Concurrency").
type State struct {
	dialects Dialects
	// scopes holds every scope a policy.set made, by name (see scope.go).
	scopes map[string]*scope

	seq      uint64
	lastTime string
	// sessions holds every session of a state in memory; for a state that
	// reads from a store, those changed since the last commit (named in
	// changed) and others it read, up to maxSessions.
	sessions map[events.SessionKey]*envelope.Session
	changed  map[events.SessionKey]bool
	// asked holds the sessions queries asked about since sessions were last
	// evicted: eviction keeps them (see cache.go).
	asked map[events.SessionKey]bool
	// slots holds the slot of every session key the records name (see
	// layout.go).
	slots map[events.SessionKey]slot

	// hist is where the history up to recent.base is (the Store the state
	// was loaded from or committed to), nil for a state in memory.
	hist   history
	recent *overlay
	// flushing is what an unfinished commit is writing (nil when none),
	// read between recent and the store; done answers when it finishes.
	flushing *overlay
	done     chan error
	// err is the first error of a fold that failed halfway (a read of the
	// history, or a commit in the background, failed): every later
	// Prepare, Apply and Commit fails with it.
	err error
	// readErr is the first error reading the history in the operation
	// under way (see enter and leave).
	readErr error

	// memo carries the tool set Prepare resolved for a turn.started to the
	// Apply of the same record, so it is resolved once.
	memo struct {
		id  string
		set envelope.ToolSet
	}

	// cache holds resolved tool sets, keyed by their scope's version and
	// the session's context: derived state only (never dumped or hashed).
	cache map[events.SessionKey]*cachedSet
	// policies is every policy state of every scope that was ever in
	// force, in sequence order, with the sequence it took effect at, so a
	// turn's decisions can be read back without a replay (each scope's
	// own are in its history).
	policies []PolicyAt
}

// PolicyAt is a policy state and the sequence from which it was in force.
type PolicyAt struct {
	Seq    uint64                `json:"seq"`
	Policy *envelope.PolicyState `json:"policy"`
}

// landed is where a record id first landed. Its JSON form (field names
// without tags) is part of the canonical dump.
type landed struct {
	Seq uint64
	// RefusedEffect marks the decision record of a refused effect.
	RefusedEffect bool
}

type yield struct {
	Ref      envelope.RecordRef
	Children []events.SessionKey
	Current  bool
}

type check struct {
	Session  events.SessionKey
	Tool     string // normalized
	Call     string
	Input    json.RawMessage
	Decision envelope.Decision
	// Refusal marks a check that prepares nothing: the decision record of
	// a refused effect, or of an unreadable call.
	Refusal bool
}

// New returns the empty state, before any record, kept in memory.
func New(dialects Dialects) *State {
	return &State{
		dialects: dialects,
		sessions: map[events.SessionKey]*envelope.Session{},
		changed:  map[events.SessionKey]bool{},
		slots:    map[events.SessionKey]slot{},
		recent:   newOverlay(0),
		cache:    map[events.SessionKey]*cachedSet{},
		scopes:   map[string]*scope{},
	}
}

// Turn is one turn of a session: where it started, the hash of the tool
// set resolved there, and the context it ran under.
type Turn struct {
	Seq     uint64           `json:"seq"`
	ToolSet string           `json:"tool_set"`
	Context envelope.Context `json:"context"`
	// Mode is the session's Mode at the turn (what a turn.started reported
	// last); "" when none had.
	Mode string `json:"mode,omitempty"`
}

// TurnSet returns the tool set stored for a session's turn.
//
// A state that reads from a store answers false as well when the turn
// cannot be read; the operation it is part of answers the storage error.
func (s *State) TurnSet(key events.SessionKey, turn int) (envelope.ToolSet, uint64, bool) {
	t, ok := s.turnAt(key, turn)
	if !ok {
		return envelope.ToolSet{}, 0, false
	}
	return s.toolSet(t.ToolSet), t.Seq, true
}

// TurnView is the state as one session's turn saw it, rebuilt from what the
// projection stored for the turn (its context and the policy in force), so
// questions about a past turn are reads, not replays. It implements
// envelope.World.
type TurnView struct {
	s       *State
	sc      *scope
	seq     uint64
	policy  *envelope.PolicyState
	session *envelope.Session
	set     envelope.ToolSet
}

var _ envelope.World = (*TurnView)(nil)

// AtTurn returns the view of a session's turn.
func (s *State) AtTurn(key events.SessionKey, turn int) (_ *TurnView, err error) {
	defer s.leave(s.enter(), &err)
	sess, err := s.queried(key)
	if err != nil {
		return nil, err
	}
	t, ok := s.turnAt(key, turn)
	if !ok {
		return nil, events.Errorf(events.CodeBadTurn, "session %q has no turn %d (turns: %d)", key, turn, s.turnCount(key))
	}
	sc := s.scopeOf(sess)
	if sc == nil {
		return nil, noScope(sess)
	}
	v := *sess
	v.Turn, v.Context, v.State, v.Mode = turn, t.Context, envelope.Active, t.Mode
	return &TurnView{s: s, sc: sc, seq: t.Seq, policy: sc.policyAt(t.Seq), session: &v, set: s.toolSet(t.ToolSet)}, nil
}

// Policy implements envelope.World: the policy in force at the turn.
func (v *TurnView) Policy() *envelope.PolicyState { return v.policy }

// Session implements envelope.World. Sessions other than the turn's own are
// read as they are now: dialects only read what never changes of them.
func (v *TurnView) Session(key events.SessionKey) *envelope.Session {
	if key == v.session.Key {
		return v.session
	}
	return v.s.Session(key)
}

// Position implements envelope.World: the turn's turn.started.
func (v *TurnView) Position() uint64 { return v.seq }

// Tools is the tool set stored for the turn.
func (v *TurnView) Tools() envelope.ToolSet { return v.set }

// Why decides one call as the turn's start saw it, with the full trace.
func (v *TurnView) Why(tool string, input json.RawMessage) envelope.Verdict {
	return decideIn(v, v.sc.dialect, v.policy, v.session, tool, input)
}

// Scope is the name of the scope the turn's session is bound to.
func (v *TurnView) Scope() string { return v.sc.name }

// SessionView is the session as the turn saw it.
func (v *TurnView) SessionView() *envelope.Session { return v.session }

// Position is the sequence of the last record folded.
func (s *State) Position() uint64 { return s.seq }

// LastTime is the time of the last record folded ("" before any).
func (s *State) LastTime() string { return s.lastTime }

// Policy is the policy in force in the default scope, nil before its
// first policy.set (PolicyOf names another scope).
func (s *State) Policy() *envelope.PolicyState { return s.PolicyOf("") }

// Dialect is the default scope's dialect, nil before its first
// policy.set (DialectOf names another scope).
func (s *State) Dialect() envelope.Dialect { return s.DialectOf("") }

var _ envelope.World = (*State)(nil)

// The decided payloads, one per event type that records something.

// PolicyDecided is what a policy.set records. Release is the dialect
// release the revision decides with, for dialects that have releases
// (Releaser); a record without it decides with the dialect's legacy
// behaviour.
type PolicyDecided struct {
	Hash    string `json:"hash"`
	Release string `json:"release,omitempty"`
}

// Releaser is implemented by dialects whose decisions depend on a release
// of the orchestrator they model (openclaw): the release a policy.set
// records, and how a recorded one compiles and normalizes tool names.
type Releaser interface {
	// Release is the release a valid document decides with.
	Release(doc json.RawMessage) string
	// CompileRelease compiles a document under a recorded release ("" for
	// a record from before releases were recorded).
	CompileRelease(doc json.RawMessage, catalogue []string, release string) (any, error)
	// NormalizeUnder normalizes a tool name under the policy's release.
	NormalizeUnder(p *envelope.PolicyState, tool string) string
}

// GrantDecided is what a grant event records, and a deny.added or
// deny.lifted.
type GrantDecided struct {
	Identity string `json:"identity"`
}

// StartDecided is what a session.started records: the facts its dialect
// fixed, and the scope the session is bound to when it is not the
// default one.
type StartDecided struct {
	Facts envelope.Facts `json:"facts"`
	Scope string         `json:"scope,omitempty"`
}

// SpawnDecided is what a session.spawned records: the child's envelope.
type SpawnDecided struct {
	Envelope *envelope.Envelope `json:"envelope"`
	Facts    envelope.Facts     `json:"facts"`
}

// TurnDecided is what a turn.started records.
type TurnDecided struct {
	PolicySource string `json:"policy_source"`
	SourceReason string `json:"source_reason,omitempty"`
	ToolSetHash  string `json:"tool_set_hash"`
}

// ResumeDecided is what a session.resumed records: the continuation outcome.
type ResumeDecided struct {
	PolicySource string `json:"policy_source"`
	SourceReason string `json:"source_reason,omitempty"`
}

// CheckDecided is what a tool.checked records.
type CheckDecided struct {
	Decision     envelope.Decision `json:"decision"`
	Reason       envelope.Reason   `json:"reason"`
	Revision     uint64            `json:"revision"`
	EnvelopeHash string            `json:"envelope_hash,omitempty"`
	PreparedAt   uint64            `json:"prepared_at,omitempty"`
	// Scope is the scope whose policy decided, when it is not the
	// default one (Revision is a revision of that scope's policy).
	Scope string `json:"scope,omitempty"`
}

// EffectDecided is what a tool.effect_started records.
type EffectDecided struct {
	PreparedAt uint64            `json:"prepared_at"`
	Decision   envelope.Decision `json:"decision"`
	Reason     envelope.Reason   `json:"reason"`
	// Scope is the scope whose policy decided, when it is not the
	// default one.
	Scope string `json:"scope,omitempty"`
}

// EmptyDecided is what the other events record.
type EmptyDecided struct{}

// ReasonUnreadable is the reason of a check an attach point recorded for a
// call whose payload it could not read (CheckedData.Unreadable): denied,
// whatever the policy says.
const ReasonUnreadable = "unreadable:payload"

// ReasonAuthorizationChanged is the reason of a refused effect's decision
// record.
const ReasonAuthorizationChanged = "effect:authorization_changed"

// Input is a record to fold, in whichever forms its caller has it: the
// record, its bytes as stored on the stream, or both (the record's hash
// is the hash of its stored bytes, so a caller that has them saves
// encoding it again). Prepared.Input makes the input of a record the
// caller prepared, and Decode one decoded ahead of the fold.
type Input struct {
	// Record is the record; nil to decode it from Bytes.
	Record *events.Record
	// Bytes are the record as stored; nil to encode Record.
	Bytes []byte
	// check is what Prepare decided for a tool.checked, when checked (see
	// Prepared.Input).
	check   CheckDecided
	checked bool
	// payload, subject and hash are what Prepare decoded and computed
	// (see Prepared.Input): the record's payload (nil when the fold
	// decodes it), its subject as the state at, at position pos, computes
	// it, and the hash of Bytes ("" when the fold computes them).
	payload any
	subject string
	at      *State
	pos     uint64
	hash    string
	// decoded is what Decode made ahead of the fold.
	decoded *decoded
}

// Hash is the content hash of the record's stored bytes, when the input
// has them: the hash Prepared.Input computed, so a caller that publishes
// the record with its hash (natslog's Ledger-Hash header) and folds it
// hashes it once.
func (in Input) Hash() string {
	if in.hash == "" && in.Bytes != nil {
		return events.HashBytes(in.Bytes)
	}
	return in.hash
}

// Input is the input of p's record, given with its stored bytes: the fold
// takes what a tool.checked decided as Prepare made it instead of decoding
// it again from the record, which gives the same (FuzzApplyPrepared folds
// records both ways and compares the decisions and the states).
//
// It carries as well, so the fold of a record this state prepared decodes
// and computes nothing again, the record's payload as Prepare decoded it
// (when the record's data are the event's bytes), its subject (used only
// when the fold is on the state that prepared it, at the position it
// prepared it at), and the hash of b, computed here once (Input.Hash).
// FuzzApplyPrepared holds each to what folding from the bytes gives.
func (p Prepared) Input(b []byte) Input {
	in := Input{Record: p.Record, Bytes: b, check: p.check, checked: p.checked, payload: p.payload, subject: p.Subject, at: p.at, pos: p.pos}
	if b != nil {
		in.hash = events.HashBytes(b)
	}
	return in
}

// Decode decodes a record given with its stored bytes (either may be nil,
// as in Input) into what folding it needs that depends on the record
// alone: its payload and what it decided, decoded, and its hash. It can
// run ahead of the fold, on another goroutine; errors are kept for Apply
// to answer.
func Decode(rec *events.Record, b []byte) Input {
	in := Input{Record: rec, Bytes: b}
	in.decoded = in.decode()
	return in
}

// Apply folds one record at sequence seq: the only way a record changes a
// state. The record must be the next one: a gap or an out-of-order record
// is an error, never skipped.
func (s *State) Apply(in Input, seq uint64) error {
	d := in.decoded
	if d == nil {
		d = in.decode()
	}
	subject := ""
	if in.at == s && in.pos == s.seq && in.subject != "" {
		subject = in.subject
	}
	return s.apply1(d, seq, subject)
}

// decode decodes in.
func (in Input) decode() *decoded {
	rec, b := in.Record, in.Bytes
	switch {
	case rec == nil:
		var err error
		if rec, err = events.DecodeRecord(b); err != nil {
			return &decoded{perr: err, unread: notDecoded}
		}
	case b == nil:
		var err error
		if b, err = rec.Encode(); err != nil {
			return &decoded{perr: err, unread: notEncoded}
		}
	}
	hash := in.hash
	if hash == "" {
		hash = events.HashBytes(b)
	}
	if !in.checked && in.payload == nil {
		return decode(rec, hash)
	}
	d := decodeRecord(rec, hash, in.payload)
	if in.checked {
		if _, ok := d.payload.(*events.CheckedData); ok && d.perr == nil {
			*d.check = in.check
			d.decided = d.check
			return d
		}
	}
	return decodeDecided(d)
}

// decoded is a record with what folding it needs that depends on the
// record alone: its payload and what it decided, decoded, and its hash.
type decoded struct {
	// rec is &own: the record with strings of its own (decodeRecord),
	// in one allocation with the rest.
	rec     *events.Record
	own     events.Record
	hash    string
	payload any
	decided any
	// check is what decided points to for a check: its decision as
	// Prepare made it (see Input.decode) or as decoded.
	// It is in the same allocation as d (decodedCheck), for a check
	// only: nil for other records, which would only carry its bytes.
	check *CheckDecided
	// perr is the payload's error; derr, what it decided's.
	perr, derr error
	// unread says the record did not decode from its bytes, or did not
	// encode (its error is perr).
	unread uint8
}

// decodedCheck is a check's decoded record and its decision, in one
// allocation.
type decodedCheck struct {
	decoded
	check CheckDecided
}

const (
	notDecoded = 1 + iota
	notEncoded
)

func decode(rec *events.Record, hash string) *decoded {
	return decodeDecided(decodeRecord(rec, hash, nil))
}

// decodeDecided decodes what d's record decided.
func decodeDecided(d *decoded) *decoded {
	if d.perr != nil {
		return d
	}
	rec := d.rec
	switch d.payload.(type) {
	case *events.PolicySetData:
		d.decided, d.derr = decided[PolicyDecided](rec.Decided)
	case *events.StartedData:
		d.decided, d.derr = orJSON(plainStart, rec.Decided)
	case *events.SpawnedData:
		d.decided, d.derr = decodeSpawn(rec.Decided)
	case *events.ResumedData:
		d.decided, d.derr = orJSON(plainResume, rec.Decided)
	case *events.CheckedData:
		if plainCheckInto(rec.Decided, d.check) {
			d.decided = d.check
		} else {
			d.decided, d.derr = decided[CheckDecided](rec.Decided)
		}
	}
	return d
}

// orJSON reads raw with the plain reader, or with encoding/json when raw
// is not in the plain form (see decided.go).
func orJSON[T any](read func([]byte) (*T, bool), raw json.RawMessage) (*T, error) {
	if v, ok := read(raw); ok {
		return v, nil
	}
	return decided[T](raw)
}

// decodeRecord decodes a record's payload, not what it decided; payload,
// when not nil, is the payload already decoded from rec.Data.
func decodeRecord(rec *events.Record, hash string, payload any) *decoded {
	// A decoded record's strings may share one allocation with its time
	// and type; sessions keep these for their whole life, so they get
	// their own. A record Prepare made (payload given) has the event's,
	// each of its own already (events.Parse makes each string apart; the
	// id and the actor are the caller's): kept as they are.
	var d *decoded
	if rec.Type == events.ToolChecked {
		dc := &decodedCheck{decoded: decoded{own: *rec, hash: hash}}
		d, dc.decoded.check = &dc.decoded, &dc.check
	} else {
		d = &decoded{own: *rec, hash: hash}
	}
	if payload == nil {
		d.own.ID, d.own.Session, d.own.Actor = clone3(rec.ID, string(rec.Session), rec.Actor)
	}
	d.rec = &d.own
	if payload != nil {
		d.payload = payload
		return d
	}
	d.payload, d.perr = rec.Event().Payload()
	return d
}

func decided[T any](raw json.RawMessage) (*T, error) {
	var v T
	return &v, json.Unmarshal(raw, &v)
}

// apply1 folds d at seq; subject, when not "", is the record's subject as
// Prepare computed it on this state at this position.
func (s *State) apply1(d *decoded, seq uint64, subject string) (err error) {
	if s.err != nil {
		return s.err
	}
	switch d.unread {
	case notDecoded:
		return fmt.Errorf("projection: record %d: %w", seq, d.perr)
	case notEncoded:
		return fmt.Errorf("projection: record %d does not encode: %w", seq, d.perr)
	}
	defer s.leave(s.enter(), &err)
	rec := d.rec
	if seq != s.seq+1 {
		return fmt.Errorf("projection: record %s at sequence %d does not follow %d", rec.ID, seq, s.seq)
	}
	if d.perr != nil {
		return fmt.Errorf("projection: record %d: %w", seq, d.perr)
	}
	ref := envelope.RecordRef{Seq: seq, ID: rec.ID, Type: internType(rec.Type)}
	if !rec.Type.IsPolicy() {
		s.name(rec.Session, seq, false)
	}
	// The subject is the scope's as the record found it: a spawn's is
	// its parent's, before the child exists.
	if subject == "" {
		subject = events.SubjectIn(s.recordScope(rec.Type, rec.Session, d.payload), rec.Type, rec.Session)
	}
	err = s.apply(d, ref)
	if s.readErr != nil {
		// Folded halfway from a history that could not be read: the
		// state is no longer the fold of its records.
		s.err = s.readErr
		return s.err
	}
	if err != nil {
		return fmt.Errorf("projection: record %d (%s %s): %w", seq, rec.Type, rec.ID, err)
	}
	s.seq = seq
	s.lastTime = rec.Time
	r := s.recent
	r.chains[subject] = d.hash
	r.refs = append(r.refs, ref)
	r.times = append(r.times, rec.Time)
	if _, ok := r.ids[rec.ID]; !ok {
		r.ids[rec.ID] = landed{Seq: seq}
	}
	return nil
}

// clone3 copies three strings into one allocation.
func clone3(a, b, c string) (string, events.SessionKey, string) {
	var sb strings.Builder
	sb.Grow(len(a) + len(b) + len(c))
	sb.WriteString(a)
	sb.WriteString(b)
	sb.WriteString(c)
	all := sb.String()
	return all[:len(a)], events.SessionKey(all[len(a) : len(a)+len(b)]), all[len(a)+len(b):]
}

// internType returns the constant spelling of a known type, so that the
// references of a million records share a handful of strings.
func internType(t events.Type) events.Type {
	for _, k := range events.Types {
		if k == t {
			return k
		}
	}
	return t
}

// changing returns the session a record changes, or an error naming it
// when it does not exist (only a log the ledger did not write has one).
func (s *State) changing(key events.SessionKey) (*envelope.Session, error) {
	sess := s.toChange(key)
	if sess == nil {
		return nil, fmt.Errorf("session %q does not exist", key)
	}
	return sess, nil
}

// apply folds one decoded record into the state: each record type has its
// own apply method below; a record type without one changes no state.
func (s *State) apply(dec *decoded, ref envelope.RecordRef) error {
	rec := dec.rec
	if dec.derr != nil {
		return dec.derr
	}
	switch d := dec.payload.(type) {
	case *events.PolicySetData:
		return s.applyPolicy(d, dec.decided.(*PolicyDecided).Release, ref)
	case *events.GrantData:
		return s.applyGrant(rec.Type, d, ref)
	case *events.DenyData:
		return s.applyDeny(rec.Type, d, ref)
	case *events.StartedData:
		s.applyStarted(rec, d, dec.decided.(*StartDecided), ref)
	case *events.EndedData:
		return s.applyEnded(rec)
	case *events.ReopenedData:
		return s.applyReopened(rec)
	case *events.SpawnedData:
		return s.applySpawned(rec, d, dec.decided.(*SpawnDecided), ref)
	case *events.TurnData:
		return s.applyTurn(rec, d, ref)
	case *events.YieldedData:
		return s.applyYielded(rec, d, ref)
	case *events.CompletedData:
		return s.applyCompleted(rec)
	case *events.ResumedData:
		return s.applyResumed(rec, d, dec.decided.(*ResumeDecided), ref)
	case *events.CheckedData:
		s.applyChecked(rec, d, dec.decided.(*CheckDecided), ref)
	case *events.EffectData:
		// An effect changes no session state; its record is the audit.
	}
	return nil
}

func (s *State) applyStarted(rec *events.Record, d *events.StartedData, dec *StartDecided, ref envelope.RecordRef) {
	s.add(&envelope.Session{
		Key: rec.Session, Scope: storedScope(events.ScopeName(d.Scope)), Agent: d.Agent, State: envelope.Active,
		Start: d, Origin: ref, Actor: rec.Actor, Facts: dec.Facts, Tools: slices.Clone(d.Tools),
		Context: envelope.Context{Source: envelope.SourceCurrentRequest, Sender: d.Sender, SetBy: ref},
	})
}

func (s *State) applyEnded(rec *events.Record) error {
	sess, err := s.changing(rec.Session)
	if err != nil {
		return err
	}
	sess.State = envelope.Ended
	return nil
}

func (s *State) applyReopened(rec *events.Record) error {
	sess, err := s.changing(rec.Session)
	if err != nil {
		return err
	}
	// Back to what it was before its end: yielded while its yield is
	// current, else active; its context is kept (a continuation in
	// force stays in force), so a reopen gains nothing.
	sess.State = envelope.Active
	if y := s.yieldOf(rec.Session); y != nil && y.Current {
		sess.State = envelope.Yielded
	}
	return nil
}

func (s *State) applySpawned(rec *events.Record, d *events.SpawnedData, dec *SpawnDecided, ref envelope.RecordRef) error {
	parent := s.toChange(d.Parent)
	if parent == nil || dec.Envelope == nil {
		return fmt.Errorf("spawn without a parent or an envelope")
	}
	child := &envelope.Session{
		Key: rec.Session, Scope: parent.Scope, Agent: d.Agent, Parent: d.Parent, Depth: dec.Envelope.Depth,
		State: envelope.Active, Spawn: d, Origin: ref, Actor: rec.Actor, Facts: dec.Facts, Envelope: dec.Envelope,
		Tools: append(slices.Clone(parent.Tools), d.Tools...),
	}
	child.Context = s.ordinaryContext(child, ref)
	s.add(child)
	parent.Children = append(parent.Children, rec.Session)
	parent.ActiveChildren++
	return nil
}

func (s *State) applyTurn(rec *events.Record, d *events.TurnData, ref envelope.RecordRef) error {
	sess, err := s.changing(rec.Session)
	if err != nil {
		return err
	}
	sc := s.scopeOf(sess)
	if sc == nil {
		return noScope(sess)
	}
	sess.Turn = d.Turn
	if d.Mode != "" {
		sess.Mode = d.Mode
	}
	sess.Context = s.turnContext(sess, d, ref)
	ts := s.memo.set
	if s.memo.id != rec.ID || ts.Allowed == nil {
		ts = toolsIn(&sc.world, sc.dialect, sc.policy, sess)
	}
	s.memo.id, s.memo.set = "", envelope.ToolSet{}
	h := ts.Hash()
	if _, ok := s.recent.toolsets[h]; !ok {
		// Kept even when the store has it: the commit writes only
		// what the store does not hold.
		s.recent.toolsets[h] = ts
	}
	s.addTurn(sess, Turn{Seq: ref.Seq, ToolSet: h, Context: sess.Context, Mode: sess.Mode})
	return nil
}

func (s *State) applyYielded(rec *events.Record, d *events.YieldedData, ref envelope.RecordRef) error {
	sess, err := s.changing(rec.Session)
	if err != nil {
		return err
	}
	sess.State = envelope.Yielded
	s.recent.yields[rec.Session] = &yield{Ref: ref, Children: slices.Clone(d.Children), Current: true}
	sess.Context = s.ordinaryContext(sess, ref)
	return nil
}

func (s *State) applyCompleted(rec *events.Record) error {
	sess, err := s.changing(rec.Session)
	if err != nil {
		return err
	}
	sess.State = envelope.Completed
	if sess.Parent == "" {
		return nil
	}
	if parent := s.toChange(sess.Parent); parent != nil {
		parent.ActiveChildren--
	}
	return nil
}

func (s *State) applyResumed(rec *events.Record, d *events.ResumedData, dec *ResumeDecided, ref envelope.RecordRef) error {
	sess, err := s.changing(rec.Session)
	if err != nil {
		return err
	}
	sess.State = envelope.Active
	if y := s.yieldToChange(rec.Session); y != nil {
		y.Current = false
	}
	cont := ref
	sess.Context = envelope.Context{Source: dec.PolicySource, SourceReason: dec.SourceReason, Continuation: &cont, SetBy: ref}
	if dec.PolicySource == envelope.SourceSettleBatch || dec.PolicySource == envelope.SourceCompletionHandoff {
		captured, err := s.capturedEnvelope(sess.Key, d)
		if err != nil {
			return err
		}
		sess.Context.Captured = captured
	}
	return nil
}

func (s *State) applyChecked(rec *events.Record, d *events.CheckedData, dec *CheckDecided, ref envelope.RecordRef) {
	refusal := dec.Reason.Code == ReasonAuthorizationChanged
	// Neither a refused effect's record nor an unreadable call's
	// prepares an effect (testdata/conformance/ledger/unreadable-01-*).
	c := s.recent.newCheck()
	*c = check{Session: rec.Session, Tool: s.normalizeFor(rec.Session, d.Tool), Call: d.Call,
		Input: d.Input, Decision: dec.Decision, Refusal: refusal || dec.Reason.Code == ReasonUnreadable}
	s.recent.checks[ref.Seq] = c
	if refusal {
		if _, ok := s.recent.ids[rec.ID]; !ok {
			s.recent.ids[rec.ID] = landed{Seq: ref.Seq, RefusedEffect: true}
		}
	} else if !c.Refusal {
		s.recent.calls[call{c.Session, c.Tool, c.Call}] = ref.Seq
	}
}

// normalizeFor returns a tool name's canonical form under the policy in
// force for a session (its scope's).
func (s *State) normalizeFor(key events.SessionKey, tool string) string {
	if sess := s.Session(key); sess != nil {
		if sc := s.scopeOf(sess); sc != nil {
			return sc.normalize(tool)
		}
	}
	return tool
}

// Normalize returns a tool name's canonical form under the policy in force
// in the default scope (the dialect's, for the release the policy decides
// with); NormalizeFor under a session's.
func (s *State) Normalize(tool string) string {
	if sc := s.scopeNamed(""); sc != nil {
		return sc.normalize(tool)
	}
	return tool
}

// NormalizeFor returns a tool name's canonical form under the policy in
// force for a session (its scope's).
func (s *State) NormalizeFor(key events.SessionKey, tool string) string {
	return s.normalizeFor(key, tool)
}

// noScope is the error of a session whose scope has no policy: only a log
// the ledger did not write has one.
func noScope(sess *envelope.Session) error {
	return fmt.Errorf("session %q is bound to scope %q, which has no policy", sess.Key, events.ScopeName(sess.Scope))
}

// compileRecorded compiles a stored or recorded document with the release
// its policy.set recorded.
func compileRecorded(dl envelope.Dialect, doc json.RawMessage, catalogue []string, release string) (any, error) {
	if r, ok := dl.(Releaser); ok {
		return r.CompileRelease(doc, catalogue, release)
	}
	return dl.Compile(doc, catalogue)
}

func (s *State) applyPolicy(d *events.PolicySetData, release string, ref envelope.RecordRef) error {
	dl := s.dialects[d.Dialect]
	if dl == nil {
		return fmt.Errorf("dialect %q is not known", d.Dialect)
	}
	compiled, err := compileRecorded(dl, d.Document, d.Catalogue, release)
	if err != nil {
		return err
	}
	hash, err := documentHash(d.Document)
	if err != nil {
		return err
	}
	// Made only once the document compiled: a scope never exists
	// without a policy.
	sc := s.makeScope(d.Scope, dl)
	p := &envelope.PolicyState{Dialect: d.Dialect, Revision: ref, Release: release, Hash: hash, Document: d.Document,
		Compiled: compiled, Scope: storedScope(sc.name)}
	if old := sc.policy; old != nil {
		p.Catalogue, p.CatalogueRecord, p.Grants, p.Revocations = old.Catalogue, old.CatalogueRecord, old.Grants, old.Revocations
	}
	if d.Catalogue != nil {
		p.Catalogue, p.CatalogueRecord = slices.Clone(d.Catalogue), ref
	}
	sc.dialect = dl
	return s.setPolicy(sc, p, ref)
}

// setPolicy puts a new policy state in force in scope sc from record ref:
// it computes the effective document and keeps the state in the scope's
// and the state's policy history.
func (s *State) setPolicy(sc *scope, p *envelope.PolicyState, ref envelope.RecordRef) error {
	sc.policy = p
	if err := sc.refreshEffective(); err != nil {
		return err
	}
	s.keepPolicy(sc, p, ref)
	return nil
}

// keepPolicy puts p in force in scope sc from record ref, its effective
// document made: the scope's version moves (its cached tool sets are
// resolved again) and p joins the scope's and the state's history.
func (s *State) keepPolicy(sc *scope, p *envelope.PolicyState, ref envelope.RecordRef) {
	sc.policy = p
	sc.version++
	at := PolicyAt{Seq: ref.Seq, Policy: p}
	sc.history = append(sc.history, at)
	s.policies = append(s.policies, at)
}

func documentHash(doc json.RawMessage) (string, error) {
	c, err := events.CanonicalJSON(doc)
	if err != nil {
		return "", err
	}
	return events.HashBytes(c), nil
}

func (s *State) applyGrant(t events.Type, d *events.GrantData, ref envelope.RecordRef) error {
	sc := s.scopeNamed(d.Scope)
	if sc == nil {
		return fmt.Errorf("grant before the first policy.set of scope %q", events.ScopeName(d.Scope))
	}
	id := sc.dialect.GrantIdentity(d)
	i := slices.IndexFunc(sc.policy.Grants, func(g envelope.Grant) bool { return g.Identity == id })
	p := *sc.policy
	switch {
	case t == events.GrantAdded && i < 0:
		p.Grants = append(slices.Clone(p.Grants), envelope.Grant{Data: *d, Identity: id, Record: ref})
	case t == events.GrantRevoked && i >= 0:
		p.Grants = slices.Delete(slices.Clone(p.Grants), i, i+1)
	default:
		return nil // adding a current grant changes nothing
	}
	return s.setPolicy(sc, &p, ref)
}

// applyDeny puts a revocation in force in its scope (deny.added) or lifts
// it (deny.lifted). The dialect's compiled documents do not change: the
// revocation layer reads the revocations before the dialect decides.
func (s *State) applyDeny(t events.Type, d *events.DenyData, ref envelope.RecordRef) error {
	sc := s.scopeNamed(d.Scope)
	if sc == nil {
		return fmt.Errorf("revocation before the first policy.set of scope %q", events.ScopeName(d.Scope))
	}
	id := envelope.RevocationIdentity(d)
	i := slices.IndexFunc(sc.policy.Revocations, func(r envelope.Revocation) bool { return r.Identity == id })
	p := *sc.policy
	switch {
	case t == events.DenyAdded && i < 0:
		p.Revocations = append(slices.Clone(p.Revocations), envelope.Revocation{Data: *d, Identity: id, Record: ref})
	case t == events.DenyLifted && i >= 0:
		p.Revocations = slices.Delete(slices.Clone(p.Revocations), i, i+1)
	default:
		return nil // adding a revocation in force changes nothing
	}
	// The effective document does not read revocations: p keeps it.
	s.keepPolicy(sc, &p, ref)
	return nil
}

func (sc *scope) refreshEffective() error {
	eff, err := sc.dialect.Effective(sc.policy)
	if err != nil {
		return err
	}
	sc.policy.Effective = eff
	return nil
}

// ordinaryContext is the context of an ordinary turn with no continuation
// in force: a root resolves the current request with its default sender, a
// child its dialect's default source under its own envelope.
func (s *State) ordinaryContext(sess *envelope.Session, ref envelope.RecordRef) envelope.Context {
	if sess.Root() {
		return envelope.Context{Source: envelope.SourceCurrentRequest, Sender: sess.Start.Sender, SetBy: ref}
	}
	src := envelope.SourcePersistedChild
	if sc := s.scopeOf(sess); sc != nil {
		src = sc.dialect.DefaultChildSource()
	}
	return envelope.Context{Source: src, SetBy: ref}
}

// turnContext is the context a turn.started gives its session (the table of
// SPEC section 5.3 and the openclaw reference section 10.1).
func (s *State) turnContext(sess *envelope.Session, d *events.TurnData, ref envelope.RecordRef) envelope.Context {
	inForce := sess.Context.Continuation != nil
	if d.IsExternal() {
		c := envelope.Context{Source: envelope.SourceCurrentRequest, SourceReason: envelope.ReasonExternalRequester,
			Sender: d.Sender, External: true, SetBy: ref}
		if sess.Root() && !inForce && c.Sender == "" {
			c.Sender = sess.Start.Sender
		}
		return c
	}
	if inForce {
		c := sess.Context
		c.Sender, c.External, c.SetBy = "", false, ref
		return c
	}
	return s.ordinaryContext(sess, ref)
}

// capturedEnvelope finds the envelope a successful continuation runs under.
func (s *State) capturedEnvelope(key events.SessionKey, d *events.ResumedData) (*envelope.Envelope, error) {
	if d.Handoff == events.HandoffSettleBatch {
		child := s.Session(d.From[0])
		if child == nil || child.Envelope == nil {
			return nil, fmt.Errorf("settle_batch child %s has no envelope", d.From[0])
		}
		return child.Envelope, nil
	}
	env, _ := s.completionHop(key, d.From[0])
	if env == nil {
		return nil, fmt.Errorf("completion lineage of %s does not reach %s", d.From[0], key)
	}
	return env, nil
}

// MaxHops bounds the lineage walk of a completion handoff (SPEC 5.3).
const MaxHops = 32

// completionHop walks up from the child that handed off until it finds the
// hop whose requester is key; it returns that hop's envelope, or nil with
// the failed check.
func (s *State) completionHop(key, from events.SessionKey) (*envelope.Envelope, string) {
	h := s.Session(from)
	for hop := 1; hop <= MaxHops && h != nil; hop++ {
		env := h.Envelope
		if env == nil {
			return nil, envelope.ReasonMissingEnvelope
		}
		if env.Requester == key {
			if !env.Verified(key) {
				return nil, envelope.ReasonMissingEnvelope
			}
			return env, ""
		}
		h = s.Session(env.Requester)
	}
	return nil, envelope.ReasonMissingEnvelope
}
