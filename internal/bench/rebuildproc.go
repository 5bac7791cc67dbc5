package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/natslog"
	"github.com/sessionledger/ledger/replay"
)

// RebuildArg is the argument with which 'ledger bench' runs RebuildChild
// on the spec that follows it: the scale section's rebuild in a process
// of its own.
const RebuildArg = "--rebuild-child"

type rebuildSpec struct {
	URL  string `json:"url"`
	Head uint64 `json:"head"`
	Out  string `json:"out"`
	// Profile, when set, is where the process writes a CPU profile of
	// the rebuild (Config.CPUProfile).
	Profile string `json:"profile,omitempty"`
}

// rebuildTimes is what RebuildChild prints (one JSON object on stdout).
type rebuildTimes struct {
	RawBefore float64 `json:"raw_before"` // records/s
	RawAfter  float64 `json:"raw_after"`
	Rebuild   float64 `json:"rebuild_s"`
	GCShare   float64 `json:"gc_share"` // of the process's CPU during the rebuild
	PeakRSSMB float64 `json:"peak_rss_mb"`
	Records   uint64  `json:"records"`
	StartHeap uint64  `json:"start_heap"`
}

// RebuildChild is the rebuild of rebuildProcRow in a fresh process, as
// 'ledger replay --nats URL' runs one: it connects to the server at the
// spec's URL, reads the stream to the spec's head with a raw ordered
// consumer, rebuilds a projection from it into the spec's file (with the
// collector as replay.TuneGC sets it), reads it raw again, and writes the
// times as JSON to w. The raw reads and the rebuild use the same
// connection, so the floor crosses the same loopback socket the rebuild
// does.
func RebuildChild(ctx context.Context, spec string, w io.Writer) error {
	var s rebuildSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		return fmt.Errorf("bench rebuild: %w", err)
	}
	nc, err := nats.Connect(s.URL, nats.Name("bench-rebuild"))
	if err != nil {
		return fmt.Errorf("bench rebuild: %w", err)
	}
	defer nc.Close()
	log, err := natslog.Open(ctx, nc, natslog.StreamConfig{})
	if err != nil {
		return fmt.Errorf("bench rebuild: %w", err)
	}
	readRaw := func() (float64, error) {
		runtime.GC()
		return rawRead(ctx, log, s.Head)
	}
	out := rebuildTimes{Records: s.Head}
	if out.RawBefore, err = readRaw(); err != nil {
		return fmt.Errorf("bench rebuild: raw read: %w", err)
	}
	runtime.GC()
	out.StartHeap = liveHeap()
	restore := replay.TuneGC()
	stopProfile, err := StartCPUProfile(s.Profile)
	if err != nil {
		return fmt.Errorf("bench rebuild: %w", err)
	}
	gc0, all0 := cpuClasses()
	t0 := time.Now()
	_, err = replay.Rebuild(ctx, log, dialects.All(), s.Out, s.Head, nil)
	out.Rebuild = time.Since(t0).Seconds()
	gc1, all1 := cpuClasses()
	if perr := stopProfile(); err == nil && perr != nil {
		err = perr
	}
	restore()
	if err != nil {
		return fmt.Errorf("bench rebuild: %w", err)
	}
	out.GCShare = (gc1 - gc0) / max(all1-all0, 1e-9)
	if out.RawAfter, err = readRaw(); err != nil {
		return fmt.Errorf("bench rebuild: raw read: %w", err)
	}
	out.PeakRSSMB, _ = vmHWM(os.Getpid()) // 0 where /proc has none; the row leaves it out
	return json.NewEncoder(w).Encode(out)
}

// rebuildProcRow times the same rebuild as rebuildRows, in a process of
// its own (cfg.Exe bench --rebuild-child SPEC) that reaches the bench's
// server over loopback, as 'ledger replay --nats' or a replica catching
// up does: none of the bench's own heap (its ledger's state, the server's
// duplicate window and subject tree of the log it just grew) is in that
// process for the rebuild's collector to mark, or in its heap goal.
func rebuildProcRow(ctx context.Context, cfg *Config, rep *Report, n *node, path string) error {
	head := n.svc.Position()
	if err := settle(n); err != nil {
		return err
	}
	spec := rebuildSpec{URL: n.ns.ClientURL(), Head: head, Out: path}
	if cfg.CPUProfile != "" {
		spec.Profile = fmt.Sprintf("%s.rebuild-%d", cfg.CPUProfile, head)
	}
	specJSON, _ := json.Marshal(spec)
	cmd := exec.CommandContext(ctx, cfg.Exe, "bench", RebuildArg, string(specJSON))
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	os.Remove(path)
	if err != nil {
		return fmt.Errorf("bench: the rebuild process: %w", err)
	}
	var t rebuildTimes
	if err := json.Unmarshal(b, &t); err != nil {
		return fmt.Errorf("bench: the rebuild process printed %q: %w", b, err)
	}
	lr, rr := float64(head)/t.Rebuild, (t.RawBefore+t.RawAfter)/2
	row := ratioRow("rebuild", fmt.Sprintf("%d records, a process of its own: records/s", head), lr, rr, "records/s",
		"≥ 0.5x raw ordered consumer", func(r float64) bool { return r >= 0.5 })
	row.Note = fmt.Sprintf("a fresh process reading the bench's server over loopback, as ledger replay --nats does; raw %.0f before and %.0f after "+
		"in that process; GOGC %s; the collector took %.0f%% of its CPU; its live heap before %.0f MB",
		t.RawBefore, t.RawAfter, rebuildGOGC(), 100*t.GCShare, float64(t.StartHeap)/(1<<20))
	if t.PeakRSSMB > 0 {
		row.Note += fmt.Sprintf(", its peak RSS %.0f MB", t.PeakRSSMB)
	}
	rep.add(row)
	row = absRow("rebuild", fmt.Sprintf("%d records, a process of its own: rebuild time", head), t.Rebuild, "s", "", nil)
	if head >= 1_000_000 {
		row.Target = "< 10 s"
		ok := t.Rebuild < 10
		row.Met = &ok
	}
	rep.add(row)
	return nil
}

// StartCPUProfile starts a CPU profile written to path, and returns what
// stops it and closes the file; with path "" it does nothing.
func StartCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}
