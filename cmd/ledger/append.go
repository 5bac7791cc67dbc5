package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
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
	appendMany, closeSink, err := appendSink(ctx, fl, &lf, actor)
	if err != nil {
		return err
	}
	defer closeSink()
	r := &appendRun{name: name, asJSON: *asJSON, stdout: stdout, enc: json.NewEncoder(stdout), appendMany: appendMany}
	if err := r.readAll(ctx, bufio.NewReaderSize(in, 64<<10), *actor); err != nil {
		return err
	}
	if !r.asJSON {
		fmt.Fprintf(stdout, "%d accepted, %d refused\n", r.accepted, r.refused)
	}
	if r.refused > 0 {
		return &exitError{code: 1}
	}
	return nil
}

// appendSink returns where append's events go. As a NATS user, events go
// through the ledger's API, as that user (under the roles of 'ledger serve
// --gen-auth' only the ledger service writes the stream), and --actor
// defaults to the user; otherwise into the ledger opened here.
func appendSink(ctx context.Context, fl *flag.FlagSet, lf *ledgerFlags, actor *string) (func(context.Context, [][]byte) []service.Outcome, func(), error) {
	if lf.natsURL != "" && lf.user != "" {
		nc, err := lf.connectAPI(ctx)
		if err != nil {
			return nil, nil, err
		}
		if !flagSet(fl, "actor") {
			*actor = lf.user
		}
		user := lf.user
		return func(ctx context.Context, raws [][]byte) []service.Outcome {
			return apiAppend(ctx, nc, user, raws)
		}, nc.Close, nil
	}
	h, err := lf.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	return h.svc.AppendMany, func() { h.Close() }, nil
}

// appendRun reads append's input and prints one answer per event, in the
// input's order. Events are pipelined in batches: each is validated
// against the ones before it and they are published without waiting for
// each other.
type appendRun struct {
	name       string
	asJSON     bool
	stdout     io.Writer
	enc        *json.Encoder
	appendMany func(context.Context, [][]byte) []service.Outcome

	batch             [][]byte
	lines             []int
	accepted, refused int
}

// readAll reads every line of br, appending the events in batches.
func (r *appendRun) readAll(ctx context.Context, br *bufio.Reader, actor string) error {
	for line := 1; ; line++ {
		b, size, rerr := readLine(br, maxLine)
		if rerr != nil && rerr != io.EOF {
			if ferr := r.flush(ctx); ferr != nil {
				return ferr
			}
			return fmt.Errorf("%s:%d: %w", r.name, line, rerr)
		}
		if size > maxLine {
			// Refused here, in its place among the others: the events
			// before it are flushed first so the output stays in order.
			if err := r.flush(ctx); err != nil {
				return err
			}
			if err := r.refuseLong(line, size); err != nil {
				return err
			}
		} else if text := bytes.TrimSpace(b); len(text) > 0 && text[0] != '#' {
			r.batch = append(r.batch, withDefaults(bytes.Clone(text), actor))
			r.lines = append(r.lines, line)
		}
		if rerr == io.EOF {
			break
		}
		if len(r.batch) == appendBatch {
			if err := r.flush(ctx); err != nil {
				return err
			}
		}
	}
	return r.flush(ctx)
}

// flush appends the batch and prints each event's answer.
func (r *appendRun) flush(ctx context.Context) error {
	if len(r.batch) == 0 {
		return nil
	}
	outs := r.appendMany(ctx, r.batch)
	for k, o := range outs {
		if err := r.answer(r.lines[k], o); err != nil {
			return err
		}
	}
	r.batch, r.lines = r.batch[:0], r.lines[:0]
	return nil
}

// answer prints one event's outcome; an error that is not a refusal (no
// stable code) stops append.
func (r *appendRun) answer(line int, o service.Outcome) error {
	out := map[string]any{"line": line}
	switch err := o.Err; {
	case err != nil && events.CodeOf(err) == "":
		return fmt.Errorf("%s:%d: %w", r.name, line, err)
	case err != nil:
		r.refused++
		out["error"] = events.CodeOf(err)
		var ee *events.Error
		if errors.As(err, &ee) {
			out["message"] = ee.Msg
		}
		if o.Result.Seq != 0 {
			out["seq"] = o.Result.Seq
		}
		if !r.asJSON {
			fmt.Fprintf(r.stdout, "%s:%d: refused %s\n", r.name, line, err)
		}
	default:
		r.accepted++
		out["seq"], out["id"] = o.Result.Seq, o.Result.ID
		dup := ""
		if o.Result.Duplicate {
			out["duplicate"] = true
			dup = " (already landed; nothing written)"
		}
		if !r.asJSON {
			fmt.Fprintf(r.stdout, "%s:%d: seq %d id %s%s\n", r.name, line, o.Result.Seq, o.Result.ID, dup)
		}
	}
	if r.asJSON {
		return r.enc.Encode(out)
	}
	return nil
}

// refuseLong refuses a line over maxLine, in its place among the others.
func (r *appendRun) refuseLong(line, size int) error {
	r.refused++
	msg := fmt.Sprintf("the line is %d bytes, over append's limit of %d bytes a line (an event may be at most 512 KiB)", size, maxLine)
	if r.asJSON {
		return r.enc.Encode(map[string]any{"line": line, "error": events.CodeInvalidEvent, "message": msg})
	}
	fmt.Fprintf(r.stdout, "%s:%d: refused %s: %s\n", r.name, line, events.CodeInvalidEvent, msg)
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
