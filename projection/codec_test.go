package projection

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// TestEnvelopeJSON: the store encodes envelopes as Envelope.MarshalJSON
// does, for envelopes with every field set (each field of the type is set
// by reflection, so a new one shows up here), with none, and in between.
func TestEnvelopeJSON(t *testing.T) {
	full := &envelope.Envelope{}
	v := reflect.ValueOf(full).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(fmt.Sprintf("s%d", i))
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(i + 1))
		case reflect.Uint64:
			f.SetUint(uint64(i + 1))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice:
			f.Set(reflect.ValueOf([]string{fmt.Sprintf("t%d", i)}))
		case reflect.Pointer:
			f.Set(reflect.ValueOf(&envelope.Delegation{Requester: "r", Target: "t", Deny: []string{"x"}}))
		default:
			t.Fatalf("field %s of kind %s: teach this test (and encodeEnvelope) about it", v.Type().Field(i).Name, f.Kind())
		}
	}
	for name, e := range map[string]*envelope.Envelope{
		"full":      full,
		"empty":     {},
		"openclaw":  {Requester: "p", Agent: "a", Depth: 1, Role: "leaf", InheritedDeny: []string{"x"}, Source: "config", Revision: 3, Hash: "sha256:00"},
		"ceiling":   {Requester: "p", InheritedAllow: []string{}, Delegated: &envelope.Delegation{Requester: "q", Target: "a"}},
		"claude":    {Requester: "p", Mode: "plan", Background: false},
		"claude-bg": {Requester: "p", Mode: "default", Background: true, ExtraTools: []string{"mcp__x"}, Hash: "sha256:01"},
	} {
		want, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeEnvelope(e)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := events.CanonicalJSON(got)
		b, _ := events.CanonicalJSON(want)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: encodes as\n%s\nwant\n%s", name, a, b)
		}
	}
}

// TestWireDecoding: turns and spawn decisions decode through envelopeWire
// as encoding/json decodes them through Envelope's UnmarshalJSON, and
// sessions come back from their binary form as they were.
func TestWireDecoding(t *testing.T) {
	env := &envelope.Envelope{Requester: "p", Agent: "a", Depth: 2, Role: "leaf", InheritedAllow: []string{"read"},
		InheritedDeny: []string{}, Source: "config", Delegated: &envelope.Delegation{Requester: "q", Target: "a", Deny: []string{"x"}},
		Revision: 7, Background: true, Mode: "plan", ExtraTools: []string{"mcp__y"}, Hash: "sha256:02"}
	yes := true
	ref := envelope.RecordRef{Seq: 9, ID: "01J00000000000000000000009", Type: events.SessionResumed}
	ctx := envelope.Context{Source: envelope.SourceCompletionHandoff, SourceReason: "r", Sender: "s", External: true,
		Captured: env, Continuation: &ref, SetBy: ref}
	sessions := []*envelope.Session{
		{Key: "c", Agent: "a", Parent: "p", Depth: 1, State: envelope.Completed, Spawn: &events.SpawnedData{Parent: "p", Agent: "a", Sandboxed: &yes, Tools: []string{"t"}},
			Origin: ref, Actor: "o", Facts: envelope.Facts{Sandboxed: true, Mode: "m", Background: true, Role: "r"}, Envelope: env,
			Tools: []string{"t"}, Turn: 3, Context: ctx, Children: []events.SessionKey{"d"}, ActiveChildren: 1},
		{Key: "r", Start: &events.StartedData{Agent: "main", Tools: []string{}}, Context: envelope.Context{Source: envelope.SourceCurrentRequest}},
		{},
	}
	for i, s := range sessions {
		raw, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		_ = raw
		got, err := decodeSessionBinary(encodeSessionBinary(s))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, s) {
			t.Errorf("session %d decodes as\n%+v\nwant\n%+v", i, got, s)
		}
		turn := Turn{Seq: 4, ToolSet: "sha256:03", Context: s.Context}
		raw, _ = json.Marshal(turn)
		var wantTurn Turn
		_ = json.Unmarshal(raw, &wantTurn)
		if gotTurn, err := decodeTurn(raw); err != nil || !reflect.DeepEqual(gotTurn, wantTurn) {
			t.Errorf("turn %d decodes as %+v (%v), want %+v", i, gotTurn, err, wantTurn)
		}
		raw, _ = json.Marshal(SpawnDecided{Envelope: s.Envelope, Facts: s.Facts})
		var wantSpawn SpawnDecided
		_ = json.Unmarshal(raw, &wantSpawn)
		if gotSpawn, err := decodeSpawn(raw); err != nil || !reflect.DeepEqual(*gotSpawn, wantSpawn) {
			t.Errorf("spawn %d decodes as %+v (%v), want %+v", i, gotSpawn, err, wantSpawn)
		}
	}
}

