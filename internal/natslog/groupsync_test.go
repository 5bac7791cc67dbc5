package natslog_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/internal/natslog"
)

// TestGroupSyncWaitsForALaterSync: Sync(after) returns only once a sync
// numbered above after has ended; a caller that came while a sync ran
// waits for the next one, which begins when that one ends.
func TestGroupSyncWaitsForALaterSync(t *testing.T) {
	gate := make(chan struct{})
	var began atomic.Int64
	g := natslog.NewGroupSync(func([]string) error { began.Add(1); <-gate; return nil }, nil)
	ctx := t.Context()

	first := make(chan error, 1)
	go func() { first <- g.Sync(ctx, g.Started(), "s") }()
	ledgertest.WaitFor(t, 10*time.Second, "the first sync to begin", func() bool { return began.Load() == 1 })
	// A record acknowledged now: the sync running began before it.
	after := g.Started()
	second := make(chan error, 1)
	go func() { second <- g.Sync(ctx, after, "s") }()
	gate <- struct{}{} // the first sync ends
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	ledgertest.WaitFor(t, 10*time.Second, "the second sync to begin", func() bool { return began.Load() == 2 })
	select {
	case err := <-second:
		t.Fatalf("returned %v on a sync begun before its record", err)
	case <-time.After(50 * time.Millisecond):
	}
	gate <- struct{}{}
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	// Nothing acknowledged since: no sync needed.
	if err := g.Sync(ctx, after, "s"); err != nil || g.Count() != 2 {
		t.Fatalf("err %v, %d syncs", err, g.Count())
	}
}

// TestGroupSyncCoalesces: callers that come while a sync runs share the
// next one, whatever their number.
func TestGroupSyncCoalesces(t *testing.T) {
	gate := make(chan struct{})
	var began atomic.Int64
	g := natslog.NewGroupSync(func([]string) error { began.Add(1); <-gate; return nil }, nil)
	ctx := t.Context()
	go func() { _ = g.Sync(ctx, g.Started(), "s") }()
	ledgertest.WaitFor(t, 10*time.Second, "the first sync to begin", func() bool { return began.Load() == 1 })
	after := g.Started()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 64 {
		wg.Go(func() { errs <- g.Sync(ctx, after, "s") })
	}
	time.Sleep(20 * time.Millisecond)
	close(gate) // every sync from now on ends at once
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := g.Count(); n != 2 {
		t.Fatalf("%d syncs for one running and 64 callers that came during it; want 2", n)
	}
}

// TestGroupSyncErrorSticks: a failed sync fails its callers, the ones
// waiting for the next, and every later Sync; a caller whose context ends
// gives up without breaking the rest.
func TestGroupSyncErrorSticks(t *testing.T) {
	boom := errors.New("EIO")
	gate := make(chan struct{})
	calls := 0
	g := natslog.NewGroupSync(func([]string) error {
		calls++
		<-gate
		if calls == 2 {
			return boom
		}
		return nil
	}, nil)
	ctx := t.Context()
	go func() { _ = g.Sync(ctx, 0, "s") }()
	ledgertest.WaitFor(t, 10*time.Second, "the first sync to begin", func() bool { return g.Started() == 1 })
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := g.Sync(cctx, 1, "s"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a caller whose context ended: %v", err)
	}
	next := make(chan error, 2)
	go func() { next <- g.Sync(ctx, 1, "s") }()
	go func() { next <- g.Sync(ctx, 1, "s") }()
	time.Sleep(20 * time.Millisecond)
	gate <- struct{}{} // the first ends well
	gate <- struct{}{} // the second fails
	for range 2 {
		if err := <-next; !errors.Is(err, boom) {
			t.Fatalf("waiting for the failed sync: %v", err)
		}
	}
	if err := g.Sync(ctx, 0, "s"); !errors.Is(err, boom) {
		t.Fatalf("after the failure, even for a record an earlier sync covered: %v", err)
	}
}

