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
	"github.com/sessionledger/ledger/internal/service"
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
	r := scenario.InMemory(dialects.All())
	if rep := r.Run(t.Context(), f); rep.Failed > 0 {
		t.Fatalf("scenario failed: %+v", rep.Failures)
	}
	svc := r.Service()
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
			_ = svc.View(t.Context(), "", zeroPos, func(s *projectionState) error { want = s.Dump(); return nil })
			if !bytes.Equal(st.Dump(), want) {
				t.Errorf("rebuilt state differs from the live one")
			}
		})
	}
}

// TestVerifyNamesAlteredDecision changes one recorded decision and checks
// that verify names exactly that record.
func TestVerifyNamesAlteredDecision(t *testing.T) {
	_, log := runScenario(t, filepath.Join("..", "testdata", "conformance", "claude-code", "effect-01-effect-rechecks-at-the-head.json"))
	ctx := context.Background()
	head, _ := log.Head(ctx)
	raw, _ := log.Read(ctx, 1, head)
	// Find the first tool.checked that allowed, and record a deny instead.
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
	tampered := &service.MemLog{}
	for i, b := range raw {
		var rec struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(b, &rec)
		if _, err := tampered.Append(ctx, "", rec.ID, b, uint64(i)); err != nil {
			t.Fatal(err)
		}
	}
	_, rep, err := replay.Verify(ctx, tampered, dialects.All(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Later decisions that depended on the altered one may drift too; the
	// first drift names the altered record.
	if rep.DriftCount == 0 || rep.Drifts[0].Seq != target {
		t.Fatalf("want the first drift at seq %d, got %v", target, rep.Drifts)
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
