package service_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/wire"
)

// callStory is a ledger where an operator revokes a tool mid-turn: its
// sequences are the comments' numbers. The clock moves half a second at
// each reading, and an append reads it twice (the id, the time): record n
// is stamped 2026-03-01T10:00:00Z plus n seconds.
var callStory = []string{
	/* 1 */ `{"type":"policy.set","v":1,"actor":"ops-root","data":{"dialect":"openclaw","document":{"tools":{"deny":["exec"]}},"catalogue":["read","exec","browser"]}}`,
	/* 2 */ `{"type":"session.started","v":1,"actor":"acme","session":"s1","data":{"agent":"main","user":"alice"}}`,
	/* 3 */ `{"type":"turn.started","v":1,"actor":"acme","session":"s1","data":{"turn":1}}`,
	/* 4 */ `{"type":"tool.checked","v":1,"actor":"acme","session":"s1","data":{"turn":1,"tool":"browser","call":"c1"}}`,
	/* 5 */ `{"type":"tool.checked","v":1,"actor":"acme","session":"s1","data":{"turn":1,"tool":"exec","call":"c2"}}`,
	/* 6 */ `{"type":"deny.added","v":1,"actor":"ops-alice","data":{"rule":"browser","session":"s1","note":"incident 42"}}`,
	/* 7 */ `{"type":"tool.checked","v":1,"actor":"acme","session":"s1","data":{"turn":1,"tool":"browser","call":"c3"}}`,
	/* 8 */ `{"type":"tool.effect_started","v":1,"actor":"acme","session":"s1","data":{"turn":1,"tool":"browser","call":"c1"}}`,
	/* 9 */ `{"type":"session.started","v":1,"actor":"acme","session":"s2","data":{"agent":"main","user":"bob"}}`,
	/* 10 */ `{"type":"turn.started","v":1,"actor":"acme","session":"s2","data":{"turn":1}}`,
	/* 11 */ `{"type":"tool.checked","v":1,"actor":"acme","session":"s2","data":{"turn":1,"tool":"exec","call":"c5"}}`,
	/* 12 */ `{"type":"deny.lifted","v":1,"actor":"ops-bob","data":{"rule":"browser","session":"s1"}}`,
	/* 13 */ `{"type":"turn.started","v":1,"actor":"acme","session":"s1","data":{"turn":2}}`,
	/* 14 */ `{"type":"tool.checked","v":1,"actor":"acme","session":"s1","data":{"turn":2,"tool":"browser","call":"c4"}}`,
}

func storyService(t *testing.T) *service.Service {
	t.Helper()
	return storyServiceOn(t, &service.MemLog{})
}

// storyServiceOn is storyService on log.
func storyServiceOn(t *testing.T, log service.Log) *service.Service {
	t.Helper()
	start := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	n := 0
	clock := func() time.Time { n++; return start.Add(time.Duration(n) * time.Second / 2) }
	svc := service.New(service.Config{Log: log, Dialects: dialects.All(), Clock: clock})
	for i, ev := range callStory {
		_, err := svc.Append(t.Context(), []byte(ev))
		if err != nil && !(i == 7 && events.CodeOf(err) == events.CodeAuthorizationChanged) {
			t.Fatalf("event %d: %v", i+1, err)
		}
	}
	if got := svc.Position(); got != uint64(len(callStory)) {
		t.Fatalf("the story ends at %d, not %d", got, len(callStory))
	}
	return svc
}

