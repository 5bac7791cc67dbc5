package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/service"
	"github.com/sessionledger/ledger/internal/svcledger"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
	"github.com/sessionledger/ledger/scenario"
	"github.com/sessionledger/ledger/wire"
)

// queryFlags are the flags every query command shares. A query reads the
// ledger in --data (or at --nats), or else a scenario or a log file.
type queryFlags struct {
	ledgerFlags
	scenario, log, session, time, input string
	seq                                 uint64
	turn                                int
	json                                bool
	optionalSession                     bool
	handle                              *ledgerHandle
}

func (q *queryFlags) register(fs *flag.FlagSet, withInput bool) {
	q.ledgerFlags.register(fs)
	fs.StringVar(&q.scenario, "scenario", "", "instead of the ledger: run this scenario file's appends in memory and query the log they make")
	fs.StringVar(&q.log, "log", "", "instead of the ledger: query this log file (JSON lines of records, as 'ledger log --json' prints)")
	fs.StringVar(&q.session, "session", "", "the session key")
	fs.Uint64Var(&q.seq, "seq", 0, "decide at this stream sequence (default: the head)")
	fs.IntVar(&q.turn, "turn", 0, "decide at the start of this turn of the session")
	fs.StringVar(&q.time, "time", "", "decide at the last record whose time is at most this RFC 3339 time")
	fs.BoolVar(&q.json, "json", false, "print JSON")
	if withInput {
		fs.StringVar(&q.input, "input", "", "the call's input: a JSON string or object, or plain text taken as a string (claude-code)")
	}
}

func (q *queryFlags) position() projection.Position {
	return projection.Position{Seq: q.seq, Turn: q.turn, Time: q.time}
}

// checkPosition refuses a position the command line cannot mean (more than
// one of --seq, --turn and --time, or a --time that is not RFC 3339) as a
// usage error, and puts --time in the layout records are stored in so that
// it compares as a time.
func (q *queryFlags) checkPosition() error {
	n := 0
	for _, set := range []bool{q.seq != 0, q.turn != 0, q.time != ""} {
		if set {
			n++
		}
	}
	if n > 1 {
		return usageError("name at most one of --seq, --turn and --time")
	}
	if q.turn < 0 {
		return usageError("--turn %d: turns are numbered from 1", q.turn)
	}
	if q.time != "" {
		t, err := api.NormalizeTime(q.time)
		if err != nil {
			return usageError("--time %q: not an RFC 3339 time such as 2026-01-02T15:04:05Z or 2026-01-02T16:04:05.250+01:00", q.time)
		}
		q.time = t
	}
	return nil
}

func (q *queryFlags) inputJSON() json.RawMessage {
	if q.input == "" {
		return nil
	}
	if json.Valid([]byte(q.input)) && (strings.HasPrefix(q.input, "{") || strings.HasPrefix(q.input, `"`)) {
		return json.RawMessage(q.input)
	}
	b, _ := json.Marshal(q.input)
	return b
}

// close releases the ledger the query opened, if any.
func (q *queryFlags) close() { q.handle.Close() }

// open returns the service to query: the ledger's, or one over the log a
// scenario makes or a log file holds.
func (q *queryFlags) open(ctx context.Context) (*service.Service, error) {
	if q.session == "" && !q.optionalSession {
		return nil, usageError("--session is required")
	}
	if err := q.checkPosition(); err != nil {
		return nil, err
	}
	switch {
	case q.scenario != "" && q.log != "":
		return nil, usageError("name one of --scenario and --log")
	case q.scenario != "":
		f, err := scenario.Load(q.scenario)
		if err != nil {
			return nil, err
		}
		r, err := scenario.InMemory(dialects.All())
		if err != nil {
			return nil, err
		}
		r.Run(ctx, f)
		return svcledger.Of(r.Ledger), nil
	case q.log != "":
		return openLogFile(ctx, q.log)
	}
	h, err := q.ledgerFlags.open(ctx)
	if err != nil {
		return nil, err
	}
	q.handle = h
	return h.svc, nil
}

