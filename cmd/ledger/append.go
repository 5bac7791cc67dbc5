package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/service"
)

func runAppend(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("append", "[FILE|-]", "Appends events, one JSON object per line, from FILE or standard input. Each event is\n"+
		"validated against the state at the head, decided and written; a refused event is not written.\n"+
		"Prints one line per event: its sequence, or the stable error code and what to fix.\n"+
		"Exit status 1 when any event was refused.\n"+
		"With --nats and --user, events go through the ledger's API as that user (under the roles of\n"+
		"'ledger serve --gen-auth' only the ledger service writes the stream): session events as the\n"+
		"orchestrator of that name, policy events as the operator, and --actor defaults to the user.", stderr)
	var lf ledgerFlags
	lf.register(fl)
	lf.create = true
	asJSON := fl.Bool("json", false, "print one JSON result per event")
	actor := fl.String("actor", defaultActor, "the actor of events that name none (an event may also leave out \"v\", which is 1)")
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
	// As a NATS user, events go through the ledger's API, as that user:
	// under the roles of 'ledger serve --gen-auth' only the ledger service
	// writes the stream.
	var appendMany func(ctx context.Context, raws [][]byte) []service.Outcome
	if lf.natsURL != "" && lf.user != "" {
		nc, err := lf.connectAPI(ctx)
		if err != nil {
			return err
		}
		defer nc.Close()
		if !flagSet(fl, "actor") {
			*actor = lf.user
		}
		appendMany = func(ctx context.Context, raws [][]byte) []service.Outcome {
			return apiAppend(ctx, nc, lf.user, raws)
		}
	} else {
		h, err := lf.open(ctx)
		if err != nil {
			return err
		}
		defer h.Close()
		appendMany = h.svc.AppendMany
	}
	br := bufio.NewReaderSize(in, 64<<10)
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
		outs := appendMany(ctx, batch)
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
	for line := 1; ; line++ {
		b, size, rerr := readLine(br, maxLine)
		if rerr != nil && rerr != io.EOF {
			if ferr := flush(); ferr != nil {
				return ferr
			}
			return fmt.Errorf("%s:%d: %w", name, line, rerr)
		}
		if size > maxLine {
			// Refused here, in its place among the others: the events
			// before it are flushed first so the output stays in order.
			if err := flush(); err != nil {
				return err
			}
			refused++
			msg := fmt.Sprintf("the line is %d bytes, over append's limit of %d bytes a line (an event may be at most 512 KiB)", size, maxLine)
			if *asJSON {
				if err := enc.Encode(map[string]any{"line": line, "error": events.CodeInvalidEvent, "message": msg}); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(stdout, "%s:%d: refused %s: %s\n", name, line, events.CodeInvalidEvent, msg)
			}
		} else if text := bytes.TrimSpace(b); len(text) > 0 && text[0] != '#' {
			batch = append(batch, withDefaults(bytes.Clone(text), *actor))
			lines = append(lines, line)
		}
		if rerr == io.EOF {
			break
		}
		if len(batch) == appendBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
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

// maxLine bounds a line append reads; a longer one is refused (and
// skipped) without holding it in memory.
const maxLine = 4 << 20

// readLine reads one line (without its newline) of at most max bytes and
// returns its size; a longer line's size is returned with no bytes, the
// rest of it read and dropped. At the end of the input it returns io.EOF
// with the last line, if any.
func readLine(r *bufio.Reader, max int) ([]byte, int, error) {
	var line []byte
	size := 0
	for {
		chunk, err := r.ReadSlice('\n')
		size += len(chunk)
		if size <= max+1 {
			line = append(line, chunk...)
		} else {
			line = nil
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == nil {
			size--
			line = bytes.TrimSuffix(line, []byte("\n"))
		}
		if size > max {
			return nil, size, err
		}
		return line, size, err
	}
}

// defaultActor is the actor of events that name none when --actor is not
// given.
const defaultActor = "cli"

// withDefaults fills in what an event copied from a scenario file leaves
// out: "v" (1) and "actor". The fields are added at the front of the object
// as text, not by decoding and encoding it again, so the event is checked
// as written (a repeated key is still refused, not collapsed); what is not
// a JSON object is left for the ledger to refuse.
func withDefaults(raw []byte, actor string) []byte {
	keys, ok := topLevelKeys(raw)
	if !ok {
		return raw
	}
	var add []string
	if !keys["v"] {
		add = append(add, `"v":1`)
	}
	if !keys["actor"] && actor != "" {
		a, _ := json.Marshal(actor)
		add = append(add, `"actor":`+string(a))
	}
	if len(add) == 0 {
		return raw
	}
	i := bytes.IndexByte(raw, '{') + 1
	rest := raw[i:]
	sep := ","
	if len(keys) == 0 {
		sep = ""
	}
	out := append([]byte(nil), raw[:i]...)
	out = append(out, strings.Join(add, ",")+sep...)
	return append(out, rest...)
}

// topLevelKeys returns the keys of a JSON object's own members, or false
// when raw is not one well-formed object.
func topLevelKeys(raw []byte) (map[string]bool, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	keys := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		k, _ := t.(string)
		keys[k] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, false
	}
	return keys, true
}
