package hostile

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/events"
)

// The dialects of the fixtures.
const (
	openclaw   = "openclaw"
	claudeCode = "claude-code"
)

// Owners of sessions: the API subject's last token, and the actor the
// fixture's lines carry.
const (
	acme   = "acme"
	globex = "globex"
	ops    = "ops"
)

// id returns a fixed, valid ULID: the fixture's ids are known, so batches
// (a yield's record id) and re-sent ids can be named in the cases.
func id(n int) string { return fmt.Sprintf("01J00000000000000000%06d", n) }

// jstr encodes s as a JSON string (only for well-formed text).
func jstr(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// ev builds an event line: {"id","type","v":1,"session","actor","data"},
// leaving out an empty id or session.
func ev(idv, typ, session, actor, data string) string {
	var b strings.Builder
	b.WriteString("{")
	if idv != "" {
		b.WriteString(`"id":` + jstr(idv) + `,`)
	}
	b.WriteString(`"type":` + jstr(typ) + `,"v":1,`)
	if session != "" {
		b.WriteString(`"session":` + jstr(session) + `,`)
	}
	b.WriteString(`"actor":` + jstr(actor) + `,"data":` + data + `}`)
	return b.String()
}

// sev is a session event of acme without an id.
func sev(typ, session, data string) string { return ev("", typ, session, acme, data) }

// pev is a policy event of ops without an id.
func pev(typ, data string) string { return ev("", typ, "", ops, data) }

// nested returns a JSON object nested depth levels deep.
func nested(depth int) string {
	return strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
}

// keyList returns a JSON list of n distinct strings with prefix.
func keyList(prefix string, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = jstr(fmt.Sprintf("%s%d", prefix, i))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// over is comfortably more than the 512 KiB an event may have.
const over = events.MaxEventBytes + 64<<10

// fline is one line of a fixture: accepted, in order, so line k is stream
// sequence k on a fresh log.
type fline struct {
	line  string
	owner string // API: the orchestrator subject for session events
}

// hcase is one hostile input. Unless code is empty it must be refused with
// code and a non-empty message, writing exactly written records (0, or the
// decision record of a refused effect). With an empty code it is accepted
// as the SPEC says, writing written records, which verify checks.
type hcase struct {
	name    string
	dialect string
	line    string
	owner   string // API: the orchestrator (default acme) of a session event
	subject string // API: an explicit subject
	code    events.Code
	apiCode events.Code // the API's code when it differs (another owner's session)
	written int
	// resend: the line re-sends an id that landed (or was refused with a
	// decision record) earlier; it must be answered with that sequence.
	resend bool
	// dup: accepted as a re-send: duplicate, nothing written.
	dup    bool
	verify func(t *testing.T, recs []*events.Record)
	// apiOnly and cliOnly keep a case on one path; knownAPI and knownCLI
	// name a product bug that makes it fail there (the case is skipped
	// and not sent on that path).
	apiOnly, cliOnly   bool
	knownAPI, knownCLI string
}

// skipKnown skips a case with a known issue on a path, unless
// HOSTILETEST_KNOWN=1 asks to run it (to check a fix; a case that passes
// then should lose its known issue).
func skipKnown(t *testing.T, issue string) {
	t.Helper()
	if issue != "" && os.Getenv("HOSTILETEST_KNOWN") != "1" {
		t.Skip("known issue: " + issue)
	}
}

// apiSubject is where the API path sends the case.
func (c *hcase) apiSubject() string {
	if c.subject != "" {
		return c.subject
	}
	return subjectFor(c.line, c.owner)
}

func subjectFor(line, owner string) string {
	var t struct {
		Type events.Type `json:"type"`
	}
	_ = json.Unmarshal([]byte(line), &t)
	if t.Type.IsPolicy() {
		return "ledger.v1.policy"
	}
	if owner == "" {
		owner = acme
	}
	return "ledger.v1.append." + owner
}

// lineID is the id a line sends, if it parses.
func lineID(line string) string {
	var t struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal([]byte(line), &t)
	return t.ID
}

// The openclaw fixture's sessions.
const (
	ocMain   = "agent:main:main"       // root, turn 1, children a and b active (max 2), e completed
	ocA      = "agent:main:subagent:a" // depth 1 = maxSpawnDepth
	ocB      = "agent:coder:subagent:b"
	ocE      = "agent:main:subagent:e" // completed
	ocSecond = "agent:main:second"     // yielded for c (batch id(10))
	ocC      = "agent:main:subagent:c"
	ocThird  = "agent:main:third" // yielded for d (batch id(13))
	ocD      = "agent:main:subagent:d"
	ocFourth = "agent:main:fourth" // root without children, for admission
	ocGlobex = "agent:main:globex" // globex's root
)

const (
	ocDoc1 = `{"agents":{"defaults":{"subagents":{"maxSpawnDepth":1,"maxChildrenPerAgent":2}},` +
		`"list":[{"id":"main","subagents":{"allowAgents":["coder"]}},{"id":"coder"},{"id":"reviewer"}]}}`
	ocDoc2 = `{"tools":{"deny":["browser"]},"agents":{"defaults":{"subagents":{"maxSpawnDepth":1,"maxChildrenPerAgent":2}},` +
		`"list":[{"id":"main","subagents":{"allowAgents":["coder"]}},{"id":"coder"},{"id":"reviewer"}]}}`
	ocCatalogue = `["read","write","exec","browser"]`
	ocBatch2    = 10 // the fixture line (and id) of agent:main:second's yield
	ocBatch3    = 13 // agent:main:third's yield
	ocCheck     = 16 // the tool.checked of browser, call c1, at turn 1 of agent:main:main
)

func openclawFixture() []fline {
	a := func(n int, typ, session, data string) fline { return fline{ev(id(n), typ, session, acme, data), acme} }
	return []fline{
		{ev(id(1), "policy.set", "", ops, `{"dialect":"openclaw","document":`+ocDoc1+`,"catalogue":`+ocCatalogue+`}`), ""},
		a(2, "session.started", ocMain, `{"agent":"main"}`),
		a(3, "turn.started", ocMain, `{"turn":1}`),
		a(4, "session.spawned", ocE, `{"parent":"agent:main:main","agent":"main"}`),
		a(5, "session.completed", ocE, `{"status":"ok"}`),
		a(6, "session.spawned", ocA, `{"parent":"agent:main:main","agent":"main"}`),
		a(7, "session.spawned", ocB, `{"parent":"agent:main:main","agent":"coder"}`),
		a(8, "session.started", ocSecond, `{"agent":"main"}`),
		a(9, "session.spawned", ocC, `{"parent":"agent:main:second","agent":"main"}`),
		a(ocBatch2, "session.yielded", ocSecond, `{"children":["agent:main:subagent:c"]}`),
		a(11, "session.started", ocThird, `{"agent":"main"}`),
		a(12, "session.spawned", ocD, `{"parent":"agent:main:third","agent":"main"}`),
		a(ocBatch3, "session.yielded", ocThird, `{"children":["agent:main:subagent:d"]}`),
		a(14, "session.started", ocFourth, `{"agent":"main"}`),
		{ev(id(15), "session.started", ocGlobex, globex, `{"agent":"main"}`), globex},
		a(ocCheck, "tool.checked", ocMain, `{"turn":1,"tool":"browser","call":"c1"}`),
		// Revision 2 denies browser: the effect of the check above is now
		// refused (authorization_changed).
		{ev(id(17), "policy.set", "", ops, `{"dialect":"openclaw","document":`+ocDoc2+`}`), ""},
	}
}

// The claude-code fixture's sessions.
const (
	ccLead   = "lead"       // root, turn 1
	ccG1     = "lead:g1"    // general-purpose, depth 1
	ccG2     = "lead:g1:g2" // depth 2 = maxSubagentDepth
	ccLead2  = "lead2"      // yielded for lead2:k
	ccK      = "lead2:k"
	ccGlobex = "globex-root"
	ccDoc    = `{"agents":{"coder":{"description":"writes code","tools":["Read"]}},"maxSubagentDepth":2}`
)

func claudeCodeFixture() []fline {
	a := func(n int, typ, session, data string) fline { return fline{ev(id(n), typ, session, acme, data), acme} }
	return []fline{
		{ev(id(101), "policy.set", "", ops, `{"dialect":"claude-code","document":`+ccDoc+`,"catalogue":["Agent","Read","Bash"]}`), ""},
		a(102, "session.started", ccLead, `{"agent":"main"}`),
		a(103, "turn.started", ccLead, `{"turn":1}`),
		a(104, "session.spawned", ccG1, `{"parent":"lead","agent":"general-purpose"}`),
		a(105, "session.spawned", ccG2, `{"parent":"lead:g1","agent":"general-purpose"}`),
		a(106, "session.started", ccLead2, `{"agent":"main"}`),
		a(107, "session.spawned", ccK, `{"parent":"lead2","agent":"coder"}`),
		a(108, "session.yielded", ccLead2, `{"children":["lead2:k"]}`),
		{ev(id(109), "session.started", ccGlobex, globex, `{"agent":"main"}`), globex},
	}
}

func fixture(dialect string) []fline {
	if dialect == openclaw {
		return openclawFixture()
	}
	return claudeCodeFixture()
}

// decided decodes a record's decided object.
func decided(t *testing.T, r *events.Record) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Decided, &m); err != nil {
		t.Fatalf("decided does not decode: %v", err)
	}
	return m
}

