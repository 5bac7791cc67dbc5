package bench

// SubjectsRestart measures what a hard kill costs a server whose log holds
// more than a million distinct subjects, with the log in one stream and
// rolled into segments (docs/rolling-streams.md). The server runs in a
// child process so that it can be killed for real: SubjectsRestart starts
// SubjectsConfig.Server, a command that calls ServeNATS (the ledger's is
// 'ledger bench --serve-nats SPEC'), which runs a bare embedded server
// (the ledger's own configuration, fsync on every write). Nothing happens
// at init: a binary that links this package is a server only when its
// main says so (tests/arch's TestBenchHasNoInit).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/natslog"
)

// SubjectsConfig says how many subjects to write and where.
type SubjectsConfig struct {
	// Dir holds the two servers' stores (Dir/one-stream, Dir/rolled).
	Dir string
	// Subjects is how many distinct subjects to write, one record each;
	// 0 means 1,100,000.
	Subjects int
	// RollSubjects is the rolled log's segment size; 0 means
	// natslog.DefaultRollSubjects.
	RollSubjects int
	// IndexWait bounds the wait before the kill, as on a server that has
	// run a while: for the records written to leave the de-duplication
	// window (2 minutes) and for the server's periodic index write (every
	// 2 to 2.5 minutes) of the segments below the filestore's threshold.
	// 0 means 3 minutes; negative does not wait.
	IndexWait time.Duration
	// Log, when set, is told what is being measured.
	Log io.Writer
	// Server is the command line of a server process: run with a spec as
	// one more argument, it must call ServeNATS with it. Required.
	Server []string
}

// highCardinality is nats-server's highCardinalityThreshold: past it a
// stream's index.db is written only on a clean shutdown.
const highCardinality = 1_000_000

func (c *SubjectsConfig) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format+"\n", args...)
	}
}

// SubjectsRestart writes cfg.Subjects distinct subjects in the ledger's
// record shape through natslog (atomic batches of 1000), once into one
// stream and once into a log that rolls, kills each server with SIGKILL
// and measures the restart on the same store until the log answers (Head,
// and its last record read back), then does the same after a clean stop.
// It reports the time and the server's peak resident set.
func SubjectsRestart(ctx context.Context, cfg SubjectsConfig) ([]Row, error) {
	if cfg.Subjects == 0 {
		cfg.Subjects = 1_100_000
	}
	if cfg.RollSubjects == 0 {
		cfg.RollSubjects = natslog.DefaultRollSubjects
	}
	if cfg.IndexWait == 0 {
		cfg.IndexWait = 3 * time.Minute
	}
	if len(cfg.Server) == 0 {
		return nil, errors.New("bench: subjects: no server command")
	}
	if cfg.Subjects < 2*natslog.MaxBatch {
		return nil, fmt.Errorf("bench: subjects: write at least %d subjects (two batches), not %d", 2*natslog.MaxBatch, cfg.Subjects)
	}
	var rows []Row
	for _, v := range []struct {
		name string
		roll int
	}{{"one-stream", -1}, {"rolled", cfg.RollSubjects}} {
		r, err := subjectsRun(ctx, &cfg, v.name, v.roll)
		rows = append(rows, r...)
		if err != nil {
			return rows, fmt.Errorf("bench: subjects, %s: %w", v.name, err)
		}
	}
	return rows, nil
}

