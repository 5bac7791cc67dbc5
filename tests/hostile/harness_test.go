package hostile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/wire"
)

// reqTimeout bounds one API request. Refusals answer in milliseconds; the
// bound only keeps a hung service from hanging the suite.
const reqTimeout = 10 * time.Second

// apiLedger is a ledger served over NATS: an embedded server, the stream, a
// service with a bbolt projection, and the micro service; nc is a client
// connection and log reads the stream for the head and the records.
type apiLedger struct {
	log *natslog.Log
	nc  *nats.Conn
	// alive fails the test when a served ledger process has exited.
	alive func(t *testing.T)
}

// startAPI starts the ledger's API. Without the race detector it runs
// in-process: natslog.StartEmbedded in a temp dir, natslog.Open,
// service.Open with dialects.All() and api.Start on a server connection.
// With the race detector the same wiring runs in a `ledger serve`
// subprocess reached over TCP: in-process, internal/api answers refused
// appends from its batching goroutine with micro.Request.Error while the
// micro handler goroutine reads the request's error for its stats (a data
// race in the product, reported by -race on almost every run), which would
// fail whichever case happened to be running.
func startAPI(t *testing.T) *apiLedger {
	t.Helper()
	if raceEnabled {
		return startServe(t)
	}
	return startInProcess(t)
}

func startInProcess(t *testing.T) *apiLedger {
	t.Helper()
	l, _ := startInProcessWith(t, api.Config{MaxWait: 300 * time.Millisecond}, "hostile-client")
	return l
}

