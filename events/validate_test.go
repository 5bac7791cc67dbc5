package events

import (
	"testing"
)

func TestParse(t *testing.T) {
	const ok = `{"type":"turn.started","v":1,"actor":"a","session":"s","data":{"turn":1}}`
	tests := []struct {
		name string
		in   string
		want Code // "" means accepted
	}{
		{"accepted", ok, ""},
		{"not an object", `[1]`, CodeInvalidEvent},
		{"trailing garbage", ok + `x`, CodeInvalidEvent},
		{"time is the ledger's", `{"type":"turn.started","v":1,"actor":"a","session":"s","time":"x","data":{"turn":1}}`, CodeInvalidEvent},
		{"decided is the ledger's", `{"type":"turn.started","v":1,"actor":"a","session":"s","decided":{},"data":{"turn":1}}`, CodeInvalidEvent},
		{"unknown record field", `{"type":"turn.started","v":1,"actor":"a","session":"s","x":1,"data":{"turn":1}}`, CodeInvalidEvent},
		{"missing actor", `{"type":"turn.started","v":1,"session":"s","data":{"turn":1}}`, CodeInvalidEvent},
		{"missing data", `{"type":"turn.started","v":1,"actor":"a","session":"s"}`, CodeInvalidEvent},
		{"version 2", `{"type":"turn.started","v":2,"actor":"a","session":"s","data":{"turn":1}}`, CodeInvalidEvent},
		{"version as string", `{"type":"turn.started","v":"1","actor":"a","session":"s","data":{"turn":1}}`, CodeInvalidEvent},
		{"lower-case id", `{"id":"01jresend00000000000000009","type":"turn.started","v":1,"actor":"a","session":"s","data":{"turn":1}}`, CodeInvalidEvent},
		{"short id", `{"id":"01JRESEND0000000000000009","type":"turn.started","v":1,"actor":"a","session":"s","data":{"turn":1}}`, CodeInvalidEvent},
		{"id past 7", `{"id":"81JRESEND00000000000000009","type":"turn.started","v":1,"actor":"a","session":"s","data":{"turn":1}}`, CodeInvalidEvent},
		{"id with I", `{"id":"01JRESEND0000000000000000I","type":"turn.started","v":1,"actor":"a","session":"s","data":{"turn":1}}`, CodeInvalidEvent},
		{"actor not a string", `{"type":"turn.started","v":1,"actor":1,"session":"s","data":{"turn":1}}`, CodeInvalidEvent},
		{"unknown type", `{"type":"turn.ended","v":1,"actor":"a","session":"s","data":{}}`, CodeUnknownType},
		{"unknown data field", `{"type":"turn.started","v":1,"actor":"a","session":"s","data":{"turn":1,"x":1}}`, CodeInvalidEvent},
		{"turn zero", `{"type":"turn.started","v":1,"actor":"a","session":"s","data":{"turn":0}}`, CodeInvalidEvent},
		{"turn fraction", `{"type":"turn.started","v":1,"actor":"a","session":"s","data":{"turn":1.5}}`, CodeInvalidEvent},
		{"turn as string", `{"type":"turn.started","v":1,"actor":"a","session":"s","data":{"turn":"1"}}`, CodeInvalidEvent},
		{"owner not bool", `{"type":"session.started","v":1,"actor":"a","session":"s","data":{"agent":"main","owner":"alice"}}`, CodeInvalidEvent},
		{"null in tools", `{"type":"session.started","v":1,"actor":"a","session":"s","data":{"agent":"main","tools":[null]}}`, CodeInvalidEvent},
		{"empty children", `{"type":"session.yielded","v":1,"actor":"a","session":"s","data":{"children":[]}}`, CodeInvalidEvent},
		{"repeated children", `{"type":"session.yielded","v":1,"actor":"a","session":"s","data":{"children":["a","a"]}}`, CodeInvalidEvent},
		{"bad status", `{"type":"session.completed","v":1,"actor":"a","session":"s","data":{"status":"done"}}`, CodeInvalidEvent},
		{"bad handoff", `{"type":"session.resumed","v":1,"actor":"a","session":"s","data":{"handoff":"later","from":["a"]}}`, CodeInvalidEvent},
		{"settle without batch", `{"type":"session.resumed","v":1,"actor":"a","session":"s","data":{"handoff":"settle_batch","from":["a"]}}`, CodeInvalidEvent},
		{"completion with batch", `{"type":"session.resumed","v":1,"actor":"a","session":"s","data":{"handoff":"completion","batch":"x","from":["a"]}}`, CodeInvalidEvent},
		{"completion from two", `{"type":"session.resumed","v":1,"actor":"a","session":"s","data":{"handoff":"completion","from":["a","b"]}}`, CodeInvalidEvent},
		{"input as number", `{"type":"tool.checked","v":1,"actor":"a","session":"s","data":{"turn":1,"tool":"x","input":3}}`, CodeInvalidEvent},
		{"effect needs call", `{"type":"tool.effect_started","v":1,"actor":"a","session":"s","data":{"turn":1,"tool":"x"}}`, CodeInvalidEvent},
		{"session on a policy event", `{"type":"policy.set","v":1,"actor":"a","session":"s","data":{"dialect":"openclaw","document":{}}}`, CodeInvalidEvent},
		{"no session on a session event", `{"type":"turn.started","v":1,"actor":"a","data":{"turn":1}}`, CodeInvalidEvent},
		{"empty session", `{"type":"turn.started","v":1,"actor":"a","session":"","data":{"turn":1}}`, CodeInvalidEvent},
		{"document not an object", `{"type":"policy.set","v":1,"actor":"a","data":{"dialect":"openclaw","document":[]}}`, CodeInvalidEvent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			if got := CodeOf(err); got != tt.want {
				t.Fatalf("got %v (code %q), want %q", err, got, tt.want)
			}
		})
	}
}

