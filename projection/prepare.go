package projection

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// Prepared is the outcome of preparing one event at the head.
type Prepared struct {
	// Record is the record to append at Position()+1; nil when the event's
	// id already landed (see Landed) and nothing is to be written.
	Record *events.Record
	// Landed is the sequence of the earlier record with the same id, when
	// the event is a re-send.
	Landed uint64
	// Subject is the stream subject Record goes on: its scope's
	// (events.SubjectIn).
	Subject string
	// Err is the refusal, if any. A refused effect has both Err
	// (authorization_changed) and a Record: the decision record audits see.
	Err error
	// check is what a tool.checked record decided, as the fold would
	// decode it from the record (see Prepared.Input), when checked; by
	// value, so the fold keeps it in its decoded record (one allocation
	// less).
	check   CheckDecided
	checked bool
	// payload is Record's payload as the fold would decode it from
	// Record.Data: the event's, when the record's data are the event's
	// bytes (nil otherwise: a refused effect's record, or data that were
	// not canonical). at and pos are the state and the position Prepare
	// decided at: Subject is what the fold would compute only on that
	// state at that position.
	payload any
	at      *State
	pos     uint64
	// canonical is set when Record.Data is CanonicalJSON's output (see
	// Encode).
	canonical bool
}

// Encode is Record.Encode of the record as Prepare made it, the same
// bytes; it does not canonicalize the record's data again, which Prepare
// did (events.Record.EncodeCanonicalData).
func (p Prepared) Encode() ([]byte, error) {
	if p.canonical {
		return p.Record.EncodeCanonicalData()
	}
	return p.Record.Encode()
}

// Prepare runs every check of SPEC section 4 on ev against the state at the
// head, in order (shape, re-sent id, policy, state, admission), and makes the
// record to append, stamped with time and with what the ledger decided. It
// does not change the state: Apply the record once it has landed. ev.ID must
// be set (the caller makes one when the caller of the API sent none).
func (s *State) Prepare(ev *events.Event, time string) Prepared {
	if s.err != nil {
		return Prepared{Err: s.err}
	}
	var err error
	saved := s.enter()
	prep := s.prepare(ev, time)
	s.leave(saved, &err)
	if err != nil {
		// A decision made on a history that could not be read is no
		// decision: nothing to append, and nothing kept of it.
		s.memo.id, s.memo.set = "", envelope.ToolSet{}
		return Prepared{Err: err}
	}
	return prep
}

func (s *State) prepare(ev *events.Event, time string) Prepared {
	p, err := s.shape(ev)
	if err != nil {
		return Prepared{Err: err}
	}
	if l, ok := s.landedAt(ev.ID); ok {
		if l.RefusedEffect {
			return Prepared{Landed: l.Seq, Err: events.Errorf(events.CodeAuthorizationChanged,
				"effect %s was already refused at sequence %d: authority changed since its check", ev.ID, l.Seq)}
		}
		return Prepared{Landed: l.Seq}
	}
	if err := s.policyStep(ev, p); err != nil {
		return Prepared{Err: err}
	}
	if time < s.lastTime {
		time = s.lastTime // never earlier than the previous record
	}
	rec := &events.Record{ID: ev.ID, Type: ev.Type, V: ev.V, Time: time, Session: ev.Session, Actor: ev.Actor, Data: ev.Data}
	var (
		decided any
		refusal *refusal
		check   CheckDecided
		checked bool
		b       []byte
		merr    error
	)
	if d, ok := p.(*events.CheckedData); ok {
		// A check's decision stays a value (no interface to box it in:
		// one allocation an event), for the record and for the fold.
		if check, err = s.decideChecked(ev, d); err != nil {
			return Prepared{Err: err}
		}
		checked = true
		b = check.appendJSON(make([]byte, 0, 384))
	} else {
		decided, refusal, err = s.decide(ev, p)
		if err != nil && refusal == nil {
			return Prepared{Err: err}
		}
		if refusal != nil {
			rec.Type, rec.Data, decided = events.ToolChecked, refusal.data, refusal.decided
		}
		b, merr = marshalDecided(decided)
	}
	if merr != nil {
		return Prepared{Err: events.Errorf(events.CodeInvalidEvent, "decided does not encode: %v", merr)}
	}
	subject := events.SubjectIn(s.recordScope(rec.Type, rec.Session, p), rec.Type, rec.Session)
	rec.Decided = s.link(b, subject)
	if n := len(rec.Data) + len(rec.Decided) + len(rec.ID) + len(rec.Session) + len(rec.Actor) + 200; n > events.MaxRecordBytes {
		return Prepared{Err: events.Errorf(events.CodeInvalidEvent, "the record would be %d bytes with what the ledger decided; the limit is %d", n, events.MaxRecordBytes)}
	}
	// The folded state keeps parts of data as bytes (a check's input), so
	// data must be in the canonical form the stored record has; otherwise
	// the live state would differ from one folded from the log.
	canonical := false
	if c, cerr := events.CanonicalJSON(rec.Data); cerr == nil {
		rec.Data, canonical = c, true
	}
	prep := Prepared{Record: rec, Err: err, Subject: subject, at: s, pos: s.seq, canonical: canonical}
	if refusal == nil && (string(rec.Data) == string(ev.Data) || rawFree(p)) {
		// The payload decodes from these very bytes, or from bytes that
		// differ only in their form (key order, white space, escapes,
		// numbers' spelling: the same values, events.Parse refused
		// duplicate keys) and it keeps no bytes of them: the fold takes
		// it as it is (FuzzApplyPrepared compares it with the record's).
		prep.payload = p
	}
	if checked {
		prep.check, prep.checked = check, true
	}
	return prep
}

