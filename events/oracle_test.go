package events

// The implementations this package had before its JSON hot paths were
// rewritten, kept verbatim (renamed) as oracles: the differential fuzz
// targets in oracle_diff_test.go require the new code to accept, refuse
// and produce exactly what these did.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// oracleEncode is the old Record.Encode.
func oracleEncode(r *Record) ([]byte, error) { return oracleCanonical(r) }

func oracleLoneSurrogate(raw []byte) bool {
	in := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if !in {
			in = c == '"'
			continue
		}
		switch c {
		case '"':
			in = false
		case '\\':
			if i+1 < len(raw) && raw[i+1] == 'u' && i+5 < len(raw) {
				v, ok := oracleHex4(raw[i+2 : i+6])
				if ok && v >= 0xD800 && v <= 0xDBFF {
					// A high surrogate needs a low one right after it.
					if i+11 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
						if w, ok := oracleHex4(raw[i+8 : i+12]); ok && w >= 0xDC00 && w <= 0xDFFF {
							i += 11
							continue
						}
					}
					return true
				}
				if ok && v >= 0xDC00 && v <= 0xDFFF {
					return true
				}
				i += 5
				continue
			}
			i++ // skip the escaped character
		}
	}
	return false
}

func oracleHex4(b []byte) (int, bool) {
	v := 0
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			v = v*16 + int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v*16 + int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v*16 + int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

func oracleCheckJSON(raw []byte) error {
	if len(raw) > MaxEventBytes {
		return Errorf(CodeInvalidEvent, "the event is %d bytes; the limit is %d", len(raw), MaxEventBytes)
	}
	if !utf8.Valid(raw) {
		return Errorf(CodeInvalidEvent, "the event is not valid UTF-8")
	}
	if oracleLoneSurrogate(raw) {
		return Errorf(CodeInvalidEvent, "the event has a lone UTF-16 surrogate escape (\\uD800-\\uDFFF not in a pair)")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		object bool
		keys   map[string]bool
		expect bool // the next string token in an object is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if len(stack) > 0 {
				return Errorf(CodeInvalidEvent, "the event is not JSON: it ends inside an object or list")
			}
			return nil
		}
		if err != nil {
			return Errorf(CodeInvalidEvent, "the event is not JSON: %v", err)
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if len(stack) >= MaxNesting {
					return Errorf(CodeInvalidEvent, "the event nests deeper than %d levels", MaxNesting)
				}
				if top != nil && top.object {
					top.expect = true
				}
				stack = append(stack, &frame{object: t == '{', keys: map[string]bool{}, expect: t == '{'})
			default:
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].expect = true
				}
			}
		case string:
			if top != nil && top.object && top.expect {
				if top.keys[t] {
					return Errorf(CodeInvalidEvent, "the key %q appears twice in one object", t)
				}
				top.keys[t] = true
				top.expect = false
				continue
			}
			if top != nil && top.object {
				top.expect = true
			}
		default:
			if top != nil && top.object {
				top.expect = true
			}
		}
	}
}

func oracleCanonical(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return oracleCanonicalJSON(raw)
}

func oracleCanonicalJSON(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	var buf bytes.Buffer
	if err := oracleWriteCanonical(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func oracleWriteCanonical(buf *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		if x {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
	case json.Number:
		s, err := oracleCanonicalNumber(x)
		if err != nil {
			return err
		}
		buf.WriteString(s)
	case string:
		oracleWriteString(buf, x)
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := oracleWriteCanonical(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return oracleLessUTF16(keys[i], keys[j]) })
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			oracleWriteString(buf, k)
			buf.WriteByte(':')
			if err := oracleWriteCanonical(buf, x[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	default:
		return fmt.Errorf("canonical: unexpected %T", v)
	}
	return nil
}

func oracleLessUTF16(a, b string) bool {
	// Without supplementary characters (4-byte UTF-8 sequences), UTF-16
	// code unit order is byte order: the common case needs no conversion.
	if !oracleHasSupplementary(a) && !oracleHasSupplementary(b) {
		return a < b
	}
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

func oracleHasSupplementary(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xF0 {
			return true
		}
	}
	return false
}

func oracleWriteString(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"':
			buf.WriteString(`\"`)
		case r == '\\':
			buf.WriteString(`\\`)
		case r == '\b':
			buf.WriteString(`\b`)
		case r == '\f':
			buf.WriteString(`\f`)
		case r == '\n':
			buf.WriteString(`\n`)
		case r == '\r':
			buf.WriteString(`\r`)
		case r == '\t':
			buf.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(buf, `\u%04x`, r)
		default:
			buf.WriteString(s[i : i+size])
		}
		i += size
	}
	buf.WriteByte('"')
}

func oracleCanonicalNumber(n json.Number) (string, error) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return "", fmt.Errorf("canonical: number %s: %v", n, err)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", fmt.Errorf("canonical: number %s is not finite", n)
	}
	if f == 0 {
		return "0", nil
	}
	abs := math.Abs(f)
	if abs >= 1e-6 && abs < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64), nil
	}
	// Exponent form: shortest digits, "e+NN" / "e-NN" without padding.
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := bytes.Cut([]byte(s), []byte("e"))
	e, _ := strconv.Atoi(string(exp))
	sign := "+"
	if e < 0 {
		sign = "-"
		e = -e
	}
	return string(mant) + "e" + sign + strconv.Itoa(e), nil
}