// TestGroupSyncWithinBound: SyncWithin bounds the wait for a sync another
// caller runs, with its own error (not the context's), and leaves that
// sync to end for its waiters; a caller that runs the sync itself waits
// for its end whatever the bound, as nothing cuts an fsync short.
func TestGroupSyncWithinBound(t *testing.T) {
	gate := make(chan struct{})
	var began atomic.Int64
	g := natslog.NewGroupSync(func([]string) error { began.Add(1); <-gate; return nil }, nil)
	ctx := t.Context()
	own := make(chan error, 1)
	go func() { own <- g.SyncWithin(ctx, g.Started(), "s", time.Millisecond) }()
	ledgertest.WaitFor(t, 10*time.Second, "the first sync to begin", func() bool { return began.Load() == 1 })
	// A record acknowledged before the running sync began: it waits for it.
	err := g.SyncWithin(ctx, 0, "s", 20*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "did not end within 20ms") || ctx.Err() != nil {
		t.Fatalf("waiting past the bound: %v", err)
	}
	select {
	case err := <-own:
		t.Fatalf("the caller running the sync returned %v before it ended", err)
	case <-time.After(20 * time.Millisecond):
	}
	close(gate)
	if err := <-own; err != nil {
		t.Fatal(err)
	}
	if err := g.SyncWithin(ctx, 0, "s", time.Nanosecond); err != nil || g.Count() != 1 {
		t.Fatalf("covered already: err %v, %d syncs", err, g.Count())
	}
}

// TestOpenGroupSync: the real sync of a store's file system.
func TestOpenGroupSync(t *testing.T) {
	g := realGroupSync(t, t.TempDir())
	if err := g.Sync(t.Context(), g.Started(), ""); err != nil || g.Count() != 1 {
		t.Fatalf("err %v, %d syncs", err, g.Count())
	}
	if _, err := natslog.OpenGroupSync(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("a store that is not there opened")
	}
}

// TestGroupSyncAppends: on a server that does not fsync (GroupSync), every
// way of appending answers a record only after a sync that began once the
// stream held it: Append, AppendAsync, AppendBatch, AppendBatchStream, and
// a re-sent id through each single path. A failed sync fails the append
// that waits for it and every later one. This holds for every writer of
// the server: the log opened with the GroupSync, another process's log
// over TCP (ledger append --nats against serve --listen), and a log in the
// process opened without Sync; the last two are answered through the
// first's syncs (GroupSyncSubject).
func TestGroupSyncAppends(t *testing.T) {
	for _, writer := range []string{"the log with the sync", "another process's log over TCP", "a log in the process without Sync"} {
		t.Run(writer, func(t *testing.T) { groupSyncAppends(t, writer) })
	}
}

