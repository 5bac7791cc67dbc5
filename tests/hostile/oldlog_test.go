package hostile

import (
	"context"
	"strings"
	"testing"
	"time"

	cc "github.com/sessionledger/ledger/envelope/claudecode"
	oc "github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
)

// lenient dialects are the dialects as they were before issue 15: their
// event checks without the bounds on names (the dialects' CheckNames and
// new-document checks), so a test can write the records an old ledger
// accepted.
type lenientOpenclaw struct{ *oc.Dialect }

func (lenientOpenclaw) CheckEvent(*events.Event, any) error { return nil }

type lenientClaudeCode struct{ *cc.Dialect }

func (lenientClaudeCode) CheckEvent(*events.Event, any) error { return nil }

// TestOldHostileRecordsStillFold: records a ledger accepted before the
// checks of issue 15 (a NUL in a grant agent, a 64 KiB agent id, ma.in>, a
// tool named with a NUL, Bash(ls)), maxSubagentDepth 1000000000) still fold
// with today's dialects: validation of new appends tightened, the fold did
// not. verify reports each such event as refused now, and nothing else.
func TestOldHostileRecordsStillFold(t *testing.T) {
	for _, tc := range []struct {
		dialect string
		lines   []string
		hostile int // how many of lines today's checks refuse
	}{
		{oc.Name, []string{
			pev("policy.set", `{"dialect":"openclaw","document":{"tools":{"deny":["exec\u0000"]}},"catalogue":["read","ex\u0000ec"]}`),
			pev("grant.added", `{"kind":"allow_agent","agent":"ma\u0000in","target":"coder"}`),
			sev("session.started", "agent:main:main", `{"agent":"main"}`),
			sev("session.started", "agent:main:big", `{"agent":"`+strings.Repeat("a", 64<<10)+`"}`),
			sev("turn.started", "agent:main:main", `{"turn":1}`),
			sev("tool.checked", "agent:main:main", `{"turn":1,"tool":"read\u0000"}`),
			sev("tool.checked", "agent:main:main", `{"turn":1,"tool":"read"}`),
		}, 4},
		{cc.DialectName, []string{
			pev("policy.set", `{"dialect":"claude-code","document":{"permissions":{"deny":["Bash(ls))"]},"maxSubagentDepth":1000000000},"catalogue":["Agent","Read","Bash"]}`),
			pev("grant.added", `{"kind":"permission","agent":"*","target":"*","behavior":"deny","rule":"Bash(rm\u0000)"}`),
			sev("session.started", "lead", `{"agent":"main"}`),
			sev("turn.started", "lead", `{"turn":1}`),
			sev("tool.checked", "lead", `{"turn":1,"tool":"Read\u0000"}`),
			sev("tool.checked", "lead", `{"turn":1,"tool":"Read"}`),
		}, 3},
	} {
		t.Run(tc.dialect, func(t *testing.T) {
			old := projection.Dialects{oc.Name: lenientOpenclaw{oc.New()}, cc.DialectName: lenientClaudeCode{cc.New()}}
			ctx := context.Background()
			clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			log := &service.MemLog{}
			svc := service.New(service.Config{Log: log, Dialects: old, Clock: func() time.Time { return clock }})
			for _, l := range tc.lines {
				if _, err := svc.Append(ctx, []byte(l)); err != nil {
					t.Fatalf("the old checks refused %.100s: %v", l, err)
				}
				clock = clock.Add(time.Second)
			}
			recs, err := service.ReadRecords(ctx, log, 1, svc.Position())
			if err != nil {
				t.Fatal(err)
			}
			st, err := replay.Fold(dialects.All(), recs, 0)
			if err != nil {
				t.Fatalf("today's dialects cannot fold the old log: %v", err)
			}
			if st.Position() != uint64(len(tc.lines)) {
				t.Fatalf("folded to %d, want %d", st.Position(), len(tc.lines))
			}
			_, rep, err := replay.Verify(ctx, log, dialects.All(), nil)
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			refused := 0
			for _, d := range rep.Drifts {
				if d.Refused == string(events.CodeInvalidEvent) || d.Refused == string(events.CodeInvalidPolicy) {
					refused++
				}
			}
			if refused != tc.hostile || len(rep.Drifts) != tc.hostile {
				t.Errorf("verify reports %d records as refused now, want %d: %v", refused, tc.hostile, rep.Drifts)
			}
		})
	}
}

// TestOldAllowsWithoutReasonVerify: an openclaw allow recorded before allows
// carried reasons ("reason":{"code":""}) is no drift: verify recomputes the
// same decision, now with its reason (issue 15).
func TestOldAllowsWithoutReasonVerify(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	log := &service.MemLog{}
	svc := service.New(service.Config{Log: log, Dialects: dialects.All(), Clock: func() time.Time { return clock }})
	for _, l := range []string{
		pev("policy.set", `{"dialect":"openclaw","document":{"tools":{"deny":["exec"]}},"catalogue":["read","exec"]}`),
		sev("session.started", "agent:main:main", `{"agent":"main"}`),
		sev("turn.started", "agent:main:main", `{"turn":1}`),
		sev("tool.checked", "agent:main:main", `{"turn":1,"tool":"read"}`),
	} {
		if _, err := svc.Append(ctx, []byte(l)); err != nil {
			t.Fatal(err)
		}
		clock = clock.Add(time.Second)
	}
	var msgs []replay.Msg
	if err := log.EachMsg(ctx, 1, func(m replay.Msg) error { msgs = append(msgs, m); return nil }); err != nil {
		t.Fatal(err)
	}
	old := &service.MemLog{}
	for i, m := range msgs {
		b := m.Data
		if i == len(msgs)-1 {
			// The last record: nothing links to it, so only its reason
			// changes, as an old ledger wrote it.
			rec, err := events.DecodeRecord(b)
			if err != nil {
				t.Fatal(err)
			}
			d := strings.Replace(string(rec.Decided), `"reason":{"code":"default:allow"`, `"reason":{"code":""`, 1)
			if d == string(rec.Decided) {
				t.Fatalf("the allow's decided %s has no default:allow reason", rec.Decided)
			}
			d = strings.Replace(d, `,"record":{"id":"`+msgsID(t, msgs[0].Data)+`","seq":1,"type":"policy.set"},"rule":"no layer restricts the tool: in the session's catalogue"`, "", 1)
			rec.Decided = []byte(d)
			if b, err = rec.Encode(); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), `"reason":{"code":""}`) {
				t.Fatalf("the rewritten record %s does not hold an empty reason", b)
			}
		}
		if _, err := old.Append(ctx, "", "", b, uint64(i)); err != nil {
			t.Fatal(err)
		}
	}
	_, rep, err := replay.Verify(ctx, old, dialects.All(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Errorf("verify of an old log whose allow has no reason: %+v %v", rep, rep.Drifts)
	}
}

func msgsID(t *testing.T, b []byte) string {
	t.Helper()
	rec, err := events.DecodeRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	return rec.ID
}
