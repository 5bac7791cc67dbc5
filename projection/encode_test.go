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
