package openclaw

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sessionledger/ledger/events"
)

var propEntries = []string{"read", "exec", "write", "apply_patch", "group:fs", "group:runtime", "web_*", "*",
	"bundle-mcp", "browser", "a__*", "skills_read", "tool_*", "cron", "sessions_spawn", "group:sessions", "Bash"}

var propCatalogue = []string{"read", "exec", "write", "apply_patch", "skills_read", "web_fetch", "browser",
	"a__x", "b__y", "dispatch_action", "automations", "sessions_spawn", "sessions_list", "gateway", "message", "view_image"}

// randomDoc makes a random policy document touching every layer, valid
// under release.
func randomDoc(r *rand.Rand, release string) string {
	pkg := release != LegacyRelease
	list := func() []string {
		n := r.IntN(4)
		out := make([]string, n)
		for i := range out {
			out[i] = propEntries[r.IntN(len(propEntries))]
		}
		return out
	}
	scope := func(validated bool) map[string]any {
		m := map[string]any{}
		if r.IntN(2) == 0 {
			m["deny"] = list()
		}
		switch r.IntN(3) {
		case 0:
			m["allow"] = list()
		case 1:
			m["alsoAllow"] = list()
		}
		if !validated && r.IntN(3) == 0 {
			m["allow"], m["alsoAllow"] = list(), list()
		}
		return m
	}
	// The packaged releases validate the sandbox, sub-agent and sender
	// scopes too, and know their profiles only.
	loose := !pkg
	profiles := []string{"coding", "minimal", "messaging", "full", "nope"}
	if pkg {
		profiles = profiles[:4]
	}
	tools := scope(true)
	if r.IntN(2) == 0 {
		tools["profile"] = profiles[r.IntN(len(profiles))]
	}
	gp := scope(true)
	if r.IntN(2) == 0 {
		gp["profile"] = profiles[r.IntN(len(profiles))]
	}
	tools["byProvider"] = map[string]any{"p": gp}
	tools["toolsBySender"] = map[string]any{"*": scope(!loose), "id:s": scope(!loose)}
	tools["sandbox"] = map[string]any{"tools": scope(!loose)}
	tools["subagents"] = map[string]any{"tools": scope(!loose)}
	agentTools := scope(true)
	if r.IntN(2) == 0 {
		agentTools["profile"] = profiles[r.IntN(len(profiles))]
	}
	agentTools["byProvider"] = map[string]any{"p/m": scope(true)}
	agentTools["toolsBySender"] = map[string]any{"channel:c:s": scope(!loose)}
	doc := map[string]any{
		"tools": tools,
		"agents": map[string]any{
			"defaults": map[string]any{"subagents": map[string]any{"maxSpawnDepth": 1 + r.IntN(3)}},
			"list": []any{map[string]any{"id": "main", "tools": agentTools,
				"subagents": map[string]any{"allowAgents": []string{"*"}, "delegateToolsTo": []string{"w"}}},
				map[string]any{"id": "w"}},
		},
		"channels": map[string]any{"c": map[string]any{"groups": map[string]any{"g": map[string]any{
			"tools": scope(false), "toolsBySender": map[string]any{"id:s": scope(false)}}}}},
	}
	b, _ := json.Marshal(doc)
	return string(b)
}

// randomTree builds a root and up to two levels of children, under a
// release drawn from every release this build knows.
func randomTree(tb testing.TB, r *rand.Rand) (*world, []string) {
	rels := Releases()
	rel := rels[r.IntN(len(rels))]
	doc := randomDoc(r, rel)
	w := newWorldRelease(tb, rel, doc, propCatalogue...)
	sb := r.IntN(3) == 0
	w.start("agent:main:main", events.StartedData{Agent: "main", Provider: "P", Model: "M", Channel: "c", Group: "g",
		Sender: []string{"", "s"}[r.IntN(2)], Sandboxed: &sb, Tools: []string{"z__tool"}})
	keys := []string{"agent:main:main"}
	w.turn("agent:main:main", []string{"", "s", "t"}[r.IntN(3)], false)
	parent := "agent:main:main"
	for i := 0; i < 2; i++ {
		agent := []string{"main", "w"}[r.IntN(2)]
		key := fmt.Sprintf("agent:%s:subagent:c%d", agent, i)
		s, err := w.trySpawn(key, parent, agent, withTools("c__tool"))
		if err != nil {
			break
		}
		keys = append(keys, key)
		w.turn(key, []string{"", "", "s"}[r.IntN(3)], false)
		if s.Agent == "main" {
			parent = key
		}
	}
	return w, keys
}

// TestPipelineIsAConjunction: a tool is allowed exactly when every present
// layer keeps it, and a denied tool is decided by the first layer that
// removes it; the tables agree with the slow path; inside each layer a
// matching deny entry always wins.
func TestPipelineIsAConjunction(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 300; n++ {
		w, keys := randomTree(t, r)
		e := w.policy.Effective.(*effective)
		for _, key := range keys {
			s := w.sessions[events.SessionKey(key)]
			var p pipeline
			e.resolve(w, s, &p, false)
			for _, t0 := range append(append([]string{}, e.cat.names...), "z__tool", "c__tool") {
				i, ok := e.inCatalogue(s, t0)
				if !ok {
					continue
				}
				first := -1
				for li, c := range p.layers {
					if c == nil {
						continue
					}
					slow := c.eval(-1, t0)
					if i >= 0 && c.v[i] != slow {
						t.Fatalf("%s layer %s tool %s: table %d, slow %d", key, layerNames[li], t0, c.v[i], slow)
					}
					for g := 0; g < c.nDeny; g++ {
						if c.deny[g].list.match(t0) >= 0 {
							if slow < 0 || int(slow>>entryBits) > g {
								t.Fatalf("%s layer %s: deny group %d matches %s but verdict is %d", key, layerNames[li], g, t0, slow)
							}
							break
						}
					}
					if slow != vKept && first < 0 {
						first = li
					}
				}
				li, _ := p.decide(i, t0)
				if li != first {
					t.Fatalf("%s tool %s: decided by %d, first removing layer %d", key, t0, li, first)
				}
			}
		}
	}
}