func groupSyncAppends(t *testing.T, writer string) {
	dir := filepath.Join(t.TempDir(), "nats")
	ns := embeddedFor(t, natslog.EmbeddedConfig{Dir: dir, GroupSync: true, Listen: "127.0.0.1:-1"})
	nc := connectFor(t, ns)
	ctx := t.Context()
	js, _ := jetstream.New(nc)

	// The fake sync notes the stream's last sequence when it begins.
	var mu sync.Mutex
	var covered uint64
	var fail atomic.Bool
	g := natslog.NewGroupSync(func([]string) error {
		s, err := js.Stream(context.Background(), "LEDGER")
		if err == nil {
			var info *jetstream.StreamInfo
			if info, err = s.Info(context.Background()); err == nil {
				mu.Lock()
				covered = max(covered, info.State.LastSeq)
				mu.Unlock()
			}
		}
		if fail.Load() {
			return errors.New("EIO")
		}
		return err
	}, nil)
	log, err := natslog.Open(ctx, nc, natslog.StreamConfig{Sync: g})
	if err != nil {
		t.Fatal(err)
	}
	switch writer {
	case "another process's log over TCP":
		rnc := dialFor(t, ns)
		if log, err = natslog.Open(ctx, rnc, natslog.StreamConfig{}); err != nil {
			t.Fatal(err)
		}
	case "a log in the process without Sync":
		if log, err = natslog.Open(ctx, nc, natslog.StreamConfig{}); err != nil {
			t.Fatal(err)
		}
	}
	durable := func(what string, seq uint64) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		if seq == 0 || covered < seq {
			t.Fatalf("%s: answered %d, the syncs covered up to %d", what, seq, covered)
		}
	}
	id := func(i int) string { return fmt.Sprintf("01J000000000000000000%05d", i) }
	data := []byte(`{"r":1}`)

	seq, err := log.Append(ctx, "ledger.policy", id(1), data, 0)
	if err != nil {
		t.Fatal(err)
	}
	durable("Append", seq)
	// A record whose id a writer sent past the log (so no sync followed
	// it): the log's append of the same id answers it, once durable.
	rawSend := func(i int, expected uint64) {
		t.Helper()
		m := nats.NewMsg("ledger.policy")
		m.Data = data
		m.Header.Set(jetstream.MsgIDHeader, id(i))
		if _, err := js.PublishMsg(ctx, m, jetstream.WithExpectLastSequence(expected)); err != nil {
			t.Fatal(err)
		}
	}
	rawSend(2, 1)
	if seq, err = log.Append(ctx, "ledger.policy", id(2), data, 2); !isLanded(err) {
		t.Fatalf("re-sent id: %d %v", seq, err)
	}
	durable("Append, re-sent", seq)

	head := uint64(2)
	var waits []func() (uint64, error)
	for i := 3; i <= 33; i++ {
		w, err := log.AppendAsync(ctx, "ledger.policy", id(i), data, "", head, "")
		if err != nil {
			t.Fatal(err)
		}
		waits = append(waits, w)
		head++
	}
	for _, w := range waits {
		seq, err := w()
		if err != nil {
			t.Fatal(err)
		}
		durable("AppendAsync", seq)
	}
	rawSend(34, head)
	head++
	w, err := log.AppendAsync(ctx, "ledger.policy", id(34), data, "", head, "")
	if err != nil {
		t.Fatal(err)
	}
	if seq, err := w(); !isLanded(err) {
		t.Fatalf("AppendAsync, re-sent id: %d %v", seq, err)
	} else {
		durable("AppendAsync, re-sent", seq)
	}

	var batch []events.Message
	for i := 35; i < 45; i++ {
		batch = append(batch, events.Message{Subject: "ledger.policy", ID: id(i), Data: data})
	}
	first, err := log.AppendBatch(ctx, batch, head)
	if err != nil {
		t.Fatal(err)
	}
	head += uint64(len(batch))
	durable("AppendBatch", head)
	if first != head-uint64(len(batch))+1 {
		t.Fatalf("batch's first %d", first)
	}
	first, n, err := log.AppendBatchStream(ctx, head, func(add func(events.Message)) error {
		for i := 45; i < 51; i++ {
			add(events.Message{Subject: "ledger.policy", ID: id(i), Data: data})
		}
		return nil
	})
	if err != nil || n != 6 || first != head+1 {
		t.Fatal(first, n, err)
	}
	head += 6
	durable("AppendBatchStream", head)

	syncs := g.Count()
	if syncs == 0 || syncs > 48 {
		t.Fatalf("%d syncs for 48 appends", syncs)
	}
	fail.Store(true)
	if _, err := log.Append(ctx, "ledger.policy", id(60), data, head); err == nil {
		t.Fatal("an append answered after its sync failed")
	}
	fail.Store(false)
	if _, err := log.Append(ctx, "ledger.policy", id(61), data, head+1); err == nil || !strings.Contains(err.Error(), "restart the ledger") {
		t.Fatalf("an append after a failed sync: %v", err)
	}
}

func isLanded(err error) bool {
	var al *events.AlreadyLanded
	return errors.As(err, &al)
}

// TestGroupSyncAcrossRolls: under the real group sync (OpenGroupSync), a
// log that rolls to new segments goes on appending, each segment synced by
// its own blocks after a first sync of the whole store, and reads back one
// sequence.
func TestGroupSyncAcrossRolls(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nats")
	ns := embeddedFor(t, natslog.EmbeddedConfig{Dir: dir, GroupSync: true})
	g := realGroupSync(t, dir)
	nc := connectFor(t, ns)
	log, err := natslog.Open(t.Context(), nc, natslog.StreamConfig{RollSubjects: 20, Sync: g})
	if err != nil {
		t.Fatal(err)
	}
	const n = 90
	appendN(t, log, 0, n)
	if segs := segments(t, log); len(segs) < 3 {
		t.Fatalf("%d segments; want the log rolled at least twice", len(segs))
	}
	if c := g.Count(); c < n {
		t.Fatalf("%d syncs for %d appends made one at a time", c, n)
	}
	checkChain(t, log)
}

