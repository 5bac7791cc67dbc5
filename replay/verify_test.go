package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/svcledger"
	"github.com/sessionledger/ledger/replay"
	"github.com/sessionledger/ledger/scenario"
)

// runScenario runs a conformance scenario in memory and returns its log.
func runScenario(t *testing.T, path string) (*service.Service, *service.MemLog) {
	t.Helper()
	f, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := scenario.InMemory(dialects.All())
	if err != nil {
		t.Fatal(err)
	}
	if rep := r.Run(t.Context(), f); rep.Failed > 0 {
		t.Fatalf("scenario failed: %+v", rep.Failures)
	}
	svc := svcledger.Of(r.Ledger)
	return svc, svc.Log().(*service.MemLog)
}

func conformanceFiles(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "conformance", "*", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	return files
}

// TestVerifyConformanceLogs: verify on the log of every conformance scenario
// reports no drift, and a rebuild ends with the state the service holds.
func TestVerifyConformanceLogs(t *testing.T) {
	for _, path := range conformanceFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			svc, log := runScenario(t, path)
			st, rep, err := replay.Verify(t.Context(), log, dialects.All(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range rep.Drifts {
				t.Errorf("drift: %s", d.String())
			}
			var want []byte
			_ = svc.View(t.Context(), "", zeroPos, func(s *projectionState) error { want = ledgertest.Dump(t, s); return nil })
			if !bytes.Equal(ledgertest.Dump(t, st), want) {
				t.Errorf("rebuilt state differs from the live one")
			}
		})
	}
}

// rechain rewrites every record's tamper-evidence links (decided.seq and
// decided.prev) so the list is consistent again, as a forger rewriting the
// whole log, or newer code writing it, would.
func rechain(t *testing.T, raw [][]byte) [][]byte {
	t.Helper()
	chains := map[string]string{}
	out := make([][]byte, len(raw))
	for i, b := range raw {
		rec, err := events.DecodeRecord(b)
		if err != nil {
			t.Fatal(err)
		}
		var dec map[string]json.RawMessage
		_ = json.Unmarshal(rec.Decided, &dec)
		dec["seq"], _ = json.Marshal(i + 1)
		subject := events.Subject(rec.Type, rec.Session)
		delete(dec, "prev")
		if p := chains[subject]; p != "" {
			dec["prev"], _ = json.Marshal(p)
		}
		rec.Decided, _ = json.Marshal(dec)
		out[i], _ = rec.Encode()
		chains[subject] = events.HashBytes(out[i])
	}
	return out
}

func memLogOf(t *testing.T, raw [][]byte) *service.MemLog {
	t.Helper()
	log := &service.MemLog{}
	for i, b := range raw {
		var rec struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(b, &rec)
		if _, err := log.Append(context.Background(), "", rec.ID, b, uint64(i)); err != nil {
			t.Fatal(err)
		}
	}
	return log
}

// TestVerifyNamesAlteredDecision changes one recorded decision. Left as it
// is, the alteration breaks the hash chain and verify names the record as
// tampered; with the chain rewritten around it (what newer code, or a
// forger rewriting the whole log, would produce), verify still names it, as
// the first decision that is not decided that way today.
func TestVerifyNamesAlteredDecision(t *testing.T) {
	_, log := runScenario(t, filepath.Join("..", "testdata", "conformance", "claude-code", "effect-01-effect-rechecks-at-the-head.json"))
	ctx := context.Background()
	head, _ := log.Head(ctx)
	raw, _ := log.Read(ctx, 1, head)
	target := uint64(0)
	for i, b := range raw {
		rec, _ := events.DecodeRecord(b)
		if rec.Type == events.ToolChecked && bytes.Contains(rec.Decided, []byte(`"decision":"allow"`)) {
			rec.Decided = bytes.Replace(rec.Decided, []byte(`"decision":"allow"`), []byte(`"decision":"deny"`), 1)
			raw[i], _ = rec.Encode()
			target = uint64(i + 1)
			break
		}
	}
	if target == 0 {
		t.Fatal("no allowed check in the log")
	}
	_, rep, err := replay.Verify(ctx, memLogOf(t, raw), dialects.All(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tamper == nil || rep.Tamper.Seq != target {
		t.Fatalf("want tampering named at seq %d, got %+v", target, rep.Tamper)
	}
	_, rep, err = replay.Verify(ctx, memLogOf(t, rechain(t, raw)), dialects.All(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Later decisions that depended on the altered one may drift too; the
	// first drift names the altered record.
	if rep.Tamper != nil || rep.DriftCount == 0 || rep.Drifts[0].Seq != target {
		t.Fatalf("want the first drift at seq %d, got tamper %+v drifts %v", target, rep.Tamper, rep.Drifts)
	}
}

func TestRebuildIntoFreshFile(t *testing.T) {
	_, log := runScenario(t, filepath.Join("..", "testdata", "conformance", "openclaw", "continuation-09-settle-batch-same-policy.json"))
	path := filepath.Join(t.TempDir(), "rebuilt.db")
	var seen []uint64
	st, err := replay.Rebuild(t.Context(), log, dialects.All(), path, 0, func(done, total uint64) { seen = append(seen, done) })
	if err != nil {
		t.Fatal(err)
	}
	head, _ := log.Head(t.Context())
	if st.Position() != head || !slices.Contains(seen, head) {
		t.Fatalf("rebuilt to %d (progress %v), head %d", st.Position(), seen, head)
	}
	if _, err := replay.Rebuild(t.Context(), log, dialects.All(), path, 0, nil); err == nil {
		t.Fatal("rebuilding into a used file must be refused")
	}
}

func FuzzCheckChain(f *testing.F) {
	f.Add([]byte(`{"actor":"a","data":{},"decided":{"seq":1},"id":"01KDVDNA02201QRKBVQC20FMF2","session":"","time":"t","type":"policy.set","v":1}`), uint64(1), "")
	f.Fuzz(func(t *testing.T, data []byte, seq uint64, hash string) {
		// Never panics, and an intact single record at 1 with no link is
		// accepted only when it claims sequence 1.
		_ = replay.CheckChain([]replay.Msg{{Seq: seq, Data: data, Hash: hash}})
	})
}
