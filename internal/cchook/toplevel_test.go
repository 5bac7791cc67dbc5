package cchook

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// twinKey is a key the top level of raw (one JSON object) has twice, equal
// but for case, or "": what topLevel's twin must say, read token by token.
func twinKey(raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		k, ok := t.(string)
		if err != nil || !ok {
			return ""
		}
		if fold := strings.ToLower(k); seen[fold] {
			return k
		} else {
			seen[fold] = true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return ""
		}
	}
	return ""
}

// topLevelCases are valid JSON documents whose top level is read in every
// way Parse tells apart.
var topLevelCases = []string{
	`{}`,
	`[]`,
	`null`,
	`"PreToolUse"`,
	` { "hook_event_name" : "PreToolUse" , "session_id":"s" } `,
	`{"hook_event_name":"PreToolUse","tool_input":{"command":"echo \"}\" ]","a":[1,{"b":"]"}]},"n":-1.5e3,"t":true,"z":null}`,
	`{"hook_event_name":""}`,
	`{"hook_event_name":null}`,
	`{"hook_event_name":5}`,
	`{"hook_event_name":["PreToolUse"]}`,
	`{"hook_event_name":"Stop","hook_event_name":"PreToolUse"}`,
	`{"hook_event_name":"PreToolUse","Hook_Event_Name":"PreToolUse"}`,
	`{"hook_event_name":"PreToolUse","HOOK_EVENT_NAME":"Stop"}`,
	`{"hook_event_name":"PreToolUse","HOOK_EVENT_NAME":null}`,
	`{"hook\u005fevent_name":"PreToolUse"}`,
	`{"hook_event_name":"Pre\u0054oolUse","session_id":"a","Session_ID":"b"}`,
	`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_name":"Read"}`,
	"{\"hook_event_name\":\"PreToolUse\",\"\xff\":1,\"\xfe\":2}",
	"{\"hook_event_name\":\"PreToolUse\",\"k\xc3\xa9\":1,\"K\xc3\x89\":2}",
	`{"a":{"hook_event_name":"x","a":1},"b":[{"a":2}],"hook_event_name":"SessionStart"}`,
	"{\n\t\"hook_event_name\"\r\n:\t\"PreToolUse\"\n,\n\"x\":\"\\\\\"}",
}

func checkTopLevel(t *testing.T, raw []byte) {
	t.Helper()
	event, told, twin := topLevel(raw)
	pk := PeekAt(raw)
	if event2 := pk.Event; told != pk.Told || told && event != event2 {
		t.Errorf("%q: topLevel event %q told %v, PeekAt %q %v", raw, event, told, pk.Event, pk.Told)
	}
	if want := twinKey(raw); twin != want {
		t.Errorf("%q: topLevel twin %q, twinKey %q", raw, twin, want)
	}
}

// TestTopLevelAsPeekAndTwin: Parse's one pass over a payload's top level
// (topLevel) tells what PeekAt and twinKey tell of it.
func TestTopLevelAsPeekAndTwin(t *testing.T) {
	for _, c := range topLevelCases {
		if !json.Valid([]byte(c)) {
			t.Fatalf("%q is not valid JSON", c)
		}
		checkTopLevel(t, []byte(c))
	}
	for _, name := range []string{"PreToolUse.json", "PreToolUse-subagent.json", "SessionStart.json", "PostToolBatch.json"} {
		checkTopLevel(t, loadPayload(t, name, nil))
	}
}

func FuzzTopLevel(f *testing.F) {
	for _, c := range topLevelCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return // Parse reads the top level only of what json.Unmarshal took
		}
		checkTopLevel(t, raw)
	})
}

// TestParseAllocs: Parse reads a PreToolUse's top level in one pass, not
// with a token decoder twice more (PeekAt, then a scan for twin keys):
// 51 allocations on go1.26 against 395 before, on every call serve
// --hooks answers.
func TestParseAllocs(t *testing.T) {
	raw := loadPayload(t, "PreToolUse.json", nil)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := Parse(raw); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 80 {
		t.Errorf("Parse of a PreToolUse made %.0f allocations, want at most 80", allocs)
	}
}

func BenchmarkParsePreToolUse(b *testing.B) {
	raw := loadPayload(&testing.T{}, "PreToolUse.json", nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(raw); err != nil {
			b.Fatal(err)
		}
	}
}
