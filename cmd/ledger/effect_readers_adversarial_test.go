package main

// Issue 28 (one durable step per enforced call), probed the way an
// independent conformance suite would: a ledger whose log mixes the
// one-record form (a tool.checked with effect: true and a call id) and the
// two-record form (a tool.checked, then a tool.effect_started naming it),
// under two scopes and dialects, and every reader asked about each call.
// The readers must agree with each other and with docs/records.md ("One
// record per enforced call").

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/report"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/wire"
)

// mixedLine is one event of the mixed log and what appending it must
// answer: the sequence it lands at (or, for a duplicate, the sequence of
// the record it repeats), or the refusal's code (with the sequence of
// the refusal's decision record when the refusal is recorded).
type mixedLine struct {
	event string
	seq   uint64
	err   string
	dup   bool
}

// The ids of the records the log re-sends.
const (
	idOneAllow = "01KAAAAAAAAAAAAAAAAAAAAAA1"
	idOneExec  = "01KAAAAAAAAAAAAAAAAAAAAAA2"
	idOneDeny  = "01KAAAAAAAAAAAAAAAAAAAAAA3"
)

// mixedLog: the default scope (openclaw: web_fetch denied by the document)
// and scope cc (claude-code: Write asked), a root in each, and every kind
// of enforced call of issue 28.
var mixedLog = []mixedLine{
	{event: `{"type":"policy.set","data":{"dialect":"openclaw","document":{"tools":{"deny":["web_fetch"]}},"catalogue":["exec","read","web_fetch"]}}`, seq: 1},
	{event: `{"type":"policy.set","data":{"scope":"cc","dialect":"claude-code","document":{"permissions":{"allow":["Bash","Read"],"ask":["Write"]}},"catalogue":["Read","Bash","Write","Agent"]}}`, seq: 2},
	{event: `{"type":"session.started","session":"agent:main:main","data":{"agent":"main","user":"alice","runtime":"openclaw"}}`, seq: 3},
	{event: `{"type":"session.started","session":"cc1","data":{"agent":"main","scope":"cc","user":"bob","runtime":"claude-code"}}`, seq: 4},
	{event: `{"type":"turn.started","session":"agent:main:main","data":{"turn":1}}`, seq: 5},
	{event: `{"type":"turn.started","session":"cc1","data":{"turn":1}}`, seq: 6},
	// One record, allowed: the effect started with it.
	{event: `{"id":"` + idOneAllow + `","type":"tool.checked","session":"agent:main:main","data":{"turn":1,"tool":"read","call":"o-allow","effect":true}}`, seq: 7},
	// One record, denied by the document.
	{event: `{"id":"` + idOneDeny + `","type":"tool.checked","session":"agent:main:main","data":{"turn":1,"tool":"web_fetch","call":"o-deny","effect":true}}`, seq: 8},
	// One record, asked (claude-code): it starts nothing.
	{event: `{"type":"tool.checked","session":"cc1","data":{"turn":1,"tool":"Write","input":{"file_path":"/tmp/x","content":"y"},"call":"cc-ask","effect":true}}`, seq: 9},
	// One record, allowed, in the other scope.
	{event: `{"type":"tool.checked","session":"cc1","data":{"turn":1,"tool":"Bash","input":{"command":"ls"},"call":"cc-allow","effect":true}}`, seq: 10},
	// Two records: check, then the effect naming it.
	{event: `{"type":"tool.checked","session":"agent:main:main","data":{"turn":1,"tool":"exec","call":"t-two"}}`, seq: 11},
	{event: `{"type":"tool.effect_started","session":"agent:main:main","data":{"turn":1,"tool":"exec","call":"t-two","prepared_at":11}}`, seq: 12},
	// One record, allowed, before the revocation.
	{event: `{"id":"` + idOneExec + `","type":"tool.checked","session":"agent:main:main","data":{"turn":1,"tool":"exec","call":"o-exec","effect":true}}`, seq: 13},
	// Two records, the revocation falling between them: the effect is
	// refused, its decision record a tool.checked.
	{event: `{"type":"tool.checked","session":"agent:main:main","data":{"turn":1,"tool":"exec","call":"t-revoked"}}`, seq: 14},
	{event: `{"type":"deny.added","data":{"rule":"exec","session":"agent:main:main","note":"ticket 9"}}`, seq: 15},
	{event: `{"type":"tool.effect_started","session":"agent:main:main","data":{"turn":1,"tool":"exec","call":"t-revoked","prepared_at":14}}`, seq: 16, err: "authorization_changed"},
	// One record after the revocation: denied, nothing started.
	{event: `{"type":"tool.checked","session":"agent:main:main","data":{"turn":1,"tool":"exec","call":"o-revoked","effect":true}}`, seq: 17},
	// One record (Claude Code's hook), then the MCP gateway's effect
	// naming it.
	{event: `{"type":"tool.checked","session":"cc1","data":{"turn":1,"tool":"Read","input":{"file_path":"/etc/hosts"},"call":"cc-mcp","effect":true}}`, seq: 18},
	{event: `{"type":"tool.effect_started","session":"cc1","data":{"turn":1,"tool":"Read","call":"cc-mcp","prepared_at":18}}`, seq: 19},
	// The gateway's effect naming a one-record check the revocation now
	// denies: refused.
	{event: `{"type":"tool.effect_started","session":"agent:main:main","data":{"turn":1,"tool":"exec","call":"o-exec"}}`, seq: 20, err: "authorization_changed"},
	// A one-record call in cc refused by a revocation landed before it,
	// with an id no JSON encoder keeps as it is.
	{event: `{"type":"deny.added","data":{"scope":"cc","rule":"Bash(rm *)","note":"no rm"}}`, seq: 21},
	{event: `{"type":"tool.checked","session":"cc1","data":{"turn":1,"tool":"Bash","input":{"command":"rm -rf /"},"call":"toolu_<&>\"é/1","effect":true}}`, seq: 22},
	// effect: true without a call, or with an empty one: invalid_event,
	// nothing written.
	{event: `{"type":"tool.checked","session":"agent:main:main","data":{"turn":1,"tool":"read","effect":true}}`, err: "invalid_event"},
	{event: `{"type":"tool.checked","session":"cc1","data":{"turn":1,"tool":"Read","call":"","effect":true}}`, err: "invalid_event"},
	// Re-sends of one-record checks: duplicates, answered with the
	// original's sequence, even the one the revocation would deny now.
	{event: `{"id":"` + idOneAllow + `","type":"tool.checked","session":"agent:main:main","data":{"turn":1,"tool":"read","call":"o-allow","effect":true}}`, seq: 7, dup: true},
	{event: `{"id":"` + idOneExec + `","type":"tool.checked","session":"agent:main:main","data":{"turn":1,"tool":"exec","call":"o-exec","effect":true}}`, seq: 13, dup: true},
	{event: `{"id":"` + idOneDeny + `","type":"tool.checked","session":"agent:main:main","data":{"turn":1,"tool":"web_fetch","call":"o-deny","effect":true}}`, seq: 8, dup: true},
}

