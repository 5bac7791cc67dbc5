package natslog_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/internal/natslog"
)

// appendBatches appends records from+1..to, each on its own subject, in
// atomic batches of 100 (the log rolls between batches).
func appendBatches(t testing.TB, log *natslog.Log, from, to int) {
	t.Helper()
	for i := from; i < to; {
		n := min(100, to-i)
		msgs := make([]events.Message, n)
		for j := range msgs {
			msgs[j] = events.Message{Subject: subject(i + j + 1), ID: id(i + j + 1), Data: data(i + j + 1)}
		}
		first, err := log.AppendBatch(t.Context(), msgs, uint64(i))
		if err != nil || first != uint64(i+1) {
			t.Fatalf("batch at %d: %d %v", i, first, err)
		}
		i += n
	}
}

// delivery is one call of a Follow callback.
type delivery struct {
	Seq, Pending uint64
	Data         string
}

// reads is everything a reader gets from a log, to compare two readers.
type reads struct {
	Read    [][]byte
	Msgs    []natslog.Msg
	Follow  []delivery
	FindIDs []uint64
	Err     map[string]string
}

// readAll reads log every way there is from from: Read and Follow to the
// head, ReadMsgs, and FindID of the ids in ids.
func readAll(t testing.TB, log *natslog.Log, from uint64, ids []string) reads {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	head, err := log.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := reads{Err: map[string]string{}}
	note := func(what string, err error) {
		if err != nil {
			r.Err[what] = err.Error()
		}
	}
	r.Read, err = log.Read(ctx, from, head)
	note("Read", err)
	r.Msgs, err = log.ReadMsgs(ctx, from)
	note("ReadMsgs", err)
	if from <= head { // Follow's until must exist
		note("Follow", log.Follow(ctx, from, func(seq uint64, b []byte, pending uint64) error {
			r.Follow = append(r.Follow, delivery{seq, pending, string(b)})
			return nil
		}, head))
	}
	for _, id := range ids {
		seq, ok, err := log.FindID(ctx, id, from)
		note("FindID "+id, err)
		if !ok {
			seq = 0
		}
		r.FindIDs = append(r.FindIDs, seq)
	}
	return r
}

// compareReads fails unless the two readers got the same.
func compareReads(t testing.TB, consumer, direct reads) {
	t.Helper()
	if !reflect.DeepEqual(consumer.Err, direct.Err) {
		t.Errorf("errors differ:\nconsumers: %v\ndirect:    %v", consumer.Err, direct.Err)
	}
	if !reflect.DeepEqual(consumer.Read, direct.Read) {
		t.Errorf("Read differs: %d records with consumers, %d direct", len(consumer.Read), len(direct.Read))
	}
	if !reflect.DeepEqual(consumer.Msgs, direct.Msgs) {
		t.Errorf("ReadMsgs differs: %d records with consumers, %d direct", len(consumer.Msgs), len(direct.Msgs))
	}
	if !reflect.DeepEqual(consumer.Follow, direct.Follow) {
		for i := range min(len(consumer.Follow), len(direct.Follow)) {
			if consumer.Follow[i] != direct.Follow[i] {
				t.Errorf("Follow differs first at delivery %d: %+v with consumers, %+v direct", i, consumer.Follow[i], direct.Follow[i])
				break
			}
		}
		t.Errorf("Follow differs: %d deliveries with consumers, %d direct", len(consumer.Follow), len(direct.Follow))
	}
	if !slices.Equal(consumer.FindIDs, direct.FindIDs) {
		t.Errorf("FindID differs: %v with consumers, %v direct", consumer.FindIDs, direct.FindIDs)
	}
}

