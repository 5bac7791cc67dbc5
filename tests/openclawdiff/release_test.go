package openclawdiff

import (
	"path/filepath"
	"testing"

	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/scenario"
)

// TestReleaseScenarios runs testdata/openclaw-release through the scenario
// runner: each scenario records one behaviour the dialect changed to follow
// the packaged release, naming the package's case. No Node is needed.
func TestReleaseScenarios(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(Root(), "testdata", "openclaw-release", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios under testdata/openclaw-release (%v)", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := scenario.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if f.Source == "" {
				t.Error("a release scenario names the package case it records in source")
			}
			r, err := scenario.InMemory(dialects.All())
			if err != nil {
				t.Fatal(err)
			}
			rep := r.Run(t.Context(), f)
			for _, fl := range rep.Failures {
				t.Errorf("step %d: %s", fl.Step, fl.Msg)
			}
		})
	}
}
