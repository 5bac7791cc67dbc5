package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sessionledger/ledger/events"
)

func runAppend(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("append", "[FILE|-]", "Appends events, one JSON object per line, from FILE or standard input. Each event is\n"+
		"validated against the state at the head, decided and written; a refused event is not written.\n"+
		"Prints one line per event: its sequence, or the stable error code and what to fix.\n"+
		"Exit status 1 when any event was refused.", stderr)
	var lf ledgerFlags
	lf.register(fl)
	lf.create = true
	asJSON := fl.Bool("json", false, "print one JSON result per event")
	actor := fl.String("actor", "", "fill in this actor for events that have none")
	pos, err := parseFlags(fl, args)
	if err != nil {
		return helpOK(err)
	}
	in := stdin
	name := "stdin"
	if len(pos) > 1 {
		return usageError("append takes at most one file")
	}
	if len(pos) == 1 && pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			return err
		}
		defer f.Close()
		in, name = f, pos[0]
	}
	h, err := lf.open(ctx)
	if err != nil {
		return err
	}
	defer h.Close()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 4<<20)
	refused, accepted := 0, 0
	enc := json.NewEncoder(stdout)
	// Events are pipelined in batches: each is validated against the ones
	// before it and they are published without waiting for each other.
	var batch [][]byte
	var lines []int
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		outs := h.svc.AppendMany(ctx, batch)
		for k, o := range outs {
			line := lines[k]
			out := map[string]any{"line": line}
			switch err := o.Err; {
			case err != nil && events.CodeOf(err) == "":
				return fmt.Errorf("%s:%d: %w", name, line, err)
			case err != nil:
				refused++
				out["error"] = events.CodeOf(err)
				var ee *events.Error
				if errors.As(err, &ee) {
					out["message"] = ee.Msg
				}
				if o.Result.Seq != 0 {
					out["seq"] = o.Result.Seq
				}
				if !*asJSON {
					fmt.Fprintf(stdout, "%s:%d: refused %s\n", name, line, err)
				}
			default:
				accepted++
				out["seq"], out["id"] = o.Result.Seq, o.Result.ID
				if o.Result.Duplicate {
					out["duplicate"] = true
				}
				if !*asJSON {
					dup := ""
					if o.Result.Duplicate {
						dup = " (already landed; nothing written)"
					}
					fmt.Fprintf(stdout, "%s:%d: seq %d id %s%s\n", name, line, o.Result.Seq, o.Result.ID, dup)
				}
			}
			if *asJSON {
				if err := enc.Encode(out); err != nil {
					return err
				}
			}
		}
		batch, lines = batch[:0], lines[:0]
		return nil
	}
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		raw := []byte(text)
		if *actor != "" {
			raw = withActor(raw, *actor)
		}
		batch = append(batch, raw)
		lines = append(lines, line)
		if len(batch) == appendBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if !*asJSON {
		fmt.Fprintf(stdout, "%d accepted, %d refused\n", accepted, refused)
	}
	if refused > 0 {
		return &exitError{code: 1}
	}
	return nil
}

// appendBatch is how many events one pipelined round carries.
const appendBatch = 256

// withActor sets actor on an event object that has none.
func withActor(raw []byte, actor string) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	if _, ok := m["actor"]; ok {
		return raw
	}
	m["actor"], _ = json.Marshal(actor)
	b, _ := json.Marshal(m)
	return b
}