func subjectsRun(ctx context.Context, cfg *SubjectsConfig, name string, roll int) ([]Row, error) {
	dir := filepath.Join(cfg.Dir, name)
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	srv, err := startServerProcess(ctx, cfg.Server, dir)
	if err != nil {
		return nil, err
	}
	defer func() { srv.kill() }() // the server running at the end
	if _, err := srv.ready(ctx); err != nil {
		return nil, err
	}
	nc, err := nats.Connect(srv.url)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	log, err := natslog.Open(ctx, nc, natslog.StreamConfig{RollSubjects: roll})
	if err != nil {
		return nil, err
	}
	// All but the last batch, then a wait as if the server had run a
	// while, then the last batch: the live segment's index is then stale,
	// as on a server that takes writes when it dies.
	n := cfg.Subjects
	t0 := time.Now()
	if err := writeSubjects(ctx, log, 0, n-1000); err != nil {
		return nil, err
	}
	wrote := time.Since(t0)
	cfg.logf("bench: subjects: %s: %d subjects in %s", name, n-1000, wrote.Round(time.Millisecond))
	waited, err := waitBeforeKill(ctx, cfg, dir, log, time.Now())
	if err != nil {
		return nil, err
	}
	if err := writeSubjects(ctx, log, n-1000, n); err != nil {
		return nil, err
	}
	head, err := log.Head(ctx)
	if err != nil {
		return nil, err
	}
	last, err := log.Read(ctx, head, head)
	if err != nil || len(last) != 1 {
		return nil, fmt.Errorf("reading the last record: %v", err)
	}
	segs, err := log.Segments(ctx)
	if err != nil {
		return nil, err
	}
	nc.Close()
	shape := formatCount(n) + " subjects in one stream"
	if roll > 0 {
		shape = fmt.Sprintf("%s subjects in %d segments of ≤ %s", formatCount(n), len(segs), formatCount(roll))
	}
	note := fmt.Sprintf("stopped %s after the bulk write", waited.Round(time.Second))
	rows := []Row{absRow("subjects", fmt.Sprintf("write %s (batches of 1000)", shape), float64(n-1000)/wrote.Seconds(), "records/s", "", nil)}
	if hwm, err := vmHWM(srv.cmd.Process.Pid); err == nil {
		rows = append(rows, absRow("subjects", fmt.Sprintf("server peak RSS while writing %s", shape), hwm, "MB", "", nil))
	}
	for _, stop := range []struct {
		how string
		sig os.Signal
	}{{"SIGKILL", syscall.SIGKILL}, {"clean stop", syscall.SIGTERM}} {
		if err := srv.stop(stop.sig); err != nil {
			return rows, err
		}
		if srv, err = restartServerProcess(ctx, srv); err != nil {
			return rows, err
		}
		t, err := srv.answers(ctx, natslog.StreamConfig{RollSubjects: roll}, head, last[0])
		if err != nil {
			return rows, err
		}
		cfg.logf("bench: subjects: %s: restart after %s: JetStream in %s, the log answers in %s", name, stop.how, t.js.Round(time.Millisecond), t.log.Round(time.Millisecond))
		rows = append(rows,
			absRow("subjects", fmt.Sprintf("restart after %s, %s: JetStream answers", stop.how, shape), t.js.Seconds(), "s", "", nil),
			absRow("subjects", fmt.Sprintf("restart after %s, %s: the log answers (head, last record)", stop.how, shape), t.log.Seconds(), "s", "", nil))
		rows[len(rows)-1].Note = note
		if hwm, err := vmHWM(srv.cmd.Process.Pid); err == nil {
			rows = append(rows, absRow("subjects", fmt.Sprintf("server peak RSS restarting after %s, %s", stop.how, shape), hwm, "MB", "", nil))
		}
	}
	return rows, srv.stop(syscall.SIGTERM)
}

// writeSubjects appends records for subjects from..to-1, each a session's
// start, in atomic batches of 1000.
func writeSubjects(ctx context.Context, log *natslog.Log, from, to int) error {
	head, err := log.Head(ctx)
	if err != nil {
		return err
	}
	const decided = `{"envelope":{"agent":"main","delegated":null,"depth":0,"hash":"sha256:b1297bacf1a3514190b59db8d62095ad3700fce347f4e93df1126abcb28140da","inherited_allow":null,"inherited_deny":["gateway"],"requester":"","revision":1,"role":"main","source":"config"},"facts":{"role":"main"}}`
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	batch := make([]events.Message, 0, natslog.MaxBatch)
	for i := from; i < to; {
		batch = batch[:0]
		for ; i < to && len(batch) < natslog.MaxBatch; i++ {
			at := clock.Add(time.Duration(i) * time.Millisecond)
			rec := events.Record{ID: events.NewID(at, nil), Type: events.SessionStarted, V: events.Version, Time: events.FormatTime(at),
				Session: events.SessionKey(fmt.Sprintf("agent:main:b%07d", i)), Actor: "bench",
				Data: json.RawMessage(`{"agent":"main"}`), Decided: json.RawMessage(decided)}
			b, err := rec.Encode()
			if err != nil {
				return err
			}
			batch = append(batch, events.Message{Subject: events.Subject(rec.Type, rec.Session), ID: rec.ID, Data: b})
		}
		first, err := log.AppendBatch(ctx, batch, head)
		if err != nil {
			return err
		}
		head = first + uint64(len(batch)) - 1
	}
	return nil
}

// waitBeforeKill waits, at most cfg.IndexWait, as a server that has run a
// while would have: until the records written since are older than the
// de-duplication window (a restart reloads the ids of that window's
// records, every one of them right after a bulk write), and until every
// segment below the filestore's threshold has written its index.db since.
// It returns how long it waited.
func waitBeforeKill(ctx context.Context, cfg *SubjectsConfig, dir string, log *natslog.Log, since time.Time) (time.Duration, error) {
	if cfg.IndexWait < 0 {
		return 0, nil
	}
	t0 := time.Now()
	deadline := since.Add(cfg.IndexWait)
	if err := sleepCtx(ctx, min(time.Until(since.Add(dedupWindow+5*time.Second)), time.Until(deadline))); err != nil {
		return 0, err
	}
	segs, err := log.Segments(ctx)
	if err != nil {
		return 0, err
	}
	for _, s := range segs {
		if s.Subjects > highCardinality {
			continue
		}
		path := filepath.Join(dir, "nats", "jetstream", "$G", "streams", s.Name, "msgs", "index.db")
		for {
			if fi, err := os.Stat(path); err == nil && fi.ModTime().After(since) {
				break
			}
			if time.Now().After(deadline) {
				cfg.logf("bench: subjects: no fresh index.db for %s after %s", s.Name, cfg.IndexWait)
				break
			}
			if err := sleepCtx(ctx, time.Second); err != nil {
				return 0, err
			}
		}
	}
	return time.Since(t0), nil
}