// Checked is what a tool.checked record decided, as its Decided holds it
// (the decision and reason Record.Decided encodes), and true; false when
// the record is not a check's (or there is no record). An answer written
// from it needs no decoding of Record.Decided (api.TestRecordedCheckAnswerBytes).
func (p Prepared) Checked() (CheckDecided, bool) {
	if p.Record == nil {
		return CheckDecided{}, false
	}
	return p.check, p.checked
}

// marshalDecided is json.Marshal(decided), with room for link's fields
// (a check with a record, an envelope hash and prev is about 350 bytes);
// a check's and an effect's by hand (TestMarshalDecided and
// FuzzMarshalDecided hold them to encoding/json's bytes).
func marshalDecided(decided any) ([]byte, error) {
	switch d := decided.(type) {
	case CheckDecided:
		return d.appendJSON(make([]byte, 0, 384)), nil
	case EffectDecided:
		return d.appendJSON(make([]byte, 0, 384)), nil
	}
	b, err := json.Marshal(decided)
	if err != nil {
		return nil, err
	}
	return slices.Grow(b, 100), nil
}

// appendJSON appends d as encoding/json writes it.
func (d CheckDecided) appendJSON(b []byte) []byte {
	b = append(b, `{"decision":`...)
	b = events.AppendJSONString(b, string(d.Decision))
	b = append(b, `,"reason":`...)
	b = d.Reason.AppendJSON(b)
	b = append(b, `,"revision":`...)
	b = strconv.AppendUint(b, d.Revision, 10)
	if d.EnvelopeHash != "" {
		b = append(b, `,"envelope_hash":`...)
		b = events.AppendJSONString(b, d.EnvelopeHash)
	}
	if d.PreparedAt != 0 {
		b = append(b, `,"prepared_at":`...)
		b = strconv.AppendUint(b, d.PreparedAt, 10)
	}
	if d.Scope != "" {
		b = append(b, `,"scope":`...)
		b = events.AppendJSONString(b, d.Scope)
	}
	return append(b, '}')
}

// appendJSON appends d as encoding/json writes it.
func (d EffectDecided) appendJSON(b []byte) []byte {
	b = append(b, `{"prepared_at":`...)
	b = strconv.AppendUint(b, d.PreparedAt, 10)
	b = append(b, `,"decision":`...)
	b = events.AppendJSONString(b, string(d.Decision))
	b = append(b, `,"reason":`...)
	b = d.Reason.AppendJSON(b)
	if d.Scope != "" {
		b = append(b, `,"scope":`...)
		b = events.AppendJSONString(b, d.Scope)
	}
	return append(b, '}')
}

// The conversions stop the build when a type appendJSON writes gains a
// field.
var _ = []any{
	struct {
		Decision     envelope.Decision
		Reason       envelope.Reason
		Revision     uint64
		EnvelopeHash string
		PreparedAt   uint64
		Scope        string
	}(CheckDecided{}),
	struct {
		PreparedAt uint64
		Decision   envelope.Decision
		Reason     envelope.Reason
		Scope      string
	}(EffectDecided{}),
}