// readLogFile reads a log file in the format 'ledger log --json' prints:
// one record a line, as the ledger stored it. Each line's bytes are kept
// as read, and the file must be the log as the ledger wrote it, checked as
// ledger verify checks a stream's records (replay.CheckChain): each line
// canonical JSON, the record's decided.seq its place in the file, its
// decided.prev the hash of the previous record of its subject. A line
// deleted, repeated, moved or edited is refused with its line, never
// folded as if the file were whole (TestLogFileIsChecked); the edit of the
// last record of its subject is the one the file cannot show (it carries
// no stored hash), which ledger verify on the stream finds.
func readLogFile(path string) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var (
		recs  [][]byte
		lines []int
		chain []replay.Msg
	)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		if _, err := events.DecodeRecord(text); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if c, err := events.CanonicalJSON(text); err != nil || !bytes.Equal(c, text) {
			return nil, fmt.Errorf("%s:%d: the record is not as the ledger stores it (canonical JSON, RFC 8785): it was edited or written by something else; use the lines 'ledger log --json' prints, unchanged", path, line)
		}
		// A file's sequences are its lines' places: say plainly which
		// record is missing or repeated before the chain says moved.
		var l struct {
			Decided struct {
				Seq uint64 `json:"seq"`
			} `json:"decided"`
		}
		_ = json.Unmarshal(text, &l)
		switch at := uint64(len(recs) + 1); {
		case l.Decided.Seq > at:
			return nil, fmt.Errorf("%s:%d: the file is not the log as the ledger wrote it: record %d is missing (the line holds record %d: deleted?); export the log again ('ledger log --json')", path, line, at, l.Decided.Seq)
		case l.Decided.Seq != 0 && l.Decided.Seq < at:
			return nil, fmt.Errorf("%s:%d: the file is not the log as the ledger wrote it: record %d appears again, or moved, after record %d; export the log again ('ledger log --json')", path, line, l.Decided.Seq, at-1)
		}
		b := bytes.Clone(text)
		recs = append(recs, b)
		lines = append(lines, line)
		chain = append(chain, replay.Msg{Seq: uint64(len(recs)), Data: b})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if t := replay.CheckChain(chain); t != nil {
		at := fmt.Sprintf("record %d", t.Seq)
		if t.Seq >= 1 && int(t.Seq) <= len(lines) {
			at = fmt.Sprintf("%d", lines[t.Seq-1])
		}
		return nil, fmt.Errorf("%s:%s: the file is not the log as the ledger wrote it: %s; export the log again ('ledger log --json'), or run 'ledger verify' on the ledger it came from", path, at, t.Problem)
	}
	return recs, nil
}

// openLogFile loads a log file into memory, checked (readLogFile), and
// folds it.
func openLogFile(ctx context.Context, path string) (*service.Service, error) {
	recs, err := readLogFile(path)
	if err != nil {
		return nil, err
	}
	log := &service.MemLog{}
	for i, b := range recs {
		r, err := events.DecodeRecord(b)
		if err != nil {
			return nil, err
		}
		if _, err := log.Append(ctx, "", r.ID, b, uint64(i)); err != nil {
			return nil, err
		}
	}
	svc, err := service.Open(ctx, service.Config{Log: log, Dialects: dialects.All()})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return svc, nil
}

