package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// fieldKind is the JSON type a data field must have (SPEC section 4).
type fieldKind int

const (
	kString fieldKind = iota
	kBool
	kPositiveInt // an integer of at least 1
	kStrings     // a list of strings
	kObject
	kInput // a string or an object
)

func (k fieldKind) String() string {
	return [...]string{"a string", "a boolean", "an integer of at least 1", "a list of strings",
		"an object", "a string or an object"}[k]
}

type field struct {
	kind     fieldKind
	required bool
}

// schema lists every field each event type accepts. A field not listed for
// a type is an unknown field, whatever the dialect.
var schema = map[Type]map[string]field{
	PolicySet: {"dialect": {kString, true}, "document": {kObject, true}, "catalogue": {kStrings, false},
		"scope": {kString, false}},
	GrantAdded: {"kind": {kString, true}, "agent": {kString, true}, "target": {kString, true},
		"tools": {kStrings, false}, "behavior": {kString, false}, "rule": {kString, false},
		"scope": {kString, false}},
	SessionStarted: {"agent": {kString, true}, "provider": {kString, false}, "model": {kString, false},
		"sandboxed": {kBool, false}, "channel": {kString, false}, "group": {kString, false},
		"sender": {kString, false}, "owner": {kBool, false}, "tools": {kStrings, false},
		"mode": {kString, false}, "coordinator": {kBool, false}, "scope": {kString, false},
		"runtime": {kString, false}, "runtime_version": {kString, false}, "project": {kString, false},
		"repository": {kString, false}, "branch": {kString, false}, "user": {kString, false},
		"host": {kString, false}, "conversation": {kString, false}, "plugin_tools": {kObject, false}},
	DenyAdded: {"scope": {kString, false}, "rule": {kString, true}, "session": {kString, false},
		"subtree": {kBool, false}, "agent": {kString, false}, "user": {kString, false},
		"project": {kString, false}, "note": {kString, false}},
	SessionEnded:    {"reason": {kString, false}},
	SessionReopened: {"reason": {kString, false}},
	SessionSpawned: {"parent": {kString, true}, "agent": {kString, true}, "label": {kString, false},
		"sandboxed": {kBool, false}, "background": {kBool, false}, "fork": {kBool, false},
		"teammate": {kBool, false}, "hidden": {kBool, false}, "tools": {kStrings, false}},
	TurnStarted:      {"turn": {kPositiveInt, true}, "sender": {kString, false}, "external": {kBool, false}, "mode": {kString, false}},
	SessionYielded:   {"children": {kStrings, true}},
	SessionCompleted: {"status": {kString, true}},
	SessionResumed:   {"handoff": {kString, true}, "batch": {kString, false}, "from": {kStrings, true}},
	ToolChecked: {"turn": {kPositiveInt, true}, "tool": {kString, true}, "call": {kString, false},
		"input": {kInput, false}, "unreadable": {kString, false}, "effect": {kBool, false}},
	EffectStarted: {"turn": {kPositiveInt, true}, "tool": {kString, true}, "call": {kString, true},
		"prepared_at": {kPositiveInt, false}},
}

func init() {
	schema[GrantRevoked] = schema[GrantAdded]
	schema[DenyLifted] = schema[DenyAdded]
}

// ValidKey reports whether k is a well-formed session key: 1 to 200 of
// [A-Za-z0-9_:-] (SPEC section 2), checked byte by byte: this
// runs on every event (oracleValidKey in the tests is the regexp).
func ValidKey(k SessionKey) bool {
	if len(k) == 0 || len(k) > 200 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !keyByte[k[i]] {
			return false
		}
	}
	return true
}

// keyByte holds the bytes a session key may have.
var keyByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == ':' || c == '-'
	}
	return t
}()

var recordFields = map[string]bool{"id": true, "type": true, "v": true, "session": true, "actor": true, "data": true}

