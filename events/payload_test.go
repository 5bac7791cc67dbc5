package events

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// payloadTables pairs each payload type with the field table decodePayload
// reads it by.
var payloadTables = []struct {
	typ    Type
	zero   any
	fields []payloadField
}{
	{PolicySet, &PolicySetData{}, policySetFields},
	{GrantAdded, &GrantData{}, grantFields},
	{SessionStarted, &StartedData{}, startedFields},
	{SessionSpawned, &SpawnedData{}, spawnedFields},
	{TurnStarted, &TurnData{}, turnFields},
	{SessionYielded, &YieldedData{}, yieldedFields},
	{SessionCompleted, &CompletedData{}, completedFields},
	{SessionResumed, &ResumedData{}, resumedFields},
	{ToolChecked, &CheckedData{}, checkedFields},
	{EffectStarted, &EffectData{}, effectFields},
	{DenyAdded, &DenyData{}, denyFields},
	{SessionEnded, &EndedData{}, endedFields},
	{SessionReopened, &ReopenedData{}, endedFields},
}

// TestPayloadFields keeps the field tables true to the structs: a field
// missing from its table would send every payload that has it to
// json.Unmarshal, which gives the same answer, only slower.
func TestPayloadFields(t *testing.T) {
	kindOf := func(ft reflect.Type) (payloadKind, bool) {
		switch {
		case ft == reflect.TypeFor[json.RawMessage]():
			return pRaw, true
		case ft.Kind() == reflect.String:
			return pString, true
		case ft.Kind() == reflect.Bool:
			return pBool, true
		case ft.Kind() == reflect.Int:
			return pInt, true
		case ft.Kind() == reflect.Uint64:
			return pUint64, true
		case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.String:
			return pStringPtr, true
		case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Bool:
			return pBoolPtr, true
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String:
			return pStrings, true
		}
		return 0, false
	}
	for _, tt := range payloadTables {
		st := reflect.TypeOf(tt.zero).Elem()
		var want []payloadField
		for i := range st.NumField() {
			f := st.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			kind, ok := kindOf(f.Type)
			if !ok {
				t.Errorf("%s.%s: the fast path has no kind for %s", st.Name(), f.Name, f.Type)
			}
			want = append(want, payloadField{name, kind})
		}
		if !reflect.DeepEqual(tt.fields, want) {
			t.Errorf("the fields of %s are %v, want %v", st.Name(), tt.fields, want)
		}
	}
	if got := len(payloadTables); got != len(Types)-2 { // grant.revoked shares GrantData, deny.lifted DenyData
		t.Errorf("%d payload tables for %d types", got, len(Types))
	}
}

// TestPayloadFastPath checks that payloads of the usual shape, every field
// set, take the fast path and read as json.Unmarshal reads them.
func TestPayloadFastPath(t *testing.T) {
	value := map[payloadKind]string{pString: `"s\u00e9"`, pStringPtr: `"b"`, pBool: `true`, pBoolPtr: `false`,
		pInt: `7`, pUint64: `9223372036854775807`, pStrings: `["a","b\n"]`, pRaw: `{"a":[1,null]}`}
	for _, tt := range payloadTables {
		var b strings.Builder
		b.WriteString("{")
		for i, f := range tt.fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(`"` + f.name + `": ` + value[f.kind])
		}
		b.WriteString("}")
		data := []byte(b.String())
		p := reflect.New(reflect.TypeOf(tt.zero).Elem()).Interface()
		if !decodePayload(data, p) {
			t.Errorf("%s data %s takes the slow path", tt.typ, data)
			continue
		}
		want, err := oraclePayload(&Event{Type: tt.typ, Data: data})
		if err != nil || !reflect.DeepEqual(p, want) {
			t.Errorf("%s data %s\n got  %#v\n want %#v, %v", tt.typ, data, p, want, err)
		}
	}
}