// rawFree reports whether a payload holds none of its data's bytes as
// they were (a json.RawMessage field, which canonical data would change):
// decoded from the canonical form of its data, it would be equal.
func rawFree(p any) bool {
	switch d := p.(type) {
	case *events.PolicySetData:
		return false
	case *events.StartedData:
		return d.PluginTools == nil
	case *events.CheckedData:
		return d.Input == nil
	}
	return true
}

// recordScope is the name of the scope a record of type t about session
// key with payload p goes to: a policy event's and a root's as they name
// it, a child's its parent's, another's its session's ("" when none of
// these exists, which the checks refuse).
func (s *State) recordScope(t events.Type, key events.SessionKey, p any) string {
	if name, ok := events.NamedScope(p); ok {
		return name
	}
	if d, ok := p.(*events.SpawnedData); ok {
		key = d.Parent
	}
	if sess := s.Session(key); sess != nil {
		return sess.Scope
	}
	return ""
}

// MaxTreeDepth bounds how deep a spawn tree may grow, whatever a dialect's
// own limit says (claude-code's maxSubagentDepth has no upper bound).
const MaxTreeDepth = 64

// link adds the tamper-evidence fields to a decided object: seq, the
// sequence the record is decided for (the head + 1), and prev, the hash of
// the last record on the same subject (absent for a subject's first). It
// appends to decided's own bytes, which it takes.
func (s *State) link(decided []byte, subject string) []byte {
	out := decided[:len(decided)-1]
	if len(decided) > 2 {
		out = append(out, ',')
	}
	if prev := s.chainHead(subject); prev != "" {
		out = append(out, `"prev":"`...)
		out = append(out, prev...)
		out = append(out, `",`...)
	}
	out = append(out, `"seq":`...)
	out = strconv.AppendUint(out, s.seq+1, 10)
	return append(out, '}')
}

// shape runs check group 1: the generic shape, then the dialect's (the
// dialect of the scope the event is about, when it has one).
func (s *State) shape(ev *events.Event) (any, error) {
	if ev.Type == "" || ev.V != events.Version || !ev.Type.Known() {
		return nil, events.Errorf(events.CodeInvalidEvent, "the event was not parsed: use events.Parse")
	}
	p, err := ev.Payload()
	if err != nil {
		return nil, err
	}
	var one [1]envelope.Dialect // the usual case: one dialect, no allocation
	dls := one[:0]
	switch d := p.(type) {
	case *events.PolicySetData:
		if dl := s.dialects[d.Dialect]; dl != nil {
			dls = append(dls, dl)
		}
	case *events.DenyData, *events.EndedData, *events.ReopenedData:
		// The ledger's own: no dialect has checks for them, and the
		// bounds on names apply (a dialect's CheckEvent runs them for
		// the others).
		if err := events.CheckNames(p); err != nil {
			return nil, err
		}
	default:
		if sc := s.eventScope(ev, p); sc != nil {
			dls = append(dls, sc.dialect)
		} else {
			// An event about a session (or parent) that does not exist:
			// it will be refused, and the shape checks of every dialect
			// in use come first, as with one dialect.
			dls = s.dialectsInUse()
		}
	}
	for _, dl := range dls {
		if err := dl.CheckEvent(ev, p); err != nil {
			return nil, err
		}
	}
	if err := events.CheckKey(ev); err != nil {
		return nil, err
	}
	return p, nil
}

// eventScope returns the scope an event is about: a policy event's and a
// root's as they name it, a child's its parent's, another session
// event's its session's; nil when that scope has no policy or the session
// does not exist.
func (s *State) eventScope(ev *events.Event, p any) *scope {
	if name, ok := events.NamedScope(p); ok {
		return s.scopeNamed(name)
	}
	key := ev.Session
	if d, ok := p.(*events.SpawnedData); ok {
		key = d.Parent
	}
	if sess := s.Session(key); sess != nil {
		return s.scopeOf(sess)
	}
	return nil
}

