package ledgerpolicy

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// FuzzDecide: Decide never panics, never allows or asks for a tool outside
// the session's catalogue, and decides the same call the same way twice.
func FuzzDecide(f *testing.F) {
	for _, s := range []struct{ tool, input string }{
		{"Bash", `"git status && go test ./..."`},
		{"Bash", `{"command":"echo $(git push) | sh"}`},
		{"apply_patch", `{"command":"*** Begin Patch\n*** Update File: ../../x\n*** End Patch"}`},
		{"view_image", `{"path":"/repo/src/../../etc/passwd"}`},
		{"spawn_agent", `null`},
		{"mcp__fs__read", `{}`},
		{"Nope", `"x"`},
	} {
		f.Add(s.tool, s.input, "git *")
	}
	f.Fuzz(func(t *testing.T, tool, input, grant string) {
		var gs []events.GrantData
		if checkGrant(&events.GrantData{Kind: events.GrantPermission, Agent: "*", Target: "*", Behavior: "allow", Rule: "Bash(" + grant + ")"}) == nil {
			gs = append(gs, events.GrantData{Kind: events.GrantPermission, Agent: "*", Target: "*", Behavior: "allow", Rule: "Bash(" + grant + ")"})
		}
		w := newWorld(t, decideDoc, decideCat, gs...)
		if err := w.spawn(t, "c1", "root", "default"); err != nil {
			t.Fatal(err)
		}
		for _, k := range []events.SessionKey{"root", "c1"} {
			v := New().Decide(w, w.sessions[k], tool, json.RawMessage(input))
			if v.Decision != envelope.Deny && !slices.Contains(decideCat, tool) {
				t.Fatalf("%s: %s %q decided %s outside the catalogue", k, tool, input, v.Decision)
			}
			if v.Reason.Code == "" {
				t.Fatalf("%s: %s %q: no reason", k, tool, input)
			}
			a, _ := json.Marshal(v)
			b, _ := json.Marshal(New().Decide(w, w.sessions[k], tool, json.RawMessage(input)))
			if string(a) != string(b) {
				t.Fatalf("two decisions differ:\n%s\n%s", a, b)
			}
		}
	})
}

// FuzzCallReading: reading any text as a command, a path, a patch or URLs
// never panics, and a call that is known has units.
func FuzzCallReading(f *testing.F) {
	for _, s := range []string{"git status && ls", "see https://x.org/a, http://İ.com", "*** Update File: ../a\n", "$(", "/a/../../b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		in, _ := json.Marshal(text)
		for _, spec := range []toolSpec{codex0169.spec("Bash"), codex0169.spec("apply_patch"), gemini0610.spec("read_file"), gemini0610.spec("web_fetch")} {
			for _, project := range []string{"", "/repo"} {
				c := newCall(spec, in, project)
				if c.known && len(c.units) == 0 {
					t.Fatalf("%s %q: known with no units", spec.name, text)
				}
			}
		}
	})
}