func runTools(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("tools", "", "Prints a session's effective tool set: allowed tools, and each denied tool with its reason.", stderr)
	var q queryFlags
	q.register(fl, false)
	if _, err := parseFlags(fl, args); err != nil {
		return helpOK(err)
	}
	svc, err := q.open(ctx)
	if err != nil {
		return err
	}
	defer q.close()
	r, err := svc.ToolsAnswer(ctx, events.SessionKey(q.session), q.position())
	if err != nil {
		return err
	}
	ts := r.Tools
	if q.json {
		out := map[string]any{"session": q.session, "scope": r.Scope, "seq": r.Seq, "tools": ts}
		if r.NotActive != nil {
			out["not_active"] = r.NotActive
		}
		return writeJSON(stdout, out)
	}
	fmt.Fprintf(stdout, "%s at seq %d in scope %s\nallowed: %s\n", q.session, r.Seq, r.Scope, strings.Join(ts.Allowed, ", "))
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	for _, d := range ts.Denied {
		fmt.Fprintf(tw, "denied:\t%s\t%s\t%s\n", d.Tool, d.Reason.Code, ruleText(&d.Reason))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.NotActive != nil {
		fmt.Fprintf(stdout, "inactive: %s\n", notActiveText(r.NotActive))
	}
	return nil
}

func runCheck(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	return decideCommand(ctx, "check", "Decides one tool call: allow, deny or ask (claude-code), with the reason.", false, args, stdout, stderr)
}

func runWhy(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	return decideCommand(ctx, "why", "Explains one decision: every layer in order and what it did to the tool, the rule\n"+
		"that matched and the record that introduced it, the policy revision and the envelope.\n"+
		"With --call ID (a Claude Code tool_use_id, an OpenClaw or gateway call id) or --record SEQ (a\n"+
		"tool.checked or tool.effect_started), it explains the decision recorded for that call, at that\n"+
		"record, and names its cause: the latest record that changed the tool's decision for the session\n"+
		"(a grant, revocation, policy change, deny.added or deny.lifted, or turn), with its actor and time.\n"+
		"With --turn T it decides at the turn's start and lists the records the turn covers and the calls\n"+
		"checked in it.", true, args, stdout, stderr)
}

func decideCommand(ctx context.Context, name, about string, trace bool, args []string, stdout, stderr io.Writer) error {
	fl := newFlags(name, "", about, stderr)
	var q queryFlags
	q.register(fl, true)
	tool := fl.String("tool", "", "the tool name (required)")
	color := new(string)
	var cf callFlags
	if trace {
		color = registerColor(fl)
		cf.register(fl)
	}
	if _, err := parseFlags(fl, args); err != nil {
		return helpOK(err)
	}
	pal, err := paletteFor(*color, stdout)
	if err != nil {
		return err
	}
	if cf.set() {
		if *tool != "" {
			return usageError("--call and --record name the call, and so its tool: drop --tool")
		}
		return whyCall(ctx, &q, cf, pal, stdout, stderr)
	}
	if *tool == "" {
		return usageError("--tool is required")
	}
	svc, err := q.open(ctx)
	if err != nil {
		return err
	}
	defer q.close()
	key := events.SessionKey(q.session)
	a, err := svc.Why(ctx, key, *tool, q.inputJSON(), q.position())
	if err != nil {
		return err
	}
	verdict := a.Verdict
	if !trace {
		if q.json {
			out := map[string]any{"session": key, "scope": a.Scope, "seq": a.Seq, "tool": verdict.Tool,
				"decision": verdict.Decision, "reason": verdict.Reason}
			if r := revokedBy(&verdict.Reason); r != nil {
				out["revoked"] = r
			}
			if a.NotActive != nil {
				out["not_active"] = a.NotActive
			}
			return writeJSON(stdout, out)
		}
		fmt.Fprintf(stdout, "%s %s: %s (%s) in scope %s\n", key, verdict.Tool, verdict.Decision, verdict.Reason.Code, a.Scope)
		if r := revokedBy(&verdict.Reason); r != nil {
			fmt.Fprintf(stdout, "%s\n", r)
		}
		if a.NotActive != nil {
			fmt.Fprintf(stdout, "inactive: %s\n", notActiveText(a.NotActive))
		}
		return nil
	}
	// At a turn, why also says which records the turn covers and the
	// calls checked in it: its start is not where they were decided.
	var tc *wire.TurnCalls
	if q.turn != 0 {
		if tc, err = svc.TurnCalls(ctx, key, q.turn); err != nil {
			return err
		}
	}
	if q.json {
		out := map[string]any{"session": key, "scope": a.Scope, "seq": a.Seq, "verdict": verdict,
			"revision": a.Policy.Revision, "context": a.Context, "envelope": a.Envelope}
		if r := revokedBy(&verdict.Reason); r != nil {
			out["revoked"] = r
		}
		if a.NotActive != nil {
			out["not_active"] = a.NotActive
		}
		if tc != nil {
			out["turn"] = tc
		}
		return writeJSON(stdout, out)
	}
	printWhyTo(stdout, key, a, pal)
	if tc != nil {
		printTurnCalls(stdout, key, tc, q.conn(), pal)
	}
	return nil
}

// notActiveText says, beside the policy's decision, that a session takes
// no recorded check now (wire.WhyResult.NotActive).
func notActiveText(e *wire.ErrorBody) string {
	return fmt.Sprintf("%s; the answer above is the policy's, and a call of the session checked now is refused (%s)", e.Message, e.Code)
}

func ruleText(r *envelope.Reason) string {
	var parts []string
	if r.Rule != "" {
		parts = append(parts, r.Rule)
	}
	if r.Record != nil {
		parts = append(parts, fmt.Sprintf("(seq %d %s %s)", r.Record.Seq, r.Record.Type, r.Record.ID))
	}
	return strings.Join(parts, " ")
}

// printWhy prints a why answer in plain text.
func printWhy(w io.Writer, key events.SessionKey, a wire.WhyResult) { printWhyTo(w, key, a, palette{}) }

// printWhyTo prints a why answer, coloured when pal is on: the decision and
// the layer that decided stand out, layers that did not apply fade. Every
// tab-terminated cell of the layer table is wrapped alike so the columns
// line up as in the plain text.
func printWhyTo(w io.Writer, key events.SessionKey, a wire.WhyResult, pal palette) {
	v := a.Verdict
	fmt.Fprintf(w, "why %s for %s at seq %d\n", pal.paint(sgrBold, v.Tool), pal.paint(sgrBold, string(key)), a.Seq)
	fmt.Fprintf(w, "scope:    %s\n", a.Scope)
	fmt.Fprintf(w, "decision: %s\n", pal.decision(v.Decision, fmt.Sprintf("%s (%s)", v.Decision, v.Reason.Code)))
	if a.NotActive != nil {
		fmt.Fprintf(w, "inactive: %s\n", notActiveText(a.NotActive))
	}
	if r := revokedBy(&v.Reason); r != nil {
		// The revocation layer decided: say so in the operator's words
		// before the layers.
		fmt.Fprintf(w, "revoked:  %s\n", pal.paint(sgrCyan, strings.TrimPrefix(r.String(), "revoked ")))
	} else if t := ruleText(&v.Reason); t != "" {
		fmt.Fprintf(w, "rule:     %s\n", pal.paint(sgrCyan, t))
	}
	fmt.Fprintln(w, "layers:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i, s := range v.Trace {
		oc := outcomeColor(s.Outcome)
		line := fmt.Sprintf("  %s\t%s\t%s", pal.cell(sgrGray, fmt.Sprintf("%2d", i+1)), pal.cell(oc, s.Layer), pal.paint(oc, string(s.Outcome)))
		if s.Reason != nil {
			line = fmt.Sprintf("  %s\t%s\t%s\t%s\t%s", pal.cell(sgrGray, fmt.Sprintf("%2d", i+1)), pal.cell(oc, s.Layer),
				pal.cell(oc, string(s.Outcome)), pal.cell(oc, s.Reason.Code), pal.paint(sgrCyan, ruleText(s.Reason)))
		} else if s.Detail != "" {
			line = fmt.Sprintf("  %s\t%s\t%s\t%s\t%s", pal.cell(sgrGray, fmt.Sprintf("%2d", i+1)), pal.cell(oc, s.Layer),
				pal.cell(oc, string(s.Outcome)), pal.cell("", ""), s.Detail)
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	p := a.Policy
	fmt.Fprintf(w, "policy:   revision seq %d (%s), %d grant(s) in force\n", p.Revision.Seq, p.Hash, len(p.Grants))
	c := a.Context
	src := c.Source
	if c.SourceReason != "" {
		src += " (" + c.SourceReason + ")"
	}
	fmt.Fprintf(w, "context:  %s, set by seq %d %s\n", pal.paint(sgrMagenta, src), c.SetBy.Seq, c.SetBy.Type)
	if a.Envelope != nil {
		b, _ := json.Marshal(a.Envelope)
		fmt.Fprintf(w, "envelope: %s\n", b)
	} else {
		fmt.Fprintln(w, "envelope: none (a root session)")
	}
}

// revocation is a denial by the ledger's revocation layer, as check and
// why name it: the deny.added in force, and what it says.
type revocation struct {
	// Rule is the revocation's rule and target, with the operator's
	// note: "deny Bash for session s1 (incident 42)".
	Rule   string              `json:"rule"`
	Record *envelope.RecordRef `json:"record"`
}

// revokedBy is the revocation that decided a reason, nil when the
// revocation layer did not decide it.
func revokedBy(r *envelope.Reason) *revocation {
	if r.Code != envelope.ReasonRevoked || r.Record == nil {
		return nil
	}
	return &revocation{Rule: r.Rule, Record: r.Record}
}

// String answers "why was it denied": revoked by deny.added at seq 8
// (01K...): deny Bash for session s1 (incident 42).
func (r *revocation) String() string {
	return fmt.Sprintf("revoked by %s at seq %d (%s): %s", r.Record.Type, r.Record.Seq, r.Record.ID, r.Rule)
}
