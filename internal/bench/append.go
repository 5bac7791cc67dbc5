package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
)

// node is one embedded server with the ledger's stream, a raw stream for
// comparison, the service with a projection, and the API. A node that
// makes every write durable runs as 'ledger serve' does, under the log's
// group sync (natslog.GroupSync), and its raw stream is on a second
// embedded server, which fsyncs every write itself: the floors' "raw
// durable publish" is JetStream's own.
type node struct {
	ns    *server.Server
	nc    *nats.Conn
	sync  *natslog.GroupSync // the ledger's, under group sync
	rawNS *server.Server     // the raw stream's server, under group sync
	rawNC *nats.Conn
	log   *natslog.Log
	raw   jetstream.Stream
	js    jetstream.JetStream
	store *projection.Store
	svc   *service.Service
	srv   *api.Server
	stop  context.CancelFunc
}

func startNode(ctx context.Context, dir string, syncInterval time.Duration) (*node, error) {
	return startNodeWith(ctx, natslog.EmbeddedConfig{Dir: filepath.Join(dir, "nats"), SyncInterval: syncInterval}, dir)
}

// startNodeListening also accepts clients on TCP loopback.
func startNodeListening(ctx context.Context, dir string) (*node, error) {
	return startNodeWith(ctx, natslog.EmbeddedConfig{Dir: filepath.Join(dir, "nats"), Listen: "127.0.0.1:-1"}, dir)
}

func startNodeWith(ctx context.Context, ec natslog.EmbeddedConfig, dir string) (*node, error) {
	n := &node{}
	if ec.SyncInterval == 0 && runtime.GOOS == "linux" {
		// As 'ledger serve' runs its embedded server by default.
		if err := os.MkdirAll(ec.Dir, 0o755); err != nil {
			return nil, err
		}
		var err error
		if n.sync, err = natslog.OpenGroupSync(ec.Dir); err != nil {
			return nil, err
		}
		ec.GroupSync = true
	}
	ns, err := natslog.StartEmbedded(ec)
	if err != nil {
		n.close()
		return nil, err
	}
	n.ns = ns
	if n.nc, err = natslog.ConnectEmbedded(ns, "bench"); err != nil {
		n.close()
		return nil, err
	}
	if n.log, err = natslog.Open(ctx, n.nc, natslog.StreamConfig{Sync: n.sync}); err != nil {
		n.close()
		return nil, err
	}
	rawNC := n.nc
	if n.sync != nil {
		if n.rawNS, err = natslog.StartEmbedded(natslog.EmbeddedConfig{Dir: filepath.Join(dir, "raw-nats"), Listen: ec.Listen, Name: "bench-raw"}); err != nil {
			n.close()
			return nil, err
		}
		if n.rawNC, err = natslog.ConnectEmbedded(n.rawNS, "bench raw"); err != nil {
			n.close()
			return nil, err
		}
		rawNC = n.rawNC
	}
	n.js, _ = jetstream.New(rawNC)
	if n.raw, err = n.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: "RAW", Subjects: []string{"raw.>"}, Storage: jetstream.FileStorage}); err != nil {
		n.close()
		return nil, err
	}
	if n.store, err = projection.OpenStore(filepath.Join(dir, "projection.db"), projection.StoreOptions{}); err != nil {
		n.close()
		return nil, err
	}
	// As `ledger serve` does on a standalone server: pipelined rounds when
	// it does not fsync every write; when it does, atomic batches for
	// large rounds and single appends for small ones.
	scfg := service.Config{Log: n.log, Dialects: dialects.All(), Store: n.store, Pipeline: ec.SyncInterval > 0 || n.sync != nil}
	if ec.SyncInterval == 0 && n.sync == nil {
		scfg.BatchFrom = service.FsyncBatchFrom
	}
	if n.svc, err = service.Open(ctx, scfg); err != nil {
		n.close()
		return nil, err
	}
	actx, cancel := context.WithCancel(context.Background())
	n.stop = cancel
	if n.srv, err = api.Start(actx, n.nc, api.Config{Service: n.svc}); err != nil {
		n.close()
		return nil, err
	}
	return n, nil
}

