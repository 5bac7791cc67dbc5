package natslog_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/natslogtest"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/replay"
)

// embedded is a restartable embedded server on a temp dir.
type embedded struct {
	t   testing.TB
	dir string
	ns  *server.Server
}

func startServer(t testing.TB) *embedded {
	t.Helper()
	e := &embedded{t: t, dir: filepath.Join(t.TempDir(), "nats")}
	e.start()
	t.Cleanup(e.stop)
	return e
}

func (e *embedded) start() {
	e.t.Helper()
	ns, err := natslog.StartEmbedded(natslog.EmbeddedConfig{Dir: e.dir})
	if err != nil {
		e.t.Fatal(err)
	}
	e.ns = ns
}

func (e *embedded) stop() {
	e.ns.Shutdown()
	e.ns.WaitForShutdown()
}

func (e *embedded) connect() *nats.Conn {
	e.t.Helper()
	nc, err := natslog.ConnectEmbedded(e.ns, "test")
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(nc.Close)
	return nc
}

func open(t testing.TB, nc *nats.Conn, cfg natslog.StreamConfig) *natslog.Log {
	t.Helper()
	log, err := natslog.Open(t.Context(), nc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return log
}

func subject(i int) string { return fmt.Sprintf("ledger.session.s%04d", i) }
func id(i int) string      { return fmt.Sprintf("id-%04d", i) }
func data(i int) []byte    { return []byte(fmt.Sprintf(`{"n":%d}`, i)) }

// appendN appends records from+1..to, each on its own subject.
func appendN(t testing.TB, log *natslog.Log, from, to int) {
	t.Helper()
	for i := from + 1; i <= to; i++ {
		seq, err := log.Append(t.Context(), subject(i), id(i), data(i), uint64(i-1))
		if err != nil || seq != uint64(i) {
			t.Fatalf("append %d: %d %v", i, seq, err)
		}
	}
}

func segments(t testing.TB, log *natslog.Log) []natslog.Segment {
	t.Helper()
	segs, err := log.Segments(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return segs
}

// checkChain checks what every writer relies on: segment names in order,
// each starting where the one before ends, every sealed segment ending in
// its seal marker right after its last record.
func checkChain(t testing.TB, log *natslog.Log) []natslog.Segment {
	t.Helper()
	segs := segments(t, log)
	for i, s := range segs {
		if want := natslog.SegmentName(log.Name(), i+1); s.Name != want {
			t.Fatalf("segment %d is %s, want %s", i+1, s.Name, want)
		}
		if i == 0 && s.Base != 0 || i > 0 && s.Base != segs[i-1].Last {
			t.Fatalf("segment %s starts after %d; the one before ends at %d", s.Name, s.Base, segs[i-1].Last)
		}
		if s.Sealed != (i < len(segs)-1) {
			t.Fatalf("segment %s sealed %v", s.Name, s.Sealed)
		}
		if !s.Sealed {
			continue
		}
		st, err := log.JetStream().Stream(t.Context(), s.Name)
		if err != nil {
			t.Fatal(err)
		}
		info, _ := st.Info(t.Context())
		if got := info.Config.Metadata[natslog.LastKey]; got != strconv.FormatUint(s.Last, 10) {
			t.Fatalf("%s records its last as %s, want %d", s.Name, got, s.Last)
		}
		m, err := st.GetMsg(t.Context(), info.State.LastSeq)
		if err != nil || m.Subject != natslog.SealedPrefix+s.Name || s.Base+m.Sequence-1 != s.Last {
			t.Fatalf("%s does not end with its seal marker right after its last record: %+v %v", s.Name, m, err)
		}
	}
	return segs
}

// TestRollingKeepsOneSequence rolls the log every 50 subjects and reads it
// back every way there is: one contiguous sequence with the right data.
func TestRollingKeepsOneSequence(t *testing.T) {
	e := startServer(t)
	log := open(t, e.connect(), natslog.StreamConfig{RollSubjects: 50})
	ctx := t.Context()
	const n = 230

	// A follower started before the rolls goes on across them.
	type delivery struct {
		seq, pending uint64
		data         string
	}
	var followed []delivery
	fctx, stopFollow := context.WithCancel(ctx)
	followDone := make(chan error, 1)
	follower := open(t, e.connect(), natslog.StreamConfig{RollSubjects: 50})
	go func() {
		followDone <- follower.Follow(fctx, 1, func(seq uint64, b []byte, pending uint64) error {
			followed = append(followed, delivery{seq, pending, string(b)})
			if seq == n {
				stopFollow()
			}
			return nil
		}, 0)
	}()

	appendN(t, log, 0, n)
	select {
	case err := <-followDone:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("follow: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the follower did not reach the head")
	}
	for i, d := range followed {
		if d.seq != uint64(i+1) || d.data != string(data(i+1)) {
			t.Fatalf("live follow delivered %+v at %d", d, i)
		}
	}

	segs := checkChain(t, log)
	if len(segs) != 5 || segs[4].Base != 200 || segs[4].Last != n {
		t.Fatalf("segments %+v: want 5, of 50 subjects each but the last", segs)
	}
	if head, err := log.Head(ctx); err != nil || head != n {
		t.Fatalf("head %d %v", head, err)
	}

	for _, r := range []struct{ from, to uint64 }{{1, n}, {45, 105}, {50, 51}, {51, 51}, {200, 999}} {
		recs, err := log.Read(ctx, r.from, r.to)
		if err != nil {
			t.Fatal(err)
		}
		to := min(r.to, n)
		if uint64(len(recs)) != to-r.from+1 {
			t.Fatalf("read %d..%d: %d records", r.from, r.to, len(recs))
		}
		for i, b := range recs {
			if want := data(int(r.from) + i); string(b) != string(want) {
				t.Fatalf("read %d..%d: record %d is %s, want %s", r.from, r.to, int(r.from)+i, b, want)
			}
		}
	}

	var pend []uint64
	err := log.Follow(ctx, 1, func(seq uint64, b []byte, pending uint64) error {
		pend = append(pend, pending)
		return nil
	}, n)
	if err != nil || len(pend) != n {
		t.Fatalf("follow to %d: %d records, %v", n, len(pend), err)
	}
	for i, p := range pend {
		if p != uint64(n-i-1) {
			t.Fatalf("record %d: %d pending, want %d", i+1, p, n-i-1)
		}
	}

	for _, c := range []struct {
		id   string
		from uint64
		seq  uint64
		ok   bool
	}{{id(7), 1, 7, true}, {id(199), 100, 199, true}, {id(51), 51, 51, true}, {id(7), 8, 0, false}, {"nope", 1, 0, false}} {
		seq, ok, err := log.FindID(ctx, c.id, c.from)
		if err != nil || ok != c.ok || seq != c.seq {
			t.Fatalf("FindID(%s, %d) = %d %v %v, want %d %v", c.id, c.from, seq, ok, err, c.seq, c.ok)
		}
	}

	msgs, err := log.ReadMsgs(ctx, 120)
	if err != nil || len(msgs) != n-119 {
		t.Fatalf("ReadMsgs from 120: %d %v", len(msgs), err)
	}
	for i, m := range msgs {
		if m.Seq != uint64(120+i) || string(m.Data) != string(data(120+i)) || m.Hash != events.HashBytes(m.Data) {
			t.Fatalf("ReadMsgs: %+v at %d", m, 120+i)
		}
	}
}

// TestRollingConflictsAtTheBoundary: the expected head is global, on both
// sides of a roll, whatever segment a writer last knew.
func TestRollingConflictsAtTheBoundary(t *testing.T) {
	e := startServer(t)
	ctx := t.Context()
	log := open(t, e.connect(), natslog.StreamConfig{RollSubjects: 3})
	stale := open(t, e.connect(), natslog.StreamConfig{RollSubjects: 3}) // knows only LEDGER
	appendN(t, log, 0, 3)                                                // rolls: LEDGER-2 starts after 3

	if _, err := log.Append(ctx, subject(1), "late", data(0), 2); !errors.Is(err, events.ErrConflict()) {
		t.Fatalf("stale expectation across the roll: %v", err)
	}
	// The first record of a segment expects its base.
	if seq, err := log.Append(ctx, subject(1), id(4), data(4), 3); err != nil || seq != 4 {
		t.Fatalf("first record of LEDGER-2: %d %v", seq, err)
	}
	for i := 5; i <= 6; i++ { // old subjects: LEDGER-2 does not roll
		if _, err := log.Append(ctx, subject(1), id(i), data(i), uint64(i-1)); err != nil {
			t.Fatal(err)
		}
	}
	// A writer that still appends to LEDGER, expecting 3 (LEDGER's own
	// length, and LEDGER-2's too), must not land on LEDGER-2 at 7.
	if _, err := stale.Append(ctx, subject(2), "stale", data(0), 3); !errors.Is(err, events.ErrConflict()) {
		t.Fatalf("a writer behind the roll: %v", err)
	}
	// Having caught up it appends where everyone does.
	if seq, err := stale.Append(ctx, subject(2), id(7), data(7), 6); err != nil || seq != 7 {
		t.Fatalf("the caught-up writer: %d %v", seq, err)
	}

	// Batches: one ends the segment (rolling it), the next starts the new one.
	batch := func(from, to int) []events.Message {
		var ms []events.Message
		for i := from; i <= to; i++ {
			ms = append(ms, events.Message{Subject: subject(i), ID: id(i), Data: data(i)})
		}
		return ms
	}
	if first, err := log.AppendBatch(ctx, batch(8, 10), 7); err != nil || first != 8 {
		t.Fatalf("batch that fills LEDGER-2: %d %v", first, err)
	}
	if segs := checkChain(t, log); len(segs) != 3 || segs[2].Base != 10 {
		t.Fatalf("segments after the batch: %+v", segs)
	}
	if _, err := log.AppendBatch(ctx, batch(11, 12), 9); !errors.Is(err, events.ErrConflict()) {
		t.Fatalf("stale batch across the roll: %v", err)
	}
	if first, err := log.AppendBatch(ctx, batch(11, 12), 10); err != nil || first != 11 {
		t.Fatalf("first batch of LEDGER-3: %d %v", first, err)
	}

	// Pipelined appends name the record before them; at a segment's start
	// that record is the sealed segment's last.
	appendN(t, log, 12, 13) // LEDGER-3 has 3 subjects: LEDGER-4 starts after 13
	wait, err := log.AppendAsync(ctx, subject(14), id(14), data(14), "", 13, "not-the-last")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wait(); !errors.Is(err, events.ErrConflict()) {
		t.Fatalf("pipelined append after another id: %v", err)
	}
	wait, err = log.AppendAsync(ctx, subject(14), id(14), data(14), "", 13, id(13))
	if err != nil {
		t.Fatal(err)
	}
	if seq, err := wait(); err != nil || seq != 14 {
		t.Fatalf("pipelined append after the sealed segment's last: %d %v", seq, err)
	}
	if recs, err := log.Read(ctx, 1, 14); err != nil || len(recs) != 14 || string(recs[13]) != string(data(14)) {
		t.Fatalf("read: %d %v", len(recs), err)
	}
	checkChain(t, log)
}

// TestWritersRaceToRoll: several writers roll the same full segment at
// once; there is one next segment, with one base, and appends go on.
func TestWritersRaceToRoll(t *testing.T) {
	e := startServer(t)
	var logs []*natslog.Log
	for range 4 {
		logs = append(logs, open(t, e.connect(), natslog.StreamConfig{RollSubjects: -1}))
	}
	appendN(t, logs[0], 0, 5)
	var wg sync.WaitGroup
	errs := make([]error, len(logs))
	for i, l := range logs {
		wg.Go(func() { errs[i] = l.RollNow(t.Context()) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for _, l := range logs {
		if segs := checkChain(t, l); len(segs) != 2 || segs[1].Base != 5 {
			t.Fatalf("segments: %+v", segs)
		}
	}
	appendN(t, logs[3], 5, 6)
	if seq, err := logs[1].Append(t.Context(), subject(7), id(7), data(7), 6); err != nil || seq != 7 {
		t.Fatalf("append after the race: %d %v", seq, err)
	}
}

// pipelined hides AppendBatch, so a service appends through AppendAsync.
type pipelined struct{ log *natslog.Log }

func (p pipelined) AppendHashed(ctx context.Context, subject, id string, data []byte, hash string, expected uint64) (uint64, error) {
	return p.log.AppendHashed(ctx, subject, id, data, hash, expected)
}
func (p pipelined) Read(ctx context.Context, from, to uint64) ([][]byte, error) {
	return p.log.Read(ctx, from, to)
}
func (p pipelined) Head(ctx context.Context) (uint64, error) { return p.log.Head(ctx) }
func (p pipelined) AppendAsync(ctx context.Context, subject, id string, data []byte, hash string, expected uint64, prevID string) (func() (uint64, error), error) {
	return p.log.AppendAsync(ctx, subject, id, data, hash, expected, prevID)
}

// TestServicesRaceAcrossRolls: three ledger writers (atomic batches,
// pipelined appends and single appends) race while the log rolls under
// them. Every event lands exactly once, the log stays one sequence and
// verifies, and a follower applies all of it.
func TestServicesRaceAcrossRolls(t *testing.T) {
	e := startServer(t)
	ctx := t.Context()
	cfg := natslog.StreamConfig{RollSubjects: 20}
	first := open(t, e.connect(), cfg)
	svc := func(log service.Log) *service.Service {
		s, err := service.Open(ctx, service.Config{Log: log, Dialects: dialects.All()})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if _, err := svc(first).Append(ctx, workload.Policy()); err != nil {
		t.Fatal(err)
	}
	follower := svc(open(t, e.connect(), cfg))
	fctx, stopFollower := context.WithCancel(ctx)
	followed := make(chan error, 1)
	go func() { followed <- follower.Run(fctx) }()

	writers := []*service.Service{svc(first), svc(pipelined{open(t, e.connect(), cfg)}), svc(open(t, e.connect(), cfg))}
	const sessions = 8 // per writer; 5 subjects and 13 records each
	var wg sync.WaitGroup
	for w, s := range writers {
		wg.Go(func() {
			for i := range sessions {
				evs := workload.Session(w*100 + i)
				if w == 2 {
					for _, ev := range evs {
						if _, err := s.Append(ctx, ev); err != nil {
							t.Errorf("writer %d: %v", w, err)
							return
						}
					}
					continue
				}
				for _, o := range s.AppendMany(ctx, evs) {
					if o.Err != nil {
						t.Errorf("writer %d: %v", w, o.Err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	want := uint64(1 + len(writers)*sessions*13)
	head, err := first.Head(ctx)
	if err != nil || head != want {
		t.Fatalf("head %d %v, want %d: every event exactly once", head, err, want)
	}
	segs := checkChain(t, first)
	if len(segs) < 5 {
		t.Fatalf("%d segments: the log did not roll as it grew", len(segs))
	}
	recs, err := first.Read(ctx, 1, head)
	if err != nil || uint64(len(recs)) != head {
		t.Fatalf("read %d of %d: %v", len(recs), head, err)
	}
	ids := map[string]bool{}
	for _, b := range recs {
		rec, err := events.DecodeRecord(b)
		if err != nil || ids[rec.ID] {
			t.Fatalf("record %s: %v (twice: %v)", b, err, ids[rec.ID])
		}
		ids[rec.ID] = true
	}
	if _, rep, err := replay.Verify(ctx, first, dialects.All(), nil); err != nil || !rep.OK() {
		t.Fatalf("verify across %d segments: %+v %v", len(segs), rep, err)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := follower.WaitApplied(wctx, head); err != nil {
		t.Fatalf("follower: %v", err)
	}
	stopFollower()
	if err := <-followed; err != nil {
		t.Fatalf("follower: %v", err)
	}
}

// TestReopenFindsSegments: a restarted server and a reopened log find the
// segments; a roll cut short after any step is finished by the next
// writer, or by the next Open.
func TestReopenFindsSegments(t *testing.T) {
	e := startServer(t)
	ctx := t.Context()
	cfg := natslog.StreamConfig{RollSubjects: 10}
	appendN(t, open(t, e.connect(), cfg), 0, 25)
	e.stop()
	e.start()
	log := open(t, e.connect(), cfg)
	if segs := checkChain(t, log); len(segs) != 3 || segs[2].Base != 20 {
		t.Fatalf("after a restart: %+v", segs)
	}
	if d, err := log.LiveDiffers(ctx); err != nil || d {
		t.Fatalf("reopening with the same settings would update the live segment: %v %v", d, err)
	}
	appendN(t, log, 25, 27)

	// A roller that died right after moving LEDGER-3 off the ledger's
	// subjects: a writer finds no stream, finishes the roll, and appends.
	js := log.JetStream()
	cut := func(name string, marker bool) {
		t.Helper()
		st, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		cfg := st.CachedInfo().Config
		cfg.Subjects = []string{natslog.SealedPrefix + name}
		if _, err := js.UpdateStream(ctx, cfg); err != nil {
			t.Fatal(err)
		}
		if marker {
			if _, err := js.PublishMsg(ctx, nats.NewMsg(natslog.SealedPrefix+name), jetstream.WithMsgID("seal-"+name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	cut("LEDGER-3", false)
	if head, err := log.Head(ctx); err != nil || head != 27 {
		t.Fatalf("head while the roll is cut short: %d %v", head, err)
	}
	appendN(t, log, 27, 28)
	if segs := checkChain(t, log); len(segs) != 4 || segs[3].Base != 27 {
		t.Fatalf("after a writer finished the roll: %+v", segs)
	}

	// One that died after its seal marker landed: the next Open finishes.
	cut("LEDGER-4", true)
	if head, err := log.Head(ctx); err != nil || head != 28 {
		t.Fatalf("head with the marker but no seal: %d %v", head, err)
	}
	reopened := open(t, e.connect(), cfg)
	if segs := checkChain(t, reopened); len(segs) != 5 || segs[4].Base != 28 {
		t.Fatalf("after Open finished the roll: %+v", segs)
	}
	appendN(t, reopened, 28, 30)
	if recs, err := log.Read(ctx, 1, 30); err != nil || len(recs) != 30 || string(recs[29]) != string(data(30)) {
		t.Fatalf("read: %d %v", len(recs), err)
	}
}

func TestRollingOff(t *testing.T) {
	e := startServer(t)
	log := open(t, e.connect(), natslog.StreamConfig{RollSubjects: -1})
	appendN(t, log, 0, 120)
	if segs := segments(t, log); len(segs) != 1 || segs[0].Subjects != 120 {
		t.Fatalf("segments: %+v", segs)
	}
}

func TestRollingByAge(t *testing.T) {
	e := startServer(t)
	log := open(t, e.connect(), natslog.StreamConfig{RollAge: time.Nanosecond})
	appendN(t, log, 0, 3)
	if segs := checkChain(t, log); len(segs) != 4 || segs[3].Base != 3 {
		t.Fatalf("segments: %+v", segs)
	}
}

func TestParseRollSubjects(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		ok   bool
	}{{"", 0, true}, {"0", 0, true}, {"off", -1, true}, {"50", 50, true}, {"-3", 0, false}, {"many", 0, false}} {
		got, err := natslog.ParseRollSubjects(c.in)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("ParseRollSubjects(%q) = %d, %v", c.in, got, err)
		}
	}
}

// TestRollingOnACluster rolls an R3 log while a replica on another node
// follows it.
func TestRollingOnACluster(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	c, err := natslogtest.StartCluster(ctx, t.TempDir(), 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Shutdown)
	dial := func(i int) *nats.Conn {
		nc, err := nats.Connect(c.Servers[i].ClientURL(), nats.MaxReconnects(-1))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		return nc
	}
	cfg := natslog.StreamConfig{Replicas: 3, RollSubjects: 20}
	writer := open(t, dial(0), cfg)
	w, err := service.Open(ctx, service.Config{Log: writer, Dialects: dialects.All()})
	if err != nil {
		t.Fatal(err)
	}
	replica, err := service.Open(ctx, service.Config{Log: open(t, dial(2), cfg), Dialects: dialects.All()})
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- replica.Run(rctx) }()
	if _, err := w.Append(ctx, workload.Policy()); err != nil {
		t.Fatal(err)
	}
	for i := range 10 { // a batch a session: rolls come between batches
		for _, o := range w.AppendMany(ctx, workload.Session(i)) {
			if o.Err != nil {
				t.Fatal(o.Err)
			}
		}
	}
	head, err := writer.Head(ctx)
	if err != nil || head != 1+10*13 {
		t.Fatalf("head %d %v", head, err)
	}
	segs := checkChain(t, writer)
	if len(segs) < 3 {
		t.Fatalf("%d segments", len(segs))
	}
	if d, err := writer.LiveDiffers(ctx); err != nil || d {
		t.Fatalf("reopening with the same settings would update the live R3 segment: %v %v", d, err)
	}
	for _, s := range segs {
		st, _ := writer.JetStream().Stream(ctx, s.Name)
		if r := st.CachedInfo().Config.Replicas; r != 3 {
			t.Fatalf("%s has %d replicas", s.Name, r)
		}
	}
	waited := make(chan error, 1)
	go func() { waited <- replica.WaitApplied(ctx, head) }()
	select {
	case err := <-done:
		t.Fatalf("the replica stopped following: %v", err)
	case err := <-waited:
		if err != nil {
			t.Fatal(err)
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, rep, err := replay.Verify(ctx, writer, dialects.All(), nil); err != nil || !rep.OK() {
		t.Fatalf("verify: %+v %v", rep, err)
	}
}
