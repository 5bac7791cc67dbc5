package hostile

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
)

// loadFixture sends a fixture through the API; every line must land at its
// own sequence.
func loadFixture(t *testing.T, l *apiLedger, fix []fline) {
	t.Helper()
	for k, f := range fix {
		r := l.request(t, subjectFor(f.line, f.owner), []byte(f.line))
		if r.code != "" || r.seq != uint64(k+1) {
			t.Fatalf("fixture line %d: code %q (%s) seq %d, want seq %d", k+1, r.code, r.message, r.seq, k+1)
		}
	}
}

// TestAPIHostileEvents runs the shared table through the NATS API.
func TestAPIHostileEvents(t *testing.T) {
	t.Parallel()
	for _, dialect := range []string{openclaw, claudeCode} {
		t.Run(dialect, func(t *testing.T) {
			l := startAPI(t)
			fix := fixture(dialect)
			loadFixture(t, l, fix)
			run := newRun(fix)
			sent := map[string]bool{}
			n := 0
			for _, c := range cases() {
				if c.dialect != dialect || c.cliOnly {
					continue
				}
				n++
				t.Run(c.name, func(t *testing.T) {
					skipKnown(t, c.knownAPI)
					sent[c.name] = true
					before := l.head(t)
					r := l.request(t, c.apiSubject(), []byte(c.line))
					after := l.head(t)
					if c.apiCode != "" {
						c.code = c.apiCode
					}
					want := run.check(t, &c, outcome{code: r.code, message: r.message, seq: r.seq, dup: r.dup})
					if after-before != uint64(c.written) {
						t.Fatalf("the head moved from %d to %d; want %d record(s) written", before, after, c.written)
					}
					if len(want) > 0 && want[0] != before+1 {
						t.Fatalf("the log is at %d, the table expected %d", before, want[0]-1)
					}
					if c.verify != nil {
						c.verify(t, l.records(t, before+1, after))
					}
				})
			}
			t.Logf("%d %s cases through the API", n, dialect)
			apiStillServes(t, l, dialect, sent[foreignBatchCase[dialect]])
		})
	}
}

// apiStillServes appends a normal event and queries after a table, and,
// when the table's foreign-batch resume was sent, checks that it granted
// nothing.
func apiStillServes(t *testing.T, l *apiLedger, dialect string, resumed bool) {
	t.Helper()
	l.alive(t)
	ctx := context.Background()
	c := client.New(l.nc, client.Options{Owner: acme, Timeout: reqTimeout})
	root, foreign, plain := events.SessionKey(ocMain), events.SessionKey(ocSecond), events.SessionKey(ocFourth)
	if dialect == claudeCode {
		root, foreign, plain = ccLead, ccLead2, ""
	}
	before := l.head(t)
	res, err := c.Append(ctx, client.Turn(root, events.TurnData{Turn: 2}))
	if err != nil || res.Seq != before+1 {
		t.Fatalf("a normal append after the table: seq %d, %v (want seq %d)", res.Seq, err, before+1)
	}
	ts, err := c.Tools(ctx, root, client.WithMinSeq(res.Seq))
	if err != nil || ts.Seq != res.Seq || len(ts.Tools.Allowed) == 0 {
		t.Fatalf("a query after the table: %+v, %v", ts, err)
	}
	if _, err := c.Check(ctx, root, "read"); err != nil {
		t.Fatalf("a check after the table: %v", err)
	}
	if !resumed {
		return
	}
	// The settle_batch resume naming a foreign batch runs under the
	// ordinary policy: its tools are a plain root's.
	view, err := c.Session(ctx, foreign)
	if err != nil {
		t.Fatal(err)
	}
	if view.Context.Source != "current_request" || view.Context.SourceReason != "handoff_not_current" || view.Context.Captured != nil {
		t.Errorf("%s after the foreign-batch resume: context %+v, want current_request / handoff_not_current and nothing captured", foreign, view.Context)
	}
	if plain != "" {
		a, err1 := c.Tools(ctx, foreign)
		b, err2 := c.Tools(ctx, plain)
		if err1 != nil || err2 != nil || !slices.Equal(a.Tools.Allowed, b.Tools.Allowed) {
			t.Errorf("tools of %s after the foreign-batch resume %v (%v), want a plain root's %v (%v)", foreign, a.Tools.Allowed, err1, b.Tools.Allowed, err2)
		}
	}
}

// apiCase is a request that only exists on the API: a subject, a body and
// the code it must get.
type apiCase struct {
	name    string
	subject string
	body    string
	code    events.Code
	known   string
}