// mixedHead is the head of the mixed log.
const mixedHead = 22

// wantCall is what every reader must say about one call record.
type wantCall struct {
	seq      uint64
	session  events.SessionKey
	typ      events.Type
	tool     string
	call     string
	decision envelope.Decision
	reason   string
	// oneRecord: a tool.checked with effect: true; started: its effect
	// started with it (allowed).
	oneRecord, started bool
	prepared           uint64
}

var mixedCalls = []wantCall{
	{seq: 7, session: "agent:main:main", typ: events.ToolChecked, tool: "read", call: "o-allow", decision: envelope.Allow, reason: "default:allow", oneRecord: true, started: true},
	{seq: 8, session: "agent:main:main", typ: events.ToolChecked, tool: "web_fetch", call: "o-deny", decision: envelope.Deny, reason: "global:deny", oneRecord: true},
	{seq: 9, session: "cc1", typ: events.ToolChecked, tool: "Write", call: "cc-ask", decision: envelope.Ask, reason: "permission:ask", oneRecord: true},
	{seq: 10, session: "cc1", typ: events.ToolChecked, tool: "Bash", call: "cc-allow", decision: envelope.Allow, reason: "permission:allow", oneRecord: true, started: true},
	{seq: 11, session: "agent:main:main", typ: events.ToolChecked, tool: "exec", call: "t-two", decision: envelope.Allow, reason: "default:allow"},
	{seq: 12, session: "agent:main:main", typ: events.EffectStarted, tool: "exec", call: "t-two", decision: envelope.Allow, reason: "default:allow", prepared: 11},
	{seq: 13, session: "agent:main:main", typ: events.ToolChecked, tool: "exec", call: "o-exec", decision: envelope.Allow, reason: "default:allow", oneRecord: true, started: true},
	{seq: 14, session: "agent:main:main", typ: events.ToolChecked, tool: "exec", call: "t-revoked", decision: envelope.Allow, reason: "default:allow"},
	{seq: 16, session: "agent:main:main", typ: events.ToolChecked, tool: "exec", call: "t-revoked", decision: envelope.Deny, reason: projection.ReasonAuthorizationChanged, prepared: 14},
	{seq: 17, session: "agent:main:main", typ: events.ToolChecked, tool: "exec", call: "o-revoked", decision: envelope.Deny, reason: "revocation:deny", oneRecord: true},
	{seq: 18, session: "cc1", typ: events.ToolChecked, tool: "Read", call: "cc-mcp", decision: envelope.Allow, reason: "permission:allow", oneRecord: true, started: true},
	{seq: 19, session: "cc1", typ: events.EffectStarted, tool: "Read", call: "cc-mcp", decision: envelope.Allow, reason: "permission:allow", prepared: 18},
	{seq: 20, session: "agent:main:main", typ: events.ToolChecked, tool: "exec", call: "o-exec", decision: envelope.Deny, reason: projection.ReasonAuthorizationChanged, prepared: 13},
	{seq: 22, session: "cc1", typ: events.ToolChecked, tool: "Bash", call: "toolu_<&>\"é/1", decision: envelope.Deny, reason: "revocation:deny", oneRecord: true},
}

