package projection_test

import (
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// TestRepeatedDenyWithNewNoteRefused (scopes review F4): a note is not
// part of a denial's identity, so a second deny.added of a denial in force
// changes nothing and its note would be shown nowhere. The same note
// again lands (a retried command); another note is refused, naming the
// one in force and its record. A log that already holds such a record
// folds as recorded: the first note stays the one shown.
func TestRepeatedDenyWithNewNoteRefused(t *testing.T) {
	head := []string{
		pol("policy.set", `{"dialect":"openclaw","document":{},"catalogue":["exec","read"]}`),
		ev("session.started", "r1", `{"agent":"main"}`),
		ev("turn.started", "r1", `{"turn":1}`),
		pol("deny.added", `{"rule":"exec","note":"INC-1"}`),
	}
	again := pol("deny.added", `{"rule":"exec","note":"INC-2"}`)
	h := &harness{t: t, st: projection.New(bothDialects())}
	for _, raw := range head {
		h.mustAppend(raw)
	}
	h.mustAppend(pol("deny.added", `{"rule":"exec","note":"INC-1"}`))
	_, err := h.append(again)
	if events.CodeOf(err) != events.CodeInvalidEvent || !strings.Contains(err.Error(), `"INC-1" (record 4)`) {
		t.Fatalf("a second deny.added with another note: %v, want invalid_event naming \"INC-1\" (record 4)", err)
	}
	h.mustAppend(pol("deny.added", `{"rule":"exec","session":"r1","note":"INC-2"}`)) // another identity
	h.mustAppend(pol("deny.lifted", `{"rule":"exec","note":"whatever"}`))            // lifting reads no note

	// An old log: the record as an earlier writer accepted it.
	old := &harness{t: t, st: projection.New(bothDialects())}
	for _, raw := range head[:3] {
		old.mustAppend(raw)
	}
	old.mustAppend(again)
	rec := old.log[len(old.log)-1]
	st := projection.New(bothDialects())
	for i, r := range append(h.log[:4:4], rec) {
		if err := st.Apply(projection.Input{Record: r}, uint64(i+1)); err != nil {
			t.Fatalf("fold record %d (%s): %v", i+1, r.Type, err)
		}
	}
	v, err := st.Check("r1", "exec", nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.Decision != envelope.Deny || !strings.Contains(v.Reason.Rule, "(INC-1)") || v.Reason.Record.Seq != 4 {
		t.Errorf("the old log's check: %s %q record %d, want deny with the note INC-1 of record 4", v.Decision, v.Reason.Rule, v.Reason.Record.Seq)
	}
}
