package envelope

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/sessionledger/ledger/events"
)

// Envelope is what the ledger captures for a child at spawn and keeps for
// its life (SPEC section 5.1). The common fields are those of SPEC section 9;
// Background, Mode and ExtraTools belong to the claude-code dialect and are
// encoded only when Mode is set (claude-code always sets it).
type Envelope struct {
	Requester events.SessionKey
	Agent     string
	Depth     int
	Role      string
	// InheritedAllow is the ceiling: nil means no ceiling (JSON null), an
	// empty list a ceiling that admits nothing.
	InheritedAllow []string
	InheritedDeny  []string
	Source         string
	Delegated      *Delegation
	Revision       uint64
	// Scope is the scope the child is bound to, its requester's; encoded
	// only when it is not the default scope, so envelopes from before
	// scopes keep their hashes.
	Scope string

	Background bool
	Mode       string
	ExtraTools []string

	Hash string
}

// Delegation holds the delegation facts of an openclaw envelope.
type Delegation struct {
	Requester events.SessionKey `json:"requester"`
	Target    string            `json:"target"`
	Deny      []string          `json:"deny"`
}

// fields returns the envelope as the map that is encoded and hashed.
func (e *Envelope) fields(withHash bool) map[string]any {
	m := map[string]any{
		"requester":       e.Requester,
		"agent":           e.Agent,
		"depth":           e.Depth,
		"role":            e.Role,
		"inherited_allow": e.InheritedAllow, // nil encodes as null
		"inherited_deny":  nonNil(e.InheritedDeny),
		"source":          e.Source,
		"delegated":       e.Delegated,
		"revision":        e.Revision,
	}
	if e.Delegated != nil {
		m["delegated"] = &Delegation{Requester: e.Delegated.Requester, Target: e.Delegated.Target, Deny: nonNil(e.Delegated.Deny)}
	}
	if e.Scope != "" {
		m["scope"] = e.Scope
	}
	if e.Mode != "" {
		m["background"] = e.Background
		m["mode"] = e.Mode
		m["extra_tools"] = nonNil(e.ExtraTools)
	}
	if withHash {
		m["hash"] = e.Hash
	}
	return m
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// MarshalJSON encodes the envelope with its hash.
func (e *Envelope) MarshalJSON() ([]byte, error) { return json.Marshal(e.fields(e.Hash != "")) }

// UnmarshalJSON decodes an envelope written by MarshalJSON.
func (e *Envelope) UnmarshalJSON(b []byte) error {
	var w struct {
		Requester      events.SessionKey `json:"requester"`
		Agent          string            `json:"agent"`
		Depth          int               `json:"depth"`
		Role           string            `json:"role"`
		InheritedAllow []string          `json:"inherited_allow"`
		InheritedDeny  []string          `json:"inherited_deny"`
		Source         string            `json:"source"`
		Delegated      *Delegation       `json:"delegated"`
		Revision       uint64            `json:"revision"`
		Scope          string            `json:"scope"`
		Background     bool              `json:"background"`
		Mode           string            `json:"mode"`
		ExtraTools     []string          `json:"extra_tools"`
		Hash           string            `json:"hash"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = Envelope(w)
	return nil
}

// ComputeHash returns the content hash of the envelope without its hash
// field (SPEC section 3).
func (e *Envelope) ComputeHash() string {
	if b, ok := e.appendCanonical(nil); ok {
		return events.HashBytes(b)
	}
	return e.mapHash()
}

// mapHash hashes the map MarshalJSON encodes, through events.Hash: the
// definition of the envelope's hash, which appendCanonical writes
// directly (TestEnvelopeHash keeps the two the same).
func (e *Envelope) mapHash() string {
	h, err := events.Hash(e.fields(false))
	if err != nil {
		panic("envelope: hashing a plain value failed: " + err.Error()) // cannot happen: only strings, ints, lists
	}
	return h
}

// appendCanonical appends the RFC 8785 bytes of fields(false): keys in
// order, strings as events.WriteString writes them. ok is false for a
// number past 2^53, which the canonical form rounds as a float64 does, and
// for a string that is not UTF-8, whose bad bytes it replaces; mapHash
// hashes those.
func (e *Envelope) appendCanonical(dst []byte) ([]byte, bool) {
	const exact = 1 << 53
	if e.Depth <= -exact || e.Depth >= exact || e.Revision >= exact {
		return nil, false
	}
	buf := bytes.NewBuffer(dst)
	buf.Grow(256)
	ok := true
	str := func(s string) {
		ok = ok && utf8.ValidString(s)
		events.WriteString(buf, s)
	}
	strs := func(s []string) {
		if s == nil {
			buf.WriteString("null")
			return
		}
		buf.WriteByte('[')
		for i, v := range s {
			if i > 0 {
				buf.WriteByte(',')
			}
			str(v)
		}
		buf.WriteByte(']')
	}
	buf.WriteString(`{"agent":`)
	str(e.Agent)
	if e.Mode != "" {
		buf.WriteString(`,"background":`)
		buf.WriteString(strconv.FormatBool(e.Background))
	}
	buf.WriteString(`,"delegated":`)
	if d := e.Delegated; d == nil {
		buf.WriteString("null")
	} else {
		buf.WriteString(`{"deny":`)
		strs(nonNil(d.Deny))
		buf.WriteString(`,"requester":`)
		str(string(d.Requester))
		buf.WriteString(`,"target":`)
		str(d.Target)
		buf.WriteByte('}')
	}
	buf.WriteString(`,"depth":`)
	buf.WriteString(strconv.Itoa(e.Depth))
	if e.Mode != "" {
		buf.WriteString(`,"extra_tools":`)
		strs(nonNil(e.ExtraTools))
	}
	buf.WriteString(`,"inherited_allow":`)
	strs(e.InheritedAllow)
	buf.WriteString(`,"inherited_deny":`)
	strs(nonNil(e.InheritedDeny))
	if e.Mode != "" {
		buf.WriteString(`,"mode":`)
		str(e.Mode)
	}
	buf.WriteString(`,"requester":`)
	str(string(e.Requester))
	buf.WriteString(`,"revision":`)
	buf.WriteString(strconv.FormatUint(e.Revision, 10))
	buf.WriteString(`,"role":`)
	str(e.Role)
	if e.Scope != "" {
		buf.WriteString(`,"scope":`)
		str(e.Scope)
	}
	buf.WriteString(`,"source":`)
	str(e.Source)
	buf.WriteByte('}')
	return buf.Bytes(), ok
}

// Seal sets the envelope's hash. Call it once the envelope is complete.
func (e *Envelope) Seal() { e.Hash = e.ComputeHash() }

// Verified reports whether the envelope's requester is requester and its
// hash recomputes (the verification of SPEC section 5.3).
func (e *Envelope) Verified(requester events.SessionKey) bool {
	return e != nil && e.Requester == requester && e.Hash == e.ComputeHash()
}

// Clone returns a deep copy.
func (e *Envelope) Clone() *Envelope {
	if e == nil {
		return nil
	}
	c := *e
	c.InheritedAllow = slices.Clone(e.InheritedAllow)
	c.InheritedDeny = slices.Clone(e.InheritedDeny)
	c.ExtraTools = slices.Clone(e.ExtraTools)
	if e.Delegated != nil {
		d := *e.Delegated
		d.Deny = slices.Clone(d.Deny)
		c.Delegated = &d
	}
	return &c
}