// TestChildNeverExceedsItsCeiling: a child's allowed set is within its
// envelope's ceiling, whatever the policy, the turn or a later revision.
func TestChildNeverExceedsItsCeiling(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for n := 0; n < 300; n++ {
		w, keys := randomTree(t, r)
		if r.IntN(2) == 0 {
			w.setPolicy(randomDoc(r, w.release), nil)
		}
		for _, key := range keys[1:] {
			s := w.sessions[events.SessionKey(key)]
			if s.Envelope.InheritedAllow == nil {
				continue
			}
			checked++
			for _, a := range w.tools(key).Allowed {
				if !contains(s.Envelope.InheritedAllow, a) {
					t.Fatalf("%s allows %s outside its ceiling %q", key, a, s.Envelope.InheritedAllow)
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d children with a ceiling were checked", checked)
	}
}

// TestSameInputsSameBytes: tool sets, verdicts and envelopes are the same
// bytes however often, and from however fresh a compilation, they are made.
func TestSameInputsSameBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 100; n++ {
		seed1, seed2 := r.Uint64(), r.Uint64()
		w1, keys := randomTree(t, rand.New(rand.NewPCG(seed1, seed2)))
		w2, _ := randomTree(t, rand.New(rand.NewPCG(seed1, seed2)))
		for _, key := range keys {
			s1, s2 := w1.sessions[events.SessionKey(key)], w2.sessions[events.SessionKey(key)]
			a, b := mustJSON(t, w1.d.Tools(w1, s1)), mustJSON(t, w2.d.Tools(w2, s2))
			if a != b || a != mustJSON(t, w1.d.Tools(w1, s1)) {
				t.Fatalf("%s: tool sets differ:\n%s\n%s", key, a, b)
			}
			for _, tool := range propCatalogue {
				if x, y := mustJSON(t, w1.d.Decide(w1, s1, tool, nil)), mustJSON(t, w2.d.Decide(w2, s2, tool, nil)); x != y {
					t.Fatalf("%s %s: verdicts differ:\n%s\n%s", key, tool, x, y)
				}
			}
			if s1.Envelope != nil && s1.Envelope.Hash != s2.Envelope.Hash {
				t.Fatalf("%s: envelope hashes differ", key)
			}
		}
	}
}

func mustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// TestDecideAgreesWithTools: Decide's verdict is the tool set's, reason
// included, for every tool.
func TestDecideAgreesWithTools(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for n := 0; n < 100; n++ {
		w, keys := randomTree(t, r)
		for _, key := range keys {
			s := w.sessions[events.SessionKey(key)]
			ts := w.d.Tools(w, s)
			for _, tool := range append(append([]string{}, ts.Allowed...), "z__tool", "nope") {
				dec, reason, ok := ts.Lookup(normalize(tool))
				v := w.d.Decide(w, s, tool, nil)
				// Every decision carries its reason, an allow included
				// (issue 15), with the rule or default and a record.
				if v.Reason.Code == "" || v.Reason.Rule == "" || v.Reason.Record == nil {
					t.Fatalf("%s %s: %s without a full reason: %+v", key, tool, v.Decision, v.Reason)
				}
				if !ok {
					if v.Reason.Code != codeCatalogueUnknown {
						t.Fatalf("%s %s: not in the set but %+v", key, tool, v)
					}
					continue
				}
				if v.Decision != dec || (reason != nil && mustJSON(t, *reason) != mustJSON(t, v.Reason)) {
					t.Fatalf("%s %s: Tools says %s %+v, Decide %+v", key, tool, dec, reason, v)
				}
			}
			for _, d := range ts.Denied {
				if v := w.d.Decide(w, s, d.Tool, nil); mustJSON(t, v.Reason) != mustJSON(t, d.Reason) {
					t.Fatalf("%s %s: reasons differ %+v vs %+v", key, d.Tool, v.Reason, d.Reason)
				}
			}
		}
	}
}

// TestDecideBriefIsDecide: DecideBrief's verdict (what the ledger records
// for a check) is Decide's without its trace, for every tool of random
// trees: in the set, denied, not in the catalogue, with a call's report
// of plugins and a malformed one.
func TestDecideBriefIsDecide(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	inputs := []json.RawMessage{nil, json.RawMessage(`{"path":"/"}`),
		json.RawMessage(`{"` + CallPluginKey + `":["p"]}`), json.RawMessage(`{"` + CallPluginKey + `":7}`)}
	for n := 0; n < 100; n++ {
		w, keys := randomTree(t, r)
		for _, key := range keys {
			s := w.sessions[events.SessionKey(key)]
			ts := w.d.Tools(w, s)
			tools := append(append([]string{}, ts.Allowed...), "z__tool", "nope", "EXEC")
			for _, d := range ts.Denied {
				tools = append(tools, d.Tool)
			}
			for _, tool := range tools {
				for _, in := range inputs {
					full, brief := w.d.Decide(w, s, tool, in), w.d.DecideBrief(w, s, tool, in)
					full.Trace = nil
					if mustJSON(t, full) != mustJSON(t, brief) {
						t.Fatalf("%s %s %s: Decide %s, DecideBrief %s", key, tool, in, mustJSON(t, full), mustJSON(t, brief))
					}
				}
			}
		}
	}
}
