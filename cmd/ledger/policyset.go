package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/sessionledger/ledger/envelope/ledgerpolicy"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/cchook/hookcmd"
	"github.com/sessionledger/ledger/internal/safefile"
)

// runPolicySet is 'ledger policy set': a policy document appended as a
// scope's policy.set, as deny appends its deny.added (through the API as
// --user with --nats, else to the log at --data).
func runPolicySet(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("policy set", "--dialect NAME [--scope S] [--catalogue FILE | --tools LIST] FILE",
		"Appends FILE ('-': standard input), a policy document of the dialect, as the scope's policy.set.\n"+
			"The catalogue (the tool names that exist) is --catalogue or --tools; for the ledger dialect it\n"+
			"defaults to the built-in table of the document's \"runtime\" (codex@0.169.0, gemini@0.61.0,\n"+
			"qwen@0.24.4), what the Codex CLI, Gemini CLI and Qwen Code hooks name (docs/dialects/ledger.md). Prints the record's sequence.\n"+
			"With --nats and --user the event goes through the ledger's API as that operator.", stderr)
	var lf ledgerFlags
	lf.register(fl)
	dialect := fl.String("dialect", "", "the document's dialect `NAME` (required): ledger, claude-code or openclaw")
	scope := fl.String("scope", "", "the scope `NAME` the policy is for (default: the default scope)")
	catFile := fl.String("catalogue", "", "the catalogue: a JSON list or one name per line in `FILE`")
	tools := fl.String("tools", "", "the catalogue as a comma-separated `LIST`")
	actor := fl.String("actor", defaultActor, "the record's actor (default: --user against --nats, else cli)")
	asJSON := fl.Bool("json", false, "print the result as JSON")
	pos, err := parseFlags(fl, args)
	if err != nil {
		return helpOK(err)
	}
	switch {
	case *dialect == "":
		return usageError("policy set needs --dialect")
	case len(pos) != 1:
		return usageError("policy set takes one FILE ('-': standard input)")
	case *scope != "" && !events.ValidScope(*scope):
		return usageError("--scope %q: a scope name is 1 to 128 of A-Z a-z 0-9 _ : -", *scope)
	}
	var doc []byte
	if pos[0] == "-" {
		doc, err = io.ReadAll(io.LimitReader(stdin, 8<<20))
	} else {
		doc, err = safefile.ReadFile(pos[0], 8<<20)
	}
	if err != nil {
		return &exitError{code: 1, msg: err.Error()}
	}
	if !json.Valid(doc) {
		return &exitError{code: 1, msg: fmt.Sprintf("%s is not JSON", pos[0])}
	}
	cat, err := hookcmd.ReadCatalogue(*catFile, *tools)
	if err != nil {
		return usageError("%v", err)
	}
	if cat == nil && *dialect == "ledger" {
		var d struct {
			Runtime string `json:"runtime"`
		}
		_ = json.Unmarshal(doc, &d)
		cat, _ = ledgerpolicy.Catalogue(d.Runtime)
	}
	d := events.PolicySetData{Dialect: *dialect, Document: json.RawMessage(bytes.TrimSpace(doc)), Catalogue: cat, Scope: *scope}
	appendOne, _, done, err := lf.oneAppender(ctx, fl, actor)
	if err != nil {
		return err
	}
	defer done()
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(events.Event{Type: events.PolicySet, V: events.Version, Actor: *actor, Data: data})
	if err != nil {
		return err
	}
	o := appendOne(ctx, raw)
	if o.Err != nil {
		return o.Err
	}
	if *asJSON {
		return writeJSON(stdout, map[string]any{"seq": o.Result.Seq, "id": o.Result.ID, "scope": events.ScopeName(*scope), "dialect": *dialect})
	}
	_, err = fmt.Fprintf(stdout, "policy set at seq %d (policy.set %s): the %s dialect, in scope %s\n", o.Result.Seq, o.Result.ID, *dialect, events.ScopeName(*scope))
	return err
}
