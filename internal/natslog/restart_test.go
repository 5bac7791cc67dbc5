package natslog_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/bench"
)

var (
	restartSubjects = flag.Int("restart.subjects", 20_000, "TestRestartAfterKill: distinct subjects to write (1100000 is the size that matters)")
	restartRoll     = flag.Int("restart.roll", 8_000, "TestRestartAfterKill: the rolled log's segment size (0: natslog.DefaultRollSubjects)")
	restartWait     = flag.Duration("restart.wait", -1, "TestRestartAfterKill: how long to wait for the servers' periodic index write before the kill (negative: not at all)")
)

// TestMain makes this test binary, run as 'natslog.test --serve-nats SPEC',
// one of TestRestartAfterKill's server processes (bench.ServeNATS), as
// 'ledger bench --serve-nats SPEC' is for 'ledger bench'.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == bench.ServeNATSArg {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		err := bench.ServeNATS(ctx, os.Args[2])
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

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
		RollSubjects: *restartRoll, IndexWait: *restartWait, Log: logWriter{t}, Server: []string{os.Args[0], bench.ServeNATSArg}})
	for _, r := range rows {
		t.Logf("%-100s %12.2f %-9s %s", r.Name, r.Ledger, r.Unit, r.Note)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("took %s", time.Since(start).Round(time.Second))
}