// streamConsumers is how many consumers the log's segments hold.
func streamConsumers(t testing.TB, log *natslog.Log) int {
	t.Helper()
	n := 0
	for _, s := range segments(t, log) {
		st, err := log.JetStream().Stream(t.Context(), s.Name)
		if err != nil {
			t.Fatal(err)
		}
		info, err := st.Info(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		n += info.State.Consumers
	}
	return n
}

// TestDirectReadsMatchConsumers: on a log of a few thousand records over
// several rolled segments, a reader with DirectReads gets from Read,
// ReadMsgs, Follow (with the same pending counts) and FindID exactly what
// a reader with consumers gets, from the start, from the middle of a
// segment and from a segment's first record, and creates no consumer.
func TestDirectReadsMatchConsumers(t *testing.T) {
	e := startServer(t)
	cfg := natslog.StreamConfig{RollSubjects: 1000}
	log := open(t, e.connect(), cfg)
	const n = 3500
	appendBatches(t, log, 0, n)
	segs := checkChain(t, log)
	if len(segs) < 3 {
		t.Fatalf("segments %+v: want at least 3", segs)
	}
	cfg.DirectReads = true
	direct := open(t, e.connect(), cfg)
	ids := []string{id(1), id(999), id(int(segs[1].Base)), id(int(segs[1].Base) + 1), id(n), "never-landed"}
	for _, from := range []uint64{1, 777, segs[1].Base + 1, segs[len(segs)-1].Base + 1, n, n + 1} {
		t.Run(fmt.Sprint("from ", from), func(t *testing.T) {
			want := readAll(t, log, from, ids)
			if len(want.Err) > 0 || len(want.Read) != n-int(from)+1 {
				t.Fatalf("consumers: %d records, %v", len(want.Read), want.Err)
			}
			compareReads(t, want, readAll(t, direct, from, ids))
		})
	}
	// Ranges, across a roll among them: a direct read asks for no more
	// than the range.
	b := segs[1].Base
	for _, r := range [][2]uint64{{1, 1}, {45, 105}, {b, b + 1}, {b - 600, b + 600}, {n - 3, n + 10}} {
		want, err := log.Read(t.Context(), r[0], r[1])
		if err != nil {
			t.Fatal(err)
		}
		got, err := direct.Read(t.Context(), r[0], r[1])
		if err != nil || !reflect.DeepEqual(got, want) || uint64(len(got)) != min(r[1], n)-r[0]+1 {
			t.Fatalf("Read %d..%d: %d records direct, %d with consumers, %v", r[0], r[1], len(got), len(want), err)
		}
	}
	if c := streamConsumers(t, log); c != 0 {
		t.Fatalf("%d consumers left", c)
	}
}

// authConfig is an authorization block with a writer ("ledger", allowed
// everything) and a reader ("auditor") allowed only what direct reads of
// the log's first segments need: JetStream's account info, stream info
// and direct gets of each segment by name, replies on its own inbox. It
// may look up stream "NOPE" too, which does not exist.
func authConfig(segments int) string {
	pub := []string{`"$JS.API.INFO"`, `"$JS.API.STREAM.INFO.NOPE"`}
	for i := 1; i <= segments; i++ {
		name := natslog.SegmentName("LEDGER", i)
		pub = append(pub, `"$JS.API.STREAM.INFO.`+name+`"`, `"$JS.API.DIRECT.GET.`+name+`"`, `"$JS.API.DIRECT.GET.`+name+`.>"`)
	}
	return `authorization { users = [
  { user: "ledger", password: "w", permissions: { publish: ">", subscribe: ">" } }
  { user: "auditor", password: "a", permissions: { publish: { allow: [` + strings.Join(pub, ", ") + `] }, subscribe: { allow: ["_INBOX_auditor.>"] } } }
] }`
}

// asyncErrors collects the asynchronous errors of a connection, where the
// server's permission violations arrive.
type asyncErrors struct {
	mu   sync.Mutex
	errs []string
}

func (a *asyncErrors) handler(_ *nats.Conn, _ *nats.Subscription, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.errs = append(a.errs, err.Error())
}

func (a *asyncErrors) all() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return strings.Join(a.errs, "\n")
}

