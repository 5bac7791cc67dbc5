package hostile

import (
	"fmt"
	"strings"
	"testing"
)

// TestIsolationProbes: what an orchestrator is answered about another
// orchestrator's session, or a record id another used, is what it is
// answered about a session or an id no one ever used, byte for byte once
// the key itself is set aside. Every event on a session, a spawn under it,
// every query and watch are probed; the cases name the key the probe uses.
func TestIsolationProbes(t *testing.T) {
	l := startAPI(t)
	put := func(subject, raw string) reply {
		t.Helper()
		r := l.request(t, subject, []byte(raw))
		if r.code != "" {
			t.Fatalf("%s %s: %s %s", subject, raw, r.code, r.message)
		}
		return r
	}
	put("ledger.v1.policy.alice", `{"type":"policy.set","v":1,"data":{"dialect":"openclaw","document":{},"catalogue":["read","exec","sessions_spawn"]}}`)
	// globex's tree: a root that yielded to a running child.
	const theirs, child = "agent:main:globex", "agent:main:subagent:globex-child"
	put("ledger.v1.append.globex", `{"type":"session.started","v":1,"session":"`+theirs+`","data":{"agent":"main"}}`)
	put("ledger.v1.append.globex", `{"type":"turn.started","v":1,"session":"`+theirs+`","data":{"turn":1}}`)
	put("ledger.v1.append.globex", `{"type":"session.spawned","v":1,"session":"`+child+`","data":{"parent":"`+theirs+`","agent":"main"}}`)
	put("ledger.v1.append.globex", `{"type":"session.yielded","v":1,"session":"`+theirs+`","data":{"children":["`+child+`"]}}`)
	const theirID = "01JD0000000000000000000001"
	put("ledger.v1.append.globex", `{"id":"`+theirID+`","type":"turn.started","v":1,"session":"`+child+`","data":{"turn":1}}`)
	// acme's own session, for the probes that need one.
	put("ledger.v1.append.acme", `{"type":"session.started","v":1,"session":"agent:main:acme","data":{"agent":"main"}}`)

	// The answers to acme about key, with key replaced by KEY.
	probes := func(key string, fresh int) []string {
		child := fmt.Sprintf("agent:main:subagent:probe-%s-%d", strings.ReplaceAll(key, ":", "-"), fresh)
		sessionEvents := []string{
			`{"type":"turn.started","v":1,"session":"KEY","data":{"turn":2}}`,
			`{"type":"session.yielded","v":1,"session":"KEY","data":{"children":[]}}`,
			`{"type":"session.resumed","v":1,"session":"KEY","data":{"handoff":"completion","from":["` + child + `"]}}`,
			`{"type":"session.completed","v":1,"session":"KEY","data":{"status":"ok"}}`,
			`{"type":"tool.checked","v":1,"session":"KEY","data":{"turn":1,"tool":"exec"}}`,
			`{"type":"tool.effect_started","v":1,"session":"KEY","data":{"turn":1,"tool":"exec","call":"c1"}}`,
			`{"type":"session.spawned","v":1,"session":"` + child + `","data":{"parent":"KEY","agent":"main"}}`,
			// acme's own session, naming KEY as a child.
			`{"type":"session.yielded","v":1,"session":"agent:main:acme","data":{"children":["KEY"]}}`,
			`{"type":"session.resumed","v":1,"session":"agent:main:acme","data":{"handoff":"completion","from":["KEY"]}}`,
			`{"type":"session.resumed","v":1,"session":"agent:main:acme","data":{"handoff":"settle_batch","batch":"b1","from":["KEY"]}}`,
		}
		var out []string
		norm := func(s string) string {
			s = strings.ReplaceAll(s, child, "CHILD")
			return strings.ReplaceAll(s, key, "KEY")
		}
		for _, ev := range sessionEvents {
			r := l.request(t, "ledger.v1.append.acme", []byte(strings.ReplaceAll(ev, "KEY", key)))
			out = append(out, norm(fmt.Sprintf("append %s: %s %q seq=%d", ev, r.code, r.message, r.seq)))
		}
		for _, q := range []string{
			`tools {"session":"KEY"}`, `check {"session":"KEY","tool":"exec"}`, `why {"session":"KEY","tool":"exec"}`,
			`session {"session":"KEY"}`, `tree {"session":"KEY"}`, `tools {"session":"KEY","turn":1}`,
			`watch {"session":"KEY"}`, `watch {"root":"KEY"}`,
		} {
			name, body, _ := strings.Cut(q, " ")
			r := l.request(t, "ledger.v1."+name+".acme", []byte(strings.ReplaceAll(body, "KEY", key)))
			out = append(out, norm(fmt.Sprintf("%s: %s %q %s", q, r.code, r.message, r.body)))
		}
		return out
	}
	got, want := probes(theirs, 1), probes("agent:main:nobody", 2)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("another's session and one that does not exist are answered differently:\n  another's: %s\n  none:      %s", got[i], want[i])
		}
	}
	if got2 := probes(child, 3); strings.Join(got2, "\n") != strings.Join(probes("agent:main:nobody-else", 4), "\n") {
		t.Errorf("another's child session is told apart from one that does not exist:\n%s", strings.Join(got2, "\n"))
	}

	// An id another owner's record carries is answered as a fresh id is:
	// accepted, with the id as sent; a re-send of it is acme's duplicate.
	const freshID = "01JD0000000000000000000002"
	first := l.request(t, "ledger.v1.append.acme", []byte(`{"id":"`+theirID+`","type":"turn.started","v":1,"session":"agent:main:acme","data":{"turn":1}}`))
	again := l.request(t, "ledger.v1.append.acme", []byte(`{"id":"`+theirID+`","type":"turn.started","v":1,"session":"agent:main:acme","data":{"turn":1}}`))
	fresh := l.request(t, "ledger.v1.append.acme", []byte(`{"id":"`+freshID+`","type":"turn.started","v":1,"session":"agent:main:acme","data":{"turn":2}}`))
	freshAgain := l.request(t, "ledger.v1.append.acme", []byte(`{"id":"`+freshID+`","type":"turn.started","v":1,"session":"agent:main:acme","data":{"turn":2}}`))
	if first.code != "" || first.dup || first.id != theirID {
		t.Errorf("acme's event with globex's id: %+v, want accepted as new with the id as sent", first)
	}
	if fresh.code != "" || fresh.dup || fresh.id != freshID {
		t.Errorf("acme's event with a fresh id: %+v", fresh)
	}
	if again.code != "" || !again.dup || again.seq != first.seq || again.id != theirID {
		t.Errorf("re-sent: %+v, want acme's own duplicate of %d", again, first.seq)
	}
	if freshAgain.code != "" || !freshAgain.dup || freshAgain.seq != fresh.seq {
		t.Errorf("fresh re-sent: %+v", freshAgain)
	}
	// globex's record is untouched, and acme's landed under its own id.
	recs := l.records(t, first.seq, first.seq)
	if recs[0].Actor != "acme" || recs[0].ID == theirID {
		t.Errorf("acme's record: actor %s id %s", recs[0].Actor, recs[0].ID)
	}
}
