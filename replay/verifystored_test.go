package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/projection"
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

// readWatched is a Source that calls at before reading from sequence from.
type readWatched struct {
	replay.Source
	from uint64
	at   func()
}

func (r readWatched) Read(ctx context.Context, from, to uint64) ([][]byte, error) {
	if from == r.from {
		r.at()
	}
	return r.Source.Read(ctx, from, to)
}

// TestVerifyStoredCommitsAsItGoes: verify's projection file holds what was
// folded while the fold goes on (what bounds its memory), not only at
// the end: by the time the third chunk of records is read, the first
// chunk's commit has been written to it.
func TestVerifyStoredCommitsAsItGoes(t *testing.T) {
	log := benchLog(t, 400)
	fresh := filepath.Join(t.TempDir(), "fresh.db")
	st, err := projection.OpenStore(fresh, projection.StoreOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	fi, err := os.Stat(fresh)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	checked := false
	src := readWatched{Source: log, from: 2*2048 + 1, at: func() {
		files, _ := filepath.Glob(filepath.Join(dir, "*", "verify.db"))
		if len(files) != 1 {
			t.Fatalf("verify's files: %v, want one verify.db", files)
		}
		got, err := os.Stat(files[0])
		if err != nil || got.Size() < fi.Size()+256<<10 {
			t.Fatalf("verify's file holds %d bytes after two chunks (%v); a fresh one %d", got.Size(), err, fi.Size())
		}
		checked = true
	}}
	if _, err := replay.VerifyStored(t.Context(), src, dialects.All(), dir, nil); err != nil {
		t.Fatal(err)
	}
	if !checked {
		t.Fatal("the third chunk was never read")
	}
}
