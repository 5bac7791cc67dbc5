package projection

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/workload"
)

// FuzzApplyPrepared is the proof of Prepared.Input's shortcut (the fold of
// a tool.checked takes what Prepare decided instead of decoding it from
// the record): records made from the workload's sessions and from checks,
// effects, turns, spawns, completions and policy changes the input picks
// are prepared on two states and folded into one from Prepared.Input,
// into the other from the record and its bytes (as a replay does). What
// Prepare decided must be what the record decodes to, both states must
// prepare every next record byte for byte alike, and their dumps must be
// identical.
//
// Prepared.Input carries as well the payload Prepare decoded, the subject
// and the hash of the bytes: each is compared with what the fold computes
// from the record (the states' dumps hold the rest). And a check is
// decided without its trace (decideBrief) as in full (decideIn).
func FuzzApplyPrepared(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 3, 1, 1, 0, 0, 17, 1, 17})
	f.Add([]byte{4, 0, 2, 0, 0, 0, 1, 0, 3, 2, 1, 0, 6, 0})
	f.Add([]byte{5, 0, 2, 32, 0, 32, 0, 33, 3, 4, 1, 32, 1, 33, 7, 0})
	f.Add([]byte{3, 31, 0, 5, 1, 5, 3, 0, 0, 6, 1, 6, 2, 1, 0, 1, 1, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 400 {
			ops = ops[:400]
		}
		oc := openclaw.New()
		fast, slow := New(Dialects{oc.Name(): oc}), New(Dialects{oc.Name(): oc})
		n := 0
		step := func(raw []byte) {
			t.Helper()
			n++
			ev, err := events.Parse(raw)
			if err != nil {
				return // not an event: nothing to append
			}
			ev.ID = fmt.Sprintf("01K%023d", n)
			at := fmt.Sprintf("2026-01-01T00:%02d:%02d.000Z", n/60%60, n%60)
			if d, err := ev.Payload(); err == nil {
				if c, ok := d.(*events.CheckedData); ok {
					if sess := fast.Session(ev.Session); sess != nil && fast.scopeOf(sess) != nil {
						sc := fast.scopeOf(sess)
						full := decideIn(&sc.world, sc.dialect, sc.policy, sess, c.Tool, c.Input)
						brief := decideBrief(&sc.world, sc.dialect, sc.policy, sess, c.Tool, c.Input)
						full.Trace = nil
						if !reflect.DeepEqual(full, brief) {
							t.Fatalf("%s: decided in full %+v, briefly %+v", raw, full, brief)
						}
					}
				}
			}
			p := fast.Prepare(ev, at)
			q := slow.Prepare(ev, at)
			if (p.Record == nil) != (q.Record == nil) || fmt.Sprint(p.Err) != fmt.Sprint(q.Err) {
				t.Fatalf("%s: the states prepare differently: %v %v", raw, p.Err, q.Err)
			}
			if p.Record == nil {
				return
			}
			b, err := p.Record.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if c, err := q.Record.Encode(); err != nil || !bytes.Equal(b, c) {
				t.Fatalf("%s: the states prepare different records:\n%s\n%s", raw, b, c)
			}
			if p.checked {
				want, err := orJSON(plainCheck, p.Record.Decided)
				if err != nil || !reflect.DeepEqual(want, &p.check) {
					t.Fatalf("record %s: Prepare decided %+v, the record decodes to %+v (%v)", p.Record.ID, p.check, want, err)
				}
				if want, err := decided[CheckDecided](p.Record.Decided); err != nil || !reflect.DeepEqual(want, &p.check) {
					t.Fatalf("record %s: Prepare decided %+v, encoding/json decodes the record to %+v (%v)", p.Record.ID, p.check, want, err)
				}
			}
			if p.payload != nil {
				want, err := p.Record.Event().Payload()
				if err != nil || !reflect.DeepEqual(want, p.payload) {
					t.Fatalf("record %s: Prepare decoded the payload %+v, the record decodes to %+v (%v)", p.Record.ID, p.payload, want, err)
				}
			}
			if want := events.SubjectIn(slow.recordScope(q.Record.Type, q.Record.Session, mustPayload(t, q.Record)), q.Record.Type, q.Record.Session); p.Subject != want {
				t.Fatalf("record %s: Prepare's subject is %q, the fold's %q", p.Record.ID, p.Subject, want)
			}
			in := p.Input(b)
			if in.Hash() != events.HashBytes(b) {
				t.Fatalf("record %s: Prepared.Input's hash %s is not the bytes' %s", p.Record.ID, in.Hash(), events.HashBytes(b))
			}
			seq := fast.Position() + 1
			errFast, errSlow := fast.Apply(p.Input(b), seq), slow.Apply(Input{Record: q.Record, Bytes: b}, seq)
			if errFast != nil || errSlow != nil {
				t.Fatalf("%s: folding: %v, %v", raw, errFast, errSlow)
			}
		}
		for _, raw := range workload.Sessions(2) {
			step(raw)
		}
		sessions := []string{"agent:main:w0", "agent:main:w1"}
		tools := []string{"read", "exec", "write", "browser", "gateway", "EXEC", "web_search", "nope", "message", "sessions_spawn"}
		inputs := []string{"", `,"input":"x"`, `,"input":{"path":"/"}`, `,"input":{"command":"rm -rf /","cwd":"<&>"}`, `,"input":{"z":1.50, "a":"\u0041"}`}
		deny := []string{"exec", "read", "write", "browser", "gateway"}
		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i]%8, int(ops[i+1])
			key := sessions[(arg>>5)%len(sessions)]
			turn := 0
			if sess := fast.Session(events.SessionKey(key)); sess != nil {
				turn = sess.Turn
			}
			tool, call, input := tools[arg%len(tools)], fmt.Sprintf("c%d", arg%4), inputs[(arg>>2)%len(inputs)]
			switch op {
			case 0:
				step(fmt.Appendf(nil, `{"type":"tool.checked","v":1,"actor":"f","session":%q,"data":{"turn":%d,"tool":%q,"call":%q%s}}`, key, turn, tool, call, input))
			case 1:
				step(fmt.Appendf(nil, `{"type":"tool.effect_started","v":1,"actor":"f","session":%q,"data":{"turn":%d,"tool":%q,"call":%q}}`, key, turn, tool, call))
			case 2:
				step(fmt.Appendf(nil, `{"type":"turn.started","v":1,"actor":"f","session":%q,"data":{"turn":%d}}`, key, turn+1))
			case 3:
				var d []string
				for j, t := range deny {
					if arg>>j&1 == 1 {
						d = append(d, t)
					}
				}
				doc, _ := json.Marshal(map[string]any{"tools": map[string]any{"deny": d},
					"agents": map[string]any{"list": []any{map[string]any{"id": "main", "subagents": map[string]any{"allowAgents": []string{"coder", "reviewer"}}},
						map[string]any{"id": "coder", "tools": map[string]any{"deny": deny[arg%len(deny):]}}}}})
				step(fmt.Appendf(nil, `{"type":"policy.set","v":1,"actor":"f","data":{"dialect":"openclaw","document":%s}}`, doc))
			case 4:
				child := fmt.Sprintf("agent:coder:subagent:f%d", len(sessions))
				step(fmt.Appendf(nil, `{"type":"session.spawned","v":1,"actor":"f","session":%q,"data":{"parent":%q,"agent":"coder"}}`, child, key))
				sessions = append(sessions, child)
			case 5:
				root := fmt.Sprintf("agent:main:f%d", len(sessions))
				step(fmt.Appendf(nil, `{"type":"session.started","v":1,"actor":"f","session":%q,"data":{"agent":"main"}}`, root))
				sessions = append(sessions, root)
			case 6:
				step(fmt.Appendf(nil, `{"type":"session.completed","v":1,"actor":"f","session":%q,"data":{"status":"ok"}}`, key))
			case 7:
				step(fmt.Appendf(nil, `{"type":"tool.checked","v":1,"actor":"f","session":%q,"data":{"turn":%d,"tool":%q%s}}`, key, turn+arg%3-1, tool, input))
			}
			if op == 0 && arg%5 == 0 {
				// The same check again, its data not in the canonical
				// form: the record's data are not the event's bytes.
				step(fmt.Appendf(nil, `{"type":"tool.checked","v":1,"actor":"f","session":%q,"data":{ "call":%q, "tool":%q, "turn":%d%s}}`, key, call+"x", tool, turn, input))
			}
		}
		a, err := fast.Dump()
		if err != nil {
			t.Fatal(err)
		}
		b, err := slow.Dump()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Fatalf("folded with what Prepare decided, the state differs from the one folded from the records:\n%s\n%s", a, b)
		}
	})
}

func mustPayload(t *testing.T, rec *events.Record) any {
	t.Helper()
	p, err := rec.Event().Payload()
	if err != nil {
		t.Fatal(err)
	}
	return p
}