// resumedWith checks a session.resumed that fell back to the ordinary
// policy with reason.
func resumedWith(session, reason string) func(*testing.T, []*events.Record) {
	return func(t *testing.T, recs []*events.Record) {
		r := recs[0]
		if r.Type != events.SessionResumed || string(r.Session) != session {
			t.Fatalf("wrote %s on %q, want session.resumed on %q", r.Type, r.Session, session)
		}
		d := decided(t, r)
		if d["policy_source"] != "current_request" || d["source_reason"] != reason {
			t.Errorf("resume decided %v, want policy_source current_request, source_reason %s", d, reason)
		}
	}
}

// allowedWith checks a tool.checked allowed with reason code, naming the
// rule or default and the record that decided.
func allowedWith(code string) func(*testing.T, []*events.Record) {
	return func(t *testing.T, recs []*events.Record) {
		d := decided(t, recs[0])
		reason, _ := d["reason"].(map[string]any)
		if d["decision"] != "allow" || reason["code"] != code {
			t.Errorf("decided %v, want allow with reason %s", d, code)
		}
	}
}

// foreignBatchCase names, per dialect, the accepted settle_batch resume
// whose batch is not the session's own yield; after the table the resumed
// session must hold the ordinary policy.
var foreignBatchCase = map[string]string{
	openclaw:   "settle_batch naming another session's yield",
	claudeCode: "claude-code: settle_batch naming the policy record as its batch",
}