// startInProcessWith runs the ledger in process with cfg (its Service is
// filled in), connects a client named client, and returns it with the
// embedded server, for tests that connect more clients.
func startInProcessWith(t *testing.T, cfg api.Config, client string) (*apiLedger, *server.Server) {
	t.Helper()
	dir := t.TempDir()
	ns, err := natslog.StartEmbedded(natslog.EmbeddedConfig{Dir: filepath.Join(dir, "nats")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	snc, err := natslog.ConnectEmbedded(ns, "ledger")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(snc.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	log, err := natslog.Open(ctx, snc, natslog.StreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	store, err := projection.OpenStore(filepath.Join(dir, "projection.db"), projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	svc, err := service.Open(ctx, service.Config{Log: log, Store: store, Dialects: dialects.All()})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Service = svc
	srv, err := api.Start(ctx, snc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	// The service's subscriptions must reach the server before a client
	// asks.
	if err := snc.Flush(); err != nil {
		t.Fatal(err)
	}
	nc, err := natslog.ConnectEmbedded(ns, client)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return &apiLedger{log: log, nc: nc, alive: func(*testing.T) {}}, ns
}

// startServe runs `ledger serve` on a fresh data directory with a client
// port and connects to it.
func startServe(t *testing.T) *apiLedger {
	t.Helper()
	url, alive, stderr := serveProcess(t, "--name", "hostile")
	nc, err := nats.Connect(url, nats.Name("hostile-client"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	// The stream exists before the API is registered; wait for the API.
	var last error
	defer func() {
		if last != nil && t.Failed() {
			t.Logf("the last request: %v; the ledger's stderr: %s", last, stderr.String())
		}
	}()
	ledgertest.WaitFor(t, 30*time.Second, "the ledger API answering", func() bool {
		_, last = nc.Request("ledger.v1.tree.all", []byte(`{}`), time.Second)
		return last == nil
	})
	log, err := natslog.Open(context.Background(), nc, natslog.StreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return &apiLedger{log: log, nc: nc, alive: alive}
}

// serveProcess runs `ledger serve` on a fresh data directory with a client
// port on loopback, the given flags after the common ones, and returns the
// client URL, a check that it still runs, and its stderr. It is stopped
// with SIGTERM (killed after 10 s) when the test ends.
func serveProcess(t *testing.T, flags ...string) (string, func(*testing.T), *lockedBuffer) {
	t.Helper()
	bin, err := ledgerBinary()
	if err != nil {
		t.Fatalf("building ledger: %v", err)
	}
	args := append([]string{"serve", "--data", t.TempDir(), "--listen", "127.0.0.1:-1",
		"--max-wait", "300ms", "--log-level", "error"}, flags...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "LEDGER_DATA=", "NATS_URL=", "NATS_USER=", "NATS_PASSWORD=")
	var stdout lockedBuffer
	stderr := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	// serve prints its client address once the stream is open.
	var url string
	defer func() {
		if url == "" && t.Failed() {
			t.Logf("the ledger's stderr: %s", stderr.String())
		}
	}()
	ledgertest.WaitFor(t, 30*time.Second, "ledger serve printing its client address", func() bool {
		select {
		case <-exited:
			t.Fatal("ledger serve exited")
		default:
		}
		url = clientURL.FindString(stdout.String())
		return url != ""
	})
	alive := func(t *testing.T) {
		t.Helper()
		select {
		case <-exited:
			t.Fatalf("ledger serve stopped: %s", stderr.String())
		default:
		}
	}
	return url, alive, stderr
}

// clientURL finds the client address `ledger serve` prints.
var clientURL = regexp.MustCompile(`nats://127\.0\.0\.1:[0-9]+`)

// lockedBuffer is a bytes.Buffer safe for a writer and a reader.
type lockedBuffer = ledgertest.Buffer

func (l *apiLedger) head(t *testing.T) uint64 {
	t.Helper()
	h, err := l.log.Head(context.Background())
	if err != nil {
		t.Fatalf("head: %v", err)
	}
	return h
}

// records returns the records from sequence from to to, decoded.
func (l *apiLedger) records(t *testing.T, from, to uint64) []*events.Record {
	t.Helper()
	if to < from {
		return nil
	}
	raws, err := l.log.Read(context.Background(), from, to)
	if err != nil {
		t.Fatalf("reading %d-%d: %v", from, to, err)
	}
	var recs []*events.Record
	for _, b := range raws {
		r, err := events.DecodeRecord(b)
		if err != nil {
			t.Fatalf("record does not decode: %v", err)
		}
		recs = append(recs, r)
	}
	return recs
}

// reply is an API answer: an error code and message from the service
// error headers (checked against the body), or an append result.
type reply struct {
	code    events.Code
	message string
	seq     uint64
	id      string
	dup     bool
	body    []byte
}

func (l *apiLedger) request(t *testing.T, subject string, body []byte) reply {
	t.Helper()
	msg, err := l.nc.Request(subject, body, reqTimeout)
	if err != nil {
		l.alive(t)
		t.Fatalf("request on %s: %v (the service stopped answering?)", subject, err)
	}
	return decodeReply(t, msg)
}

func decodeReply(t *testing.T, msg *nats.Msg) reply {
	t.Helper()
	r := reply{body: msg.Data}
	if code := msg.Header.Get("Nats-Service-Error-Code"); code != "" {
		r.code, r.message = events.Code(code), msg.Header.Get("Nats-Service-Error")
		var eb wire.ErrorBody
		if err := json.Unmarshal(msg.Data, &eb); err != nil {
			t.Errorf("error body does not decode: %v: %q", err, msg.Data)
		} else if eb.Code != r.code || eb.Message != r.message {
			t.Errorf("error body %+v does not match the headers (%s, %q)", eb, r.code, r.message)
		}
		r.seq = eb.Seq
		return r
	}
	var ar wire.AppendResult
	if err := json.Unmarshal(msg.Data, &ar); err == nil {
		r.seq, r.id, r.dup = ar.Seq, ar.ID, ar.Duplicate
	}
	return r
}

// ledgerBinary is the ledger command, built once for every test that runs
// it (ledgertest.Main removes it).
func ledgerBinary() (string, error) { return ledgertest.Binary() }

func TestMain(m *testing.M) {
	os.Exit(ledgertest.Main(m))
}

// cliResult is one `ledger` run.
type cliResult struct {
	stdout, stderr string
	exit           int
}

func runLedger(t *testing.T, args ...string) cliResult {
	t.Helper()
	bin, err := ledgerBinary()
	if err != nil {
		t.Fatalf("building ledger: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "LEDGER_DATA=", "NATS_URL=")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	res := cliResult{stdout: out.String(), stderr: errOut.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("ledger %s: %v", strings.Join(args, " "), err)
	}
	if strings.Contains(res.stderr, "panic") || strings.Contains(res.stderr, "goroutine ") {
		t.Fatalf("ledger %s panicked:\n%s", args[0], res.stderr)
	}
	return res
}

// cliLine is one result line of `ledger append --json`.
type cliLine struct {
	Line      int         `json:"line"`
	Error     events.Code `json:"error"`
	Message   string      `json:"message"`
	Seq       uint64      `json:"seq"`
	ID        string      `json:"id"`
	Duplicate bool        `json:"duplicate"`
}

// appendFile runs `ledger append --json` on lines written to a file and
// returns the results by file line.
func appendFile(t *testing.T, data string, lines []string) (map[int]cliLine, cliResult) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runLedger(t, "append", "--data", data, "--json", file)
	out := map[int]cliLine{}
	sc := bufio.NewScanner(strings.NewReader(res.stdout))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var l cliLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("append output line does not decode: %v: %q", err, sc.Text())
		}
		if _, seen := out[l.Line]; seen {
			t.Fatalf("append printed line %d twice", l.Line)
		}
		out[l.Line] = l
	}
	return out, res
}

// cliLog returns the records `ledger log --json` prints.
func cliLog(t *testing.T, data string) []*events.Record {
	t.Helper()
	res := runLedger(t, "log", "--data", data, "--json")
	if res.exit != 0 {
		t.Fatalf("ledger log: exit %d: %s", res.exit, res.stderr)
	}
	var recs []*events.Record
	sc := bufio.NewScanner(strings.NewReader(res.stdout))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		r, err := events.DecodeRecord(sc.Bytes())
		if err != nil {
			t.Fatalf("logged record does not decode: %v", err)
		}
		recs = append(recs, r)
	}
	return recs
}
