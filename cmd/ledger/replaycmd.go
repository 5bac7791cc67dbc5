package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/replay"
)

// progressTo returns a replay progress printer for w when w is a terminal,
// nil otherwise (no progress when output is piped).
func progressTo(w io.Writer, what string) replay.Progress {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if info, err := f.Stat(); err != nil || info.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return func(done, total uint64) {
		pct := 100.0
		if total > 0 {
			pct = float64(done) * 100 / float64(total)
		}
		fmt.Fprintf(f, "\r%s: %d/%d records (%.0f%%)", what, done, total, pct)
		if done >= total {
			fmt.Fprintln(f)
		}
	}
}

func runReplay(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("replay", "", "Rebuilds a projection from the log into a fresh bbolt file and prints its state hash.\n"+
		"With --to SEQ the file holds the state as it was at that sequence (time travel). Use it to\n"+
		"recover from a missing or corrupt projection: stop the ledger, replay into a new file and\n"+
		"move it over DATA/projection.db.", stderr)
	var lf ledgerFlags
	lf.register(fl)
	out := fl.String("out", "", "the new projection file (required unless --policy; must not exist)")
	to := fl.Uint64("to", 0, "stop after this sequence (default: the head)")
	asJSON := fl.Bool("json", false, "print JSON")
	candidate := fl.String("policy", "", "what-if: replay history under this candidate policy (a policy document, or a policy.set event,\nas 'ledger policy import' prints) and print every tool that flips; exit status 3 when one does")
	from := fl.Uint64("from", 1, "what-if: compare the turns from this sequence on")
	scope := fl.String("scope", "", "what-if: the scope `NAME` whose policy the candidate replaces; only its sessions' turns are compared\n(default: the scope the candidate's policy.set names, else the default scope)")
	if _, err := parseFlags(fl, args); err != nil {
		return helpOK(err)
	}
	if *scope != "" && !events.ValidScope(*scope) {
		return usageError("--scope %q: a scope name is 1 to 128 of A-Z a-z 0-9 _ : -", *scope)
	}
	if *candidate != "" {
		return runWhatIf(ctx, &lf, *candidate, *scope, *from, *to, *asJSON, stdout, stderr)
	}
	if *scope != "" {
		return usageError("--scope names the scope of a what-if replay: give the candidate with --policy")
	}
	if *out == "" {
		return usageError("--out FILE is required")
	}
	if _, err := os.Stat(*out); err == nil {
		return usageError("%s exists; replay writes a fresh file", *out)
	}
	h, err := lf.openLog(ctx)
	if err != nil {
		return err
	}
	defer h.Close()
	defer replay.TuneGC()()
	st, err := replay.Rebuild(ctx, h.log, dialects.All(), *out, *to, progressTo(stderr, "replay"))
	if err != nil {
		os.Remove(*out)
		return err
	}
	// st reads its history from the file Rebuild closed: read it before
	// the file is open again (see projection.Store.Close).
	stateHash, err := st.StateHash()
	if err != nil {
		return err
	}
	store, err := projection.OpenStore(*out, projection.StoreOptions{})
	if err != nil {
		return err
	}
	defer store.Close()
	hash, err := store.DumpHash()
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, map[string]any{"out": *out, "position": st.Position(), "state_hash": stateHash, "projection_hash": hash})
	}
	fmt.Fprintf(stdout, "rebuilt %s at sequence %d\nstate hash:      %s\nprojection hash: %s\n", *out, st.Position(), stateHash, hash)
	return nil
}