// Parse reads one event as a caller sends it and runs the record-level and
// data-level shape checks of SPEC section 4, group 1, in order: record fields,
// id, version, type, data fields and types, fixed values, and whether a
// session is present. It does not check the session key's shape; see
// CheckKey. The returned event keeps a copy of the caller's bytes of data.
//
// The event is read once into a tape; the checks read their values from it.
// They, their order and their messages are those of the version that
// decoded into maps with encoding/json (oracleParse in the tests).
func Parse(raw []byte) (*Event, error) {
	if err := checkJSON(raw); err != nil {
		return nil, err
	}
	t := getTape()
	defer putTape(t)
	if end, err := t.parse(raw, maxDecodeDepth); err != nil || skipSpace(raw, end) != len(raw) ||
		t.nodes[0].kind != '{' && t.nodes[0].kind != 'n' {
		return nil, Errorf(CodeInvalidEvent, "the event is not a JSON object: %v", notAnObject(raw))
	}
	// A top-level null has no members and no fields: refused below as
	// having no type.
	var topBuf [8]member
	top := t.members(topBuf[:0], raw, 0)
	var unknown []string
	for _, m := range top {
		if k := t.key(raw, m); !recordFields[string(k)] {
			unknown = append(unknown, string(k))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		if unknown[0] == "time" || unknown[0] == "decided" {
			return nil, Errorf(CodeInvalidEvent, "%q is set by the ledger; do not send it", unknown[0])
		}
		return nil, Errorf(CodeInvalidEvent, "%q is not a field of an event (fields: id, type, v, session, actor, data)", unknown[0])
	}
	for _, k := range []string{"type", "v", "actor", "data"} {
		if t.find(raw, top, k) == 0 {
			return nil, Errorf(CodeInvalidEvent, "the event has no %q", k)
		}
	}
	ev := &Event{}
	if k := t.find(raw, top, "id"); k != 0 {
		if ev.ID = t.str(raw, k); !ValidID(ev.ID) {
			return nil, Errorf(CodeInvalidEvent, "id %s is not a ULID (26 upper-case Crockford base-32 characters, the first 0-7)", t.raw(raw, k))
		}
	}
	for _, name := range []string{"type", "actor", "session", "id"} {
		if k := t.find(raw, top, name); k != 0 && !t.hasKind(raw, k, kString) {
			return nil, Errorf(CodeInvalidEvent, "%s must be a string, got %s", name, abbreviate(t.raw(raw, k)))
		}
	}
	if v := t.raw(raw, t.find(raw, top, "v")); !isIntLiteral(v, Version) {
		return nil, Errorf(CodeInvalidEvent, "v is %s; the only version is 1", v)
	}
	ev.V = Version
	// type, actor and session are strings now (checked above).
	ev.Type = t.eventType(raw, t.find(raw, top, "type"))
	ev.Actor = t.str(raw, t.find(raw, top, "actor"))
	data := t.find(raw, top, "data")
	if t.nodes[data].kind != '{' {
		return nil, Errorf(CodeInvalidEvent, "data must be an object")
	}
	ev.Data = bytes.Clone(t.raw(raw, data))
	if !ev.Type.Known() {
		return nil, Errorf(CodeUnknownType, "type %q is not an event type (one of %s)", ev.Type, typeList())
	}
	ev.Session = SessionKey(t.str(raw, t.find(raw, top, "session")))
	if err := checkData(ev, t, raw, data); err != nil {
		return nil, err
	}
	if ev.Type.IsPolicy() && ev.Session != "" {
		return nil, Errorf(CodeInvalidEvent, "%s is a policy event and takes no session (got %q)", ev.Type, ev.Session)
	}
	if !ev.Type.IsPolicy() && ev.Session == "" {
		return nil, Errorf(CodeInvalidEvent, "%s needs a session", ev.Type)
	}
	return ev, nil
}

// notAnObject returns encoding/json's error for an event that CheckJSON
// accepted but that is not one JSON object: nothing at all, another kind of
// value, or more than one value.
func notAnObject(raw []byte) error {
	var top map[string]json.RawMessage
	if err := strictUnmarshal(raw, &top); err != nil {
		return err
	}
	return errors.New("not an object") // not reached: only an object or null decodes
}

// CheckKey runs the generic key checks: the actor must be one subject token
// (CheckActor, invalid_event), and the session key must match
// [A-Za-z0-9_:-]{1,200} as a whole (bad_session_key). Parse leaves the actor
// alone because the API fills in an empty one with the subject's owner
// before this runs; it runs on new events only, never on a stored record.
func CheckKey(ev *Event) error {
	if err := CheckActor(ev.Actor); err != nil {
		return err
	}
	if ev.Type.IsPolicy() {
		return nil
	}
	if !ValidKey(ev.Session) {
		return Errorf(CodeBadSessionKey, "session key %q must match [A-Za-z0-9_:-]{1,200}", ev.Session)
	}
	return nil
}

func typeList() string {
	s := make([]string, len(Types))
	for i, t := range Types {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

// checkData checks the members of data (object node obj) against the
// schema and the fixed values that need no state.
func checkData(ev *Event, t *tape, b []byte, obj int) error {
	var buf [16]member
	data := t.members(buf[:0], b, obj)
	slices.SortFunc(data, func(x, y member) int { return bytes.Compare(t.key(b, x), t.key(b, y)) })
	fields := schema[ev.Type]
	for _, m := range data {
		name := t.key(b, m)
		f, ok := fields[string(name)]
		if !ok {
			return Errorf(CodeInvalidEvent, "%q is not a field of %s data", name, ev.Type)
		}
		v := m.k + 1
		if !t.hasKind(b, v, f.kind) {
			return Errorf(CodeInvalidEvent, "%s data field %q must be %s, got %s", ev.Type, name, f.kind, abbreviate(t.raw(b, v)))
		}
		if f.kind == kStrings && t.nodes[v].n > MaxListLen {
			return Errorf(CodeInvalidEvent, "%s data field %q has %d entries; the limit is %d", ev.Type, name, t.nodes[v].n, MaxListLen)
		}
	}
	for _, k := range required[ev.Type] {
		if t.find(b, data, k) == 0 {
			return Errorf(CodeInvalidEvent, "%s data needs %q", ev.Type, k)
		}
	}
	return checkValues(ev, t, b, data)
}

// required lists each type's required data fields in sorted order, the
// order they are reported in.
var required = map[Type][]string{}

func init() {
	for typ, fields := range schema {
		for k, f := range fields {
			if f.required {
				required[typ] = append(required[typ], k)
			}
		}
		sort.Strings(required[typ])
	}
}

// checkValues checks the fixed values of data, whose members have passed
// checkData: each is a field of the schema with its kind.
func checkValues(ev *Event, t *tape, b []byte, data []member) error {
	if k := t.find(b, data, "scope"); k != 0 {
		if sc := t.str(b, k); !ValidScope(sc) {
			return Errorf(CodeInvalidEvent, "scope %q must match [A-Za-z0-9_:-]{1,128}", abbreviate([]byte(sc)))
		}
	}
	for _, name := range identityFields {
		if k := t.find(b, data, name); k != 0 && len(t.str(b, k)) > MaxIdentityLen {
			return Errorf(CodeInvalidEvent, "%s data field %q is %d bytes; the limit is %d", ev.Type, name, len(t.str(b, k)), MaxIdentityLen)
		}
	}
	switch ev.Type {
	case DenyAdded, DenyLifted:
		return checkDeny(t, b, data)
	case ToolChecked:
		if k := t.find(b, data, "effect"); k != 0 && t.nodes[k].kind == 't' && t.str(b, t.find(b, data, "call")) == "" {
			return Errorf(CodeInvalidEvent, "a check that starts the call's effect (effect: true) needs the call's id in call")
		}
	case SessionYielded:
		children := t.keyList(b, t.find(b, data, "children"))
		if len(children) == 0 {
			return Errorf(CodeInvalidEvent, "session.yielded needs at least one child in children")
		}
		if dup := firstRepeat(children); dup != "" {
			return Errorf(CodeInvalidEvent, "children names %q twice", dup)
		}
	case SessionCompleted:
		switch status := t.str(b, t.find(b, data, "status")); status {
		case "ok", "error", "killed", "timeout":
		default:
			return Errorf(CodeInvalidEvent, "status %q must be one of ok, error, killed, timeout", status)
		}
	case SessionResumed:
		batch := t.find(b, data, "batch") != 0 // a string if present
		from := t.keyList(b, t.find(b, data, "from"))
		switch handoff := t.str(b, t.find(b, data, "handoff")); handoff {
		case HandoffSettleBatch:
			if !batch {
				return Errorf(CodeInvalidEvent, "a settle_batch resume needs batch (the yield's record id)")
			}
		case HandoffCompletion:
			if batch {
				return Errorf(CodeInvalidEvent, "a completion resume takes no batch")
			}
			if len(from) > 1 {
				return Errorf(CodeInvalidEvent, "a completion resume names exactly one child in from, got %d", len(from))
			}
		default:
			return Errorf(CodeInvalidEvent, "handoff %q must be settle_batch or completion", handoff)
		}
		if len(from) == 0 {
			return Errorf(CodeInvalidEvent, "session.resumed needs at least one key in from")
		}
		if dup := firstRepeat(from); dup != "" {
			return Errorf(CodeInvalidEvent, "from names %q twice", dup)
		}
	}
	return nil
}

// MaxIdentityLen bounds each identity field of session.started and a
// denial's note.
const MaxIdentityLen = MaxTextLen

// identityFields are the fields MaxIdentityLen bounds.
var identityFields = []string{"runtime", "runtime_version", "project", "repository", "branch", "user", "host", "note"}

// checkDeny checks a denial's rule and that it names at most one target.
func checkDeny(t *tape, b []byte, data []member) error {
	rule := t.str(b, t.find(b, data, "rule"))
	if strings.TrimSpace(rule) == "" {
		return Errorf(CodeInvalidEvent, "a denial needs a rule: a tool name (Bash, exec) or a rule pattern (Bash(git push *))")
	}
	if len(rule) > MaxRuleLen {
		return Errorf(CodeInvalidEvent, "the rule is %d bytes; the limit is %d", len(rule), MaxRuleLen)
	}
	var named []string
	for _, f := range []string{"session", "agent", "user", "project"} {
		if k := t.find(b, data, f); k != 0 {
			if t.str(b, k) == "" {
				return Errorf(CodeInvalidEvent, "the denial's %s is empty; leave it out to target every session of the scope", f)
			}
			named = append(named, f)
		}
	}
	if len(named) > 1 {
		return Errorf(CodeInvalidEvent, "a denial targets one of session, agent, user or project; this one names %s", strings.Join(named, " and "))
	}
	if k := t.find(b, data, "session"); k != 0 && !ValidKey(SessionKey(t.str(b, k))) {
		return Errorf(CodeBadSessionKey, "the denial's session %q must match [A-Za-z0-9_:-]{1,200}", abbreviate([]byte(t.str(b, k))))
	}
	if k := t.find(b, data, "subtree"); k != 0 && t.nodes[k].kind == 't' && t.find(b, data, "session") == 0 {
		return Errorf(CodeInvalidEvent, "subtree extends a session's denial to its sub-agents; name the session")
	}
	return nil
}

// abbreviate keeps error messages short when a hostile value is long.
func abbreviate(b []byte) string {
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

func firstRepeat(keys []SessionKey) SessionKey {
	seen := make(map[SessionKey]bool, len(keys))
	for _, k := range keys {
		if seen[k] {
			return k
		}
		seen[k] = true
	}
	return ""
}

// find returns the value node of the member of ms named name, or 0 (the
// root, never a member's value) if there is none.
func (t *tape) find(b []byte, ms []member, name string) int {
	for _, m := range ms {
		if string(t.key(b, m)) == name {
			return m.k + 1
		}
	}
	return 0
}

// str returns string node k decoded; "" for k 0 or a node of another kind
// (as json.Unmarshal leaves a string it cannot fill).
func (t *tape) str(b []byte, k int) string {
	if k == 0 || t.nodes[k].kind != '"' {
		return ""
	}
	if t.plain(b, k) {
		return string(b[t.nodes[k].start+1 : t.nodes[k].end-1])
	}
	return string(appendUnquoted(nil, t.raw(b, k)))
}

// eventType returns string node k as a Type, without allocating when it is
// a known one.
func (t *tape) eventType(b []byte, k int) Type {
	if t.plain(b, k) {
		name := b[t.nodes[k].start+1 : t.nodes[k].end-1]
		for _, typ := range Types {
			if string(name) == string(typ) {
				return typ
			}
		}
	}
	return Type(t.str(b, k))
}

// keyList returns the elements of a list of strings, node k, as session
// keys; nil for k 0.
func (t *tape) keyList(b []byte, k int) []SessionKey {
	if k == 0 {
		return nil
	}
	keys := make([]SessionKey, 0, t.nodes[k].n)
	for e := k + 1; e < t.nodes[k].next; e = t.nodes[e].next {
		keys = append(keys, SessionKey(t.str(b, e)))
	}
	return keys
}

// hasKind reports whether node k has the JSON type a field of kind kind
// must have.
func (t *tape) hasKind(b []byte, k int, kind fieldKind) bool {
	n := t.nodes[k]
	switch kind {
	case kString:
		return n.kind == '"'
	case kBool:
		return n.kind == 't' || n.kind == 'f'
	case kPositiveInt:
		// What json.Number.Int64 accepts, at least 1: digits only (no
		// sign, fraction or exponent) that an int64 holds.
		if n.kind != '0' || b[n.start] == '-' {
			return false
		}
		var v int64
		for _, c := range b[n.start:n.end] {
			if !isDigit(c) || v > (math.MaxInt64-int64(c-'0'))/10 {
				return false
			}
			v = v*10 + int64(c-'0')
		}
		return v >= 1
	case kStrings:
		// A list of strings, without a null (which json.Unmarshal would
		// quietly turn into an empty string).
		if n.kind != '[' {
			return false
		}
		for e := k + 1; e < n.next; e = t.nodes[e].next {
			if t.nodes[e].kind != '"' {
				return false
			}
		}
		return true
	case kObject:
		return n.kind == '{'
	case kInput:
		return n.kind == '"' || n.kind == '{'
	}
	return false
}

// isIntLiteral reports whether raw is the integer want as written.
func isIntLiteral(raw []byte, want int) bool {
	return string(bytes.TrimSpace(raw)) == strconv.Itoa(want)
}

// Payload decodes an event's data into its typed payload. Call it only on an
// event that Parse accepted.
//
// Data of the shape Parse accepts is read from a tape (decodePayload);
// anything else goes to json.Unmarshal, as all data did before, so the
// values and errors are its (oraclePayload in the tests).
func (ev *Event) Payload() (any, error) {
	var p any
	switch ev.Type {
	case PolicySet:
		p = &PolicySetData{}
	case GrantAdded, GrantRevoked:
		p = &GrantData{}
	case SessionStarted:
		p = &StartedData{}
	case SessionSpawned:
		p = &SpawnedData{}
	case TurnStarted:
		p = &TurnData{}
	case SessionYielded:
		p = &YieldedData{}
	case SessionCompleted:
		p = &CompletedData{}
	case SessionResumed:
		p = &ResumedData{}
	case ToolChecked:
		p = &CheckedData{}
	case EffectStarted:
		p = &EffectData{}
	case DenyAdded, DenyLifted:
		p = &DenyData{}
	case SessionEnded:
		p = &EndedData{}
	case SessionReopened:
		p = &ReopenedData{}
	default:
		return nil, Errorf(CodeUnknownType, "type %q is not an event type", ev.Type)
	}
	if decodePayload(ev.Data, p) {
		return p, nil
	}
	if err := json.Unmarshal(ev.Data, p); err != nil {
		return nil, Errorf(CodeInvalidEvent, "%s data does not decode: %v", ev.Type, err)
	}
	return p, nil
}

// strictUnmarshal decodes JSON refusing trailing data.
func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after the JSON value")
	}
	return nil
}
