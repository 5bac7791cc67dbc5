package projection

import (
	"encoding/binary"
	"encoding/json"
	"errors"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// The store keeps sessions in a binary form: a session is written at every
// commit that changes it and read back whenever a state that does not hold
// it needs it, and encoding/json takes tens of microseconds for a session
// with its envelopes. The form is positional, after a version byte:
// strings after their length (a uvarint), integers as varints, booleans
// and optional values after a byte, lists after their length plus one (0
// for nil). Decoding gives back exactly the value encoded (nil and empty
// lists apart); TestSessionBinary fills every field of a session by
// reflection, so a field added to a type here fails it until it is
// written too.
//
// Format 2 is format 1 followed by what scopes added: the session's
// scope, its start's identity and its envelopes' scopes. A session with
// none of them is written in format 1, so a log from before scopes keeps
// its stored bytes (TestSessionBinaryFormats).
//
// Format 3 is format 2 followed by what issue 25 added: the start's
// conversation. A session without it is written in format 1 or 2, as
// before.
//
// Format 4 is format 3 (the conversation "" for a session without a
// start) followed by the mode a turn reported (Session.Mode). A session
// without one is written as before.
//
// Format 5 is format 4 (the mode "" when none) followed by the start's
// plugin_tools, as recorded (the OpenClaw gateway's report of its
// plugins' tools). A session without it is written as before.
const (
	sessionFormat             = 1
	sessionFormatScoped       = 2
	sessionFormatConversation = 3
	sessionFormatMode         = 4
	sessionFormatPlugins      = 5
)

// conversed reports whether a session has anything only format 3 holds.
func conversed(s *envelope.Session) bool {
	return s.Start != nil && s.Start.Conversation != ""
}

// scoped reports whether a session has anything only format 2 holds.
func scoped(s *envelope.Session) bool {
	if s.Scope != "" || s.Envelope != nil && s.Envelope.Scope != "" || s.Context.Captured != nil && s.Context.Captured.Scope != "" {
		return true
	}
	if d := s.Start; d != nil {
		return d.Scope != "" || d.Runtime != "" || d.RuntimeVersion != "" || d.Project != "" || d.Repository != "" ||
			d.Branch != "" || d.User != "" || d.Host != ""
	}
	return false
}

type sink struct{ b []byte }

func (w *sink) str(s string) {
	w.b = binary.AppendUvarint(w.b, uint64(len(s)))
	w.b = append(w.b, s...)
}

func (w *sink) uint(n uint64) { w.b = binary.AppendUvarint(w.b, n) }
func (w *sink) int(n int)     { w.b = binary.AppendVarint(w.b, int64(n)) }

func (w *sink) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

// has writes whether an optional value is there.
func (w *sink) has(there bool) bool { w.bool(there); return there }

func (w *sink) boolp(v *bool) {
	if w.has(v != nil) {
		w.bool(*v)
	}
}

func (w *sink) strs(s []string) {
	if s == nil {
		w.uint(0)
		return
	}
	w.uint(uint64(len(s)) + 1)
	for _, x := range s {
		w.str(x)
	}
}

func (w *sink) keys(s []events.SessionKey) {
	if s == nil {
		w.uint(0)
		return
	}
	w.uint(uint64(len(s)) + 1)
	for _, x := range s {
		w.str(string(x))
	}
}

func (w *sink) ref(r envelope.RecordRef) {
	w.uint(r.Seq)
	w.str(r.ID)
	w.str(string(r.Type))
}

func (w *sink) envelope(e *envelope.Envelope) {
	if !w.has(e != nil) {
		return
	}
	w.str(string(e.Requester))
	w.str(e.Agent)
	w.int(e.Depth)
	w.str(e.Role)
	w.strs(e.InheritedAllow)
	w.strs(e.InheritedDeny)
	w.str(e.Source)
	if d := e.Delegated; w.has(d != nil) {
		w.str(string(d.Requester))
		w.str(d.Target)
		w.strs(d.Deny)
	}
	w.uint(e.Revision)
	w.bool(e.Background)
	w.str(e.Mode)
	w.strs(e.ExtraTools)
	w.str(e.Hash)
}

func encodeSessionBinary(s *envelope.Session) []byte {
	w := sink{b: make([]byte, 0, 512)}
	format := byte(sessionFormat)
	switch {
	case s.Start != nil && len(s.Start.PluginTools) > 0:
		format = sessionFormatPlugins
	case s.Mode != "":
		format = sessionFormatMode
	case conversed(s):
		format = sessionFormatConversation
	case scoped(s):
		format = sessionFormatScoped
	}
	w.b = append(w.b, format)
	w.str(string(s.Key))
	w.str(s.Agent)
	w.str(string(s.Parent))
	w.int(s.Depth)
	w.str(string(s.State))
	if d := s.Start; w.has(d != nil) {
		w.str(d.Agent)
		w.str(d.Provider)
		w.str(d.Model)
		w.boolp(d.Sandboxed)
		w.str(d.Channel)
		w.str(d.Group)
		w.str(d.Sender)
		w.bool(d.Owner)
		w.strs(d.Tools)
		w.str(d.Mode)
		w.bool(d.Coordinator)
	}
	if d := s.Spawn; w.has(d != nil) {
		w.str(string(d.Parent))
		w.str(d.Agent)
		w.str(d.Label)
		w.boolp(d.Sandboxed)
		w.boolp(d.Background)
		w.bool(d.Fork)
		w.bool(d.Teammate)
		w.bool(d.Hidden)
		w.strs(d.Tools)
	}
	w.ref(s.Origin)
	w.str(s.Actor)
	w.bool(s.Facts.Sandboxed)
	w.str(s.Facts.Mode)
	w.bool(s.Facts.Background)
	w.str(s.Facts.Role)
	w.envelope(s.Envelope)
	w.strs(s.Tools)
	w.int(s.Turn)
	c := s.Context
	w.str(c.Source)
	w.str(c.SourceReason)
	w.str(c.Sender)
	w.bool(c.External)
	w.envelope(c.Captured)
	if w.has(c.Continuation != nil) {
		w.ref(*c.Continuation)
	}
	w.ref(c.SetBy)
	w.keys(s.Children)
	w.int(s.ActiveChildren)
	if format >= sessionFormatScoped {
		w.str(s.Scope)
		if d := s.Start; d != nil {
			for _, v := range []string{d.Scope, d.Runtime, d.RuntimeVersion, d.Project, d.Repository, d.Branch, d.User, d.Host} {
				w.str(v)
			}
		}
		if s.Envelope != nil {
			w.str(s.Envelope.Scope)
		}
		if s.Context.Captured != nil {
			w.str(s.Context.Captured.Scope)
		}
	}
	if format >= sessionFormatConversation {
		if s.Start != nil {
			w.str(s.Start.Conversation)
		} else {
			w.str("")
		}
	}
	if format >= sessionFormatMode {
		w.str(s.Mode)
	}
	if format >= sessionFormatPlugins {
		w.str(string(s.Start.PluginTools))
	}
	return w.b
}

var errShort = errors.New("a stored session ends early")

// source reads what sink wrote. Its strings share one allocation, made
// once for the whole value.
type source struct {
	all string
	i   int
	err error
}

// uint reads a uvarint (as binary.Uvarint does, from the string).
func (r *source) uint() uint64 {
	var n uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if r.i >= len(r.all) {
			break
		}
		c := r.all[r.i]
		r.i++
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return n
		}
	}
	r.fail()
	return 0
}

