package replay_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
)

// The scale harness measures the projection on a large workload log: the
// rebuild rate into a fresh bbolt file, the heap and peak RSS of a replica
// that catches up from the log the way internal/service does (chunks of
// 4096 records, a commit after each), and the cost of Store.Commit and of
// an append as the state grows. It runs only with -scale N, one test per
// process so each peak RSS is its own:
//
//	go test ./replay -run 'TestScale/rebuild' -scale 1000000 -v
//	go test ./replay -run 'TestScale/serve' -scale 1000000 -v
//	go test ./replay -run 'TestScale/jetstream' -scale 1000000 -v
//
// The log (workload sessions, 13 records each, three session keys each,
// deterministic ids and times) is generated once through the service and
// kept in -scale-dir.
var (
	scaleN    = flag.Int("scale", 0, "run the scale harness on a log of at least this many records")
	scaleDir  = flag.String("scale-dir", os.TempDir(), "where the scale harness keeps its generated logs")
	scaleHeap = flag.String("scale-heapprofile", "", "write a heap profile after the serve catch-up to this file")
	scaleOut  = flag.String("scale-out", "", "keep the projection file of the rebuild (or the catch-up) here")
	scaleCPU  = flag.String("scale-cpuprofile", "", "write a CPU profile of the rebuild alone to this file")
)

func TestScale(t *testing.T) {
	if *scaleN == 0 {
		t.Skip("run with -scale N")
	}
	path := scaleLog(t, *scaleN)
	t.Run("rebuild", func(t *testing.T) { scaleRebuild(t, path) })
	t.Run("serve", func(t *testing.T) { scaleServe(t, path) })
	t.Run("hash", func(t *testing.T) { scaleHash(t, path) })
	t.Run("jetstream", func(t *testing.T) { scaleJetStream(t, path) })
}