func TestWhyCall(t *testing.T) {
	svc := storyService(t)
	tests := []struct {
		name string
		q    service.CallQuery
		// want: the record answered, its decision and reason code, the
		// seqs of the call's records, the cause's seq, type, actor, time
		// and change, and the decision at the state before the record.
		seq                  uint64
		decision, code       string
		records              string
		cause                string
		verdict, verdictCode string
	}{
		{"allowed check", service.CallQuery{Seq: 4}, 4, "allow", "default:allow", "[4]",
			"2 session.started acme 2026-03-01T10:00:02.000Z ->allow", "allow", "default:allow"},
		{"denied by the policy since the start", service.CallQuery{Call: "c2"}, 5, "deny", "global:deny", "[5]",
			"2 session.started acme 2026-03-01T10:00:02.000Z ->deny", "deny", "global:deny"},
		{"revoked", service.CallQuery{Call: "c3"}, 7, "deny", "revocation:deny", "[7]",
			"6 deny.added ops-alice 2026-03-01T10:00:06.000Z allow->deny", "deny", "revocation:deny"},
		{"effect refused: the call's last record", service.CallQuery{Call: "c1"}, 8, "deny", "effect:authorization_changed", "[4 8]",
			"6 deny.added ops-alice 2026-03-01T10:00:06.000Z allow->deny", "deny", "revocation:deny"},
		{"effect refused, by its seq", service.CallQuery{Seq: 8, Session: "s1"}, 8, "deny", "effect:authorization_changed", "[4 8]",
			"6 deny.added ops-alice 2026-03-01T10:00:06.000Z allow->deny", "deny", "revocation:deny"},
		{"the check before the refusal, by its seq", service.CallQuery{Seq: 4}, 4, "allow", "default:allow", "[4]",
			"2 session.started acme 2026-03-01T10:00:02.000Z ->allow", "allow", "default:allow"},
		{"lifted", service.CallQuery{Call: "c4", Session: "s1"}, 14, "allow", "default:allow", "[14]",
			"12 deny.lifted ops-bob 2026-03-01T10:00:12.000Z deny->allow", "allow", "default:allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := svc.WhyCall(t.Context(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			c := a.Call
			if c == nil {
				t.Fatal("no call in the answer")
			}
			if c.Record.Seq != tt.seq || string(c.Record.Decision) != tt.decision || c.Record.Reason.Code != tt.code {
				t.Errorf("record: got %d %s %q, want %d %s %q", c.Record.Seq, c.Record.Decision, c.Record.Reason.Code, tt.seq, tt.decision, tt.code)
			}
			var seqs []uint64
			for _, r := range c.Records {
				seqs = append(seqs, r.Seq)
			}
			if got := fmt.Sprint(seqs); got != tt.records {
				t.Errorf("records: got %s, want %s", got, tt.records)
			}
			if c.Cause == nil {
				t.Fatal("no cause")
			}
			cause := fmt.Sprintf("%d %s %s %s %s->%s", c.Cause.Seq, c.Cause.Type, c.Cause.Actor, c.Cause.Time, c.Cause.Before, c.Cause.After)
			if cause != tt.cause {
				t.Errorf("cause: got %q, want %q", cause, tt.cause)
			}
			if a.Seq != tt.seq-1 {
				t.Errorf("decided at seq %d, want %d", a.Seq, tt.seq-1)
			}
			if string(a.Verdict.Decision) != tt.verdict || a.Verdict.Reason.Code != tt.verdictCode || len(a.Verdict.Trace) == 0 {
				t.Errorf("verdict: got %s %q (%d steps), want %s %q with a trace", a.Verdict.Decision, a.Verdict.Reason.Code, len(a.Verdict.Trace), tt.verdict, tt.verdictCode)
			}
		})
	}
	t.Run("its owner's", func(t *testing.T) {
		for _, q := range []service.CallQuery{{Call: "c3", Owner: "acme"}, {Seq: 7, Owner: "acme"}, {Call: "c3", Owner: wire.ScopeAll}} {
			if a, err := svc.WhyCall(t.Context(), q); err != nil || a.Call.Record.Seq != 7 {
				t.Errorf("%+v: %v", q, err)
			}
		}
	})
	t.Run("cause text", func(t *testing.T) {
		a, err := svc.WhyCall(t.Context(), service.CallQuery{Call: "c3"})
		if err != nil {
			t.Fatal(err)
		}
		if want := "deny browser for session s1 (incident 42)"; a.Call.Cause.Text != want {
			t.Errorf("got %q, want %q", a.Call.Cause.Text, want)
		}
	})
}