func oracleDecodeRecord(b []byte) (*Record, error) {
	var r Record
	if err := oracleStrictUnmarshal(b, &r); err != nil {
		return nil, Errorf(CodeInvalidEvent, "record does not decode: %v", err)
	}
	if !ValidID(r.ID) {
		return nil, Errorf(CodeInvalidEvent, "record id %q is not a ULID", r.ID)
	}
	if !r.Type.Known() {
		return nil, Errorf(CodeUnknownType, "record type %q is not known", r.Type)
	}
	if r.V != Version {
		return nil, Errorf(CodeInvalidEvent, "record version %d is not supported", r.V)
	}
	return &r, nil
}

func oracleParse(raw []byte) (*Event, error) {
	if err := oracleCheckJSON(raw); err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := oracleStrictUnmarshal(raw, &top); err != nil {
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
		if raw, ok := top[k]; ok && !oracleHasKind(raw, kString) {
			return nil, Errorf(CodeInvalidEvent, "%s must be a string, got %s", k, abbreviate(raw))
		}
	}
	if !oracleIsIntLiteral(top["v"], Version) {
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
	if err := oracleCheckData(ev); err != nil {
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

func oracleCheckData(ev *Event) error {
	var data map[string]json.RawMessage
	if err := oracleStrictUnmarshal(ev.Data, &data); err != nil {
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
		if !oracleHasKind(data[k], f.kind) {
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
	return oracleCheckValues(ev)
}

func oracleCheckValues(ev *Event) error {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(ev.Data, &m)
	str := func(k string) (string, bool) {
		raw, ok := m[k]
		var v string
		_ = json.Unmarshal(raw, &v)
		return v, ok
	}
	if sc, ok := str("scope"); ok && !ValidScope(sc) {
		return Errorf(CodeInvalidEvent, "scope %q must match [A-Za-z0-9_:-]{1,128}", abbreviate([]byte(sc)))
	}
	for _, k := range identityFields {
		if v, ok := str(k); ok && len(v) > MaxIdentityLen {
			return Errorf(CodeInvalidEvent, "%s data field %q is %d bytes; the limit is %d", ev.Type, k, len(v), MaxIdentityLen)
		}
	}
	switch ev.Type {
	case ToolChecked:
		call, _ := str("call")
		if string(m["effect"]) == "true" && call == "" {
			return Errorf(CodeInvalidEvent, "a check that starts the call's effect (effect: true) needs the call's id in call")
		}
	case DenyAdded, DenyLifted:
		rule, _ := str("rule")
		if strings.TrimSpace(rule) == "" {
			return Errorf(CodeInvalidEvent, "a denial needs a rule: a tool name (Bash, exec) or a rule pattern (Bash(git push *))")
		}
		if len(rule) > MaxRuleLen {
			return Errorf(CodeInvalidEvent, "the rule is %d bytes; the limit is %d", len(rule), MaxRuleLen)
		}
		var named []string
		for _, f := range []string{"session", "agent", "user", "project"} {
			if v, ok := str(f); ok {
				if v == "" {
					return Errorf(CodeInvalidEvent, "the denial's %s is empty; leave it out to target every session of the scope", f)
				}
				named = append(named, f)
			}
		}
		if len(named) > 1 {
			return Errorf(CodeInvalidEvent, "a denial targets one of session, agent, user or project; this one names %s", strings.Join(named, " and "))
		}
		if v, ok := str("session"); ok && !ValidKey(SessionKey(v)) {
			return Errorf(CodeBadSessionKey, "the denial's session %q must match [A-Za-z0-9_:-]{1,200}", abbreviate([]byte(v)))
		}
		if string(m["subtree"]) == "true" {
			if _, ok := m["session"]; !ok {
				return Errorf(CodeInvalidEvent, "subtree extends a session's denial to its sub-agents; name the session")
			}
		}
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

func oracleHasKind(raw json.RawMessage, k fieldKind) bool {
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
		return raw[0] == '[' && json.Unmarshal(raw, &l) == nil && !oracleContainsNull(raw)
	case kObject:
		return raw[0] == '{'
	case kInput:
		return raw[0] == '"' || raw[0] == '{'
	}
	return false
}

func oracleContainsNull(raw json.RawMessage) bool {
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

func oracleIsIntLiteral(raw json.RawMessage, want int) bool {
	return string(bytes.TrimSpace(raw)) == fmt.Sprint(want)
}

func oracleStrictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after the JSON value")
	}
	return nil
}

// oraclePayload is the old Event.Payload.
func oraclePayload(ev *Event) (any, error) {
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
	if err := json.Unmarshal(ev.Data, p); err != nil {
		return nil, Errorf(CodeInvalidEvent, "%s data does not decode: %v", ev.Type, err)
	}
	return p, nil
}
