package main

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/report"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/replay"
)

func runReport(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("report", "--html FILE", "Writes the audit report: one self-contained HTML page (no external assets, readable\n"+
		"without JavaScript) with the spawn tree, every session's timeline of turns with the tools gained\n"+
		"and lost and why, continuations with their policy source, grants and revocations on the same\n"+
		"time axis, and the full why trace of every denied tool. 'ledger serve --http ADDR' serves the\n"+
		"same page at /report. Every session shows its scope and the identity its root started with; every\n"+
		"decision names its scope. --scope, --user-identity, --project and --runtime keep the trees\n"+
		"whose root has them, and the policy changes of their scopes.", stderr)
	var q queryFlags
	registerSource(fl, &q, "report only the spawn tree under this session (default: every tree)")
	var ff filterFlags
	ff.register(fl, "report only")
	html := fl.String("html", "", "write the page to FILE ('-' for stdout) (required)")
	to := fl.Uint64("to", 0, "report on the log up to this sequence (default: the head)")
	title := fl.String("title", "", "the page's title (default \"ledger audit report\")")
	if _, err := parseFlags(fl, args); err != nil {
		return helpOK(err)
	}
	if err := ff.check(fl, &q.ledgerFlags); err != nil {
		return err
	}
	if *html == "" {
		return usageError("--html FILE is required ('-' for stdout)")
	}
	svc, err := q.open(ctx)
	if err != nil {
		return err
	}
	defer q.close()
	progress := progressTo(stderr, "report")
	if *html == "-" && isTerminal(stdout) {
		progress = nil
	}
	rep, err := buildReport(ctx, svc, report.Options{Root: events.SessionKey(q.session), Filter: ff.filter(), Title: *title, Where: q.conn()}, *to, progress)
	if err != nil {
		return err
	}
	var page bytes.Buffer
	if err := report.Render(&page, rep); err != nil {
		return err
	}
	if *html == "-" {
		_, err := stdout.Write(page.Bytes())
		return err
	}
	if err := writeFileAtomic(*html, page.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %d session(s), %d denial(s), %d policy change(s), the log up to sequence %d\n",
		*html, len(rep.Sessions), len(rep.Denials), len(rep.Changes), rep.Seq)
	return nil
}

// buildReport reads the log up to sequence to (0: as far as the service
// has applied) and builds the report from those records. The report folds
// a state of its own rather than reading the service's head under the
// service's lock, so a report on a serving replica (serve --http) never
// holds up appends, and the records and the state always agree.
func buildReport(ctx context.Context, svc *service.Service, opts report.Options, to uint64, progress replay.Progress) (*report.Report, error) {
	pos := svc.Position()
	if to > pos {
		return nil, events.Errorf(events.CodeNotCaughtUp, "sequence %d is beyond the head (%d)", to, pos)
	}
	if to != 0 {
		pos = to
	}
	recs := make([]*events.Record, 0, pos)
	err := eachRecord(ctx, svc.Log(), pos, progress, func(seq uint64, raw []byte) error {
		rec, err := events.DecodeRecord(raw)
		if err != nil {
			return fmt.Errorf("record %d: %w", seq, err)
		}
		recs = append(recs, rec)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return report.Build(svc.Dialects(), recs, opts)
}