// int reads a varint.
func (r *source) int() int {
	u := r.uint()
	n := int64(u >> 1)
	if u&1 != 0 {
		n = ^n
	}
	return int(n)
}

func (r *source) fail() {
	if r.err == nil {
		r.err = errShort
	}
	r.i = len(r.all)
}

func (r *source) str() string {
	n := r.uint()
	if n > uint64(len(r.all)-r.i) {
		r.fail()
		return ""
	}
	s := r.all[r.i : r.i+int(n)]
	r.i += int(n)
	return s
}

func (r *source) bool() bool {
	if r.i >= len(r.all) {
		r.fail()
		return false
	}
	r.i++
	return r.all[r.i-1] == 1
}

func (r *source) boolp() *bool {
	if !r.bool() {
		return nil
	}
	v := r.bool()
	return &v
}

func (r *source) count() (n int, null bool) {
	c := r.uint()
	if c > uint64(len(r.all)) { // each entry takes a byte at least
		r.fail()
		return 0, true
	}
	return int(c) - 1, c == 0
}

func (r *source) strs() []string {
	n, null := r.count()
	if null {
		return nil
	}
	s := make([]string, n)
	for i := range s {
		s[i] = r.str()
	}
	return s
}

func (r *source) keys() []events.SessionKey {
	n, null := r.count()
	if null {
		return nil
	}
	s := make([]events.SessionKey, n)
	for i := range s {
		s[i] = events.SessionKey(r.str())
	}
	return s
}