// mixedLedger appends mixedLog to a fresh ledger in a data directory,
// checking each line's answer, and returns the directory.
func mixedLedger(t *testing.T) string {
	t.Helper()
	data := filepath.Join(t.TempDir(), "data")
	var in strings.Builder
	for _, l := range mixedLog {
		in.WriteString(l.event + "\n")
	}
	out, errOut, err := runCLI(t, in.String(), "append", "--json", "--data", data)
	if exitStatus(err) != 1 {
		// Two effects are refused and two events invalid: exit 1.
		t.Fatalf("append: want exit 1 for the refusals, got %v\n%s", err, errOut)
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	for i := 0; sc.Scan(); i++ {
		var a struct {
			Line      int    `json:"line"`
			Seq       uint64 `json:"seq"`
			Error     string `json:"error"`
			Duplicate bool   `json:"duplicate"`
		}
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("append answer %q: %v", sc.Text(), err)
		}
		w := mixedLog[a.Line-1]
		if a.Seq != w.seq || a.Error != w.err || a.Duplicate != w.dup {
			t.Errorf("line %d (%s): answered %s, want seq %d error %q duplicate %v", a.Line, w.event, sc.Text(), w.seq, w.err, w.dup)
		}
	}
	return data
}

// logRecords reads the log of data as 'ledger log --json' prints it.
func logRecords(t *testing.T, data string) ([]*events.Record, [][]byte) {
	t.Helper()
	out, errOut, err := runCLI(t, "", "log", "--json", "--data", data)
	if err != nil {
		t.Fatalf("log --json: %v %s", err, errOut)
	}
	var recs []*events.Record
	var raws [][]byte
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		rec, err := events.DecodeRecord([]byte(line))
		if err != nil {
			t.Fatalf("log --json line %q: %v", line, err)
		}
		recs, raws = append(recs, rec), append(raws, []byte(line))
	}
	return recs, raws
}

