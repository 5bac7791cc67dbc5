package replay_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/replay"
)

// TestWhatIfDefaultScopeWithoutPolicyRefused: a candidate for the default
// scope of a log whose default scope has no policy (every policy is a
// project's scope) is refused, invalid_policy naming the scopes there are,
// rather than passing with nothing compared; ledger replay --policy would
// otherwise gate a CI step on nothing (found by the replay review).
func TestWhatIfDefaultScopeWithoutPolicyRefused(t *testing.T) {
	log := appended(t,
		`{"type":"policy.set","v":1,"actor":"ops","data":{"scope":"cc","dialect":"openclaw","document":{"tools":{"deny":["exec"]}},"catalogue":["read","exec"]}}`,
		`{"type":"session.started","v":1,"actor":"o","session":"s1","data":{"agent":"main","scope":"cc"}}`,
		`{"type":"turn.started","v":1,"actor":"o","session":"s1","data":{"turn":1}}`,
	)
	for _, cand := range []string{`{"tools":{"deny":["read"]},"agents":"not a list"}`, `{"tools":{"deny":["read"]}}`} {
		rep, err := replay.WhatIfIn(t.Context(), log, dialects.All(), "", json.RawMessage(cand), 1, 0, nil)
		if events.CodeOf(err) != events.CodeInvalidPolicy {
			t.Errorf("candidate %s for the default scope: %+v, %v; want invalid_policy naming the scopes", cand, rep, err)
		}
	}
	rep, err := replay.WhatIfIn(t.Context(), log, dialects.All(), "cc", json.RawMessage(`{"tools":{"deny":["read"]}}`), 1, 0, nil)
	if err != nil || rep.Turns != 1 || rep.AllowToDeny != 1 {
		t.Errorf("the candidate in scope cc: %+v, %v; want 1 turn and 1 flip", rep, err)
	}
}

// TestVerifyNewerFormat: a record of a newer format (version 2) or of a
// type this build does not know is reported as a record this build does
// not read (Tamper.Format), not as plain tampering.
func TestVerifyNewerFormat(t *testing.T) {
	for _, c := range []struct{ name, from, to string }{
		{"version 2", `"v":1`, `"v":2`},
		{"an unknown type", `"type":"turn.started"`, `"type":"turn.paused"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := appended(t,
				`{"type":"policy.set","v":1,"actor":"ops","data":{"dialect":"openclaw","document":{},"catalogue":["read"]}}`,
				`{"type":"session.started","v":1,"actor":"o","session":"s1","data":{"agent":"main"}}`,
				`{"type":"turn.started","v":1,"actor":"o","session":"s1","data":{"turn":1}}`,
			)
			raw, err := log.Read(t.Context(), 1, 3)
			if err != nil {
				t.Fatal(err)
			}
			last := strings.Replace(string(raw[2]), c.from, c.to, 1)
			if last == string(raw[2]) {
				t.Fatalf("no %s in %s", c.from, raw[2])
			}
			raw[2] = []byte(last)
			_, rep, err := replay.Verify(t.Context(), memLogOf(t, raw), dialects.All(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Tamper == nil || !rep.Tamper.Format || rep.Tamper.Seq != 3 || !strings.Contains(rep.Tamper.Problem, "newer build") {
				t.Errorf("verify: %+v, want record 3 named as a format this build does not read", rep.Tamper)
			}
		})
	}
}

// TestVerifyRefusesNonCanonicalRecord: a stored record that is not in the
// ledger's canonical encoding (one space added, its hash matching those
// bytes, as only a writer other than the ledger could store it) is named
// by verify, rather than folded re-encoded to a state hash that ledger
// replay, which hashes the stored bytes, would not give.
func TestVerifyRefusesNonCanonicalRecord(t *testing.T) {
	log := appended(t,
		`{"type":"policy.set","v":1,"actor":"ops","data":{"dialect":"openclaw","document":{},"catalogue":["read"]}}`,
		`{"type":"session.started","v":1,"actor":"o","session":"s1","data":{"agent":"main"}}`,
	)
	raw, err := log.Read(t.Context(), 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	raw[1] = []byte(strings.Replace(string(raw[1]), `"actor":"o"`, `"actor": "o"`, 1))
	_, rep, err := replay.Verify(t.Context(), memLogOf(t, raw), dialects.All(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tamper == nil || rep.Tamper.Seq != 2 || !strings.Contains(rep.Tamper.Problem, "canonical") {
		t.Errorf("verify of a non-canonical record: %+v, want record 2 named", rep.Tamper)
	}
}

// appended is a MemLog holding evs, appended through a service.
func appended(t *testing.T, evs ...string) *service.MemLog {
	t.Helper()
	log := &service.MemLog{}
	svc, err := service.Open(t.Context(), service.Config{Log: log, Dialects: dialects.All()})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if _, err := svc.Append(t.Context(), []byte(e)); err != nil {
			t.Fatal(err)
		}
	}
	return log
}
