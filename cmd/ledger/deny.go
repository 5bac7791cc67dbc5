package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

func runDeny(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("deny", "--rule RULE [--scope S] [--session KEY [--subtree] | --agent A | --user-identity U | --project P] [--note TEXT] [--lift]",
		"Revokes a tool for a set of sessions: appends a deny.added to the ledger (deny.lifted with\n"+
			"--lift, which lifts the revocation with the same scope, rule and target; the note does not\n"+
			"count). The ledger's revocation layer decides above the dialects, from the next check, tool\n"+
			"set and prepared effect: a revoked call is denied with revocation:deny, and 'ledger why'\n"+
			"names the deny.added and its note. RULE is a tool name (exec, Bash, mcp__fs__write_file),\n"+
			"a pattern with * (web_*), or in a claude-code scope a permission rule (Bash(git push *)).\n"+
			"It targets at most one of a session (--subtree: and its sub-agents), an agent type, the\n"+
			"sessions a user started or those of a project (the identity their root started with);\n"+
			"none targets every session of the scope. Prints the record's sequence.\n"+
			"With --nats and --user the event goes through the ledger's API as that operator, as\n"+
			"'ledger append' does; --actor defaults to the user.", stderr)
	var lf ledgerFlags
	lf.register(fl)
	var d events.DenyData
	var session string
	fl.StringVar(&d.Rule, "rule", "", "the tool or rule `RULE` to deny (required)")
	fl.StringVar(&d.Scope, "scope", "", "the scope `NAME` whose sessions it targets (default: with --session, the session's own; else the default scope)")
	fl.StringVar(&session, "session", "", "target the session `KEY`")
	fl.BoolVar(&d.Subtree, "subtree", false, "with --session: its sub-agents too, present and future")
	fl.StringVar(&d.Agent, "agent", "", "target every session of the agent type `A`")
	fl.StringVar(&d.User, "user-identity", "", "target the sessions whose root was started by `USER` (the identity's user; --user says the same without --nats)")
	fl.StringVar(&d.Project, "project", "", "target the sessions whose root ran in `PROJECT`")
	fl.StringVar(&d.Note, "note", "", "the operator's words, shown with every denial it causes (`TEXT`: a ticket, a reason)")
	lift := fl.Bool("lift", false, "lift the revocation instead (deny.lifted)")
	actor := fl.String("actor", defaultActor, "the record's actor (default: --user against --nats, else cli)")
	asJSON := fl.Bool("json", false, "print the result as JSON")
	pos, err := parseFlags(fl, args)
	if err != nil {
		return helpOK(err)
	}
	d.Session = events.SessionKey(session)
	if err := checkDeny(&lf, &d, pos); err != nil {
		return err
	}
	typ := events.DenyAdded
	if *lift {
		typ = events.DenyLifted
	}
	appendOne, h, done, err := lf.oneAppender(ctx, fl, actor)
	if err != nil {
		return err
	}
	defer done()
	if h == nil && d.Session != "" && !flagSet(fl, "scope") {
		// Over the API the ledger is asked the session's scope: a
		// revocation in another scope than the session's is refused
		// (TestDenyOverNATSFindsTheSessionsScope). A session it does not
		// know, or will not show this user, keeps the default scope, and
		// the append says what is wrong.
		if sc, ok := lf.sessionScope(ctx, d.Session); ok {
			d.Scope = sc
		}
	}
	if h != nil && d.Session != "" && !flagSet(fl, "scope") {
		// A session's revocation belongs to the session's scope (a Claude
		// Code project's, say), which its key alone names here.
		if err := h.svc.View(ctx, "", projection.Position{}, func(st *projection.State) error {
			if s := st.Session(d.Session); s != nil {
				d.Scope = s.Scope
			}
			return nil
		}); err != nil {
			return err
		}
	}
	raw, err := denyEvent(typ, *actor, &d)
	if err != nil {
		return err
	}
	o := appendOne(ctx, raw)
	if o.Err != nil {
		return o.Err
	}
	rv := envelope.Revocation{Data: d}
	scope := events.ScopeName(d.Scope)
	if *asJSON {
		out := map[string]any{"seq": o.Result.Seq, "id": o.Result.ID, "type": typ, "scope": scope, "rule": d.Rule, "target": d.Target()}
		if d.Note != "" {
			out["note"] = d.Note
		}
		return writeJSON(stdout, out)
	}
	what := "revoked"
	if *lift {
		what = "lifted"
	}
	_, err = fmt.Fprintf(stdout, "%s at seq %d (%s %s): %s, in scope %s\n", what, o.Result.Seq, typ, o.Result.ID, rv.Rule(), scope)
	return err
}

// checkDeny refuses, as usage errors, what the ledger would refuse anyway
// and a slip it could not see: no rule, more than one target, --subtree
// without --session, a malformed scope or session key, an argument, and
// --user and --user-identity naming two users (identityUser).
func checkDeny(lf *ledgerFlags, d *events.DenyData, pos []string) error {
	if len(pos) > 0 {
		return usageError("deny takes no arguments, got %q: name the rule with --rule", strings.Join(pos, " "))
	}
	u, err := identityUser(lf.fs, lf, d.User)
	if err != nil {
		return err
	}
	d.User = u
	if strings.TrimSpace(d.Rule) == "" {
		return usageError("--rule is required: a tool name (exec, Bash) or a rule pattern (web_*, Bash(git push *))")
	}
	var targets []string
	for _, t := range []struct{ flag, v string }{{"--session", string(d.Session)}, {"--agent", d.Agent},
		{"--user-identity", d.User}, {"--project", d.Project}} {
		if t.v != "" {
			targets = append(targets, t.flag)
		}
	}
	if len(targets) > 1 {
		return usageError("a revocation targets one of --session, --agent, --user-identity and --project; this one names %s",
			strings.Join(targets, " and "))
	}
	if d.Subtree && d.Session == "" {
		return usageError("--subtree extends a session's revocation to its sub-agents: name the session with --session")
	}
	if d.Scope != "" && !events.ValidScope(d.Scope) {
		return usageError("--scope %q: a scope name is 1 to 128 of A-Z a-z 0-9 _ : -", d.Scope)
	}
	if d.Session != "" && !events.ValidKey(d.Session) {
		return usageError("--session %q: a session key is 1 to 200 of A-Z a-z 0-9 _ : -", d.Session)
	}
	return nil
}

// denyEvent is the deny.added or deny.lifted event of d, as one JSON line.
func denyEvent(typ events.Type, actor string, d *events.DenyData) ([]byte, error) {
	var data bytes.Buffer
	enc := json.NewEncoder(&data)
	// Rules such as Bash(make && make test) stay readable.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return nil, err
	}
	ev := events.Event{Type: typ, V: events.Version, Actor: actor, Data: bytes.TrimSpace(data.Bytes())}
	var out bytes.Buffer
	enc = json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&ev); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(out.Bytes()), nil
}

// sessionScope asks the ledger's API, as --user, for the scope session is
// bound to; ok is false when it cannot tell (no such session, a query the
// user may not make, no answer).
func (f *ledgerFlags) sessionScope(ctx context.Context, session events.SessionKey) (string, bool) {
	nc, err := f.connectAPI(ctx)
	if err != nil {
		return "", false
	}
	defer nc.Close()
	v, err := client.New(nc, client.Options{Timeout: apiRequestTimeout}).Session(ctx, session)
	if err != nil || v.Key != session {
		return "", false
	}
	return v.Scope, true
}