// dedupWindow is the stream's de-duplication window (natslog's default).
const dedupWindow = 2 * time.Minute

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ServeNATSArg is the argument with which 'ledger bench' runs ServeNATS
// on the spec that follows it: SubjectsRestart's server processes.
const ServeNATSArg = "--serve-nats"

type serverSpec struct {
	Dir    string `json:"dir"`
	Listen string `json:"listen"`
}

// ServeNATS runs the embedded server spec describes (JSON, as
// SubjectsRestart passes it) until ctx ends, then shuts it down.
func ServeNATS(ctx context.Context, spec string) error {
	var s serverSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		return fmt.Errorf("bench server: %w", err)
	}
	ns, err := natslog.StartEmbedded(natslog.EmbeddedConfig{Dir: s.Dir, Listen: s.Listen, ReadyTimeout: time.Hour})
	if err != nil {
		return fmt.Errorf("bench server: %w", err)
	}
	<-ctx.Done()
	ns.Shutdown()
	ns.WaitForShutdown()
	return nil
}

// serverProcess is the embedded server in a child process.
type serverProcess struct {
	argv    []string
	spec    serverSpec
	url     string
	cmd     *exec.Cmd
	started time.Time
	exited  chan error
}

func startServerProcess(ctx context.Context, argv []string, dir string) (*serverProcess, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	return restartServerProcess(ctx, &serverProcess{argv: argv, spec: serverSpec{Dir: filepath.Join(dir, "nats"), Listen: addr}, url: "nats://" + addr})
}

// restartServerProcess starts a server like p (p must have exited).
func restartServerProcess(ctx context.Context, p *serverProcess) (*serverProcess, error) {
	spec, _ := json.Marshal(p.spec)
	cmd := exec.CommandContext(ctx, p.argv[0], append(p.argv[1:len(p.argv):len(p.argv)], string(spec))...)
	cmd.Stderr = os.Stderr
	q := &serverProcess{argv: p.argv, spec: p.spec, url: p.url, cmd: cmd, started: time.Now(), exited: make(chan error, 1)}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { q.exited <- cmd.Wait() }()
	return q, nil
}

// stop signals the server and waits for it to exit.
func (p *serverProcess) stop(sig os.Signal) error {
	if err := p.cmd.Process.Signal(sig); err != nil {
		return err
	}
	select {
	case <-p.exited:
		return nil
	case <-time.After(5 * time.Minute):
		p.kill()
		return fmt.Errorf("the server did not stop in 5 minutes after %s", sig)
	}
}

func (p *serverProcess) kill() {
	_ = p.cmd.Process.Kill()
}

type restartTimes struct{ js, log time.Duration }

// ready waits until the server takes clients and JetStream answers, and
// returns how long that took from the process start.
func (p *serverProcess) ready(ctx context.Context) (time.Duration, error) {
	for {
		select {
		case err := <-p.exited:
			return 0, fmt.Errorf("the server exited: %v", err)
		default:
		}
		nc, err := nats.Connect(p.url, nats.Timeout(time.Second))
		if err == nil {
			js, _ := jetstream.New(nc)
			actx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_, err = js.AccountInfo(actx)
			cancel()
			nc.Close()
			if err == nil {
				return time.Since(p.started), nil
			}
		}
		if err := sleepCtx(ctx, 10*time.Millisecond); err != nil {
			return 0, err
		}
	}
}

// answers waits until JetStream is ready and the log answers with the head
// and last record it had, and returns both times from the process start.
func (p *serverProcess) answers(ctx context.Context, cfg natslog.StreamConfig, head uint64, last []byte) (restartTimes, error) {
	var t restartTimes
	var err error
	if t.js, err = p.ready(ctx); err != nil {
		return t, err
	}
	nc, err := nats.Connect(p.url)
	if err != nil {
		return t, err
	}
	defer nc.Close()
	log, err := natslog.Open(ctx, nc, cfg)
	if err != nil {
		return t, err
	}
	got, err := log.Head(ctx)
	if err != nil || got != head {
		return t, fmt.Errorf("head after the restart: %d, want %d (%v)", got, head, err)
	}
	recs, err := log.Read(ctx, head, head)
	if err != nil || len(recs) != 1 || string(recs[0]) != string(last) {
		return t, errors.Join(errors.New("the last record did not read back after the restart"), err)
	}
	t.log = time.Since(p.started)
	return t, nil
}

// formatCount prints n with thousands separators.
func formatCount(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
