package replay_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
)

// TestTurnViewsAgreeWithReplay: what the projection stored for every turn
// of every conformance scenario (read back without a replay) equals what a
// fold up to that turn's start answers, for the tool set and for every
// tool's decision and trace.
func TestTurnViewsAgreeWithReplay(t *testing.T) {
	compared := 0
	defer func() {
		if compared < 100 {
			t.Errorf("only %d turns compared", compared)
		}
	}()
	for _, path := range conformanceFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			svc, log := runScenario(t, path)
			recs, err := service.ReadRecords(t.Context(), log, 1, svc.Position())
			if err != nil {
				t.Fatal(err)
			}
			err = svc.View(t.Context(), "", projection.Position{}, func(head *projection.State) error {
				for _, key := range head.Keys() {
					for turn := 1; turn <= head.Session(key).Turn; turn++ {
						tv, err := head.AtTurn(key, turn)
						if err != nil {
							t.Fatal(err)
						}
						past, err := replay.Fold(dialects.All(), recs, tv.Position())
						if err != nil {
							t.Fatal(err)
						}
						compareTurn(t, key, turn, tv, past)
						compared++
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func compareTurn(t *testing.T, key events.SessionKey, turn int, tv *projection.TurnView, past *projection.State) {
	t.Helper()
	want, err := past.Tools(key)
	if err != nil {
		t.Fatal(err)
	}
	got := tv.Tools()
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(want)
	if string(a) != string(b) {
		t.Errorf("%s turn %d: stored tool set %s, replay %s", key, turn, a, b)
	}
	tools := append([]string{}, want.Allowed...)
	for _, d := range want.Denied {
		tools = append(tools, d.Tool)
	}
	for _, tool := range tools {
		for _, input := range []json.RawMessage{nil, json.RawMessage(`"ls"`)} {
			w, _ := past.Why(key, tool, input)
			g := tv.Why(tool, input)
			x, _ := json.Marshal(g)
			y, _ := json.Marshal(w)
			if string(x) != string(y) {
				t.Errorf("%s turn %d %s: stored view %s, replay %s", key, turn, tool, x, y)
			}
		}
	}
}
