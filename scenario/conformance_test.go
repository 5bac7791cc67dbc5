package scenario_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/scenario"
)

// knownFailing reads testdata/conformance/KNOWN_FAILING: one scenario path
// (relative to testdata/conformance) per line, then a reason.
func knownFailing(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	f, err := os.Open(filepath.Join(dir, "KNOWN_FAILING"))
	if os.IsNotExist(err) {
		return out
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		path, reason, _ := strings.Cut(line, " ")
		out[path] = strings.TrimSpace(reason)
	}
	return out
}

// TestConformance runs every conformance scenario through the real path:
// an embedded nats-server with JetStream in a temp dir and a bbolt
// projection.
func TestConformance(t *testing.T) {
	dir := filepath.Join("..", "testdata", "conformance")
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no conformance scenarios under %s (%v)", dir, err)
	}
	skip := knownFailing(t, dir)
	for _, path := range files {
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		name := strings.TrimSuffix(rel, ".json")
		t.Run(name, func(t *testing.T) {
			if reason, ok := skip[rel]; ok {
				t.Skipf("listed in KNOWN_FAILING: %s", reason)
			}
			f, err := scenario.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			r, closeFn, err := scenario.Embedded(t.Context(), t.TempDir(), dialects.All())
			if err != nil {
				t.Fatal(err)
			}
			defer closeFn()
			rep := r.Run(t.Context(), f)
			for _, fl := range rep.Failures {
				t.Errorf("step %d: %s", fl.Step, fl.Msg)
			}
		})
	}
}
