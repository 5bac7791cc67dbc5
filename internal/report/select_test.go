package report_test

import (
	"slices"
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/report"
	"github.com/sessionledger/ledger/replay"
	"github.com/sessionledger/ledger/wire"
)

// scoped is a log with two scopes and two users.
var scoped = []string{
	`{"type":"policy.set","v":1,"actor":"ops","data":{"dialect":"openclaw","document":{},"catalogue":["read","exec","sessions_spawn"]}}`,
	`{"type":"policy.set","v":1,"actor":"ops","data":{"scope":"cc","dialect":"claude-code","document":{},"catalogue":["Read","Bash","Agent"]}}`,
	`{"type":"session.started","v":1,"session":"a","actor":"o","data":{"agent":"main","user":"alice","runtime":"openclaw"}}`,
	`{"type":"session.started","v":1,"session":"b","actor":"o","data":{"agent":"main","scope":"cc","user":"bob","project":"/p"}}`,
	`{"type":"session.started","v":1,"session":"c","actor":"o","data":{"agent":"main","scope":"cc","user":"alice"}}`,
	`{"type":"session.spawned","v":1,"session":"c:1","actor":"o","data":{"parent":"c","agent":"general-purpose"}}`,
	`{"type":"session.spawned","v":1,"session":"c:1:1","actor":"o","data":{"parent":"c:1","agent":"general-purpose"}}`,
	`{"type":"deny.added","v":1,"actor":"ops","data":{"scope":"cc","rule":"Bash"}}`,
	`{"type":"grant.added","v":1,"actor":"ops","data":{"kind":"also_allow","agent":"main","target":"main","tools":["exec"]}}`,
}

// TestSelection: a selection learnt from the records (what log does) and
// one read from the folded state (export, report) keep the same records.
func TestSelection(t *testing.T) {
	recs := ledger(t, scoped...)
	st, err := replay.Fold(dialects.All(), recs, 0)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		root   events.SessionKey
		filter wire.Filter
		want   []uint64
	}{
		{"everything", "", wire.Filter{}, []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"scope cc", "", wire.Filter{Scope: "cc"}, []uint64{2, 4, 5, 6, 7, 8}},
		{"scope default by name", "", wire.Filter{Scope: "default"}, []uint64{1, 3, 9}},
		{"user alice: both scopes", "", wire.Filter{User: "alice"}, []uint64{1, 2, 3, 5, 6, 7, 8, 9}},
		{"project /p", "", wire.Filter{Project: "/p"}, []uint64{2, 4, 8}},
		{"runtime openclaw", "", wire.Filter{Runtime: "openclaw"}, []uint64{1, 3, 9}},
		{"a root", "b", wire.Filter{}, []uint64{2, 4, 8}},
		{"a sub-agent's tree", "c:1", wire.Filter{}, []uint64{2, 6, 7, 8}},
		{"a sub-agent whose root does not pass", "c:1", wire.Filter{User: "bob"}, nil},
		{"a scope and nobody in it", "", wire.Filter{Scope: "cc", User: "carol"}, []uint64{2, 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			learnt := report.NewSelection(tt.root, tt.filter)
			for _, rec := range recs {
				learnt.Observe(rec)
			}
			read, err := report.SelectIn(st, tt.root, tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			var fromRecords, fromState []uint64
			for i, rec := range recs {
				if learnt.Keep(rec) {
					fromRecords = append(fromRecords, uint64(i)+1)
				}
				if rec.Type.IsPolicy() && read.Scope(report.PolicyScope(rec)) || !rec.Type.IsPolicy() && read.Session(rec.Session) {
					fromState = append(fromState, uint64(i)+1)
				}
			}
			if !slices.Equal(fromRecords, tt.want) || !slices.Equal(fromState, tt.want) {
				t.Errorf("kept %v learnt from the records, %v read from the state; want %v", fromRecords, fromState, tt.want)
			}
			if !slices.Equal(learnt.Tops(), read.Tops()) {
				t.Errorf("tops %v learnt, %v read", learnt.Tops(), read.Tops())
			}
		})
	}
}