// scaleRebuild rebuilds the log into a fresh file.
func scaleRebuild(t *testing.T, path string) {
	log := openFileLog(t, path)
	raw := readRate(t, log)
	out := filepath.Join(t.TempDir(), "p.db")
	if *scaleOut != "" {
		out = *scaleOut
	}
	stop := profileCPU(t)
	t0, c0, g0, f0 := time.Now(), cpuTime(), gcTime(), minorFaults()
	st, err := replay.Rebuild(t.Context(), log, dialects.All(), out, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, cpu, gc, faults := time.Since(t0), cpuTime()-c0, gcTime()-g0, minorFaults()-f0
	stop()
	n := st.Position()
	t.Logf("rebuild: %d records in %s: %.0f records/s, %.1f µs of CPU a record, %.1f of them the garbage collector's, %d minor page faults (reading and decoding alone: %.0f records/s)",
		n, d.Round(time.Millisecond), float64(n)/d.Seconds(), float64(cpu.Microseconds())/float64(n), float64(gc.Microseconds())/float64(n), faults, raw)
	reportMemory(t, "after the rebuild")
	runtime.KeepAlive(st)
}

// readRate is how fast the file log is read and its records decoded: the
// floor under any rebuild.
func readRate(t *testing.T, log *fileLog) float64 {
	t0 := time.Now()
	for from := uint64(1); from <= log.head(); from += 4096 {
		raw, _ := log.Read(t.Context(), from, from+4095)
		for _, b := range raw {
			if _, err := events.DecodeRecord(b); err != nil {
				t.Fatal(err)
			}
		}
	}
	return float64(log.head()) / time.Since(t0).Seconds()
}

// scaleServe catches a replica up from the log as internal/service's
// catchup does (Load, then chunks of 4096 records, a commit after each),
// then times appends at the head.
func scaleServe(t *testing.T, path string) {
	log := openFileLog(t, path)
	out := filepath.Join(t.TempDir(), "p.db")
	if *scaleOut != "" {
		out = *scaleOut
	}
	store, err := projection.OpenStore(out, projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	st, err := store.Load(dialects.All())
	if err != nil {
		t.Fatal(err)
	}
	const chunk = 4096
	head := log.head()
	marks := map[uint64]bool{}
	for _, f := range []float64{0.01, 0.1, 0.5, 1} {
		marks[uint64(f*float64(head))/chunk] = true
	}
	var commits []time.Duration
	t0 := time.Now()
	for from, i := uint64(1), uint64(0); from <= head; from, i = from+chunk, i+1 {
		raw, err := log.Read(t.Context(), from, from+chunk-1)
		if err != nil {
			t.Fatal(err)
		}
		for j, b := range raw {
			if err := st.Apply(projection.Input{Bytes: b}, from+uint64(j)); err != nil {
				t.Fatal(err)
			}
		}
		c0 := time.Now()
		if err := store.Commit(st); err != nil {
			t.Fatal(err)
		}
		commits = append(commits, time.Since(c0))
		if marks[i] {
			t.Logf("commit of %d records at %d: %s (median of the last 10 chunks %s)", len(raw), st.Position(),
				commits[len(commits)-1].Round(time.Microsecond), median(commits[max(0, len(commits)-10):]).Round(time.Microsecond))
		}
	}
	d := time.Since(t0)
	t.Logf("catch-up: %d records in %s: %.0f records/s", st.Position(), d.Round(time.Millisecond), float64(st.Position())/d.Seconds())
	reportMemory(t, "after the catch-up")
	if *scaleHeap != "" {
		f, err := os.Create(*scaleHeap)
		if err != nil {
			t.Fatal(err)
		}
		if err := errors.Join(pprof.WriteHeapProfile(f), f.Close()); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("sessions: %d", len(st.Keys()))
	scaleQueries(t, st)
	scaleAppends(t, store, st)
	runtime.KeepAlive(st)
}

// scaleQueries times why on sessions spread over the log (read from the
// store when the state does not hold them), then on the same ones again.
func scaleQueries(t *testing.T, st *projection.State) {
	keys := st.Keys()
	for _, pass := range []string{"first", "again"} {
		var lat []time.Duration
		for i := range 2000 {
			k := keys[(i*7919)%len(keys)]
			t0 := time.Now()
			if _, err := st.Why(k, "exec", nil); err != nil {
				t.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
		slices.Sort(lat)
		t.Logf("why on 2000 sessions (%s): p50 %s p99 %s", pass, lat[len(lat)/2], lat[len(lat)*99/100])
	}
}

// scaleAppends times the append path's share of the projection at the
// head: Prepare and Apply of a tool.checked on a session with a turn, and
// a commit every 100 ms as the service does.
func scaleAppends(t *testing.T, store *projection.Store, st *projection.State) {
	clock := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	entropy := rand.NewChaCha8([32]byte{9})
	apply := func(raw []byte) time.Duration {
		t0 := time.Now()
		ev, err := events.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		clock = clock.Add(time.Millisecond)
		ev.ID = events.NewID(clock, entropy)
		p := st.Prepare(ev, events.FormatTime(clock))
		if p.Err != nil {
			t.Fatal(p.Err)
		}
		b, err := p.Record.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Apply(projection.Input{Record: p.Record, Bytes: b}, st.Position()+1); err != nil {
			t.Fatal(err)
		}
		return time.Since(t0)
	}
	apply([]byte(`{"type":"session.started","v":1,"actor":"bench","session":"agent:main:probe","data":{"agent":"main"}}`))
	apply([]byte(`{"type":"turn.started","v":1,"actor":"bench","session":"agent:main:probe","data":{"turn":1}}`))
	var lat []time.Duration
	last := time.Now()
	for i := range 2000 {
		lat = append(lat, apply(fmt.Appendf(nil, `{"type":"tool.checked","v":1,"actor":"bench","session":"agent:main:probe","data":{"turn":1,"tool":"read","call":"c%d"}}`, i)))
		if time.Since(last) > 100*time.Millisecond {
			if err := store.Commit(st); err != nil {
				t.Fatal(err)
			}
			last = time.Now()
		}
	}
	slices.Sort(lat)
	t.Logf("append (prepare+apply) at %d records: p50 %s p99 %s", st.Position(), lat[len(lat)/2], lat[len(lat)*99/100])
	// Commits of 10 appends each, as a replica's 100 ms commits under a
	// light load.
	var commits []time.Duration
	for i := range 50 {
		for j := range 10 {
			apply(fmt.Appendf(nil, `{"type":"tool.checked","v":1,"actor":"bench","session":"agent:main:probe","data":{"turn":1,"tool":"read","call":"d%d"}}`, i*10+j))
		}
		c0 := time.Now()
		if err := store.Commit(st); err != nil {
			t.Fatal(err)
		}
		commits = append(commits, time.Since(c0))
	}
	slices.Sort(commits)
	t.Logf("commit of 10 appends at the head: p50 %s p90 %s", commits[len(commits)/2].Round(time.Microsecond), commits[len(commits)*9/10].Round(time.Microsecond))
}

// scaleHash prints the state hash of a rebuild and of the store it wrote,
// to compare layouts and code versions on the same log.
func scaleHash(t *testing.T, path string) {
	log := openFileLog(t, path)
	out := filepath.Join(t.TempDir(), "p.db")
	st, err := replay.Rebuild(t.Context(), log, dialects.All(), out, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("state hash at %d: %s", st.Position(), ledgertest.StateHash(t, st))
	store, err := projection.OpenStore(out, projection.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	loaded, err := store.Load(dialects.All())
	if err != nil {
		t.Fatal(err)
	}
	if a, b := ledgertest.StateHash(t, loaded), ledgertest.StateHash(t, st); a != b {
		t.Errorf("the state loaded from the store hashes to %s, the rebuilt one to %s", a, b)
	}
}

// profileCPU starts a CPU profile into -scale-cpuprofile, when it is set,
// and returns what stops it.
func profileCPU(t *testing.T) (stop func()) {
	if *scaleCPU == "" {
		return func() {}
	}
	f, err := os.Create(*scaleCPU)
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	}
}

// gcTime is the CPU time the garbage collector has used, as the runtime
// estimates it.
func gcTime() time.Duration {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 {
		return 0
	}
	return time.Duration(s[0].Value.Float64() * float64(time.Second))
}

// minorFaults is how many pages the process has faulted in without
// reading the disk: on a rebuild, mostly the projection file's pages read
// again after the store dropped them (see projection's rebuildDropGrowth).
// A count, which a busy machine does not disturb.
func minorFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Minflt
}

// cpuTime is the CPU time the process has used, user and system: a
// measure a busy machine disturbs less than the time on the clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// reportMemory logs the heap in use after a collection and the process's
// peak resident set.
func reportMemory(t *testing.T, when string) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	t.Logf("%s: heap in use %.1f MB; %s", when, float64(m.HeapInuse)/(1<<20), vmHWM())
}

func vmHWM() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	var out []string
	for line := range strings.SplitSeq(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && (f[0] == "VmHWM:" || f[0] == "RssAnon:" || f[0] == "RssFile:") {
			kb, _ := strconv.ParseFloat(f[1], 64)
			out = append(out, fmt.Sprintf("%s %.1f MB", strings.TrimSuffix(f[0], ":"), kb/1024))
		}
	}
	return strings.Join(out, ", ")
}

// scaleLog returns the path of a log of at least n workload records,
// generating it through the service when it is not there yet.
func scaleLog(t *testing.T, n int) string {
	path := filepath.Join(*scaleDir, fmt.Sprintf("ledger-scale-%d.log", n))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	t.Logf("generating %s", path)
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	mem := &service.MemLog{}
	svc := service.New(service.Config{Log: mem, Dialects: dialects.All(),
		Clock:   func() time.Time { clock = clock.Add(time.Millisecond); return clock },
		Entropy: rand.NewChaCha8([32]byte{1})})
	ctx := context.Background()
	if _, err := svc.Append(ctx, workload.Policy()); err != nil {
		t.Fatal(err)
	}
	for i := 0; svc.Position() < uint64(n); {
		var batch [][]byte
		for len(batch) < 900 {
			batch = append(batch, workload.Session(i)...)
			i++
		}
		for _, o := range svc.AppendMany(ctx, batch) {
			if o.Err != nil {
				t.Fatal(o.Err)
			}
		}
	}
	head, _ := mem.Head(ctx)
	raw, err := mem.Read(ctx, 1, head)
	if err != nil {
		t.Fatal(err)
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for _, b := range raw {
		w.Write(binary.BigEndian.AppendUint32(nil, uint32(len(b))))
		w.Write(b)
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// fileLog is a read-only log over a generated file: it keeps only the
// offsets in memory, so it adds little to the measured heap.
type fileLog struct {
	f   *os.File
	off []int64 // off[i] is where record i+1 starts (its length prefix)
}

func openFileLog(t *testing.T, path string) *fileLog {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	l := &fileLog{f: f}
	r := bufio.NewReader(f)
	var pos int64
	var n [4]byte
	for {
		if _, err := io.ReadFull(r, n[:]); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		size := int64(binary.BigEndian.Uint32(n[:]))
		l.off = append(l.off, pos)
		if _, err := r.Discard(int(size)); err != nil {
			t.Fatal(err)
		}
		pos += 4 + size
	}
	return l
}

func (l *fileLog) head() uint64 { return uint64(len(l.off)) }

func (l *fileLog) Head(context.Context) (uint64, error) { return l.head(), nil }

func (l *fileLog) Read(_ context.Context, from, to uint64) ([][]byte, error) {
	to = min(to, l.head())
	if from < 1 || from > to {
		return nil, nil
	}
	end := int64(0)
	if to < l.head() {
		end = l.off[to]
	} else {
		st, err := l.f.Stat()
		if err != nil {
			return nil, err
		}
		end = st.Size()
	}
	buf := make([]byte, end-l.off[from-1])
	if _, err := l.f.ReadAt(buf, l.off[from-1]); err != nil {
		return nil, err
	}
	out := make([][]byte, 0, to-from+1)
	for len(buf) > 0 {
		size := binary.BigEndian.Uint32(buf)
		out = append(out, buf[4:4+size:4+size])
		buf = buf[4+size:]
	}
	return out, nil
}
