package main

import (
	"context"
	"fmt"
	"io"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/report"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/wire"
)

func runLog(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("log", "", "Prints the log's records in stream order. --json prints the records themselves, one per\n"+
		"line (the format --log FILE reads); --follow keeps printing new records until interrupted.\n"+
		"A session.started line names the scope and identity the root started with, a policy record's\n"+
		"line its scope. --scope, --user-identity, --project and --runtime print only the records of\n"+
		"the spawn trees whose root has them, and the policy records (policy.set, grants, revocations)\n"+
		"of those trees' scopes and of --scope; the log is then read from its start to learn the trees.\n"+
		"Every line names the record's actor; a call's (tool.checked, tool.effect_started) its tool,\n"+
		"the decision recorded and its reason code, and the call id.", stderr)
	var lf ledgerFlags
	lf.register(fl)
	from := fl.Uint64("from", 1, "first sequence to print")
	tail := fl.Uint64("tail", 0, "print only the last N records (before following)")
	follow := fl.Bool("follow", false, "keep printing records as they land")
	asJSON := fl.Bool("json", false, "print the records as JSON lines")
	var ff filterFlags
	ff.register(fl, "print only the records")
	if _, err := parseFlags(fl, args); err != nil {
		return helpOK(err)
	}
	if err := ff.check(fl, &lf); err != nil {
		return err
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
	// A filter needs every tree's root and every scope's sessions before
	// it prints: a scope's policy records come before its sessions. The
	// records up to the head are read once to learn them; past the head
	// (--follow) each is learnt as it lands.
	sel := report.NewSelection("", ff.filter())
	learnt := uint64(0)
	if !sel.All() && head > 0 {
		err := h.log.Follow(ctx, 1, func(seq uint64, data []byte, _ uint64) error {
			rec, err := events.DecodeRecord(data)
			if err != nil {
				return fmt.Errorf("record %d: %w", seq, err)
			}
			sel.Observe(rec)
			return nil
		}, head)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		learnt = head
	}
	until := head
	if *follow {
		until = 0
	}
	err = h.log.Follow(ctx, start, func(seq uint64, data []byte, _ uint64) error {
		var rec *events.Record
		if !*asJSON || !sel.All() {
			var err error
			if rec, err = events.DecodeRecord(data); err != nil {
				return fmt.Errorf("record %d: %w", seq, err)
			}
		}
		if !sel.All() {
			if seq > learnt {
				sel.Observe(rec)
			}
			if !sel.Keep(rec) {
				return nil
			}
		}
		if *asJSON {
			_, err := fmt.Fprintf(stdout, "%s\n", data)
			return err
		}
		_, err = fmt.Fprintf(stdout, "%6d  %s  %-20s %-40s %s  actor %s%s%s\n", seq, rec.Time, rec.Type, rec.Session, rec.ID, rec.Actor, callNote(seq, rec), logNote(rec))
		return err
	}, until)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// logNote is what a log line adds to a record: a root's scope and
// identity, a policy record's scope.
func logNote(rec *events.Record) string {
	switch {
	case rec.Type == events.SessionStarted:
		p, err := rec.Event().Payload()
		d, ok := p.(*events.StartedData)
		if err != nil || !ok {
			return ""
		}
		note := "  scope " + events.ScopeName(d.Scope)
		if id := report.IdentityText(wire.IdentityOf(d)); id != "" {
			note += "; " + id
		}
		return note
	case rec.Type.IsPolicy():
		return "  scope " + report.PolicyScope(rec)
	}
	return ""
}

// callNote is what a log line adds to a call's record: the tool, the
// decision recorded and its reason code, the call id.
func callNote(seq uint64, rec *events.Record) string {
	c, ok, err := service.CallRecordOf(seq, rec)
	if err != nil || !ok {
		return ""
	}
	note := fmt.Sprintf("  tool %s: %s", c.Tool, c.Decision)
	if c.Reason.Code != "" {
		note += " (" + c.Reason.Code + ")"
	}
	if c.Call != "" {
		note += "  call " + c.Call
	}
	return note
}
