package openclawdiff

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sessionledger/ledger/envelope/openclaw"
)

// ConformanceLineages draws perPolicy lineages over the policy of every
// conformance scenario of testdata/conformance/openclaw, with the
// differential catalogue joined by the scenario's own tools.
func ConformanceLineages(seed uint64, perPolicy int, release string) ([]*Lineage, error) {
	files, err := filepath.Glob(filepath.Join(Root(), "testdata", "conformance", "openclaw", "*.json"))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	rel, _ := openclaw.LookupRelease(release)
	r := rand.New(rand.NewPCG(seed, 0x636f6e666f726d))
	var out []*Lineage
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var sc struct {
			Tools  []string        `json:"tools"`
			Policy json.RawMessage `json:"policy"`
		}
		if err := json.Unmarshal(b, &sc); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		doc := sc.Policy
		if len(doc) == 0 || string(doc) == "null" {
			doc = json.RawMessage("{}")
		}
		doc = StripExtensions(doc)
		var m map[string]any
		if err := json.Unmarshal(doc, &m); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		cat := Catalogue(release)
		for _, t := range sc.Tools {
			if !slices.ContainsFunc(cat, func(x Tool) bool { return x.Name == t }) {
				tool := Tool{Name: t}
				if isMCPName(t) {
					tool.Plugin = "bundle-mcp"
				}
				cat = append(cat, tool)
			}
		}
		for i := 0; i < perPolicy; i++ {
			g := &gen{r: r, cat: cat, tags: map[string]bool{"conformance": true}, rel: rel}
			out = append(out, &Lineage{ID: fmt.Sprintf("%s#%d", filepath.Base(f), i), Doc: doc, Catalogue: cat,
				Sessions: g.lineage(m), Tags: []string{"conformance"}})
		}
	}
	return out, nil
}

// isMCPName is the dialect's MCP name form, <server>__<tool>, for
// catalogue entries the oracle is told a plugin owns.
func isMCPName(t string) bool {
	i := strings.Index(t, "__")
	return i > 0 && i+2 < len(t)
}

// OracleCase is the oracle's case for a lineage.
func OracleCase(l *Lineage) (Case, error) {
	cfg, err := OpenClawConfig(l.Doc)
	if err != nil {
		return Case{}, err
	}
	return Case{ID: l.ID, Config: cfg, Tools: l.Catalogue, Sessions: l.Sessions}, nil
}
