// Package bench measures the ledger side by side with the raw NATS
// JetStream and bbolt underneath it, in one run on one machine, and reports
// each figure with its ratio and target (`ledger bench`). Every number it
// prints is measured in that run; nothing is assumed.
package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Config says how much to measure. The zero value (with Dir) is the full
// run; Quick is a run of about a minute for CI.
type Config struct {
	// Dir holds the servers' stores and projection files.
	Dir   string
	Quick bool
	// Log, when set, is told what is being measured.
	Log io.Writer
	// Exe is the ledger binary, for the peak-RSS measurement of a serving
	// replica, the `ledger hook claude-code` process and the subjects
	// section's server processes ('ledger bench --serve-nats') (skipped when
	// empty); the hooks section also looks for the slim ledger-hook beside
	// it when it cannot build one.
	Exe string
	// MaxRecords, when set, caps the log the scale section grows (the full
	// run grows it to a million records).
	MaxRecords uint64
	// Only, when set, names the sections to run (append, queries, scale,
	// subjects, hooks, agents, mcp, scopes).
	Only []string
	// CPUProfile, when set, is the path of the run's CPU profile: the
	// scale section's rebuild in a process of its own writes that
	// process's profile of the rebuild alone to CPUProfile.rebuild-N (N
	// the records it rebuilds), beside it.
	CPUProfile string
}

// Row is one measured figure.
type Row struct {
	Section string  `json:"section"`
	Name    string  `json:"name"`
	Ledger  float64 `json:"ledger"`
	Raw     float64 `json:"raw,omitempty"`
	Unit    string  `json:"unit"`
	// Ratio is Ledger/Raw (0 when there is no raw figure).
	Ratio  float64 `json:"ratio,omitempty"`
	Target string  `json:"target,omitempty"`
	// Met says whether the target was met (nil when there is none).
	Met  *bool  `json:"met,omitempty"`
	Note string `json:"note,omitempty"`
	// NotMeasured, when set, says why the figure could not be measured in
	// this run (Ledger and Raw are then 0 and mean nothing).
	NotMeasured string `json:"not_measured,omitempty"`
}

// Report is a whole run.
type Report struct {
	Machine string        `json:"machine"`
	Quick   bool          `json:"quick"`
	Took    time.Duration `json:"took_ns"`
	Rows    []Row         `json:"rows"`
}

func (r *Report) add(row Row) { r.Rows = append(r.Rows, row) }

func (c *Config) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format+"\n", args...)
	}
}

// Run measures everything and returns the report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	start := time.Now()
	rep := &Report{Machine: machine(), Quick: cfg.Quick}
	type step struct {
		section, name string
		fn            func(context.Context, *Config, *Report) error
	}
	steps := []step{
		{"append", "append latency and throughput", appendBench},
		{"queries", "queries", queryBench},
		{"scale", "scale and rebuild", scaleBench},
		{"subjects", "restart past a million subjects", subjectsBench},
		{"hooks", "Claude Code's hooks", hooksBench},
		{"agents", "Codex and Gemini CLI hooks", agentsBench},
		{"mcp", "the MCP gateway", mcpBench},
		{"scopes", "many scopes against one", scopesBench},
	}
	for _, name := range cfg.Only {
		if !slices.ContainsFunc(steps, func(s step) bool { return s.section == name }) {
			return rep, fmt.Errorf("bench: no section %q; the sections are append, queries, scale, subjects, hooks, agents, mcp and scopes", name)
		}
	}
	for _, s := range steps {
		if len(cfg.Only) > 0 && !slices.Contains(cfg.Only, s.section) {
			continue
		}
		cfg.logf("bench: %s ...", s.name)
		if err := s.fn(ctx, &cfg, rep); err != nil {
			return rep, fmt.Errorf("bench: %s: %w", s.name, err)
		}
	}
	rep.Took = time.Since(start)
	return rep, nil
}

// subjectsBench measures a restart after SIGKILL of a log past the
// filestore's million-subject threshold, in one stream and rolled (see
// docs/rolling-streams.md). The quick run writes 20,000 subjects in
// segments of 5,000 and does not wait before the kill.
func subjectsBench(ctx context.Context, cfg *Config, rep *Report) error {
	if cfg.Exe == "" {
		rep.add(Row{Section: "subjects", Name: "restart after SIGKILL", Unit: "s", NotMeasured: "no ledger binary to run the servers (under go test the running binary is not the ledger)"})
		return nil
	}
	sc := SubjectsConfig{Dir: dir(cfg, "subjects"), Log: cfg.Log, Server: []string{cfg.Exe, "bench", ServeNATSArg}}
	if cfg.Quick {
		sc.Subjects, sc.RollSubjects, sc.IndexWait = 20_000, 5_000, -1
	}
	if cfg.MaxRecords > 0 && (sc.Subjects == 0 || cfg.MaxRecords < uint64(sc.Subjects)) {
		sc.Subjects = int(max(cfg.MaxRecords, 2000))
	}
	rows, err := SubjectsRestart(ctx, sc)
	for _, r := range rows {
		rep.add(r)
	}
	return err
}

func machine() string {
	model := ""
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "model name") {
				model = strings.TrimSpace(strings.SplitN(line, ":", 2)[1])
				break
			}
		}
	}
	return fmt.Sprintf("%s/%s, %d CPUs, %s, %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), model, runtime.Version())
}

// quantile returns the q-quantile of ds (which it sorts) in microseconds.
func quantile(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return float64(ds[int(q*float64(len(ds)-1))].Nanoseconds()) / 1e3
}

func ratioRow(section, name string, ledger, raw float64, unit, target string, met func(r float64) bool) Row {
	r := Row{Section: section, Name: name, Ledger: ledger, Raw: raw, Unit: unit, Target: target}
	if raw > 0 {
		r.Ratio = ledger / raw
		if met != nil {
			ok := met(r.Ratio)
			r.Met = &ok
		}
	}
	return r
}

func absRow(section, name string, v float64, unit, target string, met func(float64) bool) Row {
	r := Row{Section: section, Name: name, Ledger: v, Unit: unit, Target: target}
	if met != nil {
		ok := met(v)
		r.Met = &ok
	}
	return r
}

func dir(cfg *Config, name string) string { return filepath.Join(cfg.Dir, name) }

// orders are the k! orders of k measurements, in lexicographic order: a
// run that goes through them in turn measures each as often after any
// other, so that what one leaves behind (a thread parked, a cache filled)
// weighs on none more than on the others.
func orders(k int) [][]int {
	if k <= 1 {
		return [][]int{make([]int, k)}
	}
	var out [][]int
	for _, rest := range orders(k - 1) {
		for pos := 0; pos < k; pos++ {
			o := make([]int, 0, k)
			for _, r := range rest[:pos] {
				o = append(o, r+1)
			}
			o = append(o, 0)
			for _, r := range rest[pos:] {
				o = append(o, r+1)
			}
			out = append(out, o)
		}
	}
	slices.SortFunc(out, slices.Compare)
	return out
}
