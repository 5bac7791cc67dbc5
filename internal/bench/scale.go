package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/internal/workload"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
)

// grow appends whole workload sessions until the log holds at least n
// records, in atomic batches.
func grow(ctx context.Context, n *node, target uint64, next *int) error {
	batch := make([][]byte, 0, 1000)
	flush := func() error {
		for _, o := range n.svc.AppendMany(ctx, batch) {
			if o.Err != nil {
				return o.Err
			}
		}
		batch = batch[:0]
		return nil
	}
	for n.svc.Position()+uint64(len(batch)) < target {
		batch = append(batch, workload.Session(*next)...)
		*next++
		if len(batch) >= 900 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// scaleBench grows one log and measures append latency, rebuild time and
// query latency as it grows, and the peak RSS of a replica serving it.
func scaleBench(ctx context.Context, cfg *Config, rep *Report) error {
	sizes := []uint64{10_000, 100_000, 1_000_000}
	rebuildAt := map[uint64]bool{100_000: true, 1_000_000: true}
	sessionsAt := []int{1_000, 10_000, 100_000}
	if cfg.Quick {
		sizes = []uint64{2_000, 20_000}
		rebuildAt = map[uint64]bool{20_000: true}
		sessionsAt = []int{1_000, 5_000}
	}
	if cfg.MaxRecords > 0 {
		kept := sizes[:0]
		for _, sz := range sizes {
			if sz <= cfg.MaxRecords {
				kept = append(kept, sz)
			}
		}
		if len(kept) > 0 && !rebuildAt[kept[len(kept)-1]] {
			rebuildAt[kept[len(kept)-1]] = true
		}
		sizes = kept
	}
	n, err := startNodeListening(ctx, dir(cfg, "scale"))
	if err != nil {
		return err
	}
	defer n.close()
	if _, err := n.svc.Append(ctx, workload.Policy()); err != nil {
		return err
	}
	if err := startSessions(ctx, n.svc, []string{"agent:main:probe"}); err != nil {
		return err
	}
	next := 0
	var firstLat float64
	for _, size := range sizes {
		t0 := time.Now()
		if err := grow(ctx, n, size, &next); err != nil {
			return err
		}
		cfg.logf("bench: scale: %d records (grew in %s)", n.svc.Position(), time.Since(t0).Round(time.Millisecond))
		// Ledger appends and raw publishes of a record's bytes, taken in
		// turn, so both see the same disk: an fsync's latency drifts over
		// minutes, and the raw p50 tells the server's drift from the
		// ledger's growth.
		body, err := recordBytes(ctx, n)
		if err != nil {
			return err
		}
		lat, raw := make([]time.Duration, 0, scaleProbes), make([]time.Duration, 0, scaleProbes)
		for i := 0; i < scaleProbes; i++ {
			ev := checkEvent("agent:main:probe", int(size)+i)
			t := time.Now()
			if _, err := n.svc.Append(ctx, ev); err != nil {
				return err
			}
			lat = append(lat, time.Since(t))
			t = time.Now()
			if _, err := n.js.Publish(ctx, "raw.scale", body, jetstream.WithMsgID(fmt.Sprintf("scale-%d-%d", size, i))); err != nil {
				return err
			}
			raw = append(raw, time.Since(t))
		}
		p50, rawP50 := quantile(lat, 0.5), quantile(raw, 0.5)
		if firstLat == 0 {
			firstLat = p50
		}
		row := ratioRow("scale", fmt.Sprintf("append p50 with %d records in the log", size), p50, firstLat, "µs",
			"within 20% of the smallest size", func(r float64) bool { return r <= 1.2 })
		row.Note = fmt.Sprintf("raw sync publish p50, taken in turn with the appends: %.0f µs", rawP50)
		rep.add(row)
		if rebuildAt[size] {
			if err := rebuildRows(ctx, cfg, rep, n); err != nil {
				return err
			}
		}
	}
	if err := queryScale(ctx, cfg, rep, sessionsAt); err != nil {
		return err
	}
	if cfg.Exe != "" {
		return rssRow(ctx, cfg, rep, n)
	}
	rep.add(Row{Section: "scale", Name: "peak RSS serving the log", Unit: "MB", Note: "skipped: no ledger binary to run"})
	return nil
}

// settle lets the growth of the log finish before a timed read: the
// service commits what it folded, the heap is collected, and a pause lets
// the kernel write back the pages the growth dirtied (the first rebuild
// after growing 100k records ran at 52k records/s, a second right after
// it at 69k).
func settle(n *node) error {
	if err := n.svc.Flush(context.Background()); err != nil {
		return err
	}
	runtime.GC()
	time.Sleep(settlePause)
	return nil
}

const settlePause = time.Second

// scaleProbes is how many appends (and as many raw publishes) each scale
// size measures.
const scaleProbes = 1000

// rebuildRows times a projection rebuild from an empty bbolt file against
// a raw ordered consumer reading the same stream. The rebuild runs as
// 'ledger replay' runs it, in the process of the server that holds the
// log and with the garbage collector set as replay.TuneGC sets it; the
// raw consumer, which allocates next to nothing, reads with the process's
// usual setting. Both start from the same quiet state (see settle), and
// the raw consumer reads before and after the rebuild: the ratio is
// against the mean of the two.
func rebuildRows(ctx context.Context, cfg *Config, rep *Report, n *node) error {
	head := n.svc.Position()
	path := filepath.Join(cfg.Dir, fmt.Sprintf("rebuild-%d.db", head))
	readRaw := func() (float64, error) {
		if err := settle(n); err != nil {
			return 0, err
		}
		return rawRead(ctx, n.log, head)
	}
	before, err := readRaw()
	if err != nil {
		return err
	}
	if err := settle(n); err != nil {
		return err
	}
	live := liveHeap()
	restore := replay.TuneGC()
	gc0, all0 := cpuClasses()
	t0 := time.Now()
	_, err = replay.Rebuild(ctx, n.log, dialects.All(), path, 0, nil)
	rebuild := time.Since(t0)
	gc1, all1 := cpuClasses()
	restore()
	if err != nil {
		return err
	}
	os.Remove(path)
	after, err := readRaw()
	if err != nil {
		return err
	}
	lr, rr := float64(head)/rebuild.Seconds(), (before+after)/2
	row := ratioRow("rebuild", fmt.Sprintf("%d records: records/s", head), lr, rr, "records/s", "≥ 0.5x raw ordered consumer", func(r float64) bool { return r >= 0.5 })
	row.Note = fmt.Sprintf("as ledger replay runs it, GOGC %s; the collector took %.0f%% of the process's CPU meanwhile; raw %.0f before and %.0f after; "+
		"the process's live heap before it %.0f MB (the bench's own ledger and server; a heap goal GOGC times larger is memory the rebuild faults in fresh)",
		rebuildGOGC(), 100*(gc1-gc0)/max(all1-all0, 1e-9), before, after, float64(live)/(1<<20))
	rep.add(row)
	row = absRow("rebuild", fmt.Sprintf("%d records: rebuild time", head), rebuild.Seconds(), "s", "", nil)
	if head >= 1_000_000 {
		row.Target = "< 10 s"
		ok := rebuild.Seconds() < 10
		row.Met = &ok
	}
	rep.add(row)
	if cfg.Exe == "" {
		rep.add(Row{Section: "rebuild", Name: fmt.Sprintf("%d records, a process of its own", head), Note: "skipped: no ledger binary to run"})
		return nil
	}
	return rebuildProcRow(ctx, cfg, rep, n, path)
}

// rebuildGOGC is the collector's setting a rebuild runs with: GOGC from
// the environment when set (TuneGC leaves it alone), else TuneGC's.
func rebuildGOGC() string {
	if v, ok := os.LookupEnv("GOGC"); ok {
		return v
	}
	return strconv.Itoa(replay.RebuildGCPercent)
}

// rawRead reads log from its first record to head with the raw ordered
// consumer (natslog's Follow, counting), and answers records a second:
// the floor of both rebuild rows.
func rawRead(ctx context.Context, log *natslog.Log, head uint64) (float64, error) {
	t0 := time.Now()
	count := uint64(0)
	if err := log.Follow(ctx, 1, func(uint64, []byte, uint64) error { count++; return nil }, head); err != nil {
		return 0, err
	}
	return float64(count) / time.Since(t0).Seconds(), nil
}

// liveHeap is the heap the last collection found live, in bytes (0 when
// the runtime does not say).
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// cpuClasses is the CPU time the garbage collector and the whole process
// (the collector and the program's goroutines) have used, in seconds, as
// the runtime estimates them.
func cpuClasses() (gc, all float64) {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/cpu/classes/user:cpu-seconds"}}
	metrics.Read(s)
	for _, m := range s {
		if m.Value.Kind() != metrics.KindFloat64 {
			return 0, 0
		}
	}
	gc = s[0].Value.Float64()
	return gc, gc + s[1].Value.Float64()
}

// rssRow runs a ledger replica on the log and reads its peak resident set
// once it has caught up.
func rssRow(ctx context.Context, cfg *Config, rep *Report, n *node) error {
	head := n.svc.Position()
	sessions := 0
	_ = n.svc.View(ctx, "", projection.Position{}, func(st *projection.State) error { sessions = len(st.Keys()); return nil })
	cmd := exec.CommandContext(ctx, cfg.Exe, "serve", "--nats", n.ns.ClientURL(), "--data", dir(cfg, "rss"), "--no-api")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	sc := bufio.NewScanner(stderr)
	caught := false
	for sc.Scan() {
		var m struct {
			Msg      string `json:"msg"`
			Position uint64 `json:"position"`
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.Msg == "caught up" && m.Position >= head {
			caught = true
			break
		}
	}
	if !caught {
		return fmt.Errorf("the replica exited before catching up")
	}
	hwm, err := vmHWM(cmd.Process.Pid)
	if err != nil {
		return err
	}
	row := absRow("scale", fmt.Sprintf("peak RSS serving %d records, %d sessions", head, sessions), hwm, "MB", "< 300 MB", func(v float64) bool { return v < 300 })
	rep.add(row)
	return nil
}

func vmHWM(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			kb, err := strconv.ParseFloat(f[1], 64)
			return kb / 1024, err
		}
	}
	return 0, fmt.Errorf("no VmHWM for %d", pid)
}