func TestWhyCallRefuses(t *testing.T) {
	svc := storyService(t)
	tests := []struct {
		name string
		q    service.CallQuery
		code events.Code
		say  string
	}{
		{"unknown call", service.CallQuery{Call: "nope"}, wire.CodeUnknownCall, "--record"},
		{"call of another session", service.CallQuery{Call: "c1", Session: "s2"}, wire.CodeUnknownCall, `of session "s2"`},
		{"not a call's record", service.CallQuery{Seq: 3}, wire.CodeUnknownCall, "turn.started"},
		{"beyond the head", service.CallQuery{Seq: 99}, wire.CodeUnknownCall, "beyond the head"},
		{"seq of another session", service.CallQuery{Seq: 11, Session: "s1"}, wire.CodeUnknownCall, `session "s2"`},
		{"nothing named", service.CallQuery{}, events.CodeInvalidEvent, "names the call"},
		{"another owner's call", service.CallQuery{Call: "c1", Owner: "globex"}, wire.CodeUnknownCall, `names call "c1"`},
		{"another owner's record", service.CallQuery{Seq: 4, Owner: "globex"}, wire.CodeUnknownCall, "record 4 is not a call of a session of globex's: name"},
		{"a record not a call, asked by an owner", service.CallQuery{Seq: 3, Owner: "globex"}, wire.CodeUnknownCall, "record 3 is not a call of a session of globex's: name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.WhyCall(t.Context(), tt.q)
			if events.CodeOf(err) != tt.code || !strings.Contains(fmt.Sprint(err), tt.say) {
				t.Errorf("got %v, want %s saying %q", err, tt.code, tt.say)
			}
		})
	}
}

