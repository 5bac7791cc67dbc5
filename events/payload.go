package events

import (
	"bytes"
	"encoding/json"
)

// The fast path of Event.Payload. The projection decodes the data of every
// event it prepares and of every record it folds, and json.Unmarshal's
// reflection was one of the largest costs of an append and of a rebuild.
// decodePayload fills a payload from a tape instead, but only where
// json.Unmarshal would certainly fill it the same way: one object whose
// keys are each one of the payload's JSON names, spelt exactly (no escape)
// and once, each holding a value of the field's own JSON kind, null
// excepted. Everything else (keys json.Unmarshal matches regardless of
// case, unknown keys, repeated keys, nulls, type errors, numbers an int may
// not hold, syntax errors, trailing data) is left to json.Unmarshal, whose
// values and messages stay the reference (oraclePayload in the tests).

// A payloadKind is what a payload field holds: its JSON kind and Go type.
type payloadKind uint8

const (
	pString    payloadKind = iota // a string, into a string type
	pStringPtr                    // a string, into a *string
	pBool                         // true or false, into a bool
	pBoolPtr                      // true or false, into a *bool
	pInt                          // an integer of at most 9 digits, into an int
	pUint64                       // an integer of at most 19 digits, no sign, into a uint64
	pStrings                      // a list of strings, into a slice of a string type
	pRaw                          // any value but null, into a json.RawMessage
)

// A payloadField is one field of a payload: its JSON name, as in its tag,
// and what it holds.
type payloadField struct {
	name string
	kind payloadKind
}

// The fields of each payload in struct order; fillPayload reads them by
// index in this order.
var (
	policySetFields = []payloadField{{"dialect", pString}, {"document", pRaw}, {"catalogue", pStrings}, {"scope", pString}}
	grantFields     = []payloadField{{"kind", pString}, {"agent", pString}, {"target", pString},
		{"tools", pStrings}, {"behavior", pString}, {"rule", pString}, {"scope", pString}}
	startedFields = []payloadField{{"agent", pString}, {"provider", pString}, {"model", pString},
		{"sandboxed", pBoolPtr}, {"channel", pString}, {"group", pString}, {"sender", pString},
		{"owner", pBool}, {"tools", pStrings}, {"mode", pString}, {"coordinator", pBool},
		{"scope", pString}, {"runtime", pString}, {"runtime_version", pString}, {"project", pString},
		{"repository", pString}, {"branch", pString}, {"user", pString}, {"host", pString},
		{"conversation", pString}, {"plugin_tools", pRaw}}
	denyFields = []payloadField{{"scope", pString}, {"rule", pString}, {"session", pString},
		{"subtree", pBool}, {"agent", pString}, {"user", pString}, {"project", pString}, {"note", pString}}
	endedFields   = []payloadField{{"reason", pString}}
	spawnedFields = []payloadField{{"parent", pString}, {"agent", pString}, {"label", pString},
		{"sandboxed", pBoolPtr}, {"background", pBoolPtr}, {"fork", pBool}, {"teammate", pBool},
		{"hidden", pBool}, {"tools", pStrings}}
	turnFields      = []payloadField{{"turn", pInt}, {"sender", pString}, {"external", pBool}, {"mode", pString}}
	yieldedFields   = []payloadField{{"children", pStrings}}
	completedFields = []payloadField{{"status", pString}}
	resumedFields   = []payloadField{{"handoff", pString}, {"batch", pStringPtr}, {"from", pStrings}}
	checkedFields   = []payloadField{{"turn", pInt}, {"tool", pString}, {"call", pString}, {"input", pRaw}, {"unreadable", pString}, {"effect", pBool}}
	effectFields    = []payloadField{{"turn", pInt}, {"tool", pString}, {"call", pString}, {"prepared_at", pUint64}}
)

// maxPayloadFields is the most fields a payload has (StartedData's).
const maxPayloadFields = 21

