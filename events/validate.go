package events

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
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
	PolicySet: {"dialect": {kString, true}, "document": {kObject, true}, "catalogue": {kStrings, false}},
	GrantAdded: {"kind": {kString, true}, "agent": {kString, true}, "target": {kString, true},
		"tools": {kStrings, false}, "behavior": {kString, false}, "rule": {kString, false}},
	SessionStarted: {"agent": {kString, true}, "provider": {kString, false}, "model": {kString, false},
		"sandboxed": {kBool, false}, "channel": {kString, false}, "group": {kString, false},
		"sender": {kString, false}, "owner": {kBool, false}, "tools": {kStrings, false},
		"mode": {kString, false}, "coordinator": {kBool, false}},
	SessionSpawned: {"parent": {kString, true}, "agent": {kString, true}, "label": {kString, false},
		"sandboxed": {kBool, false}, "background": {kBool, false}, "fork": {kBool, false},
		"teammate": {kBool, false}, "hidden": {kBool, false}, "tools": {kStrings, false}},
	TurnStarted:      {"turn": {kPositiveInt, true}, "sender": {kString, false}, "external": {kBool, false}},
	SessionYielded:   {"children": {kStrings, true}},
	SessionCompleted: {"status": {kString, true}},
	SessionResumed:   {"handoff": {kString, true}, "batch": {kString, false}, "from": {kStrings, true}},
	ToolChecked: {"turn": {kPositiveInt, true}, "tool": {kString, true}, "call": {kString, false},
		"input": {kInput, false}},
	EffectStarted: {"turn": {kPositiveInt, true}, "tool": {kString, true}, "call": {kString, true},
		"prepared_at": {kPositiveInt, false}},
}

func init() { schema[GrantRevoked] = schema[GrantAdded] }

// keyPattern is the whole-key shape of a session key (SPEC section 2).
var keyPattern = regexp.MustCompile(`^[A-Za-z0-9_:-]{1,200}$`)

// ValidKey reports whether k is a well-formed session key. A trailing
// newline is refused (regexp's $ does not match before one without (?m)).
func ValidKey(k SessionKey) bool {
	return keyPattern.MatchString(string(k)) && !strings.ContainsAny(string(k), "\n")
}

var recordFields = map[string]bool{"id": true, "type": true, "v": true, "session": true, "actor": true, "data": true}

