package projection_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// countingToy is the toy dialect counting the tool sets it resolves, for
// every scope of a state at once.
type countingToy struct {
	toy
	sets *atomic.Int64
}

func (c countingToy) Tools(w envelope.World, s *envelope.Session) envelope.ToolSet {
	c.sets.Add(1)
	return c.toy.Tools(w, s)
}

// TestScopeChangeTouchesOneScope: a policy.set, grant or revocation of one
// scope resolves no tool set of another scope's sessions again, however
// many scopes there are: the cost of a change does not grow with the
// number of scopes. Each scope's sessions keep answering from their
// cached sets; the changed scope's are resolved again at their next query.
func TestScopeChangeTouchesOneScope(t *testing.T) {
	for _, scopes := range []int{2, 200} {
		t.Run(fmt.Sprint(scopes, " scopes"), func(t *testing.T) {
			sets := new(atomic.Int64)
			h := newHarness(t)
			h.st = projection.New(projection.Dialects{"toy": countingToy{sets: sets}})
			for i := range scopes {
				h.mustAppend(fmt.Sprintf(`{"type":"policy.set","v":1,"actor":"ops","data":{"scope":"s%d","dialect":"toy","document":{"deny":[]},"catalogue":["read","exec"]}}`, i))
				h.mustAppend(fmt.Sprintf(`{"type":"session.started","v":1,"actor":"o","session":"k%d","data":{"agent":"main","scope":"s%d"}}`, i, i))
			}
			for i := range scopes {
				if _, err := h.st.Tools(events.SessionKey(fmt.Sprint("k", i))); err != nil {
					t.Fatal(err)
				}
			}
			for _, change := range []string{
				`{"type":"policy.set","v":1,"actor":"ops","data":{"scope":"s0","dialect":"toy","document":{"deny":["exec"]}}}`,
				`{"type":"grant.added","v":1,"actor":"ops","data":{"scope":"s0","kind":"also_allow","agent":"main","target":"main","tools":["read"]}}`,
				`{"type":"deny.added","v":1,"actor":"ops","data":{"scope":"s0","rule":"read"}}`,
			} {
				h.mustAppend(change)
				before := sets.Load()
				for i := range scopes {
					if _, err := h.st.Tools(events.SessionKey(fmt.Sprint("k", i))); err != nil {
						t.Fatal(err)
					}
				}
				if got := sets.Load() - before; got != 1 {
					t.Fatalf("after %s, asking every session's tool set resolved %d sets; want 1 (the changed scope's one session)", change, got)
				}
			}
			ts, _ := h.st.Tools("k0")
			if len(ts.Allowed) != 0 {
				t.Errorf("s0's session: %+v, want read revoked and exec denied", ts)
			}
			ts, _ = h.st.Tools("k1")
			if len(ts.Allowed) != 2 {
				t.Errorf("s1's session: %+v, want read and exec", ts)
			}
		})
	}
}