// TestDirectReaderPermissions: a user granted no consumer API (only
// account info, stream info and direct gets of the log's segments) opens
// the log and reads all of it with DirectReads, across rolled segments,
// even opened with settings other than the log's (Open updates nothing
// for a reader); without DirectReads the same user's reads fail, and the
// server names the consumer API as what it denied. A reader's Open of a
// log that does not exist fails at once and creates nothing.
func TestDirectReaderPermissions(t *testing.T) {
	e := &embedded{t: t, dir: t.TempDir()}
	ns, err := natslog.StartEmbedded(natslog.EmbeddedConfig{Dir: e.dir, ConfigText: authConfig(8)})
	if err != nil {
		t.Fatal(err)
	}
	e.ns = ns
	t.Cleanup(e.stop)
	connect := func(user, password string, errs *asyncErrors) *nats.Conn {
		opts := []nats.Option{nats.UserInfo(user, password), nats.CustomInboxPrefix("_INBOX_" + user)}
		if errs != nil {
			opts = append(opts, nats.ErrorHandler(errs.handler))
		}
		nc, err := natslog.ConnectEmbedded(ns, user, opts...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		return nc
	}
	// Segments of more than smallRead records, so that a read of one
	// without DirectReads takes a consumer.
	cfg := natslog.StreamConfig{RollSubjects: 100}
	writer := open(t, connect("ledger", "w", nil), cfg)
	const n = 230
	appendN(t, writer, 0, n)
	if segs := checkChain(t, writer); len(segs) != 3 {
		t.Fatalf("%d segments, want 3", len(segs))
	}
	want := readAll(t, writer, 1, []string{id(1), id(120), id(n)})

	var denied asyncErrors
	auditor := connect("auditor", "a", &denied)
	// Other settings than the log's: a writer's Open would update the
	// live segment.
	reader := open(t, auditor, natslog.StreamConfig{RollSubjects: 100, MaxMsgs: 10_000, DirectReads: true})
	if differs, err := writer.LiveDiffers(t.Context()); err != nil || differs {
		t.Fatalf("the live segment's settings changed: %v %v", differs, err)
	}
	compareReads(t, want, readAll(t, reader, 1, []string{id(1), id(120), id(n)}))
	if err := reader.Check(t.Context()); err != nil {
		t.Fatalf("Check: %v", err)
	}
	if got := segments(t, reader); !reflect.DeepEqual(got, segments(t, writer)) {
		t.Fatalf("segments %+v, the writer's %+v", got, segments(t, writer))
	}
	if errs := denied.all(); errs != "" {
		t.Fatalf("direct reads were denied something:\n%s", errs)
	}

	start := time.Now()
	_, err = natslog.Open(t.Context(), auditor, natslog.StreamConfig{Name: "NOPE", DirectReads: true})
	if !errors.Is(err, jetstream.ErrStreamNotFound) || !strings.Contains(err.Error(), "does not create") || time.Since(start) > 5*time.Second {
		t.Fatalf("a reader's Open of no log: %v after %s, want at once that it does not exist", err, time.Since(start))
	}
	t.Log(err)

	consumer := open(t, auditor, cfg)
	reading := map[string]func(ctx context.Context) error{
		"Read":     func(ctx context.Context) error { _, err := consumer.Read(ctx, 1, n); return err },
		"ReadMsgs": func(ctx context.Context) error { _, err := consumer.ReadMsgs(ctx, 1); return err },
		"Follow": func(ctx context.Context) error {
			return consumer.Follow(ctx, 1, func(uint64, []byte, uint64) error { return nil }, n)
		},
	}
	for name, read := range reading {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		err := read(ctx)
		cancel()
		if err == nil {
			t.Errorf("%s with consumers succeeded for a user granted no consumer API", name)
		}
	}
	if errs := denied.all(); !strings.Contains(errs, `Permissions Violation for Publish to "$JS.API.CONSUMER.CREATE.LEDGER`) {
		t.Fatalf("the server denied no consumer creation:\n%s", errs)
	}
}

// TestDirectGapIsDamage: records deleted from the log (AllowDelete,
// playing an attacker; a sealed segment refuses deletes, so they go from
// the live one) end Read and Follow in direct mode with the same
// *DamagedError as with consumers, at the same sequence, whether the read
// starts before the gap or on it; ReadMsgs returns the same records
// around the gap in both modes, and FindID past the gap fails in both
// (direct reads say where).
func TestDirectGapIsDamage(t *testing.T) {
	for _, c := range []struct {
		name    string
		roll, n int
		deleted []uint64 // global sequences, in the live segment
		from    []uint64
	}{
		{"one segment", -1, 20, []uint64{7, 8}, []uint64{1, 7, 8, 9}},
		{"live segment after rolls", 10, 25, []uint64{23}, []uint64{1, 15, 21, 23, 24}},
		{"first record of the live segment", 10, 25, []uint64{21}, []uint64{1, 21, 22}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := startServer(t)
			cfg := natslog.StreamConfig{AllowDelete: true, RollSubjects: c.roll}
			log := open(t, e.connect(), cfg)
			appendN(t, log, 0, c.n)
			segs := segments(t, log)
			live := segs[len(segs)-1]
			st, err := log.JetStream().Stream(t.Context(), live.Name)
			if err != nil {
				t.Fatal(err)
			}
			for _, seq := range c.deleted {
				if err := st.DeleteMsg(t.Context(), seq-live.Base); err != nil {
					t.Fatal(err)
				}
			}
			cfg.DirectReads = true
			direct := open(t, e.connect(), cfg)
			last := id(c.n)
			for _, from := range c.from {
				gap := uint64(math.MaxUint64) // the first deleted from from on
				for _, d := range c.deleted {
					if d >= from {
						gap = min(gap, d)
					}
				}
				damaged := gap != math.MaxUint64
				want := readAll(t, log, from, []string{last})
				got := readAll(t, direct, from, []string{last})
				for _, what := range []string{"Read", "Follow"} {
					if want.Err[what] != got.Err[what] {
						t.Errorf("%s from %d: consumers %q, direct %q", what, from, want.Err[what], got.Err[what])
					}
				}
				if damaged {
					// The same error in both modes (above); its type and
					// sequence:
					_, err := direct.Read(t.Context(), from, uint64(c.n))
					var de *natslog.DamagedError
					if !errors.As(err, &de) || de.Seq != gap || de.Stream != live.Name {
						t.Errorf("direct Read from %d: %v, want damaged at %d in %s", from, err, gap, live.Name)
					}
				}
				if !reflect.DeepEqual(want.Msgs, got.Msgs) {
					t.Errorf("ReadMsgs from %d: %d records with consumers, %d direct", from, len(want.Msgs), len(got.Msgs))
				}
				kept := c.n - int(from) + 1
				for _, d := range c.deleted {
					if d >= from {
						kept--
					}
				}
				if len(got.Msgs) != kept {
					t.Errorf("ReadMsgs from %d: %d records, want the %d kept", from, len(got.Msgs), kept)
				}
				cerr, derr := want.Err["FindID "+last], got.Err["FindID "+last]
				if damaged && (cerr == "" || !strings.Contains(derr, fmt.Sprintf("log damaged at %d:", gap))) {
					t.Errorf("FindID past the gap from %d: consumers %q, direct %q", from, cerr, derr)
				}
				if !damaged && (cerr != "" || derr != "" || !slices.Equal(want.FindIDs, got.FindIDs)) {
					t.Errorf("FindID from %d: consumers %v %q, direct %v %q", from, want.FindIDs, cerr, got.FindIDs, derr)
				}
			}
		})
	}
}

