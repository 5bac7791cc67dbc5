package claudecodetest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/scenario"
)

// recordedDir holds the recorded cases, relative to the module root.
var recordedDir = filepath.Join("testdata", "claude-code-cli")

// fileName is the scenario file of a case.
func fileName(name string) string {
	return strings.NewReplacer("/", "-", " ", "-").Replace(name) + ".json"
}

// writeScenario writes what the CLI did in a case as a scenario: the
// case's policy and events, then for every session the CLI ran its pool
// (exact, without the placeholder) and for every call the CLI's outcome (absent is deny: a tool
// outside the pool is refused).
func writeScenario(t *testing.T, dc *dcase, cat []string, res *Result, v *dialectView) {
	t.Helper()
	ran := map[string]bool{}
	for s := range res.Pools() {
		ran[s] = true
	}
	var steps []any
	all := dc.steps()
	for i, s := range dc.sessions {
		start, turn := all[2*i], all[2*i+1]
		switch code := refusedCode(v.refused[dc.keyOf(s.script)]); {
		case ran[s.script]:
			steps = append(steps, map[string]any{"append": start}, map[string]any{"append": turn})
		case code != "":
			// The CLI did not start it and neither does the dialect: the
			// scenario keeps the dialect's code for the refusal.
			steps = append(steps, map[string]any{"append": start, "reject": code})
		}
		// A session the CLI did not start and the dialect would is left
		// out: its Agent call's outcome records what the CLI did.
	}
	pools := res.Pools()
	for _, s := range dc.sessions {
		q, ok := pools[s.script]
		if !ok {
			continue
		}
		steps = append(steps, map[string]any{"expect": map[string]any{"session": dc.keyOf(s.script),
			"allowed": cliPool(q), "exact": true}})
	}
	// Calls in script order (sessions as the case lists them, then turns),
	// not in the order concurrent sub-agents happened to make them.
	order := map[string]int{}
	scripts := dc.scripts()
	for _, s := range dc.sessions {
		for _, turn := range scripts[s.script] {
			for _, b := range turn {
				order[b.ID] = len(order)
			}
		}
	}
	calls := slices.Clone(res.Calls)
	slices.SortStableFunc(calls, func(a, b Call) int { return order[a.ID] - order[b.ID] })
	for _, call := range calls {
		out, ok := cliOutcome(call)
		if !ok {
			continue
		}
		if out == outAbsent {
			out = outDeny
		}
		steps = append(steps, map[string]any{"expect": map[string]any{"session": dc.keyOf(call.Script),
			"tool": call.Tool, "input": dc.dialectInput(call.Tool, call.Input, res.base, call.Cwd), "decision": out}})
	}
	f := map[string]any{
		"name":    dc.name + ": what claude-code " + Pin(t) + " did",
		"source":  "claude-code " + Pin(t) + " CLI run: internal/claudecodetest TestDifferential/case/" + dc.name,
		"dialect": "claude-code",
		"tools":   cat,
		"policy":  dc.document(),
		"steps":   steps,
	}
	b, err := json.MarshalIndent(f, "", " ")
	must(t, err)
	dir := filepath.Join(ModuleRoot(t), recordedDir)
	must(t, os.MkdirAll(dir, 0o755))
	must(t, os.WriteFile(filepath.Join(dir, fileName(dc.name)), append(b, '\n'), 0o644))
}

// refusedCode is the error code in the scenario runner's message about a
// refused append ("... expected accepted, got CODE: ..."), or "".
func refusedCode(msg string) string {
	_, rest, ok := strings.Cut(msg, "expected accepted, got ")
	if !ok {
		return ""
	}
	code, _, _ := strings.Cut(rest, ":")
	return code
}

// stepKey names a scenario step as deliberate.json names comparisons.
func stepKey(caseName string, raw json.RawMessage) string {
	var st struct {
		Append *struct {
			Session string `json:"session"`
		} `json:"append"`
		Expect *struct {
			Session string          `json:"session"`
			Tool    string          `json:"tool"`
			Input   json.RawMessage `json:"input"`
		} `json:"expect"`
	}
	_ = json.Unmarshal(raw, &st)
	c := compared{Case: caseName, What: "pool"}
	switch {
	case st.Append != nil:
		c.Session, c.What = st.Append.Session, "spawn"
	case st.Expect != nil:
		c.Session = st.Expect.Session
		if st.Expect.Tool != "" {
			var in any
			_ = json.Unmarshal(st.Expect.Input, &in)
			if m, ok := in.(map[string]any); ok {
				// Where the call ran is not part of its name.
				delete(m, claudecode.PathsKey)
			}
			c.What = callWhat(st.Expect.Tool, in)
		}
	}
	return c.key()
}

// TestRecorded runs every recorded CLI case under testdata/claude-code-cli
// through the scenario runner: the dialect must do what the CLI did, except
// where testdata/deliberate.json says why not. It needs no CLI.
func TestRecorded(t *testing.T) {
	dir := filepath.Join(ModuleRoot(t), recordedDir)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	ok := deliberate(t)
	n := 0
	for _, path := range files {
		if strings.HasPrefix(filepath.Base(path), "pools-") {
			continue
		}
		n++
		t.Run(strings.TrimSuffix(filepath.Base(path), ".json"), func(t *testing.T) {
			f, err := scenario.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			_, caseName, _ := strings.Cut(f.Source, "TestDifferential/case/")
			r, err := scenario.InMemory(dialects.All())
			if err != nil {
				t.Fatal(err)
			}
			rep := r.Run(t.Context(), f)
			for _, fl := range rep.Failures {
				if fl.Step == 0 {
					t.Errorf("the policy was refused: %s", fl.Msg)
					continue
				}
				key := stepKey(caseName, f.Steps[fl.Step-1])
				if reason, listed := ok[key]; listed {
					t.Logf("deliberate (%s): step %d: %s", reason, fl.Step, fl.Msg)
					continue
				}
				t.Errorf("step %d: %s", fl.Step, fl.Msg)
			}
		})
	}
	if n == 0 {
		t.Fatalf("no recorded cases under %s (run TestDifferential -update)", dir)
	}
}