// cases returns the shared table: openclaw cases on the openclaw fixture,
// then claude-code cases on the claude-code fixture. Within a dialect the
// cases run in order; the accepted ones that change state come last.
func cases() []hcase {
	oc := func(name string, code events.Code, line string) hcase {
		return hcase{name: name, dialect: openclaw, line: line, code: code}
	}
	inv := func(name, line string) hcase { return oc(name, events.CodeInvalidEvent, line) }
	turn2 := sev("turn.started", ocMain, `{"turn":2}`) // valid: never sent as is
	big := strings.Repeat("x", over)

	list := []hcase{
		// Bytes that are not one JSON object.
		inv("not JSON", `{"type":"turn.started","v":1,`),
		// The API takes a list as a batch append, answered event by event
		// (TestBatchAppendHostile); the CLI reads one event per line.
		{name: "a JSON list", dialect: openclaw, code: events.CodeInvalidEvent, line: `[{"type":"turn.started"}]`, cliOnly: true},
		inv("a JSON string", `"turn.started"`),
		inv("a JSON number", `42`),
		{name: "JSON null", dialect: openclaw, code: events.CodeInvalidEvent, line: `null`},
		inv("trailing data after a valid event", turn2+` {}`),
		inv("two valid events on one line", turn2+turn2),
		inv("single-quoted JSON", `{'type':'turn.started','v':1,'session':'agent:main:main','actor':'acme','data':{'turn':2}}`),
		inv("comments in JSON", `{"type":"turn.started",/* hi */"v":1,"session":"agent:main:main","actor":"acme","data":{"turn":2}}`),
		inv("trailing comma", `{"type":"turn.started","v":1,"session":"agent:main:main","actor":"acme","data":{"turn":2},}`),
		inv("NaN turn", sev("turn.started", ocMain, `{"turn":NaN}`)),

		// Encoding.
		inv("invalid UTF-8 in the session key", "{\"type\":\"turn.started\",\"v\":1,\"session\":\"agent:main:\xff\",\"actor\":\"acme\",\"data\":{\"turn\":2}}"),
		inv("invalid UTF-8 in a data string", "{\"type\":\"turn.started\",\"v\":1,\"session\":\"agent:main:main\",\"actor\":\"acme\",\"data\":{\"turn\":2,\"sender\":\"bob\xfe\"}}"),
		inv("overlong UTF-8 encoding of '/'", "{\"type\":\"turn.started\",\"v\":1,\"session\":\"agent:main:main\",\"actor\":\"acme\",\"data\":{\"turn\":2,\"sender\":\"\xc0\xaf\"}}"),
		inv("UTF-8 encoded surrogate half", "{\"type\":\"turn.started\",\"v\":1,\"session\":\"agent:main:main\",\"actor\":\"acme\",\"data\":{\"turn\":2,\"sender\":\"\xed\xa0\x80\"}}"),
		inv("invalid UTF-8 in an object key", "{\"type\":\"turn.started\",\"v\":1,\"session\":\"agent:main:main\",\"actor\":\"acme\",\"data\":{\"turn\":2,\"\xff\":1}}"),
		inv("invalid UTF-8 in a top-level key", "{\"type\":\"turn.started\",\"v\":1,\"session\":\"agent:main:main\",\"actor\":\"acme\",\"data\":{\"turn\":2},\"\xff\":1}"),
		{name: "lone surrogate escape in a spawn label", dialect: openclaw, code: events.CodeInvalidEvent,
			line: sev("session.spawned", "agent:main:subagent:sur", `{"parent":"agent:main:fourth","agent":"main","label":"\ud800"}`)},

		// Repeated keys.
		{name: "repeated top-level key v on a valid turn", dialect: openclaw, code: events.CodeInvalidEvent,
			line: `{"type":"turn.started","v":1,"v":1,"session":"agent:main:main","actor":"acme","data":{"turn":2}}`},
		{name: "repeated top-level key session on a valid turn", dialect: openclaw, code: events.CodeInvalidEvent,
			line: `{"type":"turn.started","v":1,"session":"agent:main:other","session":"agent:main:main","actor":"acme","data":{"turn":2}}`},
		{name: "repeated actor naming another orchestrator first", dialect: openclaw, code: events.CodeInvalidEvent,
			line: `{"type":"turn.started","v":1,"session":"agent:main:main","actor":"globex","actor":"acme","data":{"turn":2}}`},
		inv("repeated data key turn", sev("turn.started", ocMain, `{"turn":5,"turn":2}`)),
		inv("repeated key in a nested input object", sev("tool.checked", ocMain, `{"turn":1,"tool":"read","input":{"path":"a","path":"b"}}`)),

		// Size and nesting limits.
		inv("oversized event: a 576 KiB sender", sev("turn.started", ocMain, `{"turn":2,"sender":"`+big+`"}`)),
		inv("oversized event: a 576 KiB input object", sev("tool.checked", ocMain, `{"turn":1,"tool":"read","input":{"blob":"`+big+`"}}`)),
		inv("oversized event: a 576 KiB input string", sev("tool.checked", ocMain, `{"turn":1,"tool":"read","input":"`+big+`"}`)),
		inv("huge policy: a 576 KiB document", pev("policy.set", `{"dialect":"openclaw","document":{"tools":{"deny":["`+big+`"]}}}`)),
		inv("huge policy: a catalogue of 10,001 tools", pev("policy.set", `{"dialect":"openclaw","document":{},"catalogue":`+keyList("t", events.MaxListLen+1)+`}`)),
		inv("input nested 33 deep", sev("tool.checked", ocMain, `{"turn":1,"tool":"read","input":`+nested(31)+`}`)),
		inv("policy document nested 40 deep", pev("policy.set", `{"dialect":"openclaw","document":`+nested(40)+`}`)),
		inv("100,000 nested lists", strings.Repeat("[", 100000)+strings.Repeat("]", 100000)),
		inv("100,000 unclosed objects", strings.Repeat(`{"a":`, 100000)),

		// Record fields.
		inv("unknown top-level field", `{"type":"turn.started","v":1,"session":"agent:main:main","actor":"acme","data":{"turn":2},"extra":true}`),
		inv("time sent by the caller", `{"type":"turn.started","v":1,"session":"agent:main:main","actor":"acme","data":{"turn":2},"time":"2026-01-01T00:00:00.000Z"}`),
		inv("decided sent by the caller", `{"type":"turn.started","v":1,"session":"agent:main:main","actor":"acme","data":{"turn":2},"decided":{"policy_source":"settle_batch"}}`),
		inv("bad ULID: free text", ev("not-a-ulid", "turn.started", ocMain, acme, `{"turn":2}`)),
		inv("bad ULID: lower case", ev(strings.ToLower(id(900)), "turn.started", ocMain, acme, `{"turn":2}`)),
		inv("bad ULID: overflowing first character", ev("8"+id(900)[1:], "turn.started", ocMain, acme, `{"turn":2}`)),
		inv("bad ULID: the letter U", ev(id(900)[:25]+"U", "turn.started", ocMain, acme, `{"turn":2}`)),
		inv("bad ULID: 27 characters", ev(id(900)+"0", "turn.started", ocMain, acme, `{"turn":2}`)),
		inv("id as a number", `{"id":1,"type":"turn.started","v":1,"session":"agent:main:main","actor":"acme","data":{"turn":2}}`),
		inv("id null", `{"id":null,"type":"turn.started","v":1,"session":"agent:main:main","actor":"acme","data":{"turn":2}}`),
		inv("v: 2", `{"type":"turn.started","v":2,"session":"agent:main:main","actor":"acme","data":{"turn":2}}`),
		inv("v: 0", `{"type":"turn.started","v":0,"session":"agent:main:main","actor":"acme","data":{"turn":2}}`),
		inv("v as a string", `{"type":"turn.started","v":"1","session":"agent:main:main","actor":"acme","data":{"turn":2}}`),
		inv("v as a float", `{"type":"turn.started","v":1.0,"session":"agent:main:main","actor":"acme","data":{"turn":2}}`),
		// ledger append fills in a missing v (1), so that a scenario's events
		// append as they are (issue 15); the API does not.
		{name: "v missing", dialect: openclaw, code: events.CodeInvalidEvent, apiOnly: true,
			line: `{"type":"turn.started","session":"agent:main:main","actor":"acme","data":{"turn":2}}`},
		oc("unknown type", events.CodeUnknownType, sev("session.exploded", ocMain, `{}`)),
		oc("type in another case", events.CodeUnknownType, sev("Turn.Started", ocMain, `{"turn":2}`)),
		oc("empty type", events.CodeUnknownType, sev("", ocMain, `{"turn":2}`)),
		inv("type as a number", `{"type":7,"v":1,"session":"agent:main:main","actor":"acme","data":{"turn":2}}`),
		{name: "type null", dialect: openclaw, code: events.CodeInvalidEvent,
			line: `{"type":null,"v":1,"session":"agent:main:main","actor":"acme","data":{"turn":2}}`},
		inv("type missing", `{"v":1,"session":"agent:main:main","actor":"acme","data":{"turn":2}}`),
		inv("actor as a number", `{"type":"turn.started","v":1,"session":"agent:main:main","actor":7,"data":{"turn":2}}`),
		{name: "actor null", dialect: openclaw, code: events.CodeInvalidEvent,
			line: `{"type":"turn.started","v":1,"session":"agent:main:main","actor":null,"data":{"turn":2}}`},
		// A missing actor is no hostile input: the API fills in the
		// subject's owner (the contract: "leave actor out"), ledger append
		// its --actor (default cli). An empty or wildcard one is refused
		// (the cases on actors below).
		inv("data missing", `{"type":"turn.started","v":1,"session":"agent:main:main","actor":"acme"}`),
		inv("data null", `{"type":"turn.started","v":1,"session":"agent:main:main","actor":"acme","data":null}`),
		inv("data as a list", `{"type":"turn.started","v":1,"session":"agent:main:main","actor":"acme","data":[{"turn":2}]}`),
		inv("data as a string", `{"type":"turn.started","v":1,"session":"agent:main:main","actor":"acme","data":"{\"turn\":2}"}`),

		// The session field.
		inv("session event without a session", `{"type":"turn.started","v":1,"actor":"acme","data":{"turn":2}}`),
		inv("session event with an empty session", `{"type":"turn.started","v":1,"session":"","actor":"acme","data":{"turn":2}}`),
		inv("session null", `{"type":"turn.started","v":1,"session":null,"actor":"acme","data":{"turn":2}}`),
		inv("session as a number", `{"type":"turn.started","v":1,"session":42,"actor":"acme","data":{"turn":2}}`),
		inv("session as a list", `{"type":"turn.started","v":1,"session":["agent:main:main"],"actor":"acme","data":{"turn":2}}`),
		inv("policy.set with a session", ev("", "policy.set", ocMain, ops, `{"dialect":"openclaw","document":`+ocDoc2+`}`)),
		inv("grant.added with a session", ev("", "grant.added", ocMain, ops, `{"kind":"allow_agent","agent":"main","target":"reviewer"}`)),
		inv("grant.revoked with a session", ev("", "grant.revoked", ocMain, ops, `{"kind":"allow_agent","agent":"main","target":"reviewer"}`)),

		// Session keys: NATS wildcards, dots, whitespace, length.
		oc("key with the * wildcard", events.CodeBadSessionKey, sev("session.started", "agent:main:*", `{"agent":"main"}`)),
		oc("key with the > wildcard", events.CodeBadSessionKey, sev("session.started", "agent:main:>", `{"agent":"main"}`)),
		oc("key that is only >", events.CodeBadSessionKey, sev("turn.started", ">", `{"turn":1}`)),
		oc("key with dots", events.CodeBadSessionKey, sev("session.started", "agent.main.x", `{"agent":"main"}`)),
		oc("key with a dot naming a decision subject", events.CodeBadSessionKey, sev("session.started", "x.ledger.policy", `{"agent":"main"}`)),
		oc("key with a space", events.CodeBadSessionKey, sev("session.started", "agent:main:two words", `{"agent":"main"}`)),
		oc("key with a tab", events.CodeBadSessionKey, sev("session.started", "agent:main:\tx", `{"agent":"main"}`)),
		oc("key with a trailing newline", events.CodeBadSessionKey, sev("turn.started", ocMain+"\n", `{"turn":2}`)),
		oc("key with an inner newline", events.CodeBadSessionKey, sev("session.started", "agent:main\nx", `{"agent":"main"}`)),
		oc("key with a carriage return", events.CodeBadSessionKey, sev("session.started", "agent:main:x\r", `{"agent":"main"}`)),
		oc("key with a NUL", events.CodeBadSessionKey, sev("session.started", "agent:main:x\u0000", `{"agent":"main"}`)),
		oc("key with a slash", events.CodeBadSessionKey, sev("session.started", "agent/main/x", `{"agent":"main"}`)),
		oc("key with non-ASCII letters", events.CodeBadSessionKey, sev("session.started", "agent:main:ünï", `{"agent":"main"}`)),
		oc("key of 201 characters", events.CodeBadSessionKey, sev("session.started", "agent:main:"+strings.Repeat("k", 190), `{"agent":"main"}`)),
		oc("key of 10,000 characters", events.CodeBadSessionKey, sev("session.started", strings.Repeat("k", 10000), `{"agent":"main"}`)),
		oc("root key with a subagent segment", events.CodeBadSessionKey, sev("session.started", "agent:main:SubAgent:x", `{"agent":"main"}`)),
		oc("child key naming another agent", events.CodeBadSessionKey, sev("session.spawned", "agent:coder:subagent:z", `{"parent":"agent:main:fourth","agent":"main"}`)),
		oc("child key with a wildcard id", events.CodeBadSessionKey, sev("session.spawned", "agent:main:subagent:*", `{"parent":"agent:main:fourth","agent":"main"}`)),
		oc("child key with a dotted id", events.CodeBadSessionKey, sev("session.spawned", "agent:main:subagent:a.b", `{"parent":"agent:main:fourth","agent":"main"}`)),
		oc("parent key with a wildcard", events.CodeUnknownParent, sev("session.spawned", "agent:main:subagent:w", `{"parent":"agent:main:>","agent":"main"}`)),
		oc("yield for a wildcard child", events.CodeUnknownSession, sev("session.yielded", ocMain, `{"children":["agent:main:subagent:*"]}`)),

		// Names that become keys and subjects, and lengths (issue 15): control
		// characters, NATS wildcards and dots in agent ids, unbounded tool
		// names and agent ids, empty and wildcard actors.
		inv("grant agent with a NUL", pev("grant.added", `{"kind":"allow_agent","agent":"ma\u0000in","target":"coder"}`)),
		inv("grant target with a NUL", pev("grant.added", `{"kind":"allow_agent","agent":"main","target":"co\u0000der"}`)),
		inv("grant agent ma.in>", pev("grant.added", `{"kind":"allow_agent","agent":"ma.in>","target":"coder"}`)),
		inv("grant agent of 64 KiB", pev("grant.added", `{"kind":"delegate_tools","agent":"`+strings.Repeat("a", 64<<10)+`","target":"coder"}`)),
		inv("also_allow grant of a tool with a NUL", pev("grant.added", `{"kind":"also_allow","agent":"main","target":"main","tools":["ex\u0000ec"]}`)),
		inv("root agent of 64 KiB", sev("session.started", "agent:main:h1", `{"agent":"`+strings.Repeat("a", 64<<10)+`"}`)),
		inv("root agent ma.in>", sev("session.started", "agent:main:h2", `{"agent":"ma.in>"}`)),
		inv("spawn of agent ma.in>", sev("session.spawned", "agent:main:subagent:h3", `{"parent":"agent:main:fourth","agent":"ma.in>"}`)),
		inv("check of a tool with a NUL", sev("tool.checked", ocMain, `{"turn":1,"tool":"read\u0000"}`)),
		inv("check of a tool with an escape sequence", sev("tool.checked", ocMain, `{"turn":1,"tool":"\u001b[2Jread"}`)),
		inv("check of a tool of 257 characters", sev("tool.checked", ocMain, `{"turn":1,"tool":"`+strings.Repeat("r", events.MaxNameLen+1)+`"}`)),
		inv("check of a tool of 64 KiB", sev("tool.checked", ocMain, `{"turn":1,"tool":"`+strings.Repeat("r", 64<<10)+`"}`)),
		inv("check with a call id holding a NUL", sev("tool.checked", ocMain, `{"turn":1,"tool":"read","call":"c\u0000"}`)),
		inv("turn with a sender holding a C1 control", sev("turn.started", ocFourth, `{"turn":1,"sender":"bob\u0085"}`)),
		oc("catalogue entry with a NUL", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"openclaw","document":`+ocDoc2+`,"catalogue":["read","ex\u0000ec"]}`)),
		oc("catalogue entry of 64 KiB", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"openclaw","document":`+ocDoc2+`,"catalogue":["`+strings.Repeat("t", 64<<10)+`"]}`)),
		oc("policy document entry with a NUL", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"openclaw","document":{"tools":{"deny":["exec\u0000"]}}}`)),
		oc("policy document agent id ma.in>", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"openclaw","document":{"agents":{"list":[{"id":"main"},{"id":"ma.in>"}]}}}`)),
		inv("policy event with an empty actor", ev("", "grant.added", "", "", `{"kind":"allow_agent","agent":"main","target":"reviewer"}`)),
		inv("policy event with the actor *", ev("", "grant.added", "", "*", `{"kind":"allow_agent","agent":"main","target":"reviewer"}`)),
		inv("policy event with an actor holding a NUL", ev("", "grant.added", "", "ops\u0000", `{"kind":"allow_agent","agent":"main","target":"reviewer"}`)),
		inv("policy event with the actor ops.>", ev("", "grant.added", "", "ops.>", `{"kind":"allow_agent","agent":"main","target":"reviewer"}`)),
		// The API fills in an empty actor with the subject's owner (the
		// contract: "leave actor out"); the CLI has no owner.
		{name: "session event with an empty actor", dialect: openclaw, code: events.CodeInvalidEvent, cliOnly: true,
			line: ev("", "turn.started", ocFourth, "", `{"turn":1}`)},
		inv("session event with the actor *", ev("", "turn.started", ocFourth, "*", `{"turn":1}`)),

		// Wrong JSON types for every field kind, nulls, numbers as strings.
		inv("turn as a string", sev("turn.started", ocMain, `{"turn":"2"}`)),
		inv("turn as a float 2.0", sev("turn.started", ocMain, `{"turn":2.0}`)),
		inv("turn as a float 2.5", sev("turn.started", ocMain, `{"turn":2.5}`)),
		inv("turn in exponent form", sev("turn.started", ocMain, `{"turn":2e0}`)),
		inv("turn zero", sev("turn.started", ocMain, `{"turn":0}`)),
		inv("turn negative", sev("turn.started", ocMain, `{"turn":-1}`)),
		inv("turn -0", sev("turn.started", ocMain, `{"turn":-0}`)),
		inv("turn beyond 64 bits", sev("turn.started", ocMain, `{"turn":99999999999999999999}`)),
		inv("turn null", sev("turn.started", ocMain, `{"turn":null}`)),
		inv("turn as a bool", sev("turn.started", ocMain, `{"turn":true}`)),
		inv("tool.checked turn as a string", sev("tool.checked", ocMain, `{"turn":"1","tool":"read"}`)),
		inv("prepared_at zero", sev("tool.effect_started", ocMain, `{"turn":1,"tool":"browser","call":"c1","prepared_at":0}`)),
		inv("prepared_at as a string", sev("tool.effect_started", ocMain, `{"turn":1,"tool":"browser","call":"c1","prepared_at":"16"}`)),
		inv("prepared_at as a float", sev("tool.effect_started", ocMain, `{"turn":1,"tool":"browser","call":"c1","prepared_at":16.0}`)),
		inv("boolean as a string", sev("session.spawned", "agent:main:subagent:t1", `{"parent":"agent:main:fourth","agent":"main","sandboxed":"false"}`)),
		inv("boolean as a number", sev("turn.started", ocMain, `{"turn":2,"external":1}`)),
		inv("boolean null", sev("session.started", "agent:main:t2", `{"agent":"main","owner":null}`)),
		inv("string as a number", sev("session.started", "agent:main:t3", `{"agent":7}`)),
		inv("string null", sev("session.completed", ocA, `{"status":null}`)),
		inv("string as an object", sev("session.started", "agent:main:t4", `{"agent":"main","channel":{"id":"c"}}`)),
		inv("string list as a string", sev("session.yielded", ocMain, `{"children":"agent:main:subagent:a"}`)),
		inv("string list with a number", sev("session.yielded", ocMain, `{"children":[1]}`)),
		inv("string list with a null", sev("session.resumed", ocSecond, `{"handoff":"completion","from":[null]}`)),
		inv("string list null", sev("session.yielded", ocMain, `{"children":null}`)),
		inv("string list of lists", sev("session.yielded", ocMain, `{"children":[["agent:main:subagent:a"]]}`)),
		inv("document as a string", pev("policy.set", `{"dialect":"openclaw","document":"{}"}`)),
		inv("document null", pev("policy.set", `{"dialect":"openclaw","document":null}`)),
		inv("document as a list", pev("policy.set", `{"dialect":"openclaw","document":[]}`)),
		inv("catalogue as a string", pev("policy.set", `{"dialect":"openclaw","document":{},"catalogue":"read"}`)),
		inv("input as a number", sev("tool.checked", ocMain, `{"turn":1,"tool":"read","input":42}`)),
		inv("input as a list", sev("tool.checked", ocMain, `{"turn":1,"tool":"read","input":["ls"]}`)),
		inv("input null", sev("tool.checked", ocMain, `{"turn":1,"tool":"read","input":null}`)),
		inv("batch as a number", sev("session.resumed", ocSecond, `{"handoff":"settle_batch","batch":10,"from":["agent:main:subagent:c"]}`)),
		inv("unknown data field", sev("session.started", "agent:main:t5", `{"agent":"main","colour":"red"}`)),
		inv("a field of another event type", sev("session.started", "agent:main:t6", `{"agent":"main","turn":1}`)),
		inv("status not in the list", sev("session.completed", ocA, `{"status":"done"}`)),
		inv("status in upper case", sev("session.completed", ocA, `{"status":"OK"}`)),
		inv("empty status", sev("session.completed", ocA, `{"status":""}`)),
		inv("handoff not in the list", sev("session.resumed", ocSecond, `{"handoff":"magic","from":["agent:main:subagent:c"]}`)),
		inv("session tool that is not an MCP name", sev("session.started", "agent:main:t7", `{"agent":"main","tools":["exec"]}`)),

		// Every event type with a required field missing.
		inv("policy.set without dialect", pev("policy.set", `{"document":{}}`)),
		inv("policy.set without document", pev("policy.set", `{"dialect":"openclaw"}`)),
		inv("grant.added without kind", pev("grant.added", `{"agent":"main","target":"reviewer"}`)),
		inv("grant.added without agent", pev("grant.added", `{"kind":"allow_agent","target":"reviewer"}`)),
		inv("grant.revoked without target", pev("grant.revoked", `{"kind":"allow_agent","agent":"main"}`)),
		inv("session.started without agent", sev("session.started", "agent:main:t8", `{}`)),
		inv("session.spawned without parent", sev("session.spawned", "agent:main:subagent:t9", `{"agent":"main"}`)),
		inv("session.spawned without agent", sev("session.spawned", "agent:main:subagent:t10", `{"parent":"agent:main:fourth"}`)),
		inv("turn.started without turn", sev("turn.started", ocMain, `{}`)),
		inv("session.yielded without children", sev("session.yielded", ocMain, `{}`)),
		inv("session.completed without status", sev("session.completed", ocA, `{}`)),
		inv("session.resumed without handoff", sev("session.resumed", ocSecond, `{"batch":"`+id(ocBatch2)+`","from":["agent:main:subagent:c"]}`)),
		inv("session.resumed without from", sev("session.resumed", ocSecond, `{"handoff":"settle_batch","batch":"`+id(ocBatch2)+`"}`)),
		inv("settle_batch without batch", sev("session.resumed", ocSecond, `{"handoff":"settle_batch","from":["agent:main:subagent:c"]}`)),
		inv("tool.checked without tool", sev("tool.checked", ocMain, `{"turn":1}`)),
		inv("tool.checked without turn", sev("tool.checked", ocMain, `{"tool":"read"}`)),
		inv("tool.effect_started without call", sev("tool.effect_started", ocMain, `{"turn":1,"tool":"browser"}`)),

		// Empty strings and lists.
		inv("grant with an empty agent", pev("grant.added", `{"kind":"allow_agent","agent":"","target":"reviewer"}`)),
		inv("grant with an empty target", pev("grant.added", `{"kind":"delegate_tools","agent":"main","target":""}`)),
		inv("grant with an empty kind", pev("grant.added", `{"kind":"","agent":"main","target":"reviewer"}`)),
		inv("also_allow with only blank tools", pev("grant.added", `{"kind":"also_allow","agent":"main","target":"main","tools":["", "  "]}`)),
		inv("yield for no children", sev("session.yielded", ocMain, `{"children":[]}`)),
		inv("resume from nobody", sev("session.resumed", ocSecond, `{"handoff":"settle_batch","batch":"`+id(ocBatch2)+`","from":[]}`)),

		// Lists: repeats and 10,001 entries.
		inv("yield naming a child twice", sev("session.yielded", ocMain, `{"children":["agent:main:subagent:a","agent:main:subagent:a"]}`)),
		inv("resume naming a child twice", sev("session.resumed", ocSecond, `{"handoff":"settle_batch","batch":"`+id(ocBatch2)+`","from":["agent:main:subagent:c","agent:main:subagent:c"]}`)),
		inv("yield for 10,001 children", sev("session.yielded", ocMain, `{"children":`+keyList("agent:main:subagent:n", events.MaxListLen+1)+`}`)),
		inv("resume from 10,001 children", sev("session.resumed", ocSecond, `{"handoff":"settle_batch","batch":"`+id(ocBatch2)+`","from":`+keyList("agent:main:subagent:n", events.MaxListLen+1)+`}`)),
		inv("session.started with 10,001 tools", sev("session.started", "agent:main:t11", `{"agent":"main","tools":`+keyList("srv__t", events.MaxListLen+1)+`}`)),
		inv("also_allow grant of 10,001 tools", pev("grant.added", `{"kind":"also_allow","agent":"main","target":"main","tools":`+keyList("t", events.MaxListLen+1)+`}`)),

		// Continuations: shapes.
		inv("completion with a batch", sev("session.resumed", ocSecond, `{"handoff":"completion","batch":"`+id(ocBatch2)+`","from":["agent:main:subagent:c"]}`)),
		inv("completion from two children", sev("session.resumed", ocMain, `{"handoff":"completion","from":["agent:main:subagent:a","agent:coder:subagent:b"]}`)),

		// Policy.
		oc("policy.set of another dialect", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"claude-code","document":{}}`)),
		oc("policy.set of an unknown dialect", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"cedar","document":{}}`)),
		oc("policy.set with an empty dialect", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"","document":{}}`)),
		oc("policy document with an unknown top-level key", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"openclaw","document":{"toolz":{}}}`)),
		oc("policy document with an unknown nested key", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"openclaw","document":{"tools":{"denny":["exec"]}}}`)),
		oc("policy document with an unknown agent key", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"openclaw","document":{"agents":{"list":[{"id":"main","root":true}]}}}`)),
		oc("maxSpawnDepth out of range", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"openclaw","document":{"agents":{"defaults":{"subagents":{"maxSpawnDepth":100000}}}}}`)),
		oc("maxSpawnDepth as a string", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"openclaw","document":{"agents":{"defaults":{"subagents":{"maxSpawnDepth":"2"}}}}}`)),
		oc("agents listed twice", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"openclaw","document":{"agents":{"list":[{"id":"coder"},{"id":"coder"}]}}}`)),
		oc("policy with allow and alsoAllow both set", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"openclaw","document":{"tools":{"allow":["read"],"alsoAllow":["exec"]}}}`)),
		// OpenClaw 2026.9.6 takes every sender key ("bob" is an id key,
		// tests/openclawdiff's validation cases): what it refuses is a
		// sender policy that is not a policy.
		oc("bad sender policy", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"openclaw","document":{"tools":{"toolsBySender":{"bob":"deny"}}}}`)),

		// Grants.
		inv("grant of the claude-code kind", pev("grant.added", `{"kind":"permission","agent":"*","target":"*","behavior":"allow","rule":"exec"}`)),
		inv("grant of an unknown kind", pev("grant.added", `{"kind":"superuser","agent":"main","target":"main"}`)),
		inv("also_allow to another target", pev("grant.added", `{"kind":"also_allow","agent":"main","target":"coder","tools":["exec"]}`)),
		inv("delegate_tools with tools", pev("grant.added", `{"kind":"delegate_tools","agent":"main","target":"coder","tools":["exec"]}`)),
		oc("revoking a grant never added", events.CodeUnknownGrant, pev("grant.revoked", `{"kind":"allow_agent","agent":"main","target":"reviewer"}`)),
		oc("revoking a grant for an unknown agent", events.CodeUnknownGrant, pev("grant.revoked", `{"kind":"delegate_tools","agent":"ghost","target":"coder"}`)),

		// State: turns out of order, unknown and inactive sessions.
		oc("turn on an unknown session", events.CodeUnknownSession, sev("turn.started", "agent:main:nobody", `{"turn":1}`)),
		oc("turn skipping ahead", events.CodeBadTurn, sev("turn.started", ocMain, `{"turn":3}`)),
		oc("turn repeated", events.CodeBadTurn, sev("turn.started", ocMain, `{"turn":1}`)),
		oc("turn 10,000 on a new child", events.CodeBadTurn, sev("turn.started", ocA, `{"turn":10000}`)),
		oc("turn on a yielded session", events.CodeSessionNotActive, sev("turn.started", ocSecond, `{"turn":1}`)),
		oc("turn on a completed session", events.CodeSessionNotActive, sev("turn.started", ocE, `{"turn":1}`)),
		oc("check of a turn not yet started", events.CodeBadTurn, sev("tool.checked", ocMain, `{"turn":2,"tool":"read"}`)),
		oc("check of a past turn", events.CodeBadTurn, sev("tool.checked", ocA, `{"turn":1,"tool":"read"}`)),
		oc("check on a yielded session", events.CodeSessionNotActive, sev("tool.checked", ocSecond, `{"turn":1,"tool":"read"}`)),
		oc("check on an unknown session", events.CodeUnknownSession, sev("tool.checked", "agent:main:nobody", `{"turn":1,"tool":"read"}`)),
		inv("effect without a preparing check", sev("tool.effect_started", ocMain, `{"turn":1,"tool":"browser","call":"zzz"}`)),
		inv("effect prepared_at naming another record", sev("tool.effect_started", ocMain, `{"turn":1,"tool":"browser","call":"c1","prepared_at":2}`)),
		inv("effect prepared_at beyond the head", sev("tool.effect_started", ocMain, `{"turn":1,"tool":"browser","call":"c1","prepared_at":1000000}`)),
		oc("effect of a past turn", events.CodeBadTurn, sev("tool.effect_started", ocMain, `{"turn":2,"tool":"browser","call":"c1"}`)),
		oc("session.started on an existing root", events.CodeDuplicateSession, sev("session.started", ocMain, `{"agent":"main"}`)),
		// The API answers another orchestrator's session as unknown.
		{name: "session.started on globex's root", dialect: openclaw, code: events.CodeDuplicateSession, apiCode: events.CodeUnknownSession,
			line: sev("session.started", ocGlobex, `{"agent":"main"}`)},
		oc("completing a completed session", events.CodeSessionNotActive, sev("session.completed", ocE, `{"status":"ok"}`)),
		oc("completing an unknown session", events.CodeUnknownSession, sev("session.completed", "agent:main:nobody", `{"status":"ok"}`)),
		oc("yield on a yielded session", events.CodeSessionNotActive, sev("session.yielded", ocSecond, `{"children":["agent:main:subagent:c"]}`)),
		oc("yield for an unknown child", events.CodeUnknownSession, sev("session.yielded", ocMain, `{"children":["agent:main:subagent:zz"]}`)),
		oc("yield for another session's child", events.CodeNotAChild, sev("session.yielded", ocMain, `{"children":["agent:main:subagent:c"]}`)),
		oc("yield for itself", events.CodeNotAChild, sev("session.yielded", ocMain, `{"children":["agent:main:main"]}`)),
		// The API answers another orchestrator's child as one that does
		// not exist (TestIsolationProbes); the CLI, which has no owners,
		// as not a child.
		{name: "globex yields for acme's child", dialect: openclaw, owner: globex, code: events.CodeNotAChild, apiCode: events.CodeUnknownSession,
			line: ev("", "session.yielded", ocGlobex, globex, `{"children":["agent:main:subagent:a"]}`)},
		oc("resume of an unknown session", events.CodeUnknownSession, sev("session.resumed", "agent:main:nobody", `{"handoff":"completion","from":["agent:main:subagent:a"]}`)),
		oc("resume from an unknown child", events.CodeUnknownSession, sev("session.resumed", ocSecond, `{"handoff":"settle_batch","batch":"`+id(ocBatch2)+`","from":["agent:main:subagent:zz"]}`)),
		oc("resume of a completed session", events.CodeSessionNotActive, sev("session.resumed", ocE, `{"handoff":"completion","from":["agent:main:subagent:a"]}`)),

		// Spawns: cycles, unknown parents, admission.
		oc("spawn of itself as its own parent", events.CodeUnknownParent, sev("session.spawned", "agent:main:subagent:self", `{"parent":"agent:main:subagent:self","agent":"main"}`)),
		oc("spawn of an existing child under itself", events.CodeDuplicateSession, sev("session.spawned", ocA, `{"parent":"agent:main:subagent:a","agent":"main"}`)),
		oc("spawn of the parent's parent under the child (cycle)", events.CodeDuplicateSession, sev("session.spawned", ocA, `{"parent":"agent:coder:subagent:b","agent":"main"}`)),
		oc("spawn of a root under its own child", events.CodeBadSessionKey, sev("session.spawned", ocMain, `{"parent":"agent:main:subagent:a","agent":"main"}`)),
		oc("spawn of an existing key", events.CodeDuplicateSession, sev("session.spawned", ocC, `{"parent":"agent:main:fourth","agent":"main"}`)),
		oc("spawn under an unknown parent", events.CodeUnknownParent, sev("session.spawned", "agent:main:subagent:orphan", `{"parent":"agent:main:nobody","agent":"main"}`)),
		oc("spawn under an empty parent", events.CodeUnknownParent, sev("session.spawned", "agent:main:subagent:orphan", `{"parent":"","agent":"main"}`)),
		oc("spawn under a yielded parent", events.CodeSessionNotActive, sev("session.spawned", "agent:main:subagent:y1", `{"parent":"agent:main:second","agent":"main"}`)),
		oc("spawn under a completed parent", events.CodeSessionNotActive, sev("session.spawned", "agent:main:subagent:y2", `{"parent":"agent:main:subagent:e","agent":"main"}`)),
		oc("spawn beyond maxSpawnDepth", events.CodeDepthLimit, sev("session.spawned", "agent:main:subagent:deep", `{"parent":"agent:main:subagent:a","agent":"main"}`)),
		oc("spawn beyond maxChildrenPerAgent", events.CodeMaxChildren, sev("session.spawned", "agent:main:subagent:third", `{"parent":"agent:main:main","agent":"main"}`)),
		// OpenClaw 2026.9.6 (resolveSubagentTargetPolicy, called by
		// tests/openclawdiff) reports a target that is neither configured
		// nor in the requester's allowAgents as not allowed.
		oc("spawn of an agent neither configured nor allowed", events.CodeAgentNotAllowed, sev("session.spawned", "agent:ghost:subagent:z", `{"parent":"agent:main:fourth","agent":"ghost"}`)),
		oc("spawn of an agent not allowed", events.CodeAgentNotAllowed, sev("session.spawned", "agent:reviewer:subagent:z", `{"parent":"agent:main:fourth","agent":"reviewer"}`)),

		// Effects and re-sent ids. The refused effect writes its decision
		// record (SPEC 4, 5.4); re-sending its id writes nothing more.
		{name: "effect whose authority changed", dialect: openclaw, code: events.CodeAuthorizationChanged, written: 1,
			line: ev(id(800), "tool.effect_started", ocMain, acme, `{"turn":1,"tool":"browser","call":"c1"}`),
			verify: func(t *testing.T, recs []*events.Record) {
				r := recs[0]
				if r.Type != events.ToolChecked || r.ID != id(800) || r.Session != ocMain {
					t.Fatalf("wrote %s %s on %q, want the effect's own id as a tool.checked on %q", r.Type, r.ID, r.Session, ocMain)
				}
				d := decided(t, r)
				reason, _ := d["reason"].(map[string]any)
				if d["decision"] != "deny" || reason["code"] != "effect:authorization_changed" {
					t.Errorf("decision record decided %v, want deny with effect:authorization_changed", d)
				}
			}},
		{name: "re-sent refused effect", dialect: openclaw, code: events.CodeAuthorizationChanged, resend: true,
			line: ev(id(800), "tool.effect_started", ocMain, acme, `{"turn":1,"tool":"browser","call":"c1"}`)},
		{name: "re-sent refused effect id on another event", dialect: openclaw, code: events.CodeAuthorizationChanged, resend: true,
			line: ev(id(800), "turn.started", ocFourth, acme, `{"turn":1}`)},
		{name: "re-sent id of a start, with other content", dialect: openclaw, dup: true, resend: true,
			line: ev(id(2), "session.started", "agent:main:impostor", acme, `{"agent":"coder"}`)},
		{name: "re-sent id of a policy.set, as a grant", dialect: openclaw, dup: true, resend: true,
			line: ev(id(1), "grant.added", "", ops, `{"kind":"allow_agent","agent":"main","target":"reviewer"}`)},
		inv("re-sent id of a turn, with a bad shape", ev(id(3), "turn.started", ocMain, acme, `{"turn":0}`)),
		oc("id of a refused event, first use", events.CodeBadTurn, ev(id(801), "turn.started", ocFourth, acme, `{"turn":5}`)),

		// Accepted as the SPEC says; these change state, so they come last.
		{name: "id of a refused event is free for a valid one", dialect: openclaw, written: 1,
			line: ev(id(801), "turn.started", ocFourth, acme, `{"turn":1}`),
			verify: func(t *testing.T, recs []*events.Record) {
				if r := recs[0]; r.ID != id(801) || r.Type != events.TurnStarted {
					t.Errorf("wrote %s %s, want turn.started %s", r.Type, r.ID, id(801))
				}
			}},
		// Every decision carries its reason, an allow included (issue 15:
		// an openclaw allow was recorded with "code":"").
		{name: "an allowed check records its reason", dialect: openclaw, written: 1,
			line:   sev("tool.checked", ocFourth, `{"turn":1,"tool":"read","call":"r1"}`),
			verify: allowedWith("default:allow")},
		// A root may run as an agent that is not configured; its spawn
		// targets are only itself until a grant adds its entry.
		{name: "root of an agent that is not configured", dialect: openclaw, written: 1,
			line: sev("session.started", "agent:ghost:main", `{"agent":"ghost"}`)},
		oc("spawn by the unconfigured agent before any grant", events.CodeAgentNotAllowed,
			sev("session.spawned", "agent:coder:subagent:g1", `{"parent":"agent:ghost:main","agent":"coder"}`)),
		{name: "grant for an unknown agent adds its entry", dialect: openclaw, written: 1,
			line: pev("grant.added", `{"kind":"allow_agent","agent":"ghost","target":"coder"}`),
			verify: func(t *testing.T, recs []*events.Record) {
				if r := recs[0]; r.Type != events.GrantAdded || r.Session != "" {
					t.Errorf("wrote %s on %q, want grant.added on the policy subject", r.Type, r.Session)
				}
			}},
		{name: "spawn by the unknown agent the grant names", dialect: openclaw, written: 1,
			line: sev("session.spawned", "agent:coder:subagent:g1", `{"parent":"agent:ghost:main","agent":"coder"}`)},
		{name: "delegate_tools grant between unknown agents", dialect: openclaw, written: 1,
			line: pev("grant.added", `{"kind":"delegate_tools","agent":"phantom","target":"spectre"}`)},
		{name: foreignBatchCase[openclaw], dialect: openclaw, written: 1,
			line:   sev("session.resumed", ocSecond, `{"handoff":"settle_batch","batch":"`+id(ocBatch3)+`","from":["agent:main:subagent:d"]}`),
			verify: resumedWith(ocSecond, "handoff_not_current")},
		{name: "settle_batch naming a policy record as the batch", dialect: openclaw, written: 1,
			line:   sev("session.resumed", ocThird, `{"handoff":"settle_batch","batch":"`+id(1)+`","from":["agent:main:subagent:d"]}`),
			verify: resumedWith(ocThird, "handoff_not_current")},
	}

	cc := func(name string, code events.Code, line string) hcase {
		return hcase{name: name, dialect: claudeCode, line: line, code: code}
	}
	ccInv := func(name, line string) hcase { return cc(name, events.CodeInvalidEvent, line) }
	list = append(list,
		// Shape, as in every dialect.
		ccInv("claude-code: not JSON", `{"type":"turn.started"`),
		ccInv("claude-code: invalid UTF-8 in the agent", "{\"type\":\"session.started\",\"v\":1,\"session\":\"s1\",\"actor\":\"acme\",\"data\":{\"agent\":\"ma\xffin\"}}"),
		ccInv("claude-code: time sent by the caller", `{"type":"turn.started","v":1,"session":"lead","actor":"acme","data":{"turn":2},"time":"2026-01-01T00:00:00.000Z"}`),
		ccInv("claude-code: v: 2", `{"type":"turn.started","v":2,"session":"lead","actor":"acme","data":{"turn":2}}`),
		ccInv("claude-code: turn as a float", sev("turn.started", ccLead, `{"turn":2.0}`)),
		ccInv("claude-code: input as a number", sev("tool.checked", ccLead, `{"turn":1,"tool":"Bash","input":42}`)),
		ccInv("claude-code: huge input", sev("tool.checked", ccLead, `{"turn":1,"tool":"Bash","input":{"command":"`+big+`"}}`)),
		ccInv("claude-code: input nested 40 deep", sev("tool.checked", ccLead, `{"turn":1,"tool":"Bash","input":`+nested(40)+`}`)),
		cc("claude-code: key with >", events.CodeBadSessionKey, sev("session.started", "lead>", `{"agent":"main"}`)),
		cc("claude-code: key with a dot", events.CodeBadSessionKey, sev("session.started", "lead.x", `{"agent":"main"}`)),
		cc("claude-code: key of 201 characters", events.CodeBadSessionKey, sev("session.started", strings.Repeat("k", 201), `{"agent":"main"}`)),
		cc("claude-code: parent key with wildcards", events.CodeBadSessionKey, sev("session.spawned", "x1", `{"parent":"lead.*","agent":"general-purpose"}`)),
		cc("claude-code: parent key of 201 characters", events.CodeBadSessionKey, sev("session.spawned", "x2", `{"parent":"`+strings.Repeat("p", 201)+`","agent":"general-purpose"}`)),
		ccInv("claude-code: empty agent", sev("session.started", "s2", `{"agent":""}`)),
		ccInv("claude-code: agent with a space", sev("session.started", "s3", `{"agent":"my agent"}`)),
		ccInv("claude-code: agent of 65 characters", sev("session.started", "s4", `{"agent":"`+strings.Repeat("a", 65)+`"}`)),
		ccInv("claude-code: mode auto", sev("session.started", "s5", `{"agent":"main","mode":"auto"}`)),
		ccInv("claude-code: unknown mode", sev("session.started", "s6", `{"agent":"main","mode":"godMode"}`)),
		ccInv("claude-code: session tool that is not MCP", sev("session.started", "s7", `{"agent":"main","tools":["Bash"]}`)),
		ccInv("claude-code: fork flag with another agent", sev("session.spawned", "x3", `{"parent":"lead","agent":"general-purpose","fork":true}`)),
		ccInv("claude-code: agent fork without the flag", sev("session.spawned", "x4", `{"parent":"lead","agent":"fork"}`)),
		ccInv("claude-code: fork and teammate", sev("session.spawned", "x5", `{"parent":"lead","agent":"fork","fork":true,"teammate":true}`)),
		ccInv("claude-code: yield for 10,001 children", sev("session.yielded", ccLead, `{"children":`+keyList("c", events.MaxListLen+1)+`}`)),

		// Grants.
		ccInv("claude-code: grant of an openclaw kind", pev("grant.added", `{"kind":"allow_agent","agent":"main","target":"coder"}`)),
		ccInv("claude-code: grant for an unknown agent", pev("grant.added", `{"kind":"permission","agent":"ghost","target":"*","behavior":"allow","rule":"Bash"}`)),
		ccInv("claude-code: grant to an unknown target", pev("grant.added", `{"kind":"permission","agent":"*","target":"ghost","behavior":"allow","rule":"Bash"}`)),
		ccInv("claude-code: grant with an unknown behavior", pev("grant.added", `{"kind":"permission","agent":"*","target":"*","behavior":"sometimes","rule":"Bash"}`)),
		ccInv("claude-code: grant without behavior", pev("grant.added", `{"kind":"permission","agent":"*","target":"*","rule":"Bash"}`)),
		ccInv("claude-code: grant with a rule that does not parse", pev("grant.added", `{"kind":"permission","agent":"*","target":"*","behavior":"allow","rule":"Bash("}`)),
		ccInv("claude-code: grant with an empty rule", pev("grant.added", `{"kind":"permission","agent":"*","target":"*","behavior":"deny","rule":""}`)),
		ccInv("claude-code: grant with tools", pev("grant.added", `{"kind":"permission","agent":"*","target":"*","behavior":"allow","rule":"Bash","tools":["Bash"]}`)),
		cc("claude-code: revoking a rule never granted", events.CodeUnknownGrant, pev("grant.revoked", `{"kind":"permission","agent":"*","target":"*","behavior":"allow","rule":"Bash(ls)"}`)),

		// Policy.
		cc("claude-code: policy.set of another dialect", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"openclaw","document":{}}`)),
		cc("claude-code: unknown top-level key", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"claude-code","document":{"agentz":{}}}`)),
		cc("claude-code: unknown permissions key", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"claude-code","document":{"permissions":{"allowed":["Bash"]}}}`)),
		cc("claude-code: unknown agent key", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"claude-code","document":{"agents":{"coder":{"description":"c","superpowers":true}}}}`)),
		cc("claude-code: agent without a description", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"claude-code","document":{"agents":{"coder":{"tools":["Read"]}}}}`)),
		cc("claude-code: maxSubagentDepth 0", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"claude-code","document":{"maxSubagentDepth":0}}`)),
		cc("claude-code: maxSubagentDepth as a string", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"claude-code","document":{"maxSubagentDepth":"3"}}`)),
		cc("claude-code: maxSubagentDepth as a float", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"claude-code","document":{"maxSubagentDepth":2.0}}`)),
		cc("claude-code: maxSubagentDepth true", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"claude-code","document":{"maxSubagentDepth":true}}`)),
		cc("claude-code: maxSubagentDepth negative", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"claude-code","document":{"maxSubagentDepth":-3}}`)),
		cc("claude-code: maxSubagentDepth beyond 64 bits", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"claude-code","document":{"maxSubagentDepth":99999999999999999999}}`)),
		cc("claude-code: a catalogue naming a tool twice", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"claude-code","document":{},"catalogue":["Read","Read"]}`)),
		cc("claude-code: a permission rule that does not parse", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"claude-code","document":{"permissions":{"deny":["Bash("]}}}`)),
		cc("claude-code: mode auto as the default", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"claude-code","document":{"permissions":{"defaultMode":"auto"}}}`)),

		// Issue 15: rules that do not say what they seem to, unbounded
		// depths, names with control characters.
		ccInv("claude-code: grant rule Bash(ls))", pev("grant.added", `{"kind":"permission","agent":"*","target":"*","behavior":"deny","rule":"Bash(ls))"}`)),
		ccInv("claude-code: grant rule with a NUL", pev("grant.added", `{"kind":"permission","agent":"*","target":"*","behavior":"deny","rule":"Bash(rm\u0000)"}`)),
		ccInv("claude-code: grant rule of 5000 characters", pev("grant.added", `{"kind":"permission","agent":"*","target":"*","behavior":"deny","rule":"Bash(`+strings.Repeat("x", 5000)+`)"}`)),
		cc("claude-code: permission rule Bash(ls)) in the document", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"claude-code","document":{"permissions":{"deny":["Bash(ls))"]}}}`)),
		cc("claude-code: permission rule with a NUL in the document", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"claude-code","document":{"permissions":{"allow":["Bash(ls\u0000)"]}}}`)),
		cc("claude-code: agent tool entry with unbalanced parentheses", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"claude-code","document":{"agents":{"coder":{"description":"c","tools":["Agent(coder))"]}}}}`)),
		cc("claude-code: maxSubagentDepth 1e9", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"claude-code","document":{"maxSubagentDepth":1e9}}`)),
		cc("claude-code: maxSubagentDepth 1000000000", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"claude-code","document":{"maxSubagentDepth":1000000000}}`)),
		cc("claude-code: maxSubagentDepth 65", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"claude-code","document":{"maxSubagentDepth":65}}`)),
		cc("claude-code: catalogue entry with a NUL", events.CodeInvalidPolicy, pev("policy.set", `{"dialect":"claude-code","document":{},"catalogue":["Read\u0000"]}`)),
		ccInv("claude-code: check of a tool with a NUL", sev("tool.checked", ccLead, `{"turn":1,"tool":"Read\u0000"}`)),
		ccInv("claude-code: check of a tool of 64 KiB", sev("tool.checked", ccLead, `{"turn":1,"tool":"`+strings.Repeat("T", 64<<10)+`"}`)),
		ccInv("claude-code: agent ma.in>", sev("session.started", "s9", `{"agent":"ma.in>"}`)),
		ccInv("claude-code: policy event with the actor *", ev("", "grant.added", "", "*", `{"kind":"permission","agent":"*","target":"*","behavior":"allow","rule":"Read"}`)),
		ccInv("claude-code: policy event with an empty actor", ev("", "grant.added", "", "", `{"kind":"permission","agent":"*","target":"*","behavior":"allow","rule":"Read"}`)),

		// State and admission.
		cc("claude-code: turn skipping ahead", events.CodeBadTurn, sev("turn.started", ccLead, `{"turn":3}`)),
		cc("claude-code: started on an existing key", events.CodeDuplicateSession, sev("session.started", ccLead, `{"agent":"main"}`)),
		cc("claude-code: root of an unknown agent", events.CodeAgentNotConfigured, sev("session.started", "s8", `{"agent":"ghost"}`)),
		cc("claude-code: spawn cycle (the root under its grandchild)", events.CodeDuplicateSession, sev("session.spawned", ccLead, `{"parent":"lead:g1:g2","agent":"general-purpose"}`)),
		cc("claude-code: spawn of itself as its own parent", events.CodeUnknownParent, sev("session.spawned", "loop", `{"parent":"loop","agent":"general-purpose"}`)),
		cc("claude-code: spawn under a yielded parent", events.CodeSessionNotActive, sev("session.spawned", "x6", `{"parent":"lead2","agent":"general-purpose"}`)),
		cc("claude-code: spawn of an unknown agent", events.CodeAgentNotConfigured, sev("session.spawned", "x7", `{"parent":"lead","agent":"ghost"}`)),
		cc("claude-code: spawn beyond maxSubagentDepth", events.CodeDepthLimit, sev("session.spawned", "lead:g1:g2:g3", `{"parent":"lead:g1:g2","agent":"general-purpose"}`)),
		cc("claude-code: teammate of a sub-agent", events.CodeNestedTeam, sev("session.spawned", "x8", `{"parent":"lead:g1","agent":"general-purpose","teammate":true}`)),
		cc("claude-code: yield for another session's child", events.CodeNotAChild, sev("session.yielded", ccLead, `{"children":["lead2:k"]}`)),
		hcase{name: "claude-code: globex yields for acme's child", dialect: claudeCode, owner: globex, code: events.CodeNotAChild, apiCode: events.CodeUnknownSession,
			line: ev("", "session.yielded", ccGlobex, globex, `{"children":["lead:g1"]}`)},
		cc("claude-code: check on a yielded session", events.CodeSessionNotActive, sev("tool.checked", ccLead2, `{"turn":1,"tool":"Read"}`)),

		// Accepted.
		hcase{name: "claude-code: an allowed check records its reason", dialect: claudeCode, written: 1,
			line: sev("tool.checked", ccLead, `{"turn":1,"tool":"Read","call":"r1"}`), verify: allowedWith("default:read_only")},
		hcase{name: foreignBatchCase[claudeCode], dialect: claudeCode, written: 1,
			line:   sev("session.resumed", ccLead2, `{"handoff":"settle_batch","batch":"`+id(101)+`","from":["lead2:k"]}`),
			verify: resumedWith(ccLead2, "handoff_not_current")},
	)
	return list
}
