package hookwire

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// The package reads and writes JSON without encoding/json (json.go); these
// tests hold it to encoding/json's own answers: the functions below are
// what hookwire did with encoding/json until issue 28.

func jsonPeekAt(raw []byte) Peek {
	var pk Peek
	if len(raw) > MaxPayload {
		return pk
	}
	pk.SessionID, pk.AgentID, pk.Tool, pk.CallID = jsonTopIDs(raw)
	dec := json.NewDecoder(bytes.NewReader(raw))
	var m map[string]json.RawMessage
	if dec.Decode(&m) != nil || m == nil {
		return pk
	}
	if _, err := dec.Token(); err != io.EOF {
		return pk
	}
	field := func(name string) (string, bool) {
		var val string
		found := false
		for k, v := range m {
			if !strings.EqualFold(k, name) {
				continue
			}
			var s string
			if json.Unmarshal(v, &s) != nil || found && s != val {
				return "", false
			}
			val, found = s, true
		}
		return val, found && val != ""
	}
	pk.Event, pk.Told = field("hook_event_name")
	return pk
}

func jsonTopIDs(raw []byte) (session, agent, tool, call string) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return
	}
	for dec.More() {
		t, err := dec.Token()
		k, ok := t.(string)
		if err != nil || !ok {
			return
		}
		if t, err = dec.Token(); err != nil {
			return
		}
		if s, ok := t.(string); ok {
			switch strings.ToLower(k) {
			case "session_id":
				session = s
			case "agent_id":
				agent = s
			case "tool_name":
				tool = s
			case "tool_use_id":
				call = s
			}
			continue
		}
		for d := 0; ; {
			if t == json.Delim('{') || t == json.Delim('[') {
				d++
			} else if t == json.Delim('}') || t == json.Delim(']') {
				d--
			}
			if d == 0 {
				break
			}
			if d > 1<<20 {
				return
			}
			if t, err = dec.Token(); err != nil {
				return
			}
		}
	}
	return
}

func jsonIsObject(raw []byte) bool {
	var out map[string]json.RawMessage
	return json.Unmarshal(raw, &out) == nil && out != nil
}

func jsonDenialReason(raw []byte) string {
	var deny struct {
		HookSpecificOutput struct {
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	_ = json.Unmarshal(raw, &deny)
	return deny.HookSpecificOutput.PermissionDecisionReason
}

func jsonEncode(v any, escapeHTML bool) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(v)
	return bytes.TrimSpace(b.Bytes())
}

func jsonDenyOutput(reason string) []byte {
	type specific struct {
		HookEventName            string `json:"hookEventName"`
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	}
	return jsonEncode(struct {
		HookSpecificOutput specific `json:"hookSpecificOutput"`
	}{specific{PreToolUse, "deny", reason}}, false)
}

// checkRead holds what the package reads of raw to encoding/json's reading.
func checkRead(t *testing.T, raw []byte) {
	t.Helper()
	if got, want := PeekAt(raw), jsonPeekAt(raw); got != want {
		t.Errorf("PeekAt(%q) = %+v, encoding/json's %+v", raw, got, want)
	}
	if got, want := IsObject(raw), jsonIsObject(raw); got != want {
		t.Errorf("IsObject(%q) = %v, encoding/json's %v", raw, got, want)
	}
	if got, want := IsObject(raw), json.Valid(raw) && bytes.HasPrefix(bytes.TrimLeft(raw, " \t\r\n"), []byte("{")); got != want {
		t.Errorf("IsObject(%q) = %v, json.Valid's %v", raw, got, want)
	}
	if got, want := DenialReason(raw), jsonDenialReason(raw); got != want {
		t.Errorf("DenialReason(%q) = %q, encoding/json's %q", raw, got, want)
	}
}

// checkWrite holds what the package writes of s to encoding/json's writing.
func checkWrite(t *testing.T, s string) {
	t.Helper()
	if got, want := DenyOutput(s), jsonDenyOutput(s); !bytes.Equal(got, want) {
		t.Errorf("DenyOutput(%q) = %s, encoding/json's %s", s, got, want)
	}
	if got, want := PassOutput(s), jsonEncode(struct {
		SystemMessage string `json:"systemMessage"`
	}{s}, false); s != "" && !bytes.Equal(got, want) {
		t.Errorf("PassOutput(%q) = %s, encoding/json's %s", s, got, want)
	}
	want, _ := json.Marshal(struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}{"deny", s})
	if got := Agents["gemini"].DenyOutput(s); !bytes.Equal(got, want) {
		t.Errorf("gemini DenyOutput(%q) = %s, json.Marshal's %s", s, got, want)
	}
	if got := Agents["codex"].DenyOutput(s); !bytes.Equal(got, DenyOutput(s)) {
		t.Errorf("codex DenyOutput(%q) = %s", s, got)
	}
}

