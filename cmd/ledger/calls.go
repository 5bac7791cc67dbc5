package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgercmd"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/wire"
)

// callFlags are why's questions about one recorded call: by its id (a
// Claude Code tool_use_id, an OpenClaw or gateway call id) or by the
// sequence of its tool.checked or tool.effect_started.
type callFlags struct {
	call   string
	record uint64
}

func (c *callFlags) register(fs interface {
	StringVar(*string, string, string, string)
	Uint64Var(*uint64, string, uint64, string)
}) {
	fs.StringVar(&c.call, "call", "", "explain the decision recorded for this call: a Claude Code tool_use_id, an OpenClaw call id or a gateway\ncall id (the call of its tool.checked); its last record is answered, with the record that caused it")
	fs.Uint64Var(&c.record, "record", 0, "explain the decision recorded at this sequence, of a tool.checked or tool.effect_started")
}

func (c *callFlags) set() bool { return c.call != "" || c.record != 0 }

// whyCall answers why --call or --record: the decision recorded, the
// cause, the call's records, then the decision at the state the record
// was decided on, every layer in order.
func whyCall(ctx context.Context, q *queryFlags, c callFlags, pal palette, stdout, stderr io.Writer) error {
	if q.seq != 0 || q.turn != 0 || q.time != "" || q.input != "" {
		return usageError("--call and --record answer the decision recorded for the call, at its record: drop --seq, --turn, --time and --input")
	}
	q.optionalSession = true
	svc, err := q.open(ctx)
	var rf *readForbidden
	if errors.As(err, &rf) {
		return whyCallAPI(ctx, q, c, pal, stdout, stderr)
	}
	if err != nil {
		return err
	}
	defer q.close()
	a, err := svc.WhyCall(ctx, service.CallQuery{Call: c.call, Session: events.SessionKey(q.session), Seq: c.record})
	if err != nil {
		if events.CodeOf(err) == wire.CodeUnknownCall && q.scenario == "" && q.log == "" {
			// The service names the commands that list calls; these
			// are the ones that list this ledger's.
			return fmt.Errorf("%w (this ledger's denied and asked calls: %s)", err, q.ledgerFlags.conn().Command("denials"))
		}
		return err
	}
	if q.json {
		return writeJSON(stdout, a)
	}
	printCall(stdout, a, pal)
	return nil
}

// printCall prints a why about a call.
func printCall(w io.Writer, a wire.WhyResult, pal palette) {
	r := a.Call.Record
	name := "call " + r.Call
	if r.Call == "" {
		name = "a call without id"
	}
	fmt.Fprintf(w, "%s of session %s: %s, %s at seq %d in turn %d, %s, actor %s\n", name, pal.paint(sgrBold, string(r.Session)),
		pal.paint(sgrBold, r.Tool), r.Type, r.Seq, r.Turn, r.Time, r.Actor)
	fmt.Fprintf(w, "recorded: %s; scope %s\n", pal.decision(r.Decision, callDecision(&r)), r.Scope)
	if cs := a.Call.Cause; cs != nil {
		change := fmt.Sprintf("%s from then on", cs.After)
		if cs.Before != "" {
			change = fmt.Sprintf("%s before, %s after", cs.Before, cs.After)
		}
		fmt.Fprintf(w, "cause:    %s at seq %d by %s at %s: %s (%s: %s)\n", cs.Type, cs.Seq, cs.Actor, cs.Time,
			pal.paint(sgrCyan, cs.Text), r.Tool, change)
	}
	fmt.Fprintln(w, "records:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range a.Call.Records {
		fmt.Fprintf(tw, "  seq %d\t%s\t%s\t%s\n", c.Seq, c.Type, c.Time, callDecision(&c))
	}
	tw.Flush()
	printWhyTo(w, r.Session, a, pal)
}

// callDecision is a recorded decision with its reason: a refused effect's
// names the decision that refused it and the check it had.
func callDecision(c *wire.CallRecord) string {
	s := string(c.Decision)
	if c.Reason.Code != "" {
		s += " (" + c.Reason.Code + ")"
	}
	if c.Reason.Code == projection.ReasonAuthorizationChanged {
		s += fmt.Sprintf(": now %s, checked at seq %d", c.Reason.Rule, c.PreparedAt)
	} else if c.Type == events.EffectStarted && c.PreparedAt != 0 {
		s += fmt.Sprintf(", checked at seq %d", c.PreparedAt)
	} else if c.Effect && c.Decision == envelope.Allow {
		s += ", effect started with the check"
	}
	return s
}

// printTurnCalls prints what a turn covers and the calls checked in it,
// with the command that explains each one denied or asked.
func printTurnCalls(w io.Writer, key events.SessionKey, tc *wire.TurnCalls, where ledgercmd.Conn, pal palette) {
	fmt.Fprintf(w, "turn %d of %s: records %d to %d; the decision above is at its start (seq %d)\n", tc.Turn, key, tc.From, tc.To, tc.From)
	if len(tc.Calls) == 0 {
		fmt.Fprintf(w, "calls:    none checked in turn %d\n", tc.Turn)
		return
	}
	fmt.Fprintf(w, "calls checked in turn %d:\n", tc.Turn)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range tc.Calls {
		line := fmt.Sprintf("  seq %d\t%s\t%s\t%s", c.Seq, c.Tool, orDash(c.Call), pal.decision(c.Decision, callDecision(&c)))
		if c.Decision != envelope.Allow {
			line += "\t" + whyCallFrom(where, c.Call, c.Seq)
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// whyCallCommand is the command that explains a recorded call, with the
// flags that found this ledger (whyCallFrom).
func whyCallCommand(lf *ledgerFlags, call string, seq uint64) string {
	return whyCallFrom(lf.conn(), call, seq)
}

// conn is where lf found the ledger, as the commands it prints name it:
// the server (with its credentials file, user and stream), else the data
// directory it opened (the default one too: that is where it read).
func (f *ledgerFlags) conn() ledgercmd.Conn {
	if f == nil {
		return ledgercmd.Conn{}
	}
	c := ledgercmd.Conn{NATS: f.natsURL, Creds: f.creds, User: f.user, Stream: f.stream}
	if f.natsURL == "" {
		c.Data = f.data
	}
	return c
}

// conn is where a query read: its scenario, its log file, or its ledger.
func (q *queryFlags) conn() ledgercmd.Conn {
	c := q.ledgerFlags.conn()
	c.Scenario, c.Log = q.scenario, q.log
	return c
}

// whyCallFrom is the command that explains a recorded call, with the
// flags that reach where it is recorded (ledgercmd.WhyArgs).
func whyCallFrom(where ledgercmd.Conn, call string, seq uint64) string {
	return where.Command("why", ledgercmd.WhyArgs(call, seq)...)
}