// TestMixedCallFormsAgreeAcrossReaders: on a log that mixes one-record and
// two-record calls, allowed, denied, asked and refused, under two scopes,
// why --call, why --record, why --turn, denials (text and --json), the
// report, the export and verify say the same of every call, as
// docs/records.md says; replaying twice gives the same state.
func TestMixedCallFormsAgreeAcrossReaders(t *testing.T) {
	data := mixedLedger(t)
	recs, raws := logRecords(t, data)
	if len(recs) != mixedHead {
		t.Fatalf("the log holds %d records, want %d (a duplicate or an invalid event wrote one)", len(recs), mixedHead)
	}

	// The records themselves: the one-record checks carry effect: true and
	// their call; no other record does.
	for _, w := range mixedCalls {
		rec := recs[w.seq-1]
		c, ok, err := callRecordOf(w.seq, rec)
		if err != nil || !ok {
			t.Fatalf("record %d is no call's: %v", w.seq, err)
		}
		checkCallRecord(t, "the log", &c, &w)
	}

	byID := map[string][]wantCall{}
	for _, w := range mixedCalls {
		byID[w.call] = append(byID[w.call], w)
	}

	t.Run("why --call", func(t *testing.T) {
		for id, ws := range byID {
			last := ws[len(ws)-1]
			out, errOut, err := runCLI(t, "", "why", "--json", "--data", data, "--call", id)
			if err != nil {
				t.Errorf("why --call %q: %v %s", id, err, errOut)
				continue
			}
			var a wire.WhyResult
			if err := json.Unmarshal([]byte(out), &a); err != nil || a.Call == nil {
				t.Errorf("why --call %q: %v\n%s", id, err, out)
				continue
			}
			checkCallRecord(t, "why --call "+id, &a.Call.Record, &last)
			var seqs, want []uint64
			for _, r := range a.Call.Records {
				seqs = append(seqs, r.Seq)
			}
			for _, w := range ws {
				want = append(want, w.seq)
			}
			if !slices.Equal(seqs, want) {
				t.Errorf("why --call %q: records %v, want %v", id, seqs, want)
			}
			for i := range a.Call.Records {
				checkCallRecord(t, fmt.Sprintf("why --call %s, records[%d]", id, i), &a.Call.Records[i], &ws[i])
			}
			// The verdict at the record's state is the recorded one (a
			// refusal's is the decision that refused it).
			if last.reason != projection.ReasonAuthorizationChanged && (a.Verdict.Decision != last.decision || a.Verdict.Reason.Code != last.reason) {
				t.Errorf("why --call %q: the verdict at seq %d is %s (%s), the record says %s (%s)", id, a.Seq, a.Verdict.Decision, a.Verdict.Reason.Code, last.decision, last.reason)
			}
			if last.reason == projection.ReasonAuthorizationChanged && (a.Verdict.Decision != envelope.Deny || a.Verdict.Reason.Code != "revocation:deny") {
				t.Errorf("why --call %q: the verdict of a refused effect is %s (%s), want deny (revocation:deny)", id, a.Verdict.Decision, a.Verdict.Reason.Code)
			}
			if (last.decision == envelope.Deny) && (a.Call.Cause == nil || (last.reason != "global:deny" && a.Call.Cause.Type != events.DenyAdded)) {
				t.Errorf("why --call %q: cause %+v, want the deny.added", id, a.Call.Cause)
			}

			// The text: "effect started with the check" for exactly the
			// allowed one-record checks among the call's records.
			text, errOut, err := runCLI(t, "", "why", "--data", data, "--call", id)
			if err != nil {
				t.Errorf("why --call %q: %v %s", id, err, errOut)
				continue
			}
			started := 0
			for _, w := range ws {
				if w.started {
					started++
				}
			}
			if last.started {
				started++ // the "recorded:" line too
			}
			if n := strings.Count(text, "effect started with the check"); n != started {
				t.Errorf("why --call %q says %d times that the effect started with the check, want %d:\n%s", id, n, started, text)
			}
		}
	})

	t.Run("why --record", func(t *testing.T) {
		for _, w := range mixedCalls {
			out, errOut, err := runCLI(t, "", "why", "--json", "--data", data, "--record", fmt.Sprint(w.seq))
			var a wire.WhyResult
			if err != nil || json.Unmarshal([]byte(out), &a) != nil || a.Call == nil {
				t.Errorf("why --record %d: %v %s %s", w.seq, err, out, errOut)
				continue
			}
			checkCallRecord(t, fmt.Sprintf("why --record %d", w.seq), &a.Call.Record, &w)
		}
	})

	t.Run("why --turn", func(t *testing.T) {
		for _, key := range []events.SessionKey{"agent:main:main", "cc1"} {
			tool := "read"
			if key == "cc1" {
				tool = "Read"
			}
			out, errOut, err := runCLI(t, "", "why", "--data", data, "--session", string(key), "--tool", tool, "--turn", "1")
			if err != nil {
				t.Errorf("why --turn of %s: %v %s", key, err, errOut)
				continue
			}
			_, calls, _ := strings.Cut(out, "calls checked in turn 1:\n")
			lines := strings.Split(strings.TrimRight(calls, "\n"), "\n")
			var want []wantCall
			for _, w := range mixedCalls {
				if w.session == key {
					want = append(want, w)
				}
			}
			if len(lines) != len(want) {
				t.Errorf("why --turn of %s lists %d calls, want %d:\n%s", key, len(lines), len(want), calls)
				continue
			}
			for i, w := range want {
				l := lines[i]
				if !strings.HasPrefix(l, fmt.Sprintf("  seq %d ", w.seq)) || !strings.Contains(l, " "+string(w.decision)+" ("+w.reason+")") {
					t.Errorf("why --turn of %s: line %q, want seq %d %s (%s)", key, l, w.seq, w.decision, w.reason)
				}
				if strings.Contains(l, "effect started with the check") != w.started {
					t.Errorf("why --turn of %s: line %q: effect started with the check should be said iff allowed one-record (%v)", key, l, w.started)
				}
				if strings.Contains(l, "ledger why ") != (w.decision != envelope.Allow) {
					t.Errorf("why --turn of %s: line %q: a why command iff not allowed", key, l)
				}
			}
		}
	})

	// The denied and asked calls every reader must list.
	var denied []wantCall
	for _, w := range mixedCalls {
		if w.decision != envelope.Allow {
			denied = append(denied, w)
		}
	}

	t.Run("denials", func(t *testing.T) {
		out, errOut, err := runCLI(t, "", "denials", "--json", "--data", data)
		if err != nil {
			t.Fatalf("denials --json: %v %s", err, errOut)
		}
		var got []wire.Denial
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var d wire.Denial
			if err := json.Unmarshal([]byte(line), &d); err != nil {
				t.Fatalf("denials --json line %q: %v", line, err)
			}
			got = append(got, d)
		}
		if len(got) != len(denied) {
			t.Fatalf("denials --json lists %d, want %d:\n%s", len(got), len(denied), out)
		}
		for i := range got {
			checkCallRecord(t, "denials --json", &got[i].CallRecord, &denied[i])
			if got[i].Identity == nil || got[i].Identity.User == "" {
				t.Errorf("denials --json: seq %d has no identity: %+v", got[i].Seq, got[i])
			}
		}
		text, errOut, err := runCLI(t, "", "denials", "--data", data)
		if err != nil {
			t.Fatalf("denials: %v %s", err, errOut)
		}
		lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
		if len(lines) != len(denied) {
			t.Fatalf("denials lists %d, want %d:\n%s", len(lines), len(denied), text)
		}
		for i, w := range denied {
			if !strings.HasPrefix(strings.TrimLeft(lines[i], " "), fmt.Sprintf("%d ", w.seq)) || !strings.Contains(lines[i], w.reason) ||
				!strings.Contains(lines[i], "ledger why --data "+data+" --call ") {
				t.Errorf("denials line %q, want seq %d, %s and its why --call", lines[i], w.seq, w.reason)
			}
			// The printed why runs and answers this record.
			_, cmd, _ := strings.Cut(lines[i], "  ledger ")
			out, errOut, err := runCLI(t, "", append(ledgertest.ShellWords(cmd), "--json")...)
			var a wire.WhyResult
			if err != nil || json.Unmarshal([]byte(out), &a) != nil || a.Call == nil || a.Call.Record.Seq != w.seq {
				t.Errorf("the printed %q: %v %s%s, want record %d", cmd, err, out, errOut, w.seq)
			}
		}
		for _, r := range []struct {
			reason string
			n      int
		}{{projection.ReasonAuthorizationChanged, 2}, {"revocation:deny", 2}, {"permission:ask", 1}, {"global:deny", 1}} {
			out, _, err := runCLI(t, "", "denials", "--json", "--data", data, "--reason", r.reason)
			if n := strings.Count(out, "\n"); err != nil || n != r.n {
				t.Errorf("denials --reason %s: %v, %d lines, want %d:\n%s", r.reason, err, n, r.n, out)
			}
		}
		out, _, err = runCLI(t, "", "denials", "--json", "--data", data, "--scope", "cc")
		if n := strings.Count(out, "\n"); err != nil || n != 2 {
			t.Errorf("denials --scope cc: %v, %d lines, want 2:\n%s", err, n, out)
		}
	})

	t.Run("report", func(t *testing.T) {
		r, err := report.Build(dialects.All(), recs, report.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got []uint64
		for _, d := range r.Denials {
			if !strings.HasPrefix(d.What, "lost at turn") {
				got = append(got, d.Seq)
			}
		}
		var want []uint64
		for _, w := range denied {
			want = append(want, w.seq)
		}
		if !slices.Equal(got, want) {
			t.Errorf("the report lists the denied and asked calls %v, ledger denials %v", got, want)
		}
		entries := map[uint64]*report.Entry{}
		for _, s := range r.Sessions {
			for _, e := range s.Timeline {
				entries[e.Seq] = e
			}
		}
		for _, w := range mixedCalls {
			e := entries[w.seq]
			if e == nil {
				t.Errorf("the report has no row for seq %d", w.seq)
				continue
			}
			if strings.Contains(e.Label, "effect started") && e.Kind == "check" != w.started {
				t.Errorf("seq %d: label %q; an allowed one-record check (%v) is marked 'check, effect started'", w.seq, e.Label, w.started)
			}
			if (e.Label == "check, effect started") != w.started {
				t.Errorf("seq %d: label %q, want 'check, effect started' iff an allowed one-record check (%v)", w.seq, e.Label, w.started)
			}
			if e.Bad != (w.decision != envelope.Allow) {
				t.Errorf("seq %d: bad %v, decision %s", w.seq, e.Bad, w.decision)
			}
			if w.decision != envelope.Allow {
				if e.Why == nil || !strings.Contains(e.Why.Command, " --call ") {
					t.Errorf("seq %d: no why trace with its --call: %+v", w.seq, e.Why)
				} else if w.reason != projection.ReasonAuthorizationChanged && e.Why.Code != w.reason {
					t.Errorf("seq %d: the report's why says %s, the record %s", w.seq, e.Why.Code, w.reason)
				}
			}
			if w.reason == projection.ReasonAuthorizationChanged && (e.Kind != "refusal" || !strings.Contains(e.Text, fmt.Sprintf("its check at seq %d no longer holds", w.prepared))) {
				t.Errorf("seq %d: a refused effect is shown as %q %q", w.seq, e.Kind, e.Text)
			}
		}
		// The command renders it, and says how many denials.
		out, errOut, err := runCLI(t, "", "report", "--data", data, "--html", filepath.Join(t.TempDir(), "r.html"))
		if err != nil || !strings.Contains(out, fmt.Sprintf("%d denial(s)", len(denied))) {
			t.Errorf("report: %v %s%s, want %d denial(s)", err, out, errOut, len(denied))
		}
	})

	t.Run("export", func(t *testing.T) {
		out, errOut, err := runCLI(t, "", "export", "--data", data)
		if err != nil {
			t.Fatalf("export: %v %s", err, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != mixedHead {
			t.Fatalf("export: %d lines, want %d", len(lines), mixedHead)
		}
		scopeOf := map[events.SessionKey]string{"agent:main:main": "default", "cc1": "cc"}
		for i, line := range lines {
			var l report.Line
			if err := json.Unmarshal([]byte(line), &l); err != nil {
				t.Fatalf("export line %d: %v", i+1, err)
			}
			if l.Seq != uint64(i+1) || !bytes.Equal(l.Record, raws[i]) {
				t.Errorf("export line %d: seq %d, record %s; the log's record %s", i+1, l.Seq, l.Record, raws[i])
			}
			if l.Session != "" && (l.Scope != scopeOf[l.Session] || l.Root != l.Session || l.Identity == nil) {
				t.Errorf("export line %d: session %s root %s scope %s identity %v", i+1, l.Session, l.Root, l.Scope, l.Identity)
			}
		}
	})

	t.Run("verify and replay", func(t *testing.T) {
		out, errOut, err := runCLI(t, "", "verify", "--data", data)
		if err != nil || !strings.Contains(out, fmt.Sprintf("verified %d records", mixedHead)) || !strings.Contains(out, "no drift") {
			t.Fatalf("verify: %v\n%s%s", err, out, errOut)
		}
		// Folding the records twice gives the same bytes.
		fold := func() []byte {
			st := projection.New(dialects.All())
			for i, rec := range recs {
				if err := st.Apply(projection.Input{Record: rec}, uint64(i+1)); err != nil {
					t.Fatal(err)
				}
			}
			return ledgertest.Dump(t, st)
		}
		if a, b := fold(), fold(); !bytes.Equal(a, b) {
			t.Error("two folds of the same records differ")
		}
		var hashes []string
		for _, f := range []string{"a.db", "b.db"} {
			out, errOut, err := runCLI(t, "", "replay", "--data", data, "--out", filepath.Join(t.TempDir(), f))
			if err != nil {
				t.Fatalf("replay: %v %s", err, errOut)
			}
			_, h, _ := strings.Cut(out, "\n")
			hashes = append(hashes, h)
		}
		if hashes[0] != hashes[1] || !strings.Contains(hashes[0], "state hash:") {
			t.Errorf("two replays: %q and %q", hashes[0], hashes[1])
		}
	})
}

// exitStatus is the status the command would exit with after err.
func exitStatus(err error) int { return exitCode(err, io.Discard) }

// callRecordOf reads a stored call record as the readers do.
func callRecordOf(seq uint64, rec *events.Record) (wire.CallRecord, bool, error) {
	c := wire.CallRecord{Seq: seq, Type: rec.Type, Session: rec.Session}
	var d struct {
		Tool   string `json:"tool"`
		Call   string `json:"call"`
		Effect bool   `json:"effect"`
	}
	var dec struct {
		Decision   envelope.Decision `json:"decision"`
		Reason     envelope.Reason   `json:"reason"`
		PreparedAt uint64            `json:"prepared_at"`
	}
	if rec.Type != events.ToolChecked && rec.Type != events.EffectStarted {
		return c, false, nil
	}
	if err := json.Unmarshal(rec.Data, &d); err != nil {
		return c, false, err
	}
	if err := json.Unmarshal(rec.Decided, &dec); err != nil {
		return c, false, err
	}
	c.Tool, c.Call, c.Effect, c.Decision, c.Reason, c.PreparedAt = d.Tool, d.Call, d.Effect, dec.Decision, dec.Reason, dec.PreparedAt
	return c, true, nil
}

func checkCallRecord(t *testing.T, who string, c *wire.CallRecord, w *wantCall) {
	t.Helper()
	if c.Seq != w.seq || c.Session != w.session || c.Type != w.typ || c.Tool != w.tool || c.Call != w.call ||
		c.Decision != w.decision || c.Reason.Code != w.reason || c.Effect != w.oneRecord || c.PreparedAt != w.prepared {
		t.Errorf("%s: seq %d %s %s %s call %q: %s (%s) effect %v prepared_at %d; want seq %d %s %s %s call %q: %s (%s) effect %v prepared_at %d",
			who, c.Seq, c.Session, c.Type, c.Tool, c.Call, c.Decision, c.Reason.Code, c.Effect, c.PreparedAt,
			w.seq, w.session, w.typ, w.tool, w.call, w.decision, w.reason, w.oneRecord, w.prepared)
	}
}

// TestVerifyCatchesTamperedOneRecordDecision: a one-record check's
// decided altered (allow to deny, deny to allow) in a copy of the log
// makes ledger verify exit 1 naming the record: as tampering when the
// hash chain is left as it is, as a drift when the forger rewrote the
// chain around it.
func TestVerifyCatchesTamperedOneRecordDecision(t *testing.T) {
	data := mixedLedger(t)
	msgs := readMsgs(t, data)
	for _, tc := range []struct {
		name     string
		seq      uint64
		from, to string
	}{
		{"allowed one-record check made a deny", 13, `"decision":"allow"`, `"decision":"deny"`},
		{"denied one-record check made an allow", 17, `"decision":"deny"`, `"decision":"allow"`},
		{"asked one-record check made an allow", 9, `"decision":"ask"`, `"decision":"allow"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tampered := slices.Clone(msgs)
			rec, err := events.DecodeRecord(tampered[tc.seq-1].Data)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(rec.Data, []byte(`"effect":true`)) || !bytes.Contains(rec.Decided, []byte(tc.from)) {
				t.Fatalf("record %d is not the one-record check with %s: %s", tc.seq, tc.from, tampered[tc.seq-1].Data)
			}
			rec.Decided = bytes.Replace(rec.Decided, []byte(tc.from), []byte(tc.to), 1)
			b, err := rec.Encode()
			if err != nil {
				t.Fatal(err)
			}
			tampered[tc.seq-1].Data = b

			kept := writeLedger(t, tampered)
			out, errOut, err := runCLI(t, "", "verify", "--data", kept)
			if exitStatus(err) != 1 || !strings.Contains(out, fmt.Sprintf("the log was tampered with: first bad sequence %d: ", tc.seq)) {
				t.Errorf("verify of the altered record, chain as it was: %v\n%s%s", err, out, errOut)
			}

			forged := writeLedger(t, rechainMsgs(t, tampered))
			out, errOut, err = runCLI(t, "", "verify", "--data", forged)
			if exitStatus(err) != 1 || !strings.Contains(out, fmt.Sprintf("drifted; first: seq %d tool.checked ", tc.seq)) ||
				!strings.Contains(out, ": recorded {") || !strings.Contains(out, tc.to) {
				t.Errorf("verify of the altered record, chain rewritten: %v\n%s%s", err, out, errOut)
			}
		})
	}
}

// openDataLog opens the log of the data directory data on an embedded
// server; stop stops it (before a command opens the directory).
func openDataLog(t *testing.T, data string) (log *natslog.Log, stop func()) {
	t.Helper()
	ns, err := natslog.StartEmbedded(natslog.EmbeddedConfig{Dir: filepath.Join(data, "nats")})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := natslog.ConnectEmbedded(ns, "t")
	if err != nil {
		ns.Shutdown()
		t.Fatal(err)
	}
	stop = func() { nc.Close(); ns.Shutdown(); ns.WaitForShutdown() }
	if log, err = natslog.Open(t.Context(), nc, natslog.StreamConfig{}); err != nil {
		stop()
		t.Fatal(err)
	}
	return log, stop
}

// readMsgs reads the stored messages of the ledger in data, with their
// hash headers.
func readMsgs(t *testing.T, data string) []natslog.Msg {
	t.Helper()
	log, stop := openDataLog(t, data)
	defer stop()
	msgs, err := log.ReadMsgs(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// writeLedger writes msgs, as they are, into the stream of a fresh data
// directory (the attacker who rewrites the store) and returns it.
func writeLedger(t *testing.T, msgs []natslog.Msg) string {
	t.Helper()
	data := filepath.Join(t.TempDir(), "data")
	log, stop := openDataLog(t, data)
	defer stop()
	for _, m := range msgs {
		rec, err := events.DecodeRecord(m.Data)
		if err != nil {
			t.Fatal(err)
		}
		msg := nats.NewMsg(events.Subject(rec.Type, rec.Session))
		msg.Data = m.Data
		msg.Header.Set(events.HashHeader, m.Hash)
		if _, err := log.JetStream().PublishMsg(context.Background(), msg); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

// rechainMsgs gives every altered record (its bytes no longer hash to its
// header) its new hash, and rewrites the link (decided.prev) of every
// later record that pointed to an altered one, so the chain is consistent
// again: the forger who rewrites the log from the altered record on.
func rechainMsgs(t *testing.T, msgs []natslog.Msg) []natslog.Msg {
	t.Helper()
	moved := map[string]string{} // old hash -> new hash
	out := slices.Clone(msgs)
	for i, m := range out {
		rec, err := events.DecodeRecord(m.Data)
		if err != nil {
			t.Fatal(err)
		}
		var dec map[string]json.RawMessage
		if err := json.Unmarshal(rec.Decided, &dec); err != nil {
			t.Fatal(err)
		}
		var prev string
		_ = json.Unmarshal(dec["prev"], &prev)
		if to, ok := moved[prev]; ok {
			dec["prev"], _ = json.Marshal(to)
			rec.Decided, _ = json.Marshal(dec)
			if out[i].Data, err = rec.Encode(); err != nil {
				t.Fatal(err)
			}
		}
		if h := events.HashBytes(out[i].Data); h != m.Hash {
			moved[m.Hash] = h
			out[i].Hash = h
		}
	}
	return out
}

// TestAskedOneRecordThenEffectListedAlike: an asked one-record check (the
// claude-code dialect's ask: it starts nothing) that a tool.effect_started
// later names (the MCP gateway forwarding a call Claude Code asked about
// and its user approved) is recorded as an effect decided ask. ledger
// denials lists every record decided deny or ask, the effect too; the
// report must list the same records.
func TestAskedOneRecordThenEffectListedAlike(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	in := strings.Join([]string{
		`{"type":"policy.set","data":{"scope":"cc","dialect":"claude-code","document":{"permissions":{"ask":["Write"]}},"catalogue":["Read","Write"]}}`,
		`{"type":"session.started","session":"cc1","data":{"agent":"main","scope":"cc","user":"bob","runtime":"claude-code"}}`,
		`{"type":"turn.started","session":"cc1","data":{"turn":1}}`,
		`{"type":"tool.checked","session":"cc1","data":{"turn":1,"tool":"Write","input":{"file_path":"/tmp/x","content":"y"},"call":"w1","effect":true}}`,
		`{"type":"tool.effect_started","session":"cc1","data":{"turn":1,"tool":"Write","call":"w1"}}`,
	}, "\n") + "\n"
	if out, errOut, err := runCLI(t, in, "append", "--data", data); err != nil || !strings.Contains(out, "5 accepted, 0 refused") {
		t.Fatalf("append: %v\n%s%s", err, out, errOut)
	}
	out, errOut, err := runCLI(t, "", "denials", "--json", "--data", data)
	if err != nil {
		t.Fatalf("denials: %v %s", err, errOut)
	}
	var listed []uint64
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var d wire.Denial
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("denials line %q: %v", line, err)
		}
		listed = append(listed, d.Seq)
	}
	recs, _ := logRecords(t, data)
	r, err := report.Build(dialects.All(), recs, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var reported []uint64
	for _, d := range r.Denials {
		reported = append(reported, d.Seq)
	}
	if !slices.Equal(listed, reported) {
		t.Errorf("readers disagree on an effect decided ask: ledger denials lists records %v, the report's denials %v "+
			"(docs/commands.md: denials lists every tool.effect_started decided ask)", listed, reported)
	}
}