// TestAPIOnlyHostile sends what only the API can receive: events on the
// wrong subject or owner, and malformed queries, against the openclaw
// fixture.
func TestAPIOnlyHostile(t *testing.T) {
	t.Parallel()
	l := startAPI(t)
	loadFixture(t, l, openclawFixture())
	const app, pol = "ledger.v1.append.", "ledger.v1.policy"
	turn2 := sev("turn.started", ocMain, `{"turn":2}`)
	cases := []apiCase{
		{"policy.set on the append subject", app + acme, pev("policy.set", `{"dialect":"openclaw","document":{}}`), events.CodeInvalidEvent, ""},
		{"grant.added on the append subject", app + acme, pev("grant.added", `{"kind":"allow_agent","agent":"main","target":"reviewer"}`), events.CodeInvalidEvent, ""},
		{"grant.revoked on the append subject", app + acme, pev("grant.revoked", `{"kind":"allow_agent","agent":"main","target":"reviewer"}`), events.CodeInvalidEvent, ""},
		{"turn.started on the policy subject", pol, turn2, events.CodeInvalidEvent, ""},
		{"session.spawned on the policy subject", pol, sev("session.spawned", "agent:main:subagent:p", `{"parent":"agent:main:fourth","agent":"main"}`), events.CodeInvalidEvent, ""},
		{"tool.checked on the policy subject", pol, sev("tool.checked", ocMain, `{"turn":1,"tool":"read"}`), events.CodeInvalidEvent, ""},
		{"unknown type on the policy subject", pol, pev("policy.exploded", `{}`), events.CodeUnknownType,
			""},
		{"malformed JSON on the policy subject", pol, `{"type":"policy.set"`, events.CodeInvalidEvent, ""},
		{"empty body on the policy subject", pol, ``, events.CodeInvalidEvent, ""},
		{"empty body on the append subject", app + acme, ``, events.CodeInvalidEvent, ""},
		{"576 KiB of garbage", app + acme, strings.Repeat("\xff", over), events.CodeInvalidEvent, ""},
		{"actor naming another orchestrator", app + acme, ev("", "turn.started", ocMain, globex, `{"turn":2}`), events.CodeInvalidEvent, ""},
		{"actor as a number", app + acme, `{"type":"turn.started","v":1,"session":"agent:main:main","actor":7,"data":{"turn":2}}`, events.CodeInvalidEvent, ""},
		{"actor as an object", app + acme, `{"type":"turn.started","v":1,"session":"agent:main:main","actor":{"name":"acme"},"data":{"turn":2}}`, events.CodeInvalidEvent, ""},
		{"actor differing only in case", app + acme, ev("", "turn.started", ocMain, "ACME", `{"turn":2}`), events.CodeInvalidEvent, ""},
		{"turn on another orchestrator's session", app + globex, ev("", "turn.started", ocMain, globex, `{"turn":2}`), events.CodeUnknownSession, ""},
		{"check on another orchestrator's session", app + globex, ev("", "tool.checked", ocMain, globex, `{"turn":1,"tool":"read"}`), events.CodeUnknownSession, ""},
		{"effect on another orchestrator's session", app + globex, ev("", "tool.effect_started", ocMain, globex, `{"turn":1,"tool":"browser","call":"c1"}`), events.CodeUnknownSession, ""},
		{"spawn under another orchestrator's session", app + globex, ev("", "session.spawned", "agent:main:subagent:g", globex, `{"parent":"agent:main:fourth","agent":"main"}`), events.CodeUnknownParent, ""},
		{"completing another orchestrator's child", app + globex, ev("", "session.completed", ocA, globex, `{"status":"killed"}`), events.CodeUnknownSession, ""},
		{"yield of another orchestrator's session", app + globex, ev("", "session.yielded", ocMain, globex, `{"children":["agent:main:subagent:a"]}`), events.CodeUnknownSession, ""},
		{"resume of another orchestrator's session with its own batch", app + globex,
			ev("", "session.resumed", ocSecond, globex, `{"handoff":"settle_batch","batch":"`+id(ocBatch2)+`","from":["agent:main:subagent:c"]}`), events.CodeUnknownSession, ""},
		{"start of a key another orchestrator owns", app + globex, ev("", "session.started", ocMain, globex, `{"agent":"main"}`), events.CodeUnknownSession, ""},
		{"acme acting on globex's root", app + acme, sev("turn.started", ocGlobex, `{"turn":1}`), events.CodeUnknownSession, ""},
		{"append as the reserved owner all", app + "all", ev("", "turn.started", ocMain, "all", `{"turn":2}`), events.CodeInvalidEvent, ""},
		{"append as an owner of 65 characters", app + strings.Repeat("o", 65), sev("turn.started", ocMain, `{"turn":2}`), events.CodeInvalidEvent, ""},
		{"append on the * wildcard subject", app + "*", sev("turn.started", ocMain, `{"turn":2}`), events.CodeInvalidEvent, ""},

		{"tools of a wildcard key", "ledger.v1.tools.acme", `{"session":"agent:main:*"}`, events.CodeUnknownSession, ""},
		{"tools of a key with a trailing newline", "ledger.v1.tools.acme", `{"session":"agent:main:main\n"}`, events.CodeUnknownSession, ""},
		{"tools of another orchestrator's session", "ledger.v1.tools.acme", `{"session":"agent:main:globex"}`, events.CodeUnknownSession, ""},
		{"tree of another orchestrator's root", "ledger.v1.tree.acme", `{"session":"agent:main:globex"}`, events.CodeUnknownSession, ""},
		{"why on another orchestrator's session", "ledger.v1.why.globex", `{"session":"agent:main:main","tool":"read"}`, events.CodeUnknownSession, ""},
		{"tools of an unknown session for an auditor", "ledger.v1.tools.all", `{"session":"agent:main:nobody"}`, events.CodeUnknownSession, ""},
		{"tools without a session", "ledger.v1.tools.acme", `{}`, events.CodeInvalidEvent, ""},
		{"query that is not JSON", "ledger.v1.tools.acme", `session=agent:main:main`, events.CodeInvalidEvent, ""},
		{"query nested 100,000 deep", "ledger.v1.check.acme", `{"session":"agent:main:main","tool":"read","input":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}`, events.CodeInvalidEvent, ""},
		{"query seq as a string", "ledger.v1.tools.acme", `{"session":"agent:main:main","seq":"1"}`, events.CodeInvalidEvent, ""},
		{"query seq negative", "ledger.v1.tools.acme", `{"session":"agent:main:main","seq":-1}`, events.CodeInvalidEvent, ""},
		{"query turn as a float", "ledger.v1.tools.acme", `{"session":"agent:main:main","turn":1.5}`, events.CodeInvalidEvent, ""},
		{"check without a tool", "ledger.v1.check.acme", `{"session":"agent:main:main"}`, events.CodeInvalidEvent, ""},
		{"why with an empty tool", "ledger.v1.why.acme", `{"session":"agent:main:main","tool":""}`, events.CodeInvalidEvent, ""},
		{"min_seq far beyond the head", "ledger.v1.tools.acme", `{"session":"agent:main:main","min_seq":1000000000}`, events.CodeNotCaughtUp, ""},
		{"query on the * scope", "ledger.v1.tools.*", `{"session":"agent:main:main"}`, events.CodeInvalidEvent, ""},
		{"recorded check on another orchestrator's session", "ledger.v1.check.acme", `{"session":"agent:main:globex","tool":"read","record":true,"call":"x"}`, events.CodeUnknownSession, ""},
		{"recorded check on a yielded session", "ledger.v1.check.acme", `{"session":"agent:main:second","tool":"read","record":true,"call":"x"}`, events.CodeSessionNotActive, ""},
		{"recorded check on a session without a turn", "ledger.v1.check.acme", `{"session":"agent:main:fourth","tool":"read","record":true,"call":"x"}`, events.CodeBadTurn, ""},
		{"recorded check with a huge input", "ledger.v1.check.acme", `{"session":"agent:main:main","tool":"read","record":true,"call":"x","input":{"a":"` + strings.Repeat("x", over) + `"}}`, events.CodeInvalidEvent, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			skipKnown(t, c.known)
			before := l.head(t)
			msg, err := l.nc.Request(c.subject, []byte(c.body), reqTimeout)
			if errors.Is(err, nats.ErrNoResponders) && strings.ContainsAny(c.subject, "*>") {
				// The server did not route a wildcard publish to the
				// service at all: nothing reached the ledger.
				t.Logf("no responders on %s", c.subject)
				return
			}
			if err != nil {
				t.Fatalf("request: %v", err)
			}
			r := decodeReply(t, msg)
			if r.code != c.code || strings.TrimSpace(r.message) == "" {
				t.Errorf("code %q (%s), want %q with a message", r.code, r.message, c.code)
			}
			if after := l.head(t); after != before {
				t.Errorf("the head moved from %d to %d", before, after)
			}
		})
	}
	apiStillServes(t, l, openclaw, false)
}