func TestWhyCallInTwoSessions(t *testing.T) {
	svc := storyService(t)
	_, err := svc.Append(t.Context(), []byte(`{"type":"tool.checked","v":1,"actor":"acme","session":"s2","data":{"turn":1,"tool":"read","call":"c4"}}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.WhyCall(t.Context(), service.CallQuery{Call: "c4"})
	if events.CodeOf(err) != events.CodeInvalidEvent || !strings.Contains(err.Error(), "s1, s2") {
		t.Fatalf("got %v, want invalid_event naming both sessions", err)
	}
	a, err := svc.WhyCall(t.Context(), service.CallQuery{Call: "c4", Session: "s2"})
	if err != nil || a.Call.Record.Seq != 15 || a.Call.Record.Tool != "read" {
		t.Fatalf("got %+v, %v; want the check at 15", a.Call, err)
	}
}

func TestTurnCalls(t *testing.T) {
	svc := storyService(t)
	tests := []struct {
		key      events.SessionKey
		turn     int
		from, to uint64
		calls    string
	}{
		{"s1", 1, 3, 8, "[4:browser:allow 5:exec:deny 7:browser:deny 8:browser:deny]"},
		{"s1", 2, 13, 14, "[14:browser:allow]"},
		{"s2", 1, 10, 11, "[11:exec:deny]"},
	}
	for _, tt := range tests {
		tc, err := svc.TurnCalls(t.Context(), tt.key, tt.turn)
		if err != nil {
			t.Fatal(err)
		}
		var calls []string
		for _, c := range tc.Calls {
			calls = append(calls, fmt.Sprintf("%d:%s:%s", c.Seq, c.Tool, c.Decision))
		}
		if tc.From != tt.from || tc.To != tt.to || fmt.Sprint(calls) != tt.calls {
			t.Errorf("%s turn %d: got %d..%d %v, want %d..%d %s", tt.key, tt.turn, tc.From, tc.To, calls, tt.from, tt.to, tt.calls)
		}
	}
	if _, err := svc.TurnCalls(t.Context(), "s1", 3); events.CodeOf(err) != events.CodeBadTurn {
		t.Errorf("turn 3: got %v, want bad_turn", err)
	}
}

func TestDenials(t *testing.T) {
	svc := storyService(t)
	tests := []struct {
		name    string
		q       wire.DenialsQuery
		visible func(*envelope.Session) bool
		want    string
	}{
		{"all", wire.DenialsQuery{}, nil, "[5:s1:exec:global:deny 7:s1:browser:revocation:deny 8:s1:browser:effect:authorization_changed 11:s2:exec:global:deny]"},
		{"session", wire.DenialsQuery{Session: "s2"}, nil, "[11:s2:exec:global:deny]"},
		{"user", wire.DenialsQuery{Filter: wire.Filter{User: "alice"}}, nil, "[5:s1:exec:global:deny 7:s1:browser:revocation:deny 8:s1:browser:effect:authorization_changed]"},
		{"tool", wire.DenialsQuery{Tool: "exec"}, nil, "[5:s1:exec:global:deny 11:s2:exec:global:deny]"},
		{"reason", wire.DenialsQuery{Reason: "revocation:deny"}, nil, "[7:s1:browser:revocation:deny]"},
		{"scope", wire.DenialsQuery{Filter: wire.Filter{Scope: "default"}}, nil, "[5:s1:exec:global:deny 7:s1:browser:revocation:deny 8:s1:browser:effect:authorization_changed 11:s2:exec:global:deny]"},
		{"another scope", wire.DenialsQuery{Filter: wire.Filter{Scope: "cc"}}, nil, "[]"},
		{"runtime", wire.DenialsQuery{Filter: wire.Filter{Runtime: "claude-code"}}, nil, "[]"},
		{"time", wire.DenialsQuery{Since: "2026-03-01T10:00:07.000Z", Until: "2026-03-01T10:00:08.000Z"}, nil, "[7:s1:browser:revocation:deny 8:s1:browser:effect:authorization_changed]"},
		{"from", wire.DenialsQuery{From: 8}, nil, "[8:s1:browser:effect:authorization_changed 11:s2:exec:global:deny]"},
		{"visible", wire.DenialsQuery{}, func(s *envelope.Session) bool { return s.Key == "s2" }, "[11:s2:exec:global:deny]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := svc.Denials(t.Context(), tt.q, tt.visible)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, d := range res.Denials {
				got = append(got, fmt.Sprintf("%d:%s:%s:%s", d.Seq, d.Session, d.Tool, d.Reason.Code))
			}
			if fmt.Sprint(got) != tt.want {
				t.Errorf("got %v, want %s", got, tt.want)
			}
			if res.Next != 15 {
				t.Errorf("next %d, want 15", res.Next)
			}
		})
	}
	res, err := svc.Denials(t.Context(), wire.DenialsQuery{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if id := res.Denials[3].Identity; id == nil || id.User != "bob" || res.Denials[3].Actor != "acme" || res.Denials[3].Call != "c5" {
		t.Errorf("s2's denial: %+v", res.Denials[3])
	}
	res, err = svc.Denials(t.Context(), wire.DenialsQuery{From: 15}, nil)
	if err != nil || len(res.Denials) != 0 || res.Next != 15 {
		t.Errorf("past the head: %+v, %v", res, err)
	}
	if errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}

// TestWhyCallOddIDs: a call id with characters JSON encoders escape
// differently (<, &, non-ASCII, a line separator) is found as recorded.
func TestWhyCallOddIDs(t *testing.T) {
	svc := storyService(t)
	for i, id := range []string{"a<b>&c", "é\u2028x", `q"uote`, "sp ace"} {
		ev := fmt.Sprintf(`{"type":"tool.checked","v":1,"actor":"acme","session":"s1","data":{"turn":2,"tool":"exec","call":%q}}`, id)
		res, err := svc.Append(t.Context(), []byte(ev))
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		a, err := svc.WhyCall(t.Context(), service.CallQuery{Call: id})
		if err != nil || a.Call.Record.Seq != res.Seq || a.Call.Record.Call != id {
			t.Errorf("%q: %+v %v", id, a.Call, err)
		}
	}
}

// readsLog is a MemLog that counts the records read back and the lowest
// sequence a read began at.
type readsLog struct {
	service.MemLog
	mu           sync.Mutex
	read, lowest uint64
}

func (l *readsLog) Read(ctx context.Context, from, to uint64) ([][]byte, error) {
	out, err := l.MemLog.Read(ctx, from, to)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.read += uint64(len(out))
	if l.lowest == 0 || from < l.lowest {
		l.lowest = from
	}
	return out, err
}

// reset forgets what was read so far.
func (l *readsLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.read, l.lowest = 0, 0
}

// TestWhyCallInTree: Root narrows a call id to the sessions of one root's
// tree (an id another tree checked too is not theirs), looked for from
// the root's start on, not from the log's first record; a root that is
// not one, unknown, or another owner's answers unknown_call.
func TestWhyCallInTree(t *testing.T) {
	log := &readsLog{}
	svc := storyServiceOn(t, log)
	for _, ev := range []string{
		`{"type":"session.spawned","v":1,"actor":"acme","session":"agent:main:subagent:w","data":{"parent":"s2","agent":"main"}}`,
		`{"type":"turn.started","v":1,"actor":"acme","session":"agent:main:subagent:w","data":{"turn":1}}`,
		`{"type":"tool.checked","v":1,"actor":"acme","session":"agent:main:subagent:w","data":{"turn":1,"tool":"read","call":"c1"}}`,
	} {
		if _, err := svc.Append(t.Context(), []byte(ev)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.WhyCall(t.Context(), service.CallQuery{Call: "c1"}); events.CodeOf(err) != events.CodeInvalidEvent {
		t.Fatalf("c1 in two trees, no root named: %v, want invalid_event", err)
	}
	for _, brief := range []bool{false, true} {
		log.reset()
		a, err := svc.WhyCall(t.Context(), service.CallQuery{Call: "c1", Root: "s2", Brief: brief})
		if err != nil || a.Call.Record.Seq != 17 || a.Call.Record.Session != "agent:main:subagent:w" || len(a.Call.Records) != 1 {
			t.Fatalf("brief %v: c1 in s2's tree: %+v, %v; want the check at 17 of s2:w alone", brief, a.Call, err)
		}
		if brief && log.lowest != 9 {
			t.Errorf("c1 in s2's tree read from sequence %d, not from s2's start (9)", log.lowest)
		}
		a, err = svc.WhyCall(t.Context(), service.CallQuery{Call: "c1", Root: "s1", Brief: brief})
		if err != nil || a.Call.Record.Seq != 8 || len(a.Call.Records) != 2 {
			t.Fatalf("brief %v: c1 in s1's tree: %+v, %v; want its check and effect", brief, a.Call, err)
		}
	}
	for _, q := range []service.CallQuery{
		{Call: "c1", Root: "s2:w"},                // not a root
		{Call: "c1", Root: "nope"},                // no such session
		{Call: "c1", Root: "s2", Owner: "globex"}, // another owner's
		{Call: "c5", Root: "s1"},                  // a call of another tree
	} {
		if _, err := svc.WhyCall(t.Context(), q); events.CodeOf(err) != wire.CodeUnknownCall {
			t.Errorf("%+v: %v, want unknown_call", q, err)
		}
	}
}

// TestWhyCallBrief: Brief answers the call's records and the decision
// recorded at its last, as the full answer has them, with no verdict,
// trace or cause, and without folding the log before the call: it reads
// what the full answer reads less the records before the call's.
func TestWhyCallBrief(t *testing.T) {
	log := &readsLog{}
	svc := storyServiceOn(t, log)
	for _, q := range []service.CallQuery{{Call: "c3"}, {Call: "c1", Session: "s1"}, {Seq: 8}, {Call: "c5", Owner: "acme"}} {
		log.reset()
		full, err := svc.WhyCall(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		fullReads := log.read
		log.reset()
		bq := q
		bq.Brief = true
		brief, err := svc.WhyCall(t.Context(), bq)
		if err != nil {
			t.Fatal(err)
		}
		bj, _ := json.Marshal([]any{brief.Call.Record, brief.Call.Records})
		fj, _ := json.Marshal([]any{full.Call.Record, full.Call.Records})
		if string(bj) != string(fj) {
			t.Errorf("%+v: brief %+v, full %+v", q, brief.Call, full.Call)
		}
		if brief.Seq != full.Seq || brief.Scope != full.Scope || brief.Call.Cause != nil || len(brief.Verdict.Trace) != 0 || brief.Envelope != nil {
			t.Errorf("%+v: brief answer %+v: want seq %d, scope %q, no cause, verdict or state", q, brief, full.Seq, full.Scope)
		}
		// The full answer folds records 1 to the one before the call's.
		if fullReads != log.read+full.Call.Record.Seq-1 {
			t.Errorf("%+v: brief read %d records, full %d: the full answer's fold of %d is not all that brief leaves out", q, log.read, fullReads, full.Call.Record.Seq-1)
		}
	}
}
