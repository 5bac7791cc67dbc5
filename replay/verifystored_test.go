package replay_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/replay"
)

// TestVerifyStoredReportsAsVerify: verifying with the state committed to
// a file as it goes (ledger verify) reports what verifying in memory
// reports, byte for byte as JSON: on a log longer than one commit's worth
// of records, left as it is, with decisions altered before and after the
// first commit (drifts), and altered without rewriting the chain (a
// tampered log); and on the log of every conformance scenario. The file
// is gone afterwards.
func TestVerifyStoredReportsAsVerify(t *testing.T) {
	base := benchLog(t, 300)
	altered := func(at ...int) [][]byte {
		raw := append([][]byte(nil), base...)
		for _, from := range at {
			for i := from; i < len(raw); i++ {
				rec, err := events.DecodeRecord(raw[i])
				if err != nil {
					t.Fatal(err)
				}
				if rec.Type == events.ToolChecked && bytes.Contains(rec.Decided, []byte(`"decision":"allow"`)) {
					rec.Decided = bytes.Replace(rec.Decided, []byte(`"decision":"allow"`), []byte(`"decision":"deny"`), 1)
					raw[i], _ = rec.Encode()
					break
				}
			}
		}
		return raw
	}
	if len(base) < 3000 {
		t.Fatalf("the workload log has %d records: too few to commit midway", len(base))
	}
	logs := map[string]replay.Source{
		"workload":                    base,
		"workload, decisions altered": memLogOf(t, rechain(t, altered(100, 2100, 2900))),
		"workload, tampered":          memLogOf(t, altered(2500)),
	}
	for _, path := range conformanceFiles(t) {
		_, log := runScenario(t, path)
		logs[filepath.Base(path)] = log
	}
	drifted := false
	for name, log := range logs {
		_, want, err := replay.Verify(t.Context(), log, dialects.All(), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		dir := t.TempDir()
		got, err := replay.VerifyStored(t.Context(), log, dialects.All(), dir, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		a, _ := json.Marshal(want)
		b, _ := json.Marshal(got)
		if !bytes.Equal(a, b) {
			t.Fatalf("%s: verifying in a file reports\n%s\nin memory\n%s", name, b, a)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Fatalf("%s: verifying left %d files in its directory", name, len(left))
		}
		drifted = drifted || want.DriftCount > 0 && want.Drifts[len(want.Drifts)-1].Seq > 2048
	}
	if !drifted {
		t.Fatal("no log drifted after the first commit: the comparison proves nothing there")
	}
}
