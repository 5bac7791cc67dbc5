package projection_test

import (
	"fmt"

	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// Prepare validates an event at the head and makes the record the ledger
// appends; Apply folds it. Queries read the folded state.
func ExampleState() {
	oc := openclaw.New()
	st := projection.New(projection.Dialects{oc.Name(): oc})
	seq := uint64(0)
	for i, raw := range []string{
		`{"type":"policy.set","v":1,"actor":"ops","data":{"dialect":"openclaw","document":{"tools":{"deny":["exec"]}},"catalogue":["read","exec"]}}`,
		`{"type":"session.started","v":1,"actor":"o","session":"agent:main:main","data":{"agent":"main"}}`,
		`{"type":"turn.started","v":1,"actor":"o","session":"agent:main:main","data":{"turn":1}}`,
	} {
		ev, _ := events.Parse([]byte(raw))
		ev.ID = fmt.Sprintf("01J%023d", i+1)
		p := st.Prepare(ev, "2026-01-01T00:00:00.000Z")
		seq++
		if err := st.Apply(projection.Input{Record: p.Record}, seq); err != nil {
			fmt.Println(err)
		}
	}
	v, _ := st.Check("agent:main:main", "Bash", nil)
	fmt.Println(v.Tool, v.Decision, v.Reason.Code)
	ts, _ := st.Tools("agent:main:main")
	fmt.Println(ts.Allowed)
	// Output:
	// exec deny global:deny
	// [read]
}