func (n *node) close() {
	if n.stop != nil {
		n.stop()
	}
	if n.srv != nil {
		n.srv.Stop()
	}
	if n.store != nil {
		n.store.Close()
	}
	if n.nc != nil {
		n.nc.Close()
	}
	if n.ns != nil {
		n.ns.Shutdown()
		n.ns.WaitForShutdown()
	}
	if n.rawNC != nil {
		n.rawNC.Close()
	}
	if n.rawNS != nil {
		n.rawNS.Shutdown()
		n.rawNS.WaitForShutdown()
	}
	if n.sync != nil {
		_ = n.sync.Close()
	}
}

// rawURL is where the node's raw stream takes clients over TCP (the
// node's server unless it runs under group sync).
func (n *node) rawURL() string {
	if n.rawNS != nil {
		return n.rawNS.ClientURL()
	}
	return n.ns.ClientURL()
}

// checkEvent is a tool.checked of a session's turn 1: valid again and
// again, so a session can take any number of appends.
func checkEvent(session string, i int) []byte {
	b, _ := json.Marshal(map[string]any{"type": "tool.checked", "v": 1, "actor": "bench", "session": session,
		"data": map[string]any{"turn": 1, "tool": "read", "call": fmt.Sprintf("c%d", i)}})
	return b
}

func startSessions(ctx context.Context, svc *service.Service, keys []string) error {
	var evs [][]byte
	for _, k := range keys {
		evs = append(evs,
			[]byte(fmt.Sprintf(`{"type":"session.started","v":1,"actor":"bench","session":%q,"data":{"agent":"main"}}`, k)),
			[]byte(fmt.Sprintf(`{"type":"turn.started","v":1,"actor":"bench","session":%q,"data":{"turn":1}}`, k)))
	}
	for _, o := range svc.AppendMany(ctx, evs) {
		if o.Err != nil {
			return o.Err
		}
	}
	return nil
}

// recordBytes is a record as the ledger stores it, for the raw publishes.
func recordBytes(ctx context.Context, n *node) ([]byte, error) {
	recs, err := service.ReadRecords(ctx, n.log, n.svc.Position(), n.svc.Position())
	if err != nil || len(recs) == 0 {
		return nil, fmt.Errorf("no record to copy: %v", err)
	}
	return recs[0].Encode()
}

func appendBench(ctx context.Context, cfg *Config, rep *Report) error {
	lat, conc, per := 2000, 64, 300
	if cfg.Quick {
		lat, per = 300, 40
	}
	for _, mode := range []struct {
		name     string
		interval time.Duration
	}{{"fsync", 0}, {"interval", 2 * time.Minute}} {
		n, err := startNode(ctx, dir(cfg, "append-"+mode.name), mode.interval)
		if err != nil {
			return err
		}
		err = appendMode(ctx, cfg, rep, n, mode.name, lat, conc, per)
		n.close()
		if err != nil {
			return err
		}
	}
	return nil
}