// Parse reads one event as a caller sends it and runs the record-level and
// data-level shape checks of SPEC section 4, group 1, in order: record fields,
// id, version, type, data fields and types, fixed values, and whether a
// session is present. It does not check the session key's shape; see
// CheckKey. The returned event keeps the caller's bytes of data.
func Parse(raw []byte) (*Event, error) {
	if err := checkJSON(raw); err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := strictUnmarshal(raw, &top); err != nil {
		return nil, Errorf(CodeInvalidEvent, "the event is not a JSON object: %v", err)
	}
	var unknown []string
	for k := range top {
		if !recordFields[k] {
			unknown = append(unknown, k)
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
		if _, ok := top[k]; !ok {
			return nil, Errorf(CodeInvalidEvent, "the event has no %q", k)
		}
	}
	ev := &Event{}
	if raw, ok := top["id"]; ok {
		if err := json.Unmarshal(raw, &ev.ID); err != nil || !ValidID(ev.ID) {
			return nil, Errorf(CodeInvalidEvent, "id %s is not a ULID (26 upper-case Crockford base-32 characters, the first 0-7)", raw)
		}
	}
	for _, k := range []string{"type", "actor", "session", "id"} {
		if raw, ok := top[k]; ok && !hasKind(raw, kString) {
			return nil, Errorf(CodeInvalidEvent, "%s must be a string, got %s", k, abbreviate(raw))
		}
	}
	if !isIntLiteral(top["v"], Version) {
		return nil, Errorf(CodeInvalidEvent, "v is %s; the only version is 1", top["v"])
	}
	ev.V = Version
	if err := json.Unmarshal(top["type"], &ev.Type); err != nil {
		return nil, Errorf(CodeInvalidEvent, "type must be a string, got %s", top["type"])
	}
	if err := json.Unmarshal(top["actor"], &ev.Actor); err != nil {
		return nil, Errorf(CodeInvalidEvent, "actor must be a string, got %s", top["actor"])
	}
	if !bytes.HasPrefix(bytes.TrimSpace(top["data"]), []byte("{")) {
		return nil, Errorf(CodeInvalidEvent, "data must be an object")
	}
	ev.Data = top["data"]
	if !ev.Type.Known() {
		return nil, Errorf(CodeUnknownType, "type %q is not an event type (one of %s)", ev.Type, typeList())
	}
	if raw, ok := top["session"]; ok {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, Errorf(CodeInvalidEvent, "session must be a string, got %s", raw)
		}
		ev.Session = SessionKey(s)
	}
	if err := checkData(ev); err != nil {
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

// CheckKey runs the generic key check: the session key must match
// [A-Za-z0-9_:-]{1,200} as a whole (bad_session_key).
func CheckKey(ev *Event) error {
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

// checkData checks data's fields against the schema and the fixed values
// that need no state.
func checkData(ev *Event) error {
	var data map[string]json.RawMessage
	if err := strictUnmarshal(ev.Data, &data); err != nil {
		return Errorf(CodeInvalidEvent, "data does not decode: %v", err)
	}
	fields := schema[ev.Type]
	names := make([]string, 0, len(data))
	for k := range data {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		f, ok := fields[k]
		if !ok {
			return Errorf(CodeInvalidEvent, "%q is not a field of %s data", k, ev.Type)
		}
		if !hasKind(data[k], f.kind) {
			return Errorf(CodeInvalidEvent, "%s data field %q must be %s, got %s", ev.Type, k, f.kind, abbreviate(data[k]))
		}
		if f.kind == kStrings {
			var l []string
			_ = json.Unmarshal(data[k], &l)
			if len(l) > MaxListLen {
				return Errorf(CodeInvalidEvent, "%s data field %q has %d entries; the limit is %d", ev.Type, k, len(l), MaxListLen)
			}
		}
	}
	req := make([]string, 0, len(fields))
	for k, f := range fields {
		if f.required {
			req = append(req, k)
		}
	}
	sort.Strings(req)
	for _, k := range req {
		if _, ok := data[k]; !ok {
			return Errorf(CodeInvalidEvent, "%s data needs %q", ev.Type, k)
		}
	}
	return checkValues(ev)
}

func checkValues(ev *Event) error {
	switch ev.Type {
	case SessionYielded:
		var d YieldedData
		_ = json.Unmarshal(ev.Data, &d)
		if len(d.Children) == 0 {
			return Errorf(CodeInvalidEvent, "session.yielded needs at least one child in children")
		}
		if dup := firstRepeat(d.Children); dup != "" {
			return Errorf(CodeInvalidEvent, "children names %q twice", dup)
		}
	case SessionCompleted:
		var d CompletedData
		_ = json.Unmarshal(ev.Data, &d)
		switch d.Status {
		case "ok", "error", "killed", "timeout":
		default:
			return Errorf(CodeInvalidEvent, "status %q must be one of ok, error, killed, timeout", d.Status)
		}
	case SessionResumed:
		var d ResumedData
		_ = json.Unmarshal(ev.Data, &d)
		switch d.Handoff {
		case HandoffSettleBatch:
			if d.Batch == nil {
				return Errorf(CodeInvalidEvent, "a settle_batch resume needs batch (the yield's record id)")
			}
		case HandoffCompletion:
			if d.Batch != nil {
				return Errorf(CodeInvalidEvent, "a completion resume takes no batch")
			}
			if len(d.From) > 1 {
				return Errorf(CodeInvalidEvent, "a completion resume names exactly one child in from, got %d", len(d.From))
			}
		default:
			return Errorf(CodeInvalidEvent, "handoff %q must be settle_batch or completion", d.Handoff)
		}
		if len(d.From) == 0 {
			return Errorf(CodeInvalidEvent, "session.resumed needs at least one key in from")
		}
		if dup := firstRepeat(d.From); dup != "" {
			return Errorf(CodeInvalidEvent, "from names %q twice", dup)
		}
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

func hasKind(raw json.RawMessage, k fieldKind) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch k {
	case kString:
		return raw[0] == '"'
	case kBool:
		s := string(raw)
		return s == "true" || s == "false"
	case kPositiveInt:
		if raw[0] < '0' || raw[0] > '9' {
			return false
		}
		var n json.Number
		if json.Unmarshal(raw, &n) != nil {
			return false
		}
		i, err := n.Int64()
		return err == nil && i >= 1 && !bytes.ContainsAny(raw, ".eE")
	case kStrings:
		var l []string
		return raw[0] == '[' && json.Unmarshal(raw, &l) == nil && !containsNull(raw)
	case kObject:
		return raw[0] == '{'
	case kInput:
		return raw[0] == '"' || raw[0] == '{'
	}
	return false
}

// containsNull reports a null element in a list, which json.Unmarshal would
// otherwise turn into an empty string.
func containsNull(raw json.RawMessage) bool {
	var l []any
	if json.Unmarshal(raw, &l) != nil {
		return true
	}
	for _, v := range l {
		if v == nil {
			return true
		}
	}
	return false
}

func isIntLiteral(raw json.RawMessage, want int) bool {
	return string(bytes.TrimSpace(raw)) == fmt.Sprint(want)
}

// Payload decodes an event's data into its typed payload. Call it only on an
// event that Parse accepted.
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
	default:
		return nil, Errorf(CodeUnknownType, "type %q is not an event type", ev.Type)
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
