// Package importertest holds what the importers' tests share: the golden
// file of an import (its document and its warnings), compared with or,
// under -update, written to testdata/golden of the package under test. It
// is imported by the tests of internal/importer/claudecode and
// internal/importer/openclaw only.
package importertest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessionledger/ledger/internal/importer"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// golden is what a golden file holds: the document and the warnings.
type golden struct {
	Document json.RawMessage    `json:"document"`
	Warnings []importer.Warning `json:"warnings"`
}

// CheckGolden compares r's document and warnings, as indented JSON without
// HTML escapes, with testdata/golden/name of the package under test, or
// writes the file when the test runs with -update. pkg is the package as
// go test names it (./internal/importer/openclaw), for the hint in the
// failure.
func CheckGolden(t testing.TB, pkg, name string, r *importer.Result) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(golden{r.Document, r.Warnings}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test %s -update)", err, pkg)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s differs from the import (run go test %s -update and review the diff):\n%s", file, pkg, buf.Bytes())
	}
}