// TestGroupSyncUnanswered: a writer of a server started for group sync
// that no log with the GroupSync answers (its ledger is starting, or not
// there) is answered an error, never an append: the record may be in the
// log and not on disk. Sent again once the ledger answers, the same id is
// answered with its record. A writer that asks while the ledger starts is
// answered once it does. On a server that fsyncs every write itself a
// writer asks nothing (no one would answer).
func TestGroupSyncUnanswered(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "nats")
	ns := embeddedFor(t, natslog.EmbeddedConfig{Dir: dir, GroupSync: true, Listen: "127.0.0.1:-1"})
	if !strings.HasSuffix(ns.Name(), natslog.GroupSyncNameSuffix) {
		t.Fatalf("the server's name %q does not say it is started for group sync", ns.Name())
	}
	rnc := dialFor(t, ns)
	remote, err := natslog.Open(ctx, rnc, natslog.StreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	remote.Timeout = 300 * time.Millisecond
	id := func(i int) string { return fmt.Sprintf("01J000000000000000000%05d", i) }
	data := []byte(`{"r":1}`)
	_, err = remote.Append(ctx, "ledger.policy", id(1), data, 0)
	if err == nil || !strings.Contains(err.Error(), "group sync") || !strings.Contains(err.Error(), "same id") {
		t.Fatalf("an append no ledger made durable: %v", err)
	}
	w, err := remote.AppendAsync(ctx, "ledger.policy", id(2), data, "", 1, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w(); err == nil || !strings.Contains(err.Error(), "group sync") {
		t.Fatalf("a pipelined append no ledger made durable: %v", err)
	}

	// The ledger starts while a writer waits for its answer.
	remote.Timeout = 10 * time.Second
	g := realGroupSync(t, dir)
	nc := connectFor(t, ns)
	opened := make(chan error, 1)
	go func() {
		time.Sleep(200 * time.Millisecond)
		_, err := natslog.Open(ctx, nc, natslog.StreamConfig{Sync: g})
		opened <- err
	}()
	seq, err := remote.Append(ctx, "ledger.policy", id(1), data, 2)
	if !isLanded(err) || seq != 1 {
		t.Fatalf("the same id sent again: %d %v", seq, err)
	}
	if err := <-opened; err != nil {
		t.Fatal(err)
	}
	if g.Count() == 0 {
		t.Fatal("answered with no sync")
	}
	if seq, err := remote.Append(ctx, "ledger.policy", id(3), data, 2); err != nil || seq != 3 {
		t.Fatalf("an append once the ledger answers: %d %v", seq, err)
	}
	// What a request names is a directory of the store, or the whole
	// store: nothing else is opened for a client.
	for name, want := range map[string]string{"": "synced", "LEDGER": "synced", "../../x": "is not a stream's name", "a/b": "is not a stream's name", "a.b": "is not a stream's name", "a b": "is not a stream's name"} {
		m, err := rnc.Request(natslog.GroupSyncSubject, []byte(name), 10*time.Second)
		if err != nil {
			t.Fatalf("a sync of %q: %v", name, err)
		}
		if !strings.Contains(string(m.Data), want) {
			t.Fatalf("a sync of %q: answered %q, want %q", name, m.Data, want)
		}
	}

	// A server that fsyncs every write: nothing to ask, no one to answer.
	plain := embeddedFor(t, natslog.EmbeddedConfig{Dir: filepath.Join(t.TempDir(), "nats"), Listen: "127.0.0.1:-1"})
	pnc := dialFor(t, plain)
	other, err := natslog.Open(ctx, pnc, natslog.StreamConfig{})
	if err != nil {
		t.Fatal(err)
	}
	other.Timeout = 300 * time.Millisecond
	if seq, err := other.Append(ctx, "ledger.policy", id(1), data, 0); err != nil || seq != 1 {
		t.Fatalf("an append on a server that fsyncs every write: %d %v", seq, err)
	}
}

// TestGroupSyncServerNames: a log without a GroupSync asks for a sync on a
// server whose name says group sync, and when it is not connected (it
// cannot tell which server acknowledged the record), never elsewhere.
func TestGroupSyncServerNames(t *testing.T) {
	for name, ask := range map[string]bool{
		"ledger-embedded" + natslog.GroupSyncNameSuffix: true,
		"x" + natslog.GroupSyncNameSuffix:               true,
		"":                                              true,
		"ledger-embedded":                               false,
		"nats-1":                                        false,
		natslog.GroupSyncNameSuffix + "-not":            false,
	} {
		if got := natslog.IsGroupSyncServer(name); got != ask {
			t.Errorf("%q: asks %v, want %v", name, got, ask)
		}
	}
}

// TestGroupSyncRequestsBounded: the sync requests that come while a sync
// runs wait together for the next one, which answers them all; past
// maxSyncRequests waiting, a request is answered at once with an error,
// never as synced.
func TestGroupSyncRequestsBounded(t *testing.T) {
	defer natslog.SetMaxSyncRequests(3)()
	ns := embeddedFor(t, natslog.EmbeddedConfig{Dir: filepath.Join(t.TempDir(), "nats"), GroupSync: true})
	nc := connectFor(t, ns)
	gate := make(chan struct{})
	var began atomic.Int64
	g := natslog.NewGroupSync(func([]string) error { began.Add(1); <-gate; return nil }, nil)
	if _, err := natslog.Open(t.Context(), nc, natslog.StreamConfig{Sync: g}); err != nil {
		t.Fatal(err)
	}
	// Each request is published before ask returns, so the server hands
	// them to the answering subscription in the order asked.
	ask := func() chan string {
		inbox := nats.NewInbox()
		sub, err := nc.SubscribeSync(inbox)
		if err != nil {
			t.Fatal(err)
		}
		if err := nc.PublishRequest(natslog.GroupSyncSubject, inbox, []byte("LEDGER")); err != nil {
			t.Fatal(err)
		}
		out := make(chan string, 1)
		go func() {
			defer sub.Unsubscribe()
			m, err := sub.NextMsg(20 * time.Second)
			if err != nil {
				out <- err.Error()
				return
			}
			out <- string(m.Data)
		}()
		return out
	}
	first := ask()
	ledgertest.WaitFor(t, 10*time.Second, "the first request's sync to begin", func() bool { return began.Load() == 1 })
	var waiting []chan string
	for range 3 {
		waiting = append(waiting, ask())
	}
	if got := <-ask(); !strings.Contains(got, "sync requests waiting already") {
		t.Fatalf("a request past the bound: %q", got)
	}
	close(gate)
	for _, c := range append(waiting, first) {
		if got := <-c; got != "synced" {
			t.Fatalf("a waiting request: %q", got)
		}
	}
	if n := g.Count(); n != 2 {
		t.Fatalf("%d syncs for one request and three that came during its sync; want 2", n)
	}
}

// TestGroupSyncWhenDisconnected: a log whose connection is down when a
// record's acknowledgement has come goes by the server it was last
// connected to: one that fsyncs every write (a cluster node failing
// over, say) asks nothing, and one started for group sync asks, so the
// record is answered only once it is known synced.
func TestGroupSyncWhenDisconnected(t *testing.T) {
	for _, group := range []bool{false, true} {
		t.Run(fmt.Sprintf("group sync %v", group), func(t *testing.T) {
			ns := embeddedFor(t, natslog.EmbeddedConfig{Dir: filepath.Join(t.TempDir(), "nats"), GroupSync: group, Listen: "127.0.0.1:-1"})
			rnc := dialFor(t, ns, nats.MaxReconnects(-1))
			log, err := natslog.Open(t.Context(), rnc, natslog.StreamConfig{})
			if err != nil {
				t.Fatal(err)
			}
			if got := log.AsksForSync(); got != group {
				t.Fatalf("connected: asks %v", got)
			}
			ns.Shutdown()
			ns.WaitForShutdown()
			ledgertest.WaitFor(t, 10*time.Second, "the connection to drop", func() bool { return rnc.ConnectedServerName() == "" })
			if got := log.AsksForSync(); got != group {
				t.Fatalf("disconnected: asks %v", got)
			}
		})
	}
}

// embeddedFor starts an embedded server for a test; it is shut down when
// the test ends.
func embeddedFor(t testing.TB, cfg natslog.EmbeddedConfig) *server.Server {
	t.Helper()
	ns, err := natslog.StartEmbedded(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	return ns
}

// connectFor connects to ns in process, as the ledger that runs it does,
// until the test ends.
func connectFor(t testing.TB, ns *server.Server) *nats.Conn {
	t.Helper()
	nc, err := natslog.ConnectEmbedded(ns, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// dialFor connects to ns over TCP, as another process does, until the
// test ends.
func dialFor(t testing.TB, ns *server.Server, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(ns.ClientURL(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// realGroupSync is OpenGroupSync on dir, closed when the test ends. Off
// Linux (no syncfs) it skips the test; on Linux a store that cannot be
// opened for syncing fails it.
func realGroupSync(t testing.TB, dir string) *natslog.GroupSync {
	t.Helper()
	g, err := natslog.OpenGroupSync(dir)
	if err != nil {
		if runtime.GOOS == "linux" {
			t.Fatal(err)
		}
		t.Skipf("no group sync here: %v", err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}
