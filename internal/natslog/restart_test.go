package natslog_test

import (
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/bench"
)

var (
	restartSubjects = flag.Int("restart.subjects", 20_000, "TestRestartAfterKill: distinct subjects to write (1100000 is the size that matters)")
	restartRoll     = flag.Int("restart.roll", 8_000, "TestRestartAfterKill: the rolled log's segment size (0: natslog.DefaultRollSubjects)")
	restartWait     = flag.Duration("restart.wait", -1, "TestRestartAfterKill: how long to wait for the servers' periodic index write before the kill (negative: not at all)")
)

type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// TestRestartAfterKill measures a server restart after SIGKILL with the
// log in one stream and rolled (bench.SubjectsRestart; the server runs in
// a child process). The default size only proves the measurement works:
//
//	go test ./internal/natslog -run TestRestartAfterKill -v -timeout 30m \
//		-restart.subjects 1100000 -restart.roll 0 -restart.wait 3m
func TestRestartAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers in child processes")
	}
	start := time.Now()
	rows, err := bench.SubjectsRestart(t.Context(), bench.SubjectsConfig{Dir: t.TempDir(), Subjects: *restartSubjects,
		RollSubjects: *restartRoll, IndexWait: *restartWait, Log: logWriter{t}})
	for _, r := range rows {
		t.Logf("%-100s %12.2f %-9s %s", r.Name, r.Ledger, r.Unit, r.Note)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("took %s", time.Since(start).Round(time.Second))
}
