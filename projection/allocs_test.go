package projection_test

import (
	"fmt"
	"testing"

	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// The allocation guards of the fold and the decision (issue 28, point 5:
// CPU per event). Allocation counts are deterministic, unlike times: a
// change that adds allocations to every record fails here. The bounds are
// what docs/bench.md, "CPU per event", measured, with a margin of about
// 10%; lower them when the counts go down. The race detector's build (CI
// runs the tests with -race) has bounds of its own, measured the same way
// (fold 26.1 to 26.3, decide 45 to 48; 26.6 to 26.8 and 66 to 68 before
// the second pass).

// TestFoldAllocs: a replay's fold of the workload log (policy, root
// sessions that spawn two children each, turns, checks, effects,
// completions, resumes), each record decoded from its stored bytes as
// replay.Rebuild does. Measured: 18.7 allocations a record (20.2 before
// the first pass of issue 28, point 5, 19.2 after it).
func TestFoldAllocs(t *testing.T) {
	_, raw := workloadRecords(t, 100)
	oc := openclaw.New()
	n := testing.AllocsPerRun(3, func() {
		st := projection.New(projection.Dialects{oc.Name(): oc})
		for i, b := range raw {
			rec, err := events.DecodeRecord(b)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Apply(projection.Decode(rec, b), uint64(i+1)); err != nil {
				t.Fatal(err)
			}
		}
	})
	perRecord := n / float64(len(raw))
	t.Logf("fold: %.1f allocations a record (%d records)", perRecord, len(raw))
	bound := 20.5
	if raceEnabled {
		bound = 29.0
	}
	if perRecord > bound {
		t.Errorf("the fold makes %.1f allocations a record, more than %v", perRecord, bound)
	}
}

// TestDecideAllocs: the append path's own work for a tool.checked with an
// input that starts its effect, as the service does it: parse, decide at
// the head (Prepare), encode the record, fold what Prepare decided.
// Measured: 25 allocations an event (48 before the first pass of issue
// 28, point 5, 44 after it, 26 before checks were made many at a time,
// overlay.newCheck): the openclaw dialect decides the check in
// full (the input may hold a call report, so the warm tool set does not
// answer it) but without its trace (DecideBrief), and the decided object
// is written by hand.
func TestDecideAllocs(t *testing.T) {
	st, key := benchState(&testing.B{})
	raws := make([][]byte, 200)
	for i := range raws {
		raws[i] = fmt.Appendf(nil, `{"type":"tool.checked","v":1,"actor":"bench","session":%q,"data":{"turn":1,"tool":"read","call":"c%d","input":{"path":"/tmp/f%d"},"effect":true}}`, key, i, i)
	}
	i := 0
	n := testing.AllocsPerRun(len(raws)-1, func() {
		ev, err := events.Parse(raws[i])
		if err != nil {
			t.Fatal(err)
		}
		i++
		ev.ID = fmt.Sprintf("01K%023d", i)
		p := st.Prepare(ev, "2026-01-01T00:00:00.000Z")
		if p.Err != nil || p.Record == nil {
			t.Fatalf("prepare: %v", p.Err)
		}
		b, err := p.Record.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Apply(p.Input(b), st.Position()+1); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("decide: %.1f allocations an event", n)
	bound := 27.5
	if raceEnabled {
		bound = 52.0
	}
	if n > bound {
		t.Errorf("parse, decide, encode and fold make %.1f allocations an event, more than %v", n, bound)
	}
}
