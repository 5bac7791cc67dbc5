package openclaw

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
)

// FuzzCompile: parsing a policy document never panics; a document that
// compiles compiles again to an equal document, re-encodes to one that
// compiles equally, and can be resolved for a session.
func FuzzCompile(f *testing.F) {
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"tools":{"profile":"coding","deny":["group:runtime"],"byProvider":{"openai":{"allow":["read"]}}}}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		c, err := New().Compile(json.RawMessage(doc), nil)
		if err != nil {
			if events.CodeOf(err) != events.CodeInvalidPolicy {
				t.Fatalf("error without invalid_policy: %v", err)
			}
			return
		}
		again, err := New().Compile(json.RawMessage(doc), nil)
		if err != nil || !reflect.DeepEqual(c, again) {
			t.Fatalf("compiling twice differs: %v", err)
		}
		roundTrip(t, doc)
		// The compiled document resolves without panicking.
		w := &world{tb: t, d: New(), sessions: map[events.SessionKey]*envelope.Session{}}
		w.policy = &envelope.PolicyState{Dialect: Name, Revision: envelope.RecordRef{Seq: 1, Type: events.PolicySet},
			Compiled: c, Catalogue: []string{"read", "exec", "write", "apply_patch", "skills_read", "tool_call", "a__b", "browser"}}
		w.refresh()
		w.start("agent:main:main", events.StartedData{Agent: "main", Provider: "openai", Model: "gpt", Channel: "c", Group: "g", Sender: "s"})
		w.turn("agent:main:main", "", false)
		ts := w.tools("agent:main:main")
		if len(ts.Allowed)+len(ts.Denied) != 8 {
			t.Fatalf("tool set %+v", ts)
		}
		if _, err := w.trySpawn("agent:main:subagent:x", "agent:main:main", "main"); err == nil {
			w.tools("agent:main:subagent:x")
		}
	})
}

// FuzzMatch: matching never panics; normalize is idempotent; the compiled
// list agrees with entry-by-entry matching, table and slow path alike; a
// glob agrees with a naive matcher.
func FuzzMatch(f *testing.F) {
	f.Add("web_*", "web_fetch")
	f.Add("tool_*", "dispatch_action")
	f.Add("group:plugins", "outlook__send_mail")
	f.Add(" BASH ", "exec")
	f.Fuzz(func(t *testing.T, entry, tool string) {
		n := normalize(entry)
		if normalize(n) != n {
			t.Fatalf("normalize(%q) = %q is not idempotent", entry, n)
		}
		tn := normalize(tool)
		if normalize(tn) != tn {
			t.Fatalf("normalize(%q) = %q is not idempotent", tool, tn)
		}
		p := classify(n)
		want := p.matches(tn)
		cat := newCatalogue([]string{tool, "read", "dispatch_action"})
		l := compileList("x", []string{"zz_literal", entry, "read"}, nil, nil, cat)
		if n == "" {
			return
		}
		gotSlow := l.match(tn)
		if (gotSlow >= 0) != (want || tn == "zz_literal" || tn == "read") {
			t.Fatalf("list match(%q) = %d, entry %q matches = %v", tn, gotSlow, n, want)
		}
		if tn != "" {
			if i, ok := cat.index[tn]; ok && l.hit(i, tn) != gotSlow {
				t.Fatalf("table and slow path differ for %q: %d vs %d", tn, l.hit(i, tn), gotSlow)
			}
		}
		if p.kind == kGlob && len(n) <= 12 && len(tn) <= 24 {
			if globMatch(n, tn) != naiveGlob(n, tn) {
				t.Fatalf("globMatch(%q, %q) disagrees with the naive matcher", n, tn)
			}
		}
	})
}
