package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/trace"
	"strings"
	"text/tabwriter"

	"github.com/sessionledger/ledger/internal/bench"
)

func runBench(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 2 && args[0] == bench.ServeNATSArg {
		// A server process of the subjects section, which this command
		// starts as 'ledger bench --serve-nats SPEC': it serves until
		// SIGTERM or SIGINT.
		return bench.ServeNATS(ctx, args[1])
	}
	if len(args) == 2 && args[0] == bench.RebuildArg {
		// The scale section's rebuild in a process of its own, which this
		// command starts as 'ledger bench --rebuild-child SPEC'.
		return bench.RebuildChild(ctx, args[1], stdout)
	}
	fl := newFlags("bench", "", "Measures the ledger side by side with raw JetStream and bbolt in one run on this machine:\n"+
		"appends (one session: latency; 64 sessions: throughput; with fsync on every write and with the\n"+
		"default sync interval), queries (in-process and over NATS against a raw request/reply), projection\n"+
		"rebuild against a raw ordered consumer (in the bench's process, and in a process of its own that\n"+
		"reads the bench's server over loopback), and scale (append and query latency as the log grows,\n"+
		"rebuild time, peak RSS of a replica), and a restart after SIGKILL of a log past a million distinct\n"+
		"subjects, in one stream and rolled (see docs/rolling-streams.md), and Claude Code's hooks (a PreToolUse through\n"+
		"the thin ledger-hook process to 'serve --hooks' over HTTP and a Unix socket, against a no-op hook process plus\n"+
		"a raw durable publish, and through 'serve --hooks' against a raw HTTP round trip plus a raw durable publish;\n"+
		"'ledger hook claude-code --nats' for reference; the thin binary is built with go build when go is on PATH,\n"+
		"else taken from beside this binary), and the MCP gateway ('ledger mcp': a tools/call and a tools/list\n"+
		"through it against the same request straight to an in-process upstream, one client session and 64).\n"+
		"Prints a table with each ratio and target. The full run\n"+
		"grows a log of a million records and takes several minutes; --quick takes about a minute.", stderr)
	quick := fl.Bool("quick", false, "a short run (about a minute) with small sizes")
	dir := fl.String("dir", "", "where the servers and projections live (default: a new temp dir, removed afterwards)")
	asJSON := fl.Bool("json", false, "print the report as JSON")
	maxRecords := fl.Uint64("max-records", 0, "cap the log the scale section grows (default: a million records in the full run)")
	only := fl.String("only", "", "run only these sections, comma-separated: append, queries, scale, subjects, hooks, agents, mcp, scopes (default: all)")
	cpuProfile := fl.String("cpuprofile", "", "write a CPU profile of the run to this file (for 'go tool pprof'); the rebuild in a process of its own writes its own to FILE.rebuild-N, N its records")
	traceOut := fl.String("trace", "", "write an execution trace of the run to this file (for 'go tool trace'; a few MB a second, so pick sections with --only)")
	if _, err := parseFlags(fl, args); err != nil {
		return helpOK(err)
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "ledger-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		*dir = d
	}
	stopProfile, err := bench.StartCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	if *traceOut != "" {
		f, err := os.Create(*traceOut)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := trace.Start(f); err != nil {
			return err
		}
		defer trace.Stop()
	}
	exe, _ := os.Executable()
	if strings.HasSuffix(exe, ".test") {
		exe = "" // under go test the binary is not the ledger
	}
	rep, err := bench.Run(ctx, bench.Config{Dir: *dir, Quick: *quick, Log: stderr, Exe: exe, MaxRecords: *maxRecords, Only: splitList(*only), CPUProfile: *cpuProfile})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, rep)
	}
	fmt.Fprintf(stdout, "ledger bench (%s) on %s, took %s\n\n", map[bool]string{true: "quick", false: "full"}[*quick], rep.Machine, rep.Took.Round(1e6))
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "section\tmeasure\tledger\traw\tunit\tratio\ttarget\tmet\tnote")
	for _, r := range rep.Rows {
		if r.NotMeasured != "" {
			fmt.Fprintf(tw, "%s\t%s\t-\t\t%s\t\t%s\t\tnot measured: %s\n", r.Section, r.Name, r.Unit, r.Target, r.NotMeasured)
			continue
		}
		raw, ratio, met := "", "", ""
		if r.Raw > 0 {
			raw = num(r.Raw)
			ratio = fmt.Sprintf("%.2fx", r.Ratio)
		}
		if r.Met != nil {
			met = map[bool]string{true: "yes", false: "NO"}[*r.Met]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Section, r.Name, num(r.Ledger), raw, r.Unit, ratio, r.Target, met, r.Note)
	}
	return tw.Flush()
}

func num(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