// TestDirectFollow: a Follow with DirectReads started at the head
// delivers the records appended after it, across rolls, in order and
// promptly (a record appended while it idles at the head, polling pollMax
// apart, comes with its next poll), with no pending once caught up, and
// ends when its context does. Its polls are counted from the server's
// side: a subscriber on the direct get subjects sees each batch asked.
func TestDirectFollow(t *testing.T) {
	e := startServer(t)
	cfg := natslog.StreamConfig{RollSubjects: 20}
	log := open(t, e.connect(), cfg)
	appendN(t, log, 0, 5)
	cfg.DirectReads = true
	follower := open(t, e.connect(), cfg)
	// The spy sees every batch the follower asks for. Its channel is
	// filled by the connection's reader in the order the server sent, so
	// after a Flush of the spy's connection it holds every request the
	// server took before.
	spyNC := e.connect()
	asked := make(chan *nats.Msg, 1<<14)
	spy, err := spyNC.ChanSubscribe(jetstream.DefaultAPIPrefix+"DIRECT.GET.>", asked)
	if err != nil {
		t.Fatal(err)
	}
	defer spy.Unsubscribe()
	var (
		spyMu sync.Mutex
		polls int64 // batches asked for, as far as the spy has counted
	)
	seen := func() int64 {
		spyMu.Lock()
		defer spyMu.Unlock()
		_ = spyNC.Flush() // a failure shows as a count too low, below
		for {
			select {
			case m := <-asked:
				if strings.Contains(string(m.Data), `"batch"`) {
					polls++
				}
				continue
			default:
			}
			return polls
		}
	}
	var atSix atomic.Int64 // polls seen when record 6 was delivered

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	got := make(chan delivery, 1000)
	done := make(chan error, 1)
	go func() {
		done <- follower.Follow(ctx, 1, func(seq uint64, b []byte, pending uint64) error {
			if seq == 6 {
				// The follower asks for nothing while this runs.
				atSix.Store(seen())
			}
			got <- delivery{seq, pending, string(b)}
			return nil
		}, 0)
	}()
	expect := func(seq uint64) delivery {
		t.Helper()
		select {
		case d := <-got:
			if d.Seq != seq || d.Data != string(data(int(seq))) {
				t.Fatalf("delivered %+v, want record %d", d, seq)
			}
			return d
		case err := <-done:
			t.Fatalf("follow ended before record %d: %v", seq, err)
		case <-time.After(10 * time.Second):
			t.Fatalf("record %d not delivered", seq)
		}
		return delivery{}
	}
	for seq := uint64(1); seq <= 5; seq++ {
		expect(seq)
	}
	// Idle at the head (its pause doubles from pollMin to pollMax in six
	// empty polls; eight make sure), then one record: it comes with the
	// next poll, or the one after when a poll was on its way as it landed.
	idle := seen() + 8
	ledgertest.WaitFor(t, 10*time.Second, "the follower idles at the head", func() bool { return seen() >= idle })
	appendN(t, log, 5, 6)
	before := seen()
	if d := expect(6); d.Pending != 0 {
		t.Fatalf("caught up with %d pending", d.Pending)
	}
	// After the record landed: the poll that brought it, and the next
	// batch asked for before it was handed over; no empty poll.
	// (It may have come before the spy counted: n <= 0.)
	if n := atSix.Load() - before; n > 2 {
		t.Fatalf("a record appended at the idle head came with the %dth poll after it landed", n)
	}
	appendN(t, log, 6, 75) // rolls 3 times
	for seq := uint64(7); seq <= 75; seq++ {
		expect(seq)
	}
	if segs := checkChain(t, log); len(segs) < 4 {
		t.Fatalf("%d segments, want the follower to have crossed 3 rolls", len(segs))
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("follow ended with %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("follow did not end with its context")
	}
	if c := streamConsumers(t, log); c != 0 {
		t.Fatalf("%d consumers", c)
	}
}