// policyStep runs check group 2: the scope the event is about must have a
// policy, and a policy.set must be valid in its scope's dialect.
func (s *State) policyStep(ev *events.Event, p any) error {
	d, ok := p.(*events.PolicySetData)
	if !ok {
		if len(s.scopes) == 0 {
			return events.Errorf(events.CodeInvalidPolicy, "no policy has been set: append a policy.set first")
		}
		name, ok := events.NamedScope(p)
		if !ok {
			return nil // a session's scope has a policy since its root started
		}
		if s.scopeNamed(name) == nil {
			return events.Errorf(events.CodeInvalidPolicy, "no policy has been set for scope %q (scopes: %s): append a policy.set with \"scope\": %q first", events.ScopeName(name), strings.Join(s.Scopes(), ", "), events.ScopeName(name))
		}
		return nil
	}
	dl := s.dialects[d.Dialect]
	if dl == nil {
		return events.Errorf(events.CodeInvalidPolicy, "dialect %q is not known (known: %s)", d.Dialect, s.dialectNames())
	}
	sc := s.scopeNamed(d.Scope)
	if sc == nil && d.Catalogue == nil {
		if len(s.scopes) == 0 {
			return events.Errorf(events.CodeInvalidPolicy, "the first policy.set needs a catalogue (the tool names that exist)")
		}
		return events.Errorf(events.CodeInvalidPolicy, "the first policy.set of scope %q needs a catalogue (the tool names that exist)", events.ScopeName(d.Scope))
	}
	if sc != nil && d.Dialect != sc.policy.Dialect {
		if len(s.scopes) == 1 && sc.name == events.DefaultScope {
			return events.Errorf(events.CodeInvalidPolicy, "this log's dialect is %q; a policy.set cannot change it to %q (a policy of another dialect goes in its own scope: add \"scope\")", sc.policy.Dialect, d.Dialect)
		}
		return events.Errorf(events.CodeInvalidPolicy, "scope %q's dialect is %q; a policy.set cannot change it to %q (a policy of another dialect goes in its own scope)", sc.name, sc.policy.Dialect, d.Dialect)
	}
	if _, err := dl.Compile(d.Document, d.Catalogue); err != nil {
		if events.CodeOf(err) == "" {
			return events.Errorf(events.CodeInvalidPolicy, "%v", err)
		}
		return err
	}
	return nil
}

