package projection_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

func pol(typ, data string) string {
	return fmt.Sprintf(`{"type":%q,"v":1,"actor":"t","data":%s}`, typ, data)
}

func bothDialects() projection.Dialects {
	oc, cc := openclaw.New(), claudecode.New()
	return projection.Dialects{oc.Name(): oc, cc.Name(): cc}
}

func scopedLog(t *testing.T) []*events.Record {
	h := &harness{t: t, st: projection.New(bothDialects())}
	h.mustAppend(pol("policy.set", `{"dialect":"openclaw","document":{},"catalogue":["exec","read","write","sessions_spawn"]}`))
	h.mustAppend(pol("policy.set", `{"dialect":"claude-code","scope":"cc:a","document":{"permissions":{"allow":["Bash"]}},"catalogue":["Read","Bash","Agent","Write"]}`))
	h.mustAppend(pol("policy.set", `{"dialect":"openclaw","scope":"oc:b","document":{"tools":{"deny":["write"]}},"catalogue":["exec","read","write","sessions_spawn"]}`))
	h.mustAppend(ev("session.started", "d1", `{"agent":"main","user":"alice","project":"/p"}`))
	h.mustAppend(ev("session.started", "c1", `{"agent":"main","scope":"cc:a","user":"alice","project":"/p","runtime":"claude-code"}`))
	h.mustAppend(ev("session.started", "c2", `{"agent":"main","scope":"cc:a","user":"bob"}`))
	h.mustAppend(ev("session.started", "b1", `{"agent":"main","scope":"oc:b","user":"alice"}`))
	h.mustAppend(ev("session.started", "b2", `{"agent":"main","scope":"default"}`))
	for _, k := range []string{"d1", "c1", "c2", "b1", "b2"} {
		h.mustAppend(ev("turn.started", k, `{"turn":1}`))
	}
	h.mustAppend(ev("session.spawned", "c1:sub:1", `{"parent":"c1","agent":"general-purpose"}`))
	h.mustAppend(ev("turn.started", "c1:sub:1", `{"turn":1}`))
	h.mustAppend(ev("session.spawned", "agent:main:subagent:b1s", `{"parent":"b1","agent":"main"}`))
	h.mustAppend(ev("turn.started", "agent:main:subagent:b1s", `{"turn":1}`))
	h.mustAppend(ev("tool.checked", "c1", `{"turn":1,"tool":"Bash","call":"k1","input":"git push"}`))
	h.mustAppend(pol("deny.added", `{"scope":"cc:a","rule":"Bash(git push *)","user":"alice","note":"n1"}`))
	h.mustAppend(pol("deny.added", `{"scope":"cc:a","rule":"Write","session":"c1","subtree":true}`))
	h.mustAppend(pol("deny.added", `{"scope":"oc:b","rule":"exe*","project":"/nowhere"}`))
	h.mustAppend(pol("deny.added", `{"scope":"oc:b","rule":"read","user":"alice"}`))
	h.mustAppend(pol("deny.added", `{"rule":"exec","agent":"main"}`))
	h.mustAppend(ev("turn.started", "c1", `{"turn":2}`))
	h.mustAppend(ev("turn.started", "agent:main:subagent:b1s", `{"turn":2}`))
	h.mustAppend(ev("session.ended", "c2", `{"reason":"exit"}`))
	h.mustAppend(ev("session.ended", "d1", `{}`))
	h.mustAppend(ev("session.reopened", "d1", `{}`))
	h.mustAppend(ev("turn.started", "d1", `{"turn":2}`))
	h.mustAppend(pol("grant.added", `{"scope":"oc:b","kind":"also_allow","agent":"main","target":"main","tools":["write"]}`))
	h.mustAppend(pol("deny.lifted", `{"scope":"oc:b","rule":"read","user":"alice"}`))
	h.mustAppend(ev("turn.started", "b1", `{"turn":2}`))
	return h.log
}

func scopedAnswers(t *testing.T, s *projection.State) string {
	tools := []string{"exec", "read", "write", "Bash", "Write", "Read"}
	out := answers(t, s, tools)
	for _, k := range s.Keys() {
		sess := s.Session(k)
		j, _ := json.Marshal(sess)
		out += fmt.Sprintf("sess %s %s %s\n", k, s.ScopeOf(k), j)
		for _, in := range []string{`"git push x"`, `"ls"`} {
			v, err := s.Why(k, "Bash", json.RawMessage(in))
			j, _ := json.Marshal(v)
			out += fmt.Sprintf("whyin %s %s %s %v\n", k, in, j, err)
		}
		for turn := 1; turn <= sess.Turn; turn++ {
			tv, err := s.AtTurn(k, turn)
			if err == nil {
				j, _ := json.Marshal(tv.Why("Bash", json.RawMessage(`"git push x"`)))
				out += fmt.Sprintf("turnwhy %s %d %s %s\n", k, turn, tv.Scope(), j)
				j, _ = json.Marshal(tv.Why("read", nil))
				out += fmt.Sprintf("turnwhy2 %s %d %s\n", k, turn, j)
			}
		}
	}
	for _, sc := range s.Scopes() {
		j, _ := json.Marshal(s.PolicyOf(sc))
		out += fmt.Sprintf("scope %s %s\n", sc, j)
	}
	return out
}

// TestScopedStoreAnswersAlike: a state loaded from its store answers every
// query about a log of three scopes of both dialects (the default named
// and not, revocations by user, project, subtree, agent and glob, a lift,
// a grant, a root ended and reopened) as the state that folded it in
// memory does, whatever the commit cadence and whether it holds every
// session or one.
func TestScopedStoreAnswersAlike(t *testing.T) {
	recs := scopedLog(t)
	dialects := bothDialects()
	mem := projection.New(dialects)
	for i, r := range recs {
		if err := mem.Apply(projection.Input{Record: r}, uint64(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	want := scopedAnswers(t, mem)
	for _, every := range []int{1, 3, 7, 1000} {
		st := storeOf(t, dialects, recs, every)
		answersAlike(t, st, dialects, want, func(s *projection.State) string { return scopedAnswers(t, s) },
			fmt.Sprintf("committed every %d records, ", every))
		st.Close()
	}
}
