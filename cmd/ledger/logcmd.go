package main

import (
	"context"
	"fmt"
	"io"

	"github.com/sessionledger/ledger/events"
)

func runLog(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("log", "", "Prints the log's records in stream order. --json prints the records themselves, one per\n"+
		"line (the format --log FILE reads); --follow keeps printing new records until interrupted.", stderr)
	var lf ledgerFlags
	lf.register(fl)
	from := fl.Uint64("from", 1, "first sequence to print")
	tail := fl.Uint64("tail", 0, "print only the last N records (before following)")
	follow := fl.Bool("follow", false, "keep printing records as they land")
	asJSON := fl.Bool("json", false, "print the records as JSON lines")
	if _, err := parseFlags(fl, args); err != nil {
		return helpOK(err)
	}
	h, err := lf.openLog(ctx)
	if err != nil {
		return err
	}
	defer h.Close()
	head, err := h.log.Head(ctx)
	if err != nil {
		return err
	}
	start := *from
	if *tail > 0 && head >= *tail {
		start = max(start, head-*tail+1)
	}
	if start > head && !*follow {
		return nil
	}
	until := head
	if *follow {
		until = 0
	}
	err = h.log.Follow(ctx, start, func(seq uint64, data []byte, _ uint64) error {
		if *asJSON {
			_, err := fmt.Fprintf(stdout, "%s\n", data)
			return err
		}
		rec, err := events.DecodeRecord(data)
		if err != nil {
			return fmt.Errorf("record %d: %w", seq, err)
		}
		_, err = fmt.Fprintf(stdout, "%6d  %s  %-20s %-40s %s\n", seq, rec.Time, rec.Type, rec.Session, rec.ID)
		return err
	}, until)
	if ctx.Err() != nil {
		return nil
	}
	return err
}