// dialectsInUse lists the dialects of the scopes, each once, by name.
func (s *State) dialectsInUse() []envelope.Dialect {
	var out []envelope.Dialect
	for _, name := range s.Scopes() {
		dl := s.scopes[name].dialect
		if !slices.ContainsFunc(out, func(d envelope.Dialect) bool { return d.Name() == dl.Name() }) {
			out = append(out, dl)
		}
	}
	slices.SortFunc(out, func(a, b envelope.Dialect) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

func (s *State) dialectNames() string {
	names := make([]string, 0, len(s.dialects))
	for n := range s.dialects {
		names = append(names, n)
	}
	slices.Sort(names)
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}

type refusal struct {
	data    json.RawMessage
	decided any
}

// decide runs check groups 3 and 4 and returns what the record decides:
// each record type has its own decide method below.
func (s *State) decide(ev *events.Event, p any) (any, *refusal, error) {
	var (
		dec any
		err error
	)
	switch d := p.(type) {
	case *events.PolicySetData:
		dec, err = s.decidePolicy(d)
	case *events.GrantData:
		dec, err = s.decideGrant(ev, d)
	case *events.DenyData:
		dec, err = s.decideDeny(ev, d)
	case *events.StartedData:
		dec, err = s.decideStarted(ev, d)
	case *events.EndedData:
		dec, err = s.decideEnded(ev)
	case *events.ReopenedData:
		dec, err = s.decideReopened(ev)
	case *events.SpawnedData:
		return s.decideSpawn(ev, d)
	case *events.TurnData:
		dec, err = s.decideTurn(ev, d)
	case *events.YieldedData:
		dec, err = s.decideYielded(ev, d)
	case *events.CompletedData:
		dec, err = s.decideCompleted(ev)
	case *events.ResumedData:
		return s.decideResume(ev, d)
	case *events.CheckedData:
		c, cerr := s.decideChecked(ev, d)
		dec, err = c, cerr
	case *events.EffectData:
		return s.decideEffect(ev, d)
	default:
		return nil, nil, events.Errorf(events.CodeUnknownType, "type %q is not an event type", ev.Type)
	}
	if err != nil {
		return nil, nil, err
	}
	return dec, nil, nil
}

func (s *State) decidePolicy(d *events.PolicySetData) (any, error) {
	h, err := documentHash(d.Document)
	if err != nil {
		return nil, events.Errorf(events.CodeInvalidPolicy, "document does not encode: %v", err)
	}
	dec := PolicyDecided{Hash: h}
	if r, ok := s.dialects[d.Dialect].(Releaser); ok {
		dec.Release = r.Release(d.Document)
	}
	return dec, nil
}

func (s *State) decideGrant(ev *events.Event, d *events.GrantData) (any, error) {
	sc := s.scopeNamed(d.Scope)
	id := sc.dialect.GrantIdentity(d)
	if ev.Type == events.GrantRevoked && !slices.ContainsFunc(sc.policy.Grants, func(g envelope.Grant) bool { return g.Identity == id }) {
		return nil, events.Errorf(events.CodeUnknownGrant, "no %s grant from %q to %q with these fields is in force in scope %q; nothing to revoke", d.Kind, d.Agent, d.Target, sc.name)
	}
	return GrantDecided{Identity: id}, nil
}

func (s *State) decideDeny(ev *events.Event, d *events.DenyData) (any, error) {
	sc := s.scopeNamed(d.Scope)
	// A session is decided under its own scope's revocations only: a
	// denial naming a session bound to another scope would deny nothing
	// (TestRevocationOfSessionInAnotherScopeRefused). A session not
	// started yet may be named; lifting stays open, so a denial an older
	// log put in the wrong scope can still be lifted.
	elsewhere := ""
	if d.Session != "" {
		if sess := s.Session(d.Session); sess != nil && events.ScopeName(sess.Scope) != sc.name {
			elsewhere = events.ScopeName(sess.Scope)
		}
	}
	if ev.Type == events.DenyAdded && elsewhere != "" {
		in := ""
		if o := s.scopeNamed(elsewhere); o != nil {
			in = " and write the rule as its dialect " + o.dialect.Name() + " reads it"
		}
		return nil, events.Errorf(events.CodeInvalidEvent, "session %q is bound to scope %q, and a denial in scope %q would never apply to it: name \"scope\": %q%s", d.Session, elsewhere, sc.name, elsewhere, in)
	}
	if err := envelope.CheckRevocationRule(sc.dialect, d.Rule); err != nil {
		return nil, err
	}
	id := envelope.RevocationIdentity(d)
	// A second deny.added of a denial in force changes nothing in the
	// fold (applyDeny), so a new note in it would be shown nowhere: it is
	// refused here, at append time, and an old log that holds one folds
	// as recorded (TestRepeatedDenyWithNewNoteRefused).
	if i := slices.IndexFunc(sc.policy.Revocations, func(r envelope.Revocation) bool { return r.Identity == id }); ev.Type == events.DenyAdded && i >= 0 {
		if in := sc.policy.Revocations[i]; in.Data.Note != d.Note {
			return nil, events.Errorf(events.CodeInvalidEvent, "the denial of %q for %s is already in force in scope %q with the note %q (record %d), and a note is not part of a denial's identity, so this one would be shown nowhere: repeat it with the same note, or lift the denial and add it again with the new one", d.Rule, d.Target(), sc.name, in.Data.Note, in.Record.Seq)
		}
	}
	if ev.Type == events.DenyLifted && !slices.ContainsFunc(sc.policy.Revocations, func(r envelope.Revocation) bool { return r.Identity == id }) {
		hint := ""
		if elsewhere != "" {
			hint = fmt.Sprintf("; session %q is bound to scope %q: name \"scope\": %q", d.Session, elsewhere, elsewhere)
		}
		return nil, events.Errorf(events.CodeUnknownRevocation, "no denial of %q for %s is in force in scope %q; nothing to lift (ledger why names the denial in force)%s", d.Rule, d.Target(), sc.name, hint)
	}
	return GrantDecided{Identity: id}, nil
}

func (s *State) decideStarted(ev *events.Event, d *events.StartedData) (any, error) {
	if s.exists(ev.Session) {
		return nil, events.Errorf(events.CodeDuplicateSession, "session %q already exists; use a new key", ev.Session)
	}
	sc := s.scopeNamed(d.Scope)
	facts, err := sc.dialect.Start(&sc.world, ev.Session, d)
	if err != nil {
		return nil, err
	}
	return StartDecided{Facts: facts, Scope: storedScope(sc.name)}, nil
}

func (s *State) decideEnded(ev *events.Event) (any, error) {
	sess := s.Session(ev.Session)
	if sess == nil {
		return nil, unknownSession(ev.Session)
	}
	if !sess.Root() {
		return nil, events.Errorf(events.CodeInvalidEvent, "%q is a sub-agent: session.ended ends a root; a sub-agent ends with session.completed", ev.Session)
	}
	if sess.State == envelope.Ended || sess.State == envelope.Completed {
		return nil, events.Errorf(events.CodeSessionNotActive, "session %q is already %s", ev.Session, sess.State)
	}
	return EmptyDecided{}, nil
}

func (s *State) decideReopened(ev *events.Event) (any, error) {
	sess := s.Session(ev.Session)
	if sess == nil {
		return nil, unknownSession(ev.Session)
	}
	if sess.State != envelope.Ended {
		return nil, events.Errorf(events.CodeSessionNotActive, "session %q is %s; only an ended session reopens", ev.Session, sess.State)
	}
	return EmptyDecided{}, nil
}

func (s *State) decideTurn(ev *events.Event, d *events.TurnData) (any, error) {
	sess, err := s.activeSession(ev.Session)
	if err != nil {
		return nil, err
	}
	if d.Turn != sess.Turn+1 {
		return nil, events.Errorf(events.CodeBadTurn, "turn %d of %q must be %d (the previous turn + 1)", d.Turn, ev.Session, sess.Turn+1)
	}
	view := *sess
	view.Turn = d.Turn
	if d.Mode != "" {
		view.Mode = d.Mode
	}
	view.Context = s.turnContext(sess, d, envelope.RecordRef{Seq: s.seq + 1, ID: ev.ID, Type: ev.Type})
	sc := s.scopeOf(sess)
	ts := toolsIn(&sc.world, sc.dialect, sc.policy, &view)
	s.memo.id, s.memo.set = ev.ID, ts
	return TurnDecided{PolicySource: view.Context.Source, SourceReason: view.Context.SourceReason, ToolSetHash: ts.Hash()}, nil
}

func (s *State) decideYielded(ev *events.Event, d *events.YieldedData) (any, error) {
	if _, err := s.activeSession(ev.Session); err != nil {
		return nil, err
	}
	for _, c := range d.Children {
		child := s.Session(c)
		if child == nil {
			return nil, events.UnknownChild(c)
		}
		if child.Parent != ev.Session {
			return nil, events.Errorf(events.CodeNotAChild, "%q is not a child of %q; a session yields only for its own children", c, ev.Session)
		}
	}
	return EmptyDecided{}, nil
}

func (s *State) decideCompleted(ev *events.Event) (any, error) {
	sess := s.Session(ev.Session)
	if sess == nil {
		return nil, unknownSession(ev.Session)
	}
	if sess.State == envelope.Completed {
		return nil, events.Errorf(events.CodeSessionNotActive, "session %q has already completed", ev.Session)
	}
	return EmptyDecided{}, nil
}

func (s *State) decideChecked(ev *events.Event, d *events.CheckedData) (CheckDecided, error) {
	sess, err := s.currentTurn(ev.Session, d.Turn)
	if err != nil {
		return CheckDecided{}, err
	}
	sc := s.scopeOf(sess)
	var v envelope.Verdict
	if d.Unreadable != "" {
		v = envelope.Verdict{Decision: envelope.Deny, Reason: envelope.Reason{Code: ReasonUnreadable}}
	} else {
		v = decideBrief(&sc.world, sc.dialect, sc.policy, sess, d.Tool, d.Input)
	}
	return CheckDecided{Decision: v.Decision, Reason: v.Reason, Revision: sc.policy.Revision.Seq, EnvelopeHash: envelopeHash(sess), Scope: sess.Scope}, nil
}

func unknownSession(key events.SessionKey) error {
	return events.UnknownSession(key)
}

func envelopeHash(sess *envelope.Session) string {
	if sess.Envelope == nil {
		return ""
	}
	return sess.Envelope.Hash
}

// activeSession returns the session when it exists and is active.
func (s *State) activeSession(key events.SessionKey) (*envelope.Session, error) {
	sess := s.Session(key)
	if sess == nil {
		return nil, unknownSession(key)
	}
	if err := s.ended(sess); err != nil {
		return nil, err
	}
	switch sess.State {
	case envelope.Active:
	case envelope.Completed:
		return nil, events.Errorf(events.CodeSessionNotActive, "session %q has completed; it takes no turn, spawn, check or effect again", key)
	default:
		return nil, events.Errorf(events.CodeSessionNotActive, "session %q is %s; it takes no turn, spawn, check or effect until it is resumed", key, sess.State)
	}
	return sess, nil
}

// ended refuses a session that is ended, or whose root is: a root's end
// (Claude Code's SessionEnd) ends its sub-agents' work too, until the
// root is reopened.
func (s *State) ended(sess *envelope.Session) error {
	if sess.State == envelope.Ended {
		return events.Errorf(events.CodeSessionNotActive, "session %q has ended; it takes no turn, spawn, check, effect or resume until it is reopened (session.reopened)", sess.Key)
	}
	if sess.Root() {
		return nil
	}
	if root := envelope.RootOf(s, sess); root == nil || root.State == envelope.Ended {
		key := events.SessionKey("")
		if root != nil {
			key = root.Key
		}
		return events.Errorf(events.CodeSessionNotActive, "the root %q of session %q has ended; its sub-agents take no turn, spawn, check or effect until it is reopened", key, sess.Key)
	}
	return nil
}

// currentTurn returns the active session when turn is its current turn.
func (s *State) currentTurn(key events.SessionKey, turn int) (*envelope.Session, error) {
	sess, err := s.activeSession(key)
	if err != nil {
		return nil, err
	}
	if turn != sess.Turn {
		return nil, events.Errorf(events.CodeBadTurn, "turn %d is not the current turn of %q (current: %d)", turn, key, sess.Turn)
	}
	return sess, nil
}

func (s *State) decideSpawn(ev *events.Event, d *events.SpawnedData) (any, *refusal, error) {
	if s.exists(ev.Session) {
		return nil, nil, events.Errorf(events.CodeDuplicateSession, "session %q already exists; a child key is spawned once", ev.Session)
	}
	parent := s.Session(d.Parent)
	if parent == nil {
		return nil, nil, events.UnknownParent(d.Parent)
	}
	if err := s.ended(parent); err != nil {
		return nil, nil, err
	}
	if parent.State != envelope.Active {
		return nil, nil, events.Errorf(events.CodeSessionNotActive, "parent %q is %s and cannot spawn", d.Parent, parent.State)
	}
	sc := s.scopeOf(parent)
	env, facts, err := sc.dialect.Spawn(&sc.world, ev.Session, d)
	if err != nil {
		return nil, nil, err
	}
	if err := s.revokedSpawn(sc, parent, d); err != nil {
		return nil, nil, err
	}
	env.Scope = parent.Scope
	if env.Depth > MaxTreeDepth {
		return nil, nil, events.Errorf(events.CodeDepthLimit, "a spawn at depth %d: the ledger keeps spawn trees at most %d deep", env.Depth, MaxTreeDepth)
	}
	env.Seal()
	return SpawnDecided{Envelope: env, Facts: facts}, nil, nil
}

// revokedSpawn refuses a spawn the dialect admitted when a revocation in
// force denies the parent's call of the dialect's spawn tool at this
// position (envelope.SpawnCaller): the decision of that call is the
// revocation's, as a check of it would answer. It runs when the spawn is
// appended only; the fold of a spawn already in the log reads its record
// (applySpawned) and never this (TestRevocationOfSpawnToolRefusesSpawn,
// TestRevokedSpawnInOldLogFoldsUnchanged).
func (s *State) revokedSpawn(sc *scope, parent *envelope.Session, d *events.SpawnedData) error {
	sp, ok := sc.dialect.(envelope.SpawnCaller)
	if !ok || len(sc.policy.Revocations) == 0 {
		return nil
	}
	tool, input, ok := sp.SpawnCall(sc.policy, d)
	if !ok {
		return nil
	}
	norm := func(t string) string { return normalizeUnder(sc.dialect, sc.policy, t) }
	r := envelope.Revoked(&sc.world, sc.dialect, norm, sc.policy, parent, norm(tool), input, false)
	if r == nil {
		return nil
	}
	return events.Errorf(events.CodeAgentNotAllowed,
		"%q may not spawn agent %q: its %s call is denied by %s (%s, the %s at sequence %d); lift it with a deny.lifted of the same fields, or spawn from a session it does not target",
		d.Parent, d.Agent, tool, envelope.ReasonRevoked, r.Rule(), events.DenyAdded, r.Record.Seq)
}

func (s *State) decideResume(ev *events.Event, d *events.ResumedData) (any, *refusal, error) {
	sess := s.Session(ev.Session)
	if sess == nil {
		return nil, nil, unknownSession(ev.Session)
	}
	if sess.State == envelope.Completed {
		return nil, nil, events.Errorf(events.CodeSessionNotActive, "session %q has completed and cannot resume", ev.Session)
	}
	if err := s.ended(sess); err != nil {
		return nil, nil, err
	}
	for _, k := range d.From {
		if !s.exists(k) {
			return nil, nil, events.UnknownFrom(k)
		}
	}
	if d.Handoff == events.HandoffCompletion {
		if s.Session(d.From[0]).State != envelope.Completed {
			return failedResume(envelope.ReasonBatchNotSettled)
		}
		if _, why := s.completionHop(ev.Session, d.From[0]); why != "" {
			return failedResume(why)
		}
		return ResumeDecided{PolicySource: envelope.SourceCompletionHandoff}, nil, nil
	}
	y := s.yieldOf(ev.Session)
	if y == nil || !y.Current || y.Ref.ID != *d.Batch || !sameKeys(y.Children, d.From) {
		return failedResume(envelope.ReasonHandoffNotCurrent)
	}
	for _, k := range y.Children {
		if s.Session(k).State != envelope.Completed {
			return failedResume(envelope.ReasonBatchNotSettled)
		}
	}
	for _, k := range y.Children {
		if !s.Session(k).Envelope.Verified(ev.Session) {
			return failedResume(envelope.ReasonMissingEnvelope)
		}
	}
	first := s.Session(y.Children[0]).Envelope
	dl := s.scopeOf(sess).dialect
	for _, k := range y.Children[1:] {
		if !dl.SamePolicy(first, s.Session(k).Envelope) {
			return failedResume(envelope.ReasonPolicyConflict)
		}
	}
	return ResumeDecided{PolicySource: envelope.SourceSettleBatch}, nil, nil
}

func failedResume(reason string) (any, *refusal, error) {
	return ResumeDecided{PolicySource: envelope.SourceCurrentRequest, SourceReason: reason}, nil, nil
}

func sameKeys(a, b []events.SessionKey) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func (s *State) decideEffect(ev *events.Event, d *events.EffectData) (any, *refusal, error) {
	sess, err := s.currentTurn(ev.Session, d.Turn)
	if err != nil {
		return nil, nil, err
	}
	sc := s.scopeOf(sess)
	tool := sc.normalize(d.Tool)
	prep, at := s.preparingCheck(ev.Session, tool, d)
	if prep == nil {
		if d.PreparedAt != 0 {
			return nil, nil, events.Errorf(events.CodeInvalidEvent, "prepared_at %d is not a tool.checked of %q for tool %q and call %q", d.PreparedAt, ev.Session, tool, d.Call)
		}
		return nil, nil, events.Errorf(events.CodeInvalidEvent, "no tool.checked of %q for tool %q and call %q prepares this effect; record a check first", ev.Session, tool, d.Call)
	}
	v := decideBrief(&sc.world, sc.dialect, sc.policy, sess, d.Tool, prep.Input)
	if v.Decision == envelope.Deny || v.Decision.Stricter(prep.Decision) {
		data, _ := json.Marshal(events.CheckedData{Turn: d.Turn, Tool: d.Tool, Call: d.Call, Input: prep.Input})
		ref := &refusal{data: data, decided: CheckDecided{
			Decision: envelope.Deny, Reason: envelope.Reason{Code: ReasonAuthorizationChanged, Rule: v.Reason.Code, Record: v.Reason.Record},
			Revision: sc.policy.Revision.Seq, EnvelopeHash: envelopeHash(sess), PreparedAt: at, Scope: sess.Scope}}
		return nil, ref, events.Errorf(events.CodeAuthorizationChanged,
			"%s for %q changed from %s (checked at sequence %d) to %s (%s); check again before starting the effect",
			tool, ev.Session, prep.Decision, at, v.Decision, v.Reason.Code)
	}
	return EffectDecided{PreparedAt: at, Decision: v.Decision, Reason: v.Reason, Scope: sess.Scope}, nil, nil
}

// preparingCheck finds the tool.checked that prepares an effect.
func (s *State) preparingCheck(key events.SessionKey, tool string, d *events.EffectData) (*check, uint64) {
	matches := func(c *check) bool {
		return c != nil && !c.Refusal && c.Session == key && c.Tool == tool && c.Call == d.Call
	}
	seq := d.PreparedAt
	if seq == 0 {
		seq = s.latestCheck(call{key, tool, d.Call})
	}
	if c := s.checkAt(seq); matches(c) {
		return c, seq
	}
	return nil, 0
}