// jsonSeeds are payloads and answers at the edges of what reads.
var jsonSeeds = []string{
	``, ` `, `{}`, ` {} `, `{}{}`, `{} x`, `{}}`, `[]`, `null`, `"x"`, `1`, `{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{,"a":1}`, `{"a":1 "b":2}`,
	`{"hook_event_name":"PreToolUse","tool_name":"Bash","session_id":"s","tool_use_id":"t","agent_id":"a"}`,
	`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls","x":[1,2,{"y":null}]}}`,
	`{"tool_name":"Bash","hook_event_name":"PreToolUse"`,
	`{"tool_name":"Bash","tool_input":{"a":1e999},"session_id":"s"}`,
	`{"tool_name":"Bash","x":1e999,"hook_event_name":"PreToolUse"}`,
	`{"tool_name":"Bash","x":-1e-999,"hook_event_name":"PreToolUse"}`,
	`{"tool_name":"Bash","x":01}`, `{"tool_name":"Bash","x":1.}`, `{"x":-,"tool_name":"Bash"}`, `{"x":1.5e+3,"tool_name":"Bash"}`,
	`{"tool_name":"Bash","x":truex}`, `{"tool_name":"Bash","x":tru}`, `{"x":nul,"tool_name":"B"}`, `{"x":[1,],"tool_name":"B"}`, `{"x":[1}],"tool_name":"B"}`,
	`{"hook_event_name":"A","hook_event_name":"B"}`, `{"hook_event_name":"A","Hook_Event_Name":"B"}`, `{"hook_event_name":"A","HOOK_EVENT_NAME":"A"}`,
	`{"hook_event_name":null}`, `{"hook_event_name":null,"HOOK_EVENT_NAME":"X"}`, `{"hook_event_name":""}`, `{"hook_event_name":5}`, `{"hook_event_name":{}}`,
	`{"hook_event_name":5,"hook_event_name":"PreToolUse"}`, `{"hoo\u212a_event_name":"PreToolUse"}`, `{"hook_event_nam\u0065":"PreToolUse"}`,
	`{"Tool_Name":"Bash","TOOL_NAME":"Edit"}`, `{"tool_name":"B\u00e9\ud83d\ude00\ud800\udc00x\ud800y\udc00\u0000\n\"\\\/"}`,
	"{\"tool_name\":\"\xff\xfe bad\"}", "{\"tool_name\":\"a\x01\"}", "{\"tool_name\":\"\u2028\"}", "\ufeff{}", "{\"a\":1}\x00",
	`{"tool_name":"\x"}`, `{"tool_name":"\u12"}`, `{"tool_name":"\u12G4"}`, `{"tool_name":"\`, `{"tool_name":"abc`,
	`{"hookSpecificOutput":{"permissionDecisionReason":"r"}}`,
	`{"hookSpecificOutput":{"permissionDecisionReason":"r"},"HOOKSPECIFICOUTPUT":{"PermissionDecisionReason":null}}`,
	`{"hookSpecificOutput":{"permissionDecisionReason":"r"},"hookSpecificOutput":{"permissionDecisionReason":5}}`,
	`{"hookSpecificOutput":{"permissionDecisionReason":"r","permissionDecisionReason":"s"}}`,
	`{"hookSpecificOutput":"x","hookspecificoutput":{"permiſſionDecisionReason":"ſ"}}`,
	`{"hookSpecificOutput":[{"permissionDecisionReason":"r"}]}`, `{"hookSpecificOutput":null}`,
	`{"hookSpecificOutput":{"permissionDecisionReason":"r"}} x`,
	`{"decision":"deny","reason":"<b>&amp;</b>"}`,
	" \t\r\n{ \"tool_name\" \t:\r\n\"Bash\" , \"session_id\":\"s\"\n}\n",
}

func TestJSONSeeds(t *testing.T) {
	for _, s := range jsonSeeds {
		checkRead(t, []byte(s))
		checkWrite(t, s)
	}
	for _, s := range []string{"", "plain", "<>&", "\u2028\u2029", "\x00\x01\b\f\n\r\t\x1f\x7f", "\xff", "é😀", `"\`, "a\xed\xa0\x80b"} {
		checkWrite(t, s)
	}
}

// TestJSONDepth: encoding/json's bound on nesting (10000), and topIDs'
// reading past it.
func TestJSONDepth(t *testing.T) {
	for _, n := range []int{9998, 9999, 10000, 10001} {
		for _, open := range []string{"[", `{"a":`} {
			close := map[string]string{"[": "]", `{"a":`: "}"}[open]
			raw := `{"x":` + strings.Repeat(open, n) + strings.Repeat(close, n) + `,"tool_name":"Bash","hook_event_name":"PreToolUse"}`
			checkRead(t, []byte(raw))
		}
	}
	// Deeper than topIDs goes.
	checkRead(t, []byte(`{"x":`+strings.Repeat("[", 1<<20+1)+`,"tool_name":"Bash"}`))
}

// TestJSONMutations: what the package reads of random mutations of the
// seeds is what encoding/json reads of them.
func TestJSONMutations(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	rng := rand.New(rand.NewPCG(28, 1))
	alphabet := []byte("{}[]:,\"\\ \n0123456789-+.eEtruefalsn\x00\x1f\x7f\xff\xc3\xa9abu")
	for i := 0; i < n; i++ {
		b := []byte(jsonSeeds[rng.IntN(len(jsonSeeds))])
		for k := rng.IntN(4); k >= 0; k-- {
			switch op := rng.IntN(3); {
			case op == 0 && len(b) > 0:
				b = append(b[:rng.IntN(len(b))], b[rng.IntN(len(b)):]...)
			case op == 1:
				j := rng.IntN(len(b) + 1)
				b = append(b[:j], append([]byte{alphabet[rng.IntN(len(alphabet))]}, b[j:]...)...)
			case len(b) > 0:
				b[rng.IntN(len(b))] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		checkRead(t, b)
		checkWrite(t, string(b))
		if t.Failed() {
			return
		}
	}
}

func FuzzJSON(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkRead(t, raw)
		checkWrite(t, string(raw))
	})
}