// loadCandidate reads a candidate policy: a bare document, a policy.set
// event or its data; and the scope a policy.set event or its data names
// ("" when none).
func loadCandidate(path string) (json.RawMessage, string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	var probe struct {
		Type     string          `json:"type"`
		Data     json.RawMessage `json:"data"`
		Document json.RawMessage `json:"document"`
		Dialect  string          `json:"dialect"`
		Scope    string          `json:"scope"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, "", fmt.Errorf("%s: not a JSON policy document: %w", path, err)
	}
	switch {
	case probe.Type == string(events.PolicySet):
		var d events.PolicySetData
		if err := json.Unmarshal(probe.Data, &d); err != nil || d.Document == nil {
			return nil, "", fmt.Errorf("%s: a policy.set event needs data.document", path)
		}
		return d.Document, d.Scope, nil
	case probe.Document != nil && probe.Dialect != "":
		// A policy.set's data: its scope is the policy's.
		return probe.Document, probe.Scope, nil
	case probe.Document != nil:
		return probe.Document, "", nil
	}
	return b, "", nil
}

func runWhatIf(ctx context.Context, lf *ledgerFlags, path, scope string, from, to uint64, asJSON bool, stdout, stderr io.Writer) error {
	doc, named, err := loadCandidate(path)
	if err != nil {
		return err
	}
	switch {
	case scope == "":
		scope = named
	case named != "" && events.ScopeName(named) != events.ScopeName(scope):
		return usageError("--scope %s, but %s is the policy of scope %s: name one scope", scope, path, named)
	}
	h, err := lf.openLog(ctx)
	if err != nil {
		return err
	}
	defer h.Close()
	rep, err := replay.WhatIfIn(ctx, h.log, dialects.All(), scope, doc, from, to, progressTo(stderr, "what-if"))
	if err != nil {
		return err
	}
	if asJSON {
		if err := writeJSON(stdout, rep); err != nil {
			return err
		}
	} else {
		printWhatIf(stdout, path, rep)
	}
	if len(rep.Flips) > 0 {
		return &exitError{code: 3}
	}
	return nil
}

func printWhatIf(w io.Writer, path string, rep *replay.WhatIfReport) {
	fmt.Fprintf(w, "what-if: %s as the policy of scope %s, against sequences %d..%d (%d turns of its sessions compared)\n", path, rep.Scope, rep.From, rep.To, rep.Turns)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range rep.Flips {
		was := string(f.Was)
		if f.WasReason != "" {
			was += " (" + f.WasReason + ")"
		}
		would := string(f.Would)
		if f.WouldReason != "" {
			would += " (" + f.WouldReason + ": " + f.WouldRule + ")"
		}
		fmt.Fprintf(tw, "  seq %d\t%s turn %d\t%s\t%s -> %s\n", f.Seq, f.Session, f.Turn, f.Tool, was, would)
	}
	tw.Flush()
	if len(rep.Flips) == 0 {
		fmt.Fprintln(w, "no flips: the candidate decides every compared turn the same way")
		return
	}
	fmt.Fprintf(w, "%d flip(s): %d allow -> deny, %d deny -> allow, in %d session(s)\n", len(rep.Flips), rep.AllowToDeny, rep.DenyToAllow, rep.SessionsHit)
}

func runVerify(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("verify", "", "Replays the whole log, recomputes every decision it recorded (envelopes at spawn,\n"+
		"continuation outcomes, checks and effects) and compares the projection file with a clean\n"+
		"rebuild. Reports the first drift with both answers. Exit status 1 on any drift or mismatch.", stderr)
	var lf ledgerFlags
	lf.register(fl)
	asJSON := fl.Bool("json", false, "print the report as JSON")
	scratch := fl.String("scratch", "", "where verify folds the log, into a projection file it removes when done (default: the system's temporary directory); it needs about the size of a rebuilt projection")
	if _, err := parseFlags(fl, args); err != nil {
		return helpOK(err)
	}
	h, err := lf.openLog(ctx)
	if err != nil {
		return err
	}
	defer h.Close()
	// Not replay.TuneGC: see there why verify keeps the default. The state
	// is committed to a file as it is folded, so a long log is verified in
	// the memory of a rebuild (docs/bench.md, "Issue 28: a verify in
	// bounded memory").
	rep, err := replay.VerifyStored(ctx, h.log, dialects.All(), *scratch, progressTo(stderr, "verify"))
	if err != nil {
		return err
	}
	// Compare the projection file, when there is one, with a clean rebuild
	// at the same sequence.
	// The projection is the one every other command would use: against
	// --nats without --data or --projection there is none, not a
	// ./ledger-data of the working directory.
	projPath := lf.projectionPath()
	var projSeq uint64
	if _, statErr := os.Stat(projPath); projPath != "" && statErr == nil && rep.Tamper == nil {
		if projSeq, err = compareProjection(ctx, h, projPath, *scratch, rep); err != nil {
			return err
		}
	}
	if *asJSON {
		if err := writeJSON(stdout, rep); err != nil {
			return err
		}
	} else if rep.Tamper != nil && rep.Tamper.Format {
		fmt.Fprintf(stdout, "the log holds a record this build does not read, at sequence %d: %s\n", rep.Tamper.Seq, rep.Tamper.Problem)
	} else if rep.Tamper != nil {
		fmt.Fprintf(stdout, "the log was tampered with: first bad sequence %d: %s\n", rep.Tamper.Seq, rep.Tamper.Problem)
	} else {
		fmt.Fprintf(stdout, "verified %d records; state hash %s\n", rep.Records, rep.StateHash)
		if rep.Match != nil {
			switch {
			case projSeq > rep.Records:
				fmt.Fprintf(stdout, "projection %s is at sequence %d but the log ends at %d: the log lost records, or is another ledger's; restore the stream from a copy rather than rebuild the projection from this log\n", projPath, projSeq, rep.Records)
			case *rep.Match:
				fmt.Fprintf(stdout, "projection %s matches a clean rebuild at its sequence %d (%s)\n", projPath, projSeq, rep.ProjectionHash)
			default:
				fmt.Fprintf(stdout, "projection %s differs from a clean rebuild at its sequence %d: %s, rebuilt %s (run 'ledger replay' to rebuild it)\n", projPath, projSeq, rep.ProjectionHash, rep.RebuiltHash)
			}
		}
		if rep.DriftCount == 0 {
			fmt.Fprintln(stdout, "no drift: every recorded decision is decided the same way today")
		} else {
			fmt.Fprintf(stdout, "%d record(s) drifted; first: %s\n", rep.DriftCount, rep.Drifts[0].String())
		}
	}
	if !rep.OK() {
		return &exitError{code: 1}
	}
	return nil
}

// compareProjection compares the projection file at path with a clean
// rebuild of the log at the file's own sequence (its checkpoint, which it
// returns), made under scratch ("" for the system's temporary
// directory). A file ahead of the log never matches: the log lost its
// tail, or is another ledger's (TestVerifyProjectionAheadOfLog).
func compareProjection(ctx context.Context, h *ledgerHandle, path, scratch string, rep *replay.Report) (uint64, error) {
	store, err := projection.OpenStore(path, projection.StoreOptions{})
	if err != nil {
		return 0, err
	}
	defer store.Close()
	cp, err := store.Checkpoint()
	if err != nil {
		return 0, err
	}
	if rep.ProjectionHash, err = store.DumpHash(); err != nil {
		return cp, err
	}
	if cp > rep.Records {
		match := false
		rep.Match = &match
		return cp, nil
	}
	tmp, err := os.MkdirTemp(scratch, "ledger-verify-")
	if err != nil {
		return cp, err
	}
	defer os.RemoveAll(tmp)
	if rep.RebuiltHash, err = replay.RebuildHash(ctx, h.log, dialects.All(), tmp, cp); err != nil {
		return cp, err
	}
	match := rep.ProjectionHash == rep.RebuiltHash
	rep.Match = &match
	return cp, nil
}
