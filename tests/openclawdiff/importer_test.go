package openclawdiff

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope/openclaw"
	ocimport "github.com/sessionledger/ledger/internal/importer/openclaw"
)

// RealConfig turns a generated policy document into an openclaw.json as
// OpenClaw 2026.9 writes one (agents.entries keyed by id, agents.ownership
// or a default marker for a roster of several) and adds sections the
// ledger does not read, valid or, rarely, not.
func RealConfig(r *rand.Rand, doc map[string]any) map[string]any {
	cfg := map[string]any{}
	for k, v := range doc {
		cfg[k] = v
	}
	if agents, ok := cfg["agents"].(map[string]any); ok {
		if list, ok := agents["list"].([]any); ok {
			entries := map[string]any{}
			for _, a := range list {
				am, _ := a.(map[string]any)
				id, _ := am["id"].(string)
				e := map[string]any{}
				for k, v := range am {
					if k != "id" {
						e[k] = v
					}
				}
				if sub, ok := e["subagents"].(map[string]any); ok {
					delete(sub, "delegateToolsTo")
				}
				entries[id] = e
			}
			delete(agents, "list")
			agents["entries"] = entries
			if len(entries) > 1 {
				switch n := r.IntN(20); {
				case n < 16:
					agents["ownership"] = "explicit"
				case n < 19:
					ids := slices.Sorted(maps.Keys(entries))
					entries[ids[r.IntN(len(ids))]].(map[string]any)["default"] = true
				}
			}
		}
	}
	valid := []func(){
		func() { cfg["gateway"] = map[string]any{"port": 18789, "mode": "local"} },
		func() { cfg["logging"] = map[string]any{"level": "info"} },
		func() { section(cfg, "tools")["web"] = map[string]any{"search": map[string]any{"enabled": true}} },
		func() { section(cfg, "tools")["exec"] = map[string]any{"security": "allowlist"} },
		func() { section(cfg, "tools")["sessions"] = map[string]any{"visibility": "tree"} },
		func() { section(section(cfg, "agents"), "defaults")["model"] = "openai/gpt-5" },
	}
	invalid := []func(){
		func() { cfg["toolz"] = map[string]any{} },
		func() { cfg["gateway"] = map[string]any{"port": "x"} },
		func() { section(cfg, "tools")["denny"] = []string{"exec"} },
		func() { section(cfg, "tools")["exec"] = map[string]any{"timeoutSec": 5} },
		func() { section(section(section(cfg, "agents"), "defaults"), "subagents")["maxConcurrent"] = 0 },
		func() { section(section(cfg, "tools"), "subagents")["messaging"] = "peers" },
	}
	for _, f := range valid {
		if r.Float64() < 0.15 {
			f()
		}
	}
	if r.Float64() < 0.08 {
		invalid[r.IntN(len(invalid))]()
	}
	return cfg
}

func section(m map[string]any, k string) map[string]any {
	s, ok := m[k].(map[string]any)
	if !ok {
		s = map[string]any{}
		m[k] = s
	}
	return s
}

// TestImporterAgainstTheRelease imports generated openclaw.json files and
// compares with OpenClaw's own validator: the importer refuses what it
// refuses and accepts what it accepts, and what it accepts gives a document
// the dialect takes, except where a documented deliberate choice refuses
// it (testdata/deliberate.json).
func TestImporterAgainstTheRelease(t *testing.T) {
	o := require(t)
	pinned, err := PinnedVersion()
	if err != nil {
		t.Fatal(err)
	}
	rel, _ := openclaw.LookupRelease(pinned)
	r := rand.New(rand.NewPCG(*flagSeed, 0x696d706f7274))
	const n = 2000
	srcs := make([][]byte, n)
	cases := make([]Case, n)
	for i := range cases {
		g := &gen{r: r, cat: Catalogue(pinned), tags: map[string]bool{}, rel: rel}
		cfg := RealConfig(r, g.doc())
		b, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		srcs[i] = b
		cases[i] = Case{ID: fmt.Sprintf("import-%d", i), Config: b}
	}
	answers, err := o.Ask(cases)
	if err != nil {
		t.Fatal(err)
	}
	agree, deliberate, bad := 0, 0, 0
	for i, a := range answers {
		res, err := ocimport.Import(cases[i].ID, srcs[i])
		if err == nil {
			err = res.Check(openclaw.New(), nil)
		}
		switch {
		case a.Valid == (err == nil):
			agree++
		case a.Valid && err != nil && (strings.Contains(err.Error(), "select the same sender") || strings.Contains(err.Error(), "name the same provider")):
			deliberate++ // sender-keys-select-one-sender, provider-keys-name-one-provider
		default:
			bad++
			if bad <= 20 {
				t.Errorf("%s: OpenClaw valid=%v %s, the importer: %v\n%s", cases[i].ID, a.Valid, issues(a.Issues), err, srcs[i])
			}
		}
	}
	if testing.Verbose() {
		t.Logf("importer against openclaw %s: %d/%d configs agree (%d refused by a deliberate choice, %d disagree)", pinned, agree, n, deliberate, bad)
	}
}