// decodePayload fills p, a pointer to a zero payload, from data, and
// reports whether it did; if not, p is untouched and json.Unmarshal must
// decide.
func decodePayload(data []byte, p any) bool {
	var fields []payloadField
	switch p.(type) {
	case *PolicySetData:
		fields = policySetFields
	case *GrantData:
		fields = grantFields
	case *StartedData:
		fields = startedFields
	case *SpawnedData:
		fields = spawnedFields
	case *TurnData:
		fields = turnFields
	case *YieldedData:
		fields = yieldedFields
	case *CompletedData:
		fields = completedFields
	case *ResumedData:
		fields = resumedFields
	case *CheckedData:
		fields = checkedFields
	case *EffectData:
		fields = effectFields
	case *DenyData:
		fields = denyFields
	case *EndedData, *ReopenedData:
		fields = endedFields
	default:
		return false
	}
	t := getTape()
	defer putTape(t)
	d := payloadReader{t: t, b: data}
	if !d.read(fields) {
		return false
	}
	switch p := p.(type) {
	case *PolicySetData:
		*p = PolicySetData{Dialect: d.str(0), Document: d.raw(1), Catalogue: list[string](&d, 2), Scope: d.str(3)}
	case *GrantData:
		*p = GrantData{Kind: GrantKind(d.str(0)), Agent: d.str(1), Target: d.str(2),
			Tools: list[string](&d, 3), Behavior: d.str(4), Rule: d.str(5), Scope: d.str(6)}
	case *StartedData:
		*p = StartedData{Agent: d.str(0), Provider: d.str(1), Model: d.str(2), Sandboxed: d.boolPtr(3),
			Channel: d.str(4), Group: d.str(5), Sender: d.str(6), Owner: d.bool(7),
			Tools: list[string](&d, 8), Mode: d.str(9), Coordinator: d.bool(10),
			Scope: d.str(11), Runtime: d.str(12), RuntimeVersion: d.str(13), Project: d.str(14),
			Repository: d.str(15), Branch: d.str(16), User: d.str(17), Host: d.str(18),
			Conversation: d.str(19), PluginTools: d.raw(20)}
	case *DenyData:
		*p = DenyData{Scope: d.str(0), Rule: d.str(1), Session: SessionKey(d.str(2)), Subtree: d.bool(3),
			Agent: d.str(4), User: d.str(5), Project: d.str(6), Note: d.str(7)}
	case *EndedData:
		*p = EndedData{Reason: d.str(0)}
	case *ReopenedData:
		*p = ReopenedData{Reason: d.str(0)}
	case *SpawnedData:
		*p = SpawnedData{Parent: SessionKey(d.str(0)), Agent: d.str(1), Label: d.str(2),
			Sandboxed: d.boolPtr(3), Background: d.boolPtr(4), Fork: d.bool(5), Teammate: d.bool(6),
			Hidden: d.bool(7), Tools: list[string](&d, 8)}
	case *TurnData:
		*p = TurnData{Turn: d.int(0), Sender: d.str(1), External: d.bool(2), Mode: d.str(3)}
	case *YieldedData:
		*p = YieldedData{Children: list[SessionKey](&d, 0)}
	case *CompletedData:
		*p = CompletedData{Status: d.str(0)}
	case *ResumedData:
		*p = ResumedData{Handoff: d.str(0), Batch: d.strPtr(1), From: list[SessionKey](&d, 2)}
	case *CheckedData:
		*p = CheckedData{Turn: d.int(0), Tool: d.str(1), Call: d.str(2), Input: d.raw(3), Unreadable: d.str(4), Effect: d.bool(5)}
	case *EffectData:
		*p = EffectData{Turn: d.int(0), Tool: d.str(1), Call: d.str(2), PreparedAt: d.uint64(3)}
	}
	return true
}

// A payloadReader reads the fields of one payload from a tape.
type payloadReader struct {
	t    *tape
	b    []byte                // what t was parsed from
	vals [maxPayloadFields]int // the value node of each field, 0 if absent
	// The payload's strings (string fields and list elements, in field
	// order) share one allocation, text; t.ends[first[f]] is where field
	// f's first string ends.
	text  string
	first [maxPayloadFields]int
}