// TestSessionBinary: a session with every field set (by reflection, down
// through its pointers, so a field added to any of its types shows up
// here), and one with none, come back from their binary form as they
// were; a form cut short is an error, never a panic.
func TestSessionBinary(t *testing.T) {
	full := &envelope.Session{}
	n := 0
	fillAll(reflect.ValueOf(full).Elem(), &n)
	for name, s := range map[string]*envelope.Session{"full": full, "empty": {}} {
		raw := encodeSessionBinary(s)
		got, err := decodeSessionBinary(raw)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, s) {
			t.Errorf("%s: decodes as\n%+v\nwant\n%+v", name, got, s)
		}
		for i := range raw {
			if _, err := decodeSessionBinary(raw[:i]); err == nil {
				t.Errorf("%s cut at %d of %d bytes decodes", name, i, len(raw))
			}
		}
	}
}

// fillAll sets every field under v to a value of its own.
func fillAll(v reflect.Value, n *int) {
	*n++
	if v.Type() == reflect.TypeFor[json.RawMessage]() {
		v.SetBytes(fmt.Appendf(nil, `{"p%d":["t%d"]}`, *n, *n))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillAll(v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fillAll(v.Index(i), n)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fillAll(v.Field(i), n)
		}
	default:
		panic(fmt.Sprintf("fill: kind %s: teach this test (and the session form) about it", v.Kind()))
	}
}

// TestSessionBinaryFormats: a session is written in the oldest format that
// holds it, so a log from before scopes, or before conversations, keeps
// its stored bytes; each comes back as it was.
func TestSessionBinaryFormats(t *testing.T) {
	for _, tc := range []struct {
		name   string
		s      *envelope.Session
		format byte
	}{
		{"plain", &envelope.Session{Key: "r", Start: &events.StartedData{Agent: "main", Group: "g1"}}, sessionFormat},
		{"scoped", &envelope.Session{Key: "r", Scope: "s", Start: &events.StartedData{Agent: "main", Scope: "s"}}, sessionFormatScoped},
		{"conversation", &envelope.Session{Key: "r", Start: &events.StartedData{Agent: "main", Conversation: "agent:main:telegram:group:g1:topic:7"}}, sessionFormatConversation},
		{"scoped conversation", &envelope.Session{Key: "r", Scope: "s", Start: &events.StartedData{Agent: "main", Scope: "s", Conversation: "agent:main:slack:channel:c1"}}, sessionFormatConversation},
		{"moded root", &envelope.Session{Key: "r", Mode: "acceptEdits", Start: &events.StartedData{Agent: "main", Mode: "default"}}, sessionFormatMode},
		{"moded child", &envelope.Session{Key: "r:c", Mode: "plan", Spawn: &events.SpawnedData{Parent: "r", Agent: "x"}}, sessionFormatMode},
		{"moded scoped conversation", &envelope.Session{Key: "r", Scope: "s", Mode: "dontAsk", Start: &events.StartedData{Agent: "main", Scope: "s", Conversation: "c"}}, sessionFormatMode},
		{"plugin tools", &envelope.Session{Key: "r", Start: &events.StartedData{Agent: "main", PluginTools: json.RawMessage(`{"memory-core":["memory_get","memory_search"]}`)}}, sessionFormatPlugins},
		{"scoped plugin tools", &envelope.Session{Key: "r", Scope: "s", Start: &events.StartedData{Agent: "main", Scope: "s", Conversation: "c", PluginTools: json.RawMessage(`{"xai":["code_execution"]}`)}}, sessionFormatPlugins},
	} {
		raw := encodeSessionBinary(tc.s)
		if raw[0] != tc.format {
			t.Errorf("%s: written in format %d, want %d", tc.name, raw[0], tc.format)
		}
		got, err := decodeSessionBinary(raw)
		if err != nil || !reflect.DeepEqual(got, tc.s) {
			t.Errorf("%s: decodes as %+v (%v), want %+v", tc.name, got, err, tc.s)
		}
	}
}
