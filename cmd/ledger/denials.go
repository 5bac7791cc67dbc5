package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/report"
	"github.com/sessionledger/ledger/wire"
)

func runDenials(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("denials", "", "Prints the denied and asked calls of every session, in stream order: each tool.checked or\n"+
		"tool.effect_started whose recorded decision is deny or ask (a refused effect included), with its\n"+
		"time, decision and reason code, tool, session, scope, the identity of its root, the call and the\n"+
		"actor, and the 'ledger why --call' that explains it. --scope, --user-identity, --project and\n"+
		"--runtime keep the calls of the spawn trees whose root has them; --session, --tool, --reason,\n"+
		"--since and --until keep those of that session, tool, reason code and record time (RFC 3339,\n"+
		"both inclusive). --json prints each as one JSON line; --follow keeps printing them as they land.", stderr)
	var lf ledgerFlags
	lf.register(fl)
	var ff filterFlags
	ff.register(fl, "print only the calls")
	var q wire.DenialsQuery
	session := fl.String("session", "", "print only the calls of this session `KEY`")
	fl.StringVar(&q.Tool, "tool", "", "print only the calls of this `TOOL` (as the call named it)")
	fl.StringVar(&q.Reason, "reason", "", "print only the calls of this reason `CODE` (revocation:deny, global:deny, effect:authorization_changed, ...)")
	fl.StringVar(&q.Since, "since", "", "print only the calls recorded at or after this RFC 3339 `TIME`")
	fl.StringVar(&q.Until, "until", "", "print only the calls recorded at or before this RFC 3339 `TIME`")
	fl.Uint64Var(&q.From, "from", 1, "first sequence to read")
	follow := fl.Bool("follow", false, "keep printing denials as they land, until interrupted")
	asJSON := fl.Bool("json", false, "print each denial as one JSON line")
	if _, err := parseFlags(fl, args); err != nil {
		return helpOK(err)
	}
	if err := ff.check(fl, &lf); err != nil {
		return err
	}
	q.Filter, q.Session = ff.filter(), events.SessionKey(*session)
	for _, t := range []struct {
		flag string
		v    *string
	}{{"--since", &q.Since}, {"--until", &q.Until}} {
		if *t.v == "" {
			continue
		}
		n, err := api.NormalizeTime(*t.v)
		if err != nil {
			return usageError("%s %q: not an RFC 3339 time such as 2026-01-02T15:04:05Z or 2026-01-02T16:04:05.250+01:00", t.flag, *t.v)
		}
		*t.v = n
	}
	h, err := lf.open(ctx)
	var rf *readForbidden
	if errors.As(err, &rf) {
		return denialsAPI(ctx, &lf, q, *follow, *asJSON, stdout, stderr)
	}
	if err != nil {
		return err
	}
	defer h.Close()
	if *follow {
		// The service follows the log, so that records other writers
		// append reach the projection and the pages read them.
		fctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = h.svc.Run(fctx)
		}()
		defer wg.Wait()
		defer cancel()
	}
	for {
		res, err := h.svc.Denials(ctx, q, nil)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		for _, d := range res.Denials {
			if err := printDenial(stdout, d, &lf, *asJSON); err != nil {
				return err
			}
		}
		q.From = res.Next
		if q.From <= h.svc.Position() {
			continue
		}
		if !*follow {
			return nil
		}
		if err := h.svc.WaitApplied(ctx, q.From); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
}

// printDenial prints one denial as a line, or as one JSON line.
func printDenial(w io.Writer, d wire.Denial, lf *ledgerFlags, asJSON bool) error {
	if asJSON {
		b, err := json.Marshal(d)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	who := ""
	if id := report.IdentityText(d.Identity); id != "" {
		who = " (" + id + ")"
	}
	_, err := fmt.Fprintf(w, "%6d  %s  %-4s %-30s %-16s %s%s  scope %s  call %s  actor %s  %s\n", d.Seq, d.Time, d.Decision,
		d.Reason.Code, d.Tool, d.Session, who, d.Scope, orDash(d.Call), d.Actor, whyCallCommand(lf, d.Call, d.Seq))
	return err
}
