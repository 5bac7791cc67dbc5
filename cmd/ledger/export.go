package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/report"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
)

func runExport(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("export", "", "Exports the log as JSON Lines for a SIEM or a data warehouse: one line per record, in\n"+
		"stream order, with its sequence, the record as stored, and what the projection derived from it\n"+
		"(a turn's tool set with its denials and the tools gained and lost, a continuation's policy\n"+
		"source), and the scope and identity of each record's session. Every line has \"export\": 1,\n"+
		"the format's version. --session ROOT keeps the spawn tree under ROOT; --scope, --user-identity,\n"+
		"--project and --runtime keep the trees whose root has them. Either keeps the policy records\n"+
		"(policy.set, grants, revocations) of the kept trees' scopes, and of --scope.", stderr)
	var q queryFlags
	registerSource(fl, &q, "export only the spawn tree under this session, with its scope's policy records (default: the whole log)")
	var ff filterFlags
	ff.register(fl, "export only")
	out := fl.String("out", "", "write the lines to FILE instead of stdout")
	to := fl.Uint64("to", 0, "export the log up to this sequence (default: the head)")
	if _, err := parseFlags(fl, args); err != nil {
		return helpOK(err)
	}
	if err := ff.check(fl, &q.ledgerFlags); err != nil {
		return err
	}
	svc, err := q.open(ctx)
	if err != nil {
		return err
	}
	defer q.close()
	var x *report.Exporter
	var pos uint64
	err = svc.View(ctx, "", projection.Position{Seq: *to}, func(st *projection.State) error {
		pos = st.Position()
		sel, err := report.SelectIn(st, events.SessionKey(q.session), ff.filter())
		if err != nil {
			return err
		}
		x, err = report.NewExporter(st, sel)
		return err
	})
	if err != nil {
		return err
	}
	w := stdout
	var f *os.File
	if *out != "" {
		// Written beside FILE and renamed over it once whole: an export
		// that fails (a damaged log) leaves what FILE held, which may be
		// the --log being read (tests/faults TestDamagedLogIsReported).
		if f, err = os.CreateTemp(filepath.Dir(*out), "."+filepath.Base(*out)+".tmp*"); err != nil {
			return err
		}
		defer os.Remove(f.Name()) // after the rename there is nothing to remove
		defer f.Close()
		if err := f.Chmod(0o644); err != nil {
			return err
		}
		w = f
	}
	// The bar goes to stderr on a terminal, and not when the lines
	// themselves are being printed on that terminal.
	var progress replay.Progress
	if *out != "" || !isTerminal(stdout) {
		progress = progressTo(stderr, "export")
	}
	n, err := export(ctx, w, x, svc.Log(), pos, progress)
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), *out)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "exported %d record(s) of %d to %s (export format %d)\n", n, pos, *out, report.ExportVersion)
	}
	return err
}

// export writes the export line of every record in scope up to pos and
// returns how many it wrote.
func export(ctx context.Context, w io.Writer, x *report.Exporter, log recordReader, pos uint64, progress replay.Progress) (int, error) {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	// The record is written as stored: no HTML escaping of its strings.
	enc.SetEscapeHTML(false)
	n := 0
	err := eachRecord(ctx, log, pos, progress, func(seq uint64, raw []byte) error {
		l, err := x.Line(seq, raw)
		if err != nil || l == nil {
			return err
		}
		n++
		return enc.Encode(l)
	})
	return n, errors.Join(err, bw.Flush())
}