// read parses d.b and checks that it is an object of the given fields, as
// the comment at the top of this file says; then it decodes every string
// in it.
func (d *payloadReader) read(fields []payloadField) bool {
	t, b := d.t, d.b
	end, err := t.parse(b, maxDecodeDepth)
	if err != nil || skipSpace(b, end) != len(b) || t.nodes[0].kind != '{' {
		return false
	}
	for k := 1; k < t.nodes[0].next; k = t.nodes[k+1].next {
		if t.nodes[k].flags != 0 {
			return false
		}
		f := fieldIndex(fields, b[t.nodes[k].start+1:t.nodes[k].end-1])
		if f < 0 || d.vals[f] != 0 || !d.holds(k+1, fields[f].kind) {
			return false
		}
		d.vals[f] = k + 1
	}
	text, ends := t.buf[:0], t.ends[:0]
	for f, field := range fields {
		d.first[f] = len(ends)
		switch v := d.vals[f]; {
		case v == 0:
		case field.kind == pString || field.kind == pStringPtr:
			text = t.appendString(text, b, v)
			ends = append(ends, len(text))
		case field.kind == pStrings:
			for e := v + 1; e < t.nodes[v].next; e = t.nodes[e].next {
				text = t.appendString(text, b, e)
				ends = append(ends, len(text))
			}
		}
	}
	t.buf, t.ends = text, ends
	d.text = string(text)
	return true
}

func fieldIndex(fields []payloadField, key []byte) int {
	for f := range fields {
		if fields[f].name == string(key) {
			return f
		}
	}
	return -1
}

// holds reports whether value node v is of the JSON kind a field of kind
// kind takes, such that json.Unmarshal fills the field from it without
// error.
func (d *payloadReader) holds(v int, kind payloadKind) bool {
	n := d.t.nodes[v]
	switch kind {
	case pString, pStringPtr:
		return n.kind == '"'
	case pBool, pBoolPtr:
		return n.kind == 't' || n.kind == 'f'
	case pInt:
		_, ok := shortInt(d.t.raw(d.b, v))
		return n.kind == '0' && ok
	case pUint64:
		_, ok := shortUint64(d.t.raw(d.b, v))
		return n.kind == '0' && ok
	case pStrings:
		if n.kind != '[' {
			return false
		}
		for e := v + 1; e < n.next; e = d.t.nodes[e].next {
			if d.t.nodes[e].kind != '"' {
				return false
			}
		}
		return true
	case pRaw:
		// null is json.Unmarshal's to read: it treats null apart from
		// every other value.
		return n.kind != 'n'
	}
	return false
}

// at returns the payload's i-th string.
func (d *payloadReader) at(i int) string {
	start := 0
	if i > 0 {
		start = d.t.ends[i-1]
	}
	return d.text[start:d.t.ends[i]]
}

func (d *payloadReader) str(f int) string {
	if d.vals[f] == 0 {
		return ""
	}
	return d.at(d.first[f])
}

func (d *payloadReader) strPtr(f int) *string {
	if d.vals[f] == 0 {
		return nil
	}
	s := d.at(d.first[f])
	return &s
}

func (d *payloadReader) bool(f int) bool {
	return d.vals[f] != 0 && d.t.nodes[d.vals[f]].kind == 't'
}

func (d *payloadReader) boolPtr(f int) *bool {
	if d.vals[f] == 0 {
		return nil
	}
	v := d.bool(f)
	return &v
}

func (d *payloadReader) int(f int) int {
	if d.vals[f] == 0 {
		return 0
	}
	n, _ := shortInt(d.t.raw(d.b, d.vals[f])) // checked by holds
	return n
}

func (d *payloadReader) uint64(f int) uint64 {
	if d.vals[f] == 0 {
		return 0
	}
	n, _ := shortUint64(d.t.raw(d.b, d.vals[f])) // checked by holds
	return n
}

// raw returns a copy of field f's bytes, as json.RawMessage's UnmarshalJSON
// keeps one.
func (d *payloadReader) raw(f int) json.RawMessage {
	if d.vals[f] == 0 {
		return nil
	}
	return bytes.Clone(d.t.raw(d.b, d.vals[f]))
}

// list returns list field f; a non-nil empty slice for [], as
// json.Unmarshal makes one.
func list[S ~string](d *payloadReader, f int) []S {
	v := d.vals[f]
	if v == 0 {
		return nil
	}
	out := make([]S, d.t.nodes[v].n)
	for i := range out {
		out[i] = S(d.at(d.first[f] + i))
	}
	return out
}

// shortUint64 parses an unsigned integer literal of at most 19 digits,
// which a uint64 holds; json.Unmarshal reads it the same. A minus sign,
// even on zero, is refused, as strconv.ParseUint refuses it.
func shortUint64(lit []byte) (uint64, bool) {
	if len(lit) == 0 || len(lit) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range lit {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}