// TestAPIClientTyped sends typed hostile events with the Go client: what
// an orchestrator's code can build, not only malformed bytes.
func TestAPIClientTyped(t *testing.T) {
	t.Parallel()
	l := startAPI(t)
	loadFixture(t, l, openclawFixture())
	ctx := context.Background()
	opts := client.Options{Owner: acme, Actor: ops, Timeout: reqTimeout}
	c := client.New(l.nc, opts)
	opts.Owner = globex
	g := client.New(l.nc, opts)
	opts.Owner = "all"
	all := client.New(l.nc, opts)
	many := make([]events.SessionKey, events.MaxListLen+1)
	for i := range many {
		many[i] = events.SessionKey("agent:main:subagent:n" + strconv.Itoa(i))
	}
	batch := id(ocBatch3)
	huge := json.RawMessage(`"` + strings.Repeat("x", over) + `"`)
	type typed struct {
		name string
		c    *client.Client
		ev   client.Event
		code events.Code
	}
	cases := []typed{
		{"start with a * key", c, client.Start("agent:main:*", events.StartedData{Agent: "main"}), events.CodeBadSessionKey},
		{"start with a > key", c, client.Start("agent:main:>", events.StartedData{Agent: "main"}), events.CodeBadSessionKey},
		{"start with a dotted key", c, client.Start("agent.main.x", events.StartedData{Agent: "main"}), events.CodeBadSessionKey},
		{"start with a 201-character key", c, client.Start(events.SessionKey(strings.Repeat("k", 201)), events.StartedData{Agent: "main"}), events.CodeBadSessionKey},
		{"start of an existing key", c, client.Start(ocMain, events.StartedData{Agent: "main"}), events.CodeDuplicateSession},
		{"turn zero", c, client.Turn(ocMain, events.TurnData{Turn: 0}), events.CodeInvalidEvent},
		{"turn negative", c, client.Turn(ocMain, events.TurnData{Turn: -5}), events.CodeInvalidEvent},
		{"turn out of order", c, client.Turn(ocMain, events.TurnData{Turn: 3}), events.CodeBadTurn},
		{"spawn cycle", c, client.Spawn(ocA, events.SpawnedData{Parent: ocA, Agent: "main"}), events.CodeDuplicateSession},
		{"spawn under an unknown parent", c, client.Spawn("agent:main:subagent:o", events.SpawnedData{Parent: "agent:main:nobody", Agent: "main"}), events.CodeUnknownParent},
		{"yield for 10,001 children", c, client.Yield(ocMain, many...), events.CodeInvalidEvent},
		{"resume from 10,001 children", c, client.Resume(ocSecond, events.ResumedData{Handoff: events.HandoffSettleBatch, Batch: &batch, From: many}), events.CodeInvalidEvent},
		{"completion with a batch", c, client.Resume(ocSecond, events.ResumedData{Handoff: events.HandoffCompletion, Batch: &batch, From: []events.SessionKey{ocC}}), events.CodeInvalidEvent},
		{"complete with an unknown status", c, client.Complete(ocA, "finished"), events.CodeInvalidEvent},
		{"check with a huge input", c, client.Checked(ocMain, events.CheckedData{Turn: 1, Tool: "read", Input: huge}), events.CodeInvalidEvent},
		{"effect without a check", c, client.EffectStarted(ocMain, events.EffectData{Turn: 1, Tool: "exec", Call: "nope"}), events.CodeInvalidEvent},
		{"unknown type", c, client.Event{Type: "session.exploded", Session: ocMain, Data: map[string]any{}}, events.CodeUnknownType},
		{"actor of another orchestrator", c, client.Event{Type: events.TurnStarted, Session: ocMain, Actor: globex, Data: events.TurnData{Turn: 2}}, events.CodeInvalidEvent},
		{"time smuggled as data", c, client.Event{Type: events.TurnStarted, Session: ocMain, Data: map[string]any{"turn": 2, "time": "2026-01-01T00:00:00.000Z"}}, events.CodeInvalidEvent},
		{"policy of another dialect", c, client.SetPolicy(events.PolicySetData{Dialect: "claude-code", Document: json.RawMessage(`{}`)}), events.CodeInvalidPolicy},
		{"policy with an unknown key", c, client.SetPolicy(events.PolicySetData{Dialect: "openclaw", Document: json.RawMessage(`{"tools":{"denny":["exec"]}}`)}), events.CodeInvalidPolicy},
		{"huge policy", c, client.SetPolicy(events.PolicySetData{Dialect: "openclaw", Document: json.RawMessage(`{"tools":{"deny":[` + string(huge) + `]}}`)}), events.CodeInvalidEvent},
		{"policy with a session", c, client.Event{Type: events.PolicySet, Session: ocMain, Data: events.PolicySetData{Dialect: "openclaw", Document: json.RawMessage(`{}`)}}, events.CodeInvalidEvent},
		{"grant of the claude-code kind", c, client.AddGrant(events.GrantData{Kind: events.GrantPermission, Agent: "*", Target: "*", Behavior: "allow", Rule: "exec"}), events.CodeInvalidEvent},
		{"revoking a grant never added", c, client.RevokeGrant(events.GrantData{Kind: events.GrantAllowAgent, Agent: "main", Target: "reviewer"}), events.CodeUnknownGrant},
		{"globex's turn on acme's session", g, client.Turn(ocMain, events.TurnData{Turn: 2}), events.CodeUnknownSession},
		{"globex's spawn under acme's session", g, client.Spawn("agent:main:subagent:g", events.SpawnedData{Parent: ocFourth, Agent: "main"}), events.CodeUnknownParent},
		{"appending as the owner all", all, client.Turn(ocMain, events.TurnData{Turn: 2}), events.CodeInvalidEvent},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := l.head(t)
			res, err := tc.c.Append(ctx, tc.ev)
			var ee *events.Error
			if !errors.As(err, &ee) || ee.Code != tc.code || strings.TrimSpace(ee.Msg) == "" {
				t.Errorf("append: %+v, %v; want %q with a message", res, err, tc.code)
			}
			if after := l.head(t); after != before {
				t.Errorf("the head moved from %d to %d", before, after)
			}
		})
	}
	apiStillServes(t, l, openclaw, false)
}