func appendMode(ctx context.Context, cfg *Config, rep *Report, n *node, mode string, lat, conc, per int) error {
	if _, err := n.svc.Append(ctx, workload.Policy()); err != nil {
		return err
	}
	if err := startSessions(ctx, n.svc, []string{"agent:main:lat"}); err != nil {
		return err
	}
	// One session: each append waits for its answer.
	cfg.logf("bench: %s: %d single-session appends", mode, lat)
	ledger := make([]time.Duration, 0, lat)
	for i := 0; i < lat; i++ {
		// Built before the clock starts, as the raw publish's body is.
		ev := checkEvent("agent:main:lat", i)
		t0 := time.Now()
		if _, err := n.svc.Append(ctx, ev); err != nil {
			return err
		}
		ledger = append(ledger, time.Since(t0))
	}
	body, err := recordBytes(ctx, n)
	if err != nil {
		return err
	}
	raw := make([]time.Duration, 0, lat)
	for i := 0; i < lat; i++ {
		t0 := time.Now()
		if _, err := n.js.Publish(ctx, "raw.lat", body, jetstream.WithMsgID(fmt.Sprintf("lat-%d", i))); err != nil {
			return err
		}
		raw = append(raw, time.Since(t0))
	}
	p50l, p50r := quantile(ledger, 0.5), quantile(raw, 0.5)
	syncNote := ""
	if n.sync != nil {
		syncNote = "the ledger under group sync, as serve runs by default (its store synced once for the appends acknowledged by then); raw on an embedded server of its own that fsyncs every write"
	}
	row := ratioRow("append", mode+": one session, p50", p50l, p50r, "µs", "≤ 1.5x raw sync publish", func(r float64) bool { return r <= 1.5 })
	row.Note = syncNote
	rep.add(row)
	rep.add(ratioRow("append", mode+": one session, p99", quantile(ledger, 0.99), quantile(raw, 0.99), "µs", "", nil))

	// A few sessions at once, each waiting for its answer, against as
	// many raw publishers each waiting for its acknowledgement: rounds
	// too small to be worth an atomic batch.
	const few = 4
	cfg.logf("bench: %s: %d sessions x %d appends through the API", mode, few, per)
	ledgerRate, err := apiRate(ctx, n, "f", few, per)
	if err != nil {
		return err
	}
	rawRate, err := rawSyncRate(ctx, n, few, per, body)
	if err != nil {
		return err
	}
	row = ratioRow("append", fmt.Sprintf("%s: %d sessions, throughput", mode, few), ledgerRate, rawRate, "events/s", "", nil)
	row.Note = fmt.Sprintf("raw = %d publishers at once, each waiting for its acknowledgement; the ledger's %d writers through the API, one client", few, few)
	if syncNote != "" {
		row.Note += "; " + syncNote
	}
	rep.add(row)

	// 64 sessions at once through the API (the batcher groups them into
	// atomic batches) against raw async publishing of the same bytes.
	cfg.logf("bench: %s: %d sessions x %d appends through the API", mode, conc, per)
	if ledgerRate, err = apiRate(ctx, n, "c", conc, per); err != nil {
		return err
	}
	total := conc * per
	t0 := time.Now()
	for i := 0; i < total; i++ {
		for {
			_, err := n.js.PublishAsync(fmt.Sprintf("raw.s%d", i%conc), body, jetstream.WithMsgID(fmt.Sprintf("tp-%d", i)))
			if err == nil {
				break
			}
			select {
			case <-n.js.PublishAsyncComplete():
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	select {
	case <-n.js.PublishAsyncComplete():
	case <-time.After(2 * time.Minute):
		return fmt.Errorf("raw async publishes did not complete")
	}
	rawRate = float64(total) / time.Since(t0).Seconds()
	target, met := "≥ 0.5x raw async publish", func(r float64) bool { return r >= 0.5 }
	if mode == "fsync" {
		target, met = "≥ 2x raw async publish", func(r float64) bool { return r >= 2 }
	}
	row = ratioRow("append", mode+": 64 sessions, throughput", ledgerRate, rawRate, "events/s", target, met)
	row.Note = syncNote
	rep.add(row)
	return nil
}

// apiRate starts conc sessions (agent:main:<prefix><i>) and returns the
// events a second of per appends on each at once through the API, one
// client for all.
func apiRate(ctx context.Context, n *node, prefix string, conc, per int) (float64, error) {
	keys := make([]string, conc)
	for i := range keys {
		keys[i] = fmt.Sprintf("agent:main:%s%d", prefix, i)
	}
	if err := startSessions(ctx, n.svc, keys); err != nil {
		return 0, err
	}
	c := client.New(n.nc, client.Options{Owner: "bench", Timeout: 30 * time.Second})
	return concurrentRate(conc, per, func(g, i int) error {
		_, err := c.Append(ctx, client.Checked(events.SessionKey(keys[g]), events.CheckedData{Turn: 1, Tool: "read", Call: fmt.Sprintf("t%d", i)}))
		return err
	})
}

// rawSyncRate returns the events a second of conc raw publishers of body
// at once, per each, each waiting for its acknowledgement.
func rawSyncRate(ctx context.Context, n *node, conc, per int, body []byte) (float64, error) {
	return concurrentRate(conc, per, func(g, i int) error {
		_, err := n.js.Publish(ctx, fmt.Sprintf("raw.f%d", g), body, jetstream.WithMsgID(fmt.Sprintf("few-%d-%d", g, i)))
		return err
	})
}

// concurrentRate runs op(g, i) for i below per on conc goroutines g at
// once and returns the operations a second, or the first error (a
// goroutine stops at its own).
func concurrentRate(conc, per int, op func(g, i int) error) (float64, error) {
	var wg sync.WaitGroup
	errs := make(chan error, conc)
	t0 := time.Now()
	for g := range conc {
		wg.Go(func() {
			for i := 0; i < per; i++ {
				if err := op(g, i); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	rate := float64(conc*per) / time.Since(t0).Seconds()
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	return rate, nil
}
