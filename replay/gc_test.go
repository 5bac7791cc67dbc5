package replay_test

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/sessionledger/ledger/replay"
)

func TestTuneGC(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set in the environment, which TuneGC leaves alone")
	}
	before := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(before) })
	restore := replay.TuneGC()
	if got := debug.SetGCPercent(replay.RebuildGCPercent); got != replay.RebuildGCPercent {
		t.Errorf("GOGC during the rebuild is %d, want %d", got, replay.RebuildGCPercent)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC after restore is %d, want 100", got)
	}
}