// TestAPIDeepSpawnChain sends a 10,000-link spawn chain per dialect: the
// first links in order, then the rest pipelined on one connection (one
// subscription keeps them in order).
func TestAPIDeepSpawnChain(t *testing.T) {
	t.Parallel()
	for _, dialect := range []string{openclaw, claudeCode} {
		t.Run(dialect, func(t *testing.T) {
			ch := chain(dialect)
			l := startAPI(t)
			loadFixture(t, l, ch.setup)
			subject := "ledger.v1.append." + acme
			k := 1
			for ; k <= ch.cap+1; k++ {
				r := l.request(t, subject, []byte(ch.links[k-1]))
				if !ch.checkLink(t, k, outcome{code: r.code, message: r.message, seq: r.seq}) {
					t.FailNow()
				}
			}
			inbox := nats.NewInbox()
			replies := make(chan *nats.Msg, chainLen)
			sub, err := l.nc.ChanSubscribe(inbox+".*", replies)
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Unsubscribe()
			first := k
			t0 := time.Now()
			for ; k <= chainLen; k++ {
				if err := l.nc.PublishRequest(subject, inbox+"."+strconv.Itoa(k), []byte(ch.links[k-1])); err != nil {
					t.Fatal(err)
				}
			}
			timeout := time.After(2 * time.Minute)
			bad := 0
			for got := first; got <= chainLen; got++ {
				select {
				case m := <-replies:
					n, _ := strconv.Atoi(m.Subject[strings.LastIndexByte(m.Subject, '.')+1:])
					r := decodeReply(t, m)
					if !ch.checkLink(t, n, outcome{code: r.code, message: r.message, seq: r.seq}) {
						if bad++; bad > 5 {
							t.FailNow()
						}
					}
				case <-timeout:
					t.Fatalf("%d of %d pipelined links answered", got-first, chainLen-first+1)
				}
			}
			t.Logf("pipelined part: %v", time.Since(t0))
			if head, want := l.head(t), uint64(len(ch.setup)+ch.cap); head != want {
				t.Fatalf("head %d after the chain, want %d", head, want)
			}
			l.alive(t)
			c := client.New(l.nc, client.Options{Owner: acme, Timeout: reqTimeout})
			deepest := ch.links[ch.cap-1]
			var link struct {
				Session events.SessionKey `json:"session"`
			}
			if err := json.Unmarshal([]byte(deepest), &link); err != nil {
				t.Fatal(err)
			}
			view, err := c.Session(context.Background(), link.Session)
			if err != nil || view.Depth != ch.cap {
				t.Fatalf("the deepest link %s: depth %d, %v; want %d", link.Session, view.Depth, err, ch.cap)
			}
			if _, err := c.Append(context.Background(), client.Turn(link.Session, events.TurnData{Turn: 1})); err != nil {
				t.Fatalf("a normal append after the chain: %v", err)
			}
			t.Logf("%d links: %d accepted, 1 depth_limit, %d unknown_parent", chainLen, ch.cap, chainLen-ch.cap-1)
		})
	}
}