func (r *source) ref() envelope.RecordRef {
	seq := r.uint()
	return envelope.RecordRef{Seq: seq, ID: r.str(), Type: internType(events.Type(r.str()))}
}

func (r *source) envelope() *envelope.Envelope {
	if !r.bool() {
		return nil
	}
	e := &envelope.Envelope{Requester: events.SessionKey(r.str()), Agent: r.str(), Depth: r.int(), Role: r.str(),
		InheritedAllow: r.strs(), InheritedDeny: r.strs(), Source: r.str()}
	if r.bool() {
		e.Delegated = &envelope.Delegation{Requester: events.SessionKey(r.str()), Target: r.str(), Deny: r.strs()}
	}
	e.Revision = r.uint()
	e.Background = r.bool()
	e.Mode = r.str()
	e.ExtraTools = r.strs()
	e.Hash = r.str()
	return e
}

func decodeSessionBinary(raw []byte) (*envelope.Session, error) {
	if len(raw) == 0 || raw[0] < sessionFormat || raw[0] > sessionFormatPlugins {
		return nil, errors.New("a stored session is not in a form this build reads")
	}
	r := &source{all: string(raw), i: 1}
	s := &envelope.Session{Key: events.SessionKey(r.str()), Agent: r.str(), Parent: events.SessionKey(r.str()),
		Depth: r.int(), State: envelope.State(r.str())}
	if r.bool() {
		s.Start = &events.StartedData{Agent: r.str(), Provider: r.str(), Model: r.str(), Sandboxed: r.boolp(),
			Channel: r.str(), Group: r.str(), Sender: r.str(), Owner: r.bool(), Tools: r.strs(), Mode: r.str(), Coordinator: r.bool()}
	}
	if r.bool() {
		s.Spawn = &events.SpawnedData{Parent: events.SessionKey(r.str()), Agent: r.str(), Label: r.str(),
			Sandboxed: r.boolp(), Background: r.boolp(), Fork: r.bool(), Teammate: r.bool(), Hidden: r.bool(), Tools: r.strs()}
	}
	s.Origin = r.ref()
	s.Actor = r.str()
	s.Facts = envelope.Facts{Sandboxed: r.bool(), Mode: r.str(), Background: r.bool(), Role: r.str()}
	s.Envelope = r.envelope()
	s.Tools = r.strs()
	s.Turn = r.int()
	s.Context = envelope.Context{Source: r.str(), SourceReason: r.str(), Sender: r.str(), External: r.bool(), Captured: r.envelope()}
	if r.bool() {
		ref := r.ref()
		s.Context.Continuation = &ref
	}
	s.Context.SetBy = r.ref()
	s.Children = r.keys()
	s.ActiveChildren = r.int()
	if raw[0] >= sessionFormatScoped {
		s.Scope = r.str()
		if d := s.Start; d != nil {
			d.Scope, d.Runtime, d.RuntimeVersion, d.Project = r.str(), r.str(), r.str(), r.str()
			d.Repository, d.Branch, d.User, d.Host = r.str(), r.str(), r.str(), r.str()
		}
		if s.Envelope != nil {
			s.Envelope.Scope = r.str()
		}
		if s.Context.Captured != nil {
			s.Context.Captured.Scope = r.str()
		}
	}
	if raw[0] >= sessionFormatConversation {
		switch conv := r.str(); {
		case s.Start != nil:
			s.Start.Conversation = conv
		case conv != "":
			r.err = errors.New("a stored session without a start has a conversation")
		case raw[0] == sessionFormatConversation:
			r.err = errors.New("a stored session in format 3 has no start")
		}
	}
	if raw[0] >= sessionFormatMode {
		s.Mode = r.str()
	}
	if raw[0] >= sessionFormatPlugins {
		switch pt := r.str(); {
		case s.Start == nil:
			r.err = errors.New("a stored session in format 5 has no start")
		case pt == "":
			r.err = errors.New("a stored session in format 5 has no plugin tools")
		default:
			s.Start.PluginTools = json.RawMessage(pt)
		}
	}
	if r.err == nil && r.i != len(r.all) {
		r.err = errors.New("a stored session has bytes after its end")
	}
	return s, r.err
}