func TestCheckKey(t *testing.T) {
	for key, ok := range map[SessionKey]bool{
		"agent:main:main": true, "a_b-c:1": true, "no body": false, "x\n": false, "a.b": false,
		"a*": false, "": false,
	} {
		ev := &Event{Type: TurnStarted, Session: key, Actor: "acme"}
		if got := CheckKey(ev) == nil; got != ok {
			t.Errorf("key %q: accepted %v, want %v", key, got, ok)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"type":"turn.started","v":1,"actor":"a","session":"s","data":{"turn":1}}`))
	f.Add([]byte(`{"type":"session.resumed","v":1,"actor":"a","session":"s","data":{"handoff":"completion","from":["a"]}}`))
	f.Add([]byte(`{"id":"01JRESEND00000000000000001","type":"policy.set","v":1,"actor":"a","data":{"dialect":"openclaw","document":{"tools":{}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := Parse(b)
		if err != nil {
			if CodeOf(err) == "" {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		if _, err := ev.Payload(); err != nil {
			t.Fatalf("accepted event's payload does not decode: %v", err)
		}
	})
}

func FuzzCanonical(f *testing.F) {
	f.Add([]byte(`{"b":[1,2.5,"x"],"a":{"c":null}}`))
	f.Add([]byte(`"\u00e9\n"`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := CanonicalJSON(b)
		if err != nil {
			return
		}
		// Canonical form is a fixed point.
		c2, err := CanonicalJSON(c)
		if err != nil || string(c) != string(c2) {
			t.Fatalf("not a fixed point: %s -> %s (%v)", c, c2, err)
		}
	})
}

func TestCheckJSON(t *testing.T) {
	deep := ""
	for i := 0; i < MaxNesting+1; i++ {
		deep += "["
	}
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"plain", `{"a":1,"b":[1,{"c":2,"d":[{"e":1},{"e":2}]}]}`, true},
		{"same key in sibling objects", `{"a":{"x":1},"b":{"x":2}}`, true},
		{"top-level duplicate", `{"type":"a","type":"b"}`, false},
		{"nested duplicate", `{"data":{"turn":1,"turn":2}}`, false},
		{"duplicate after an array", `{"a":[1,2],"a":3}`, false},
		{"duplicate in an object in an array", `{"a":[{"k":1,"k":2}]}`, false},
		{"too deep", deep, false},
		{"invalid utf-8", "{\"a\":\"\xff\"}", false},
		{"not json", `{"a":`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkJSON([]byte(tt.in)); (err == nil) != tt.ok {
				t.Fatalf("checkJSON: %v, want ok=%v", err, tt.ok)
			}
		})
	}
	big := make([]byte, MaxEventBytes+1)
	if err := checkJSON(big); CodeOf(err) != CodeInvalidEvent {
		t.Fatalf("oversized: %v", err)
	}
}

func FuzzDecodeRecord(f *testing.F) {
	f.Add([]byte(`{"actor":"a","data":{"turn":1},"decided":{"seq":3},"id":"01KDVDNA02201QRKBVQC20FMF2","session":"s","time":"2026-01-01T00:00:00.002Z","type":"turn.started","v":1}`))
	f.Add([]byte(`{"id":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeRecord(b)
		if err != nil {
			if CodeOf(err) == "" {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		if _, err := r.Encode(); err != nil {
			t.Fatalf("a decoded record does not encode: %v", err)
		}
	})
}

func TestHostileRecordFields(t *testing.T) {
	for name, in := range map[string]string{
		"type null":        `{"type":null,"v":1,"actor":"a","session":"s","data":{"turn":1}}`,
		"actor null":       `{"type":"turn.started","v":1,"actor":null,"session":"s","data":{"turn":1}}`,
		"session null":     `{"type":"turn.started","v":1,"actor":"a","session":null,"data":{"turn":1}}`,
		"id null":          `{"id":null,"type":"turn.started","v":1,"actor":"a","session":"s","data":{"turn":1}}`,
		"lone high":        `{"type":"turn.started","v":1,"actor":"\ud800","session":"s","data":{"turn":1}}`,
		"lone low":         `{"type":"turn.started","v":1,"actor":"\udc00x","session":"s","data":{"turn":1}}`,
		"high then no low": `{"type":"turn.started","v":1,"actor":"\ud800\u0041","session":"s","data":{"turn":1}}`,
		"repeated v":       `{"type":"turn.started","v":1,"v":1,"actor":"a","session":"s","data":{"turn":1}}`,
	} {
		if _, err := Parse([]byte(in)); CodeOf(err) != CodeInvalidEvent {
			t.Errorf("%s: %v, want invalid_event", name, err)
		}
	}
	// A real pair and an escaped backslash before "u" are fine.
	for _, in := range []string{
		`{"type":"turn.started","v":1,"actor":"\ud83d\ude00","session":"s","data":{"turn":1}}`,
		`{"type":"turn.started","v":1,"actor":"\\ud800","session":"s","data":{"turn":1}}`,
	} {
		if _, err := Parse([]byte(in)); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
}
