package mcpgw

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of the bounds on an upstream call (Options).
const (
	// DefaultCallTimeout is Options.CallTimeout's default: long enough for
	// a tool that builds or searches, short enough that a call the
	// upstream never answers ends.
	DefaultCallTimeout = 5 * time.Minute
	// DefaultMaxResultBytes is Options.MaxResultBytes's default: the Go
	// SDK's own bound on one stdio message (mcp.DefaultMaxLineLength), so
	// no answer that passed before is refused now.
	DefaultMaxResultBytes = mcp.DefaultMaxLineLength
)

// errCallDeadline is the cause of an upstream call's context when its
// deadline (Options.CallTimeout) passes.
var errCallDeadline = errors.New("upstream call deadline")

// DeadlineError is an upstream call that did not answer within
// Options.CallTimeout (TestUpstreamCallDeadline).
type DeadlineError struct {
	Server, Tool string
	Timeout      time.Duration
}

func (e *DeadlineError) Error() string {
	return fmt.Sprintf("upstream server %s did not answer tools/call %s within the gateway's deadline of %v (ledger mcp --call-timeout); the call was cancelled", e.Server, e.Tool, e.Timeout)
}

// ResultTooLargeError is an upstream answer over Options.MaxResultBytes
// (TestOversizedResult). Size is the answer's size when known.
type ResultTooLargeError struct {
	Server, Tool string
	Size, Limit  int
}

func (e *ResultTooLargeError) Error() string {
	size := "more than that"
	if e.Size > 0 {
		size = fmt.Sprintf("%d bytes", e.Size)
	}
	return fmt.Sprintf("upstream server %s answered tools/call %s with %s, over the gateway's limit of %d bytes on one result (ledger mcp --max-result-bytes); the answer was dropped", e.Server, e.Tool, size, e.Limit)
}

// codeOversized is the JSON-RPC error code of the answer lineGuard puts
// in place of a stdio message over the limit; oversizedMeta in its data
// carries the size.
const (
	codeOversized = -32070
	oversizedMeta = "sessionledger/oversized"
)

// oversizedAnswer reports whether werr is lineGuard's stand-in for an
// answer over the limit, and the answer's size.
func oversizedAnswer(werr *jsonrpc.Error) (int, bool) {
	if werr.Code != codeOversized {
		return 0, false
	}
	var d map[string]int
	if json.Unmarshal(werr.Data, &d) != nil {
		return 0, false
	}
	size, ok := d[oversizedMeta]
	return size, ok
}

// commandTransport is mcp.CommandTransport with a bound on the messages
// the server writes: a message over limit is dropped, whole, by
// lineGuard, and the request it answers gets an error answer in its
// place, so the server keeps running and the next call reaches it. (The
// SDK's own transport bounds a message at 16 MiB by ending the session,
// so a large result read as an upstream that could not be reached, and
// the server was restarted.)
type commandTransport struct {
	cmd       *exec.Cmd
	limit     int
	terminate time.Duration
}

func (t *commandTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	g := &lineGuard{r: bufio.NewReaderSize(stdout, 64<<10), limit: t.limit}
	tr := &mcp.IOTransport{Reader: io.NopCloser(g), Writer: &procStdin{WriteCloser: stdin, cmd: t.cmd, terminate: t.terminate},
		MaxLineLength: t.limit + 1<<10}
	return tr.Connect(ctx)
}

// procStdin is a stdio server's standard input; closing it ends the
// server as the MCP spec says: close its input, wait, SIGTERM, wait,
// SIGKILL (mcp.CommandTransport's order).
type procStdin struct {
	io.WriteCloser
	cmd       *exec.Cmd
	terminate time.Duration
}

func (p *procStdin) Close() error {
	err := p.WriteCloser.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	wait := func() bool {
		select {
		case <-done:
			return true
		case <-time.After(p.terminate):
			return false
		}
	}
	if wait() {
		return err
	}
	if p.cmd.Process.Signal(syscall.SIGTERM) == nil && wait() {
		return err
	}
	_ = p.cmd.Process.Kill()
	wait()
	return err
}

// lineGuard passes a stdio server's newline-delimited messages on, but
// none over limit bytes: such a line is read to its end and dropped, and
// when its id can be read from its first bytes (every SDK writes
// "jsonrpc" and "id" before "result"), an error answer to that id
// (codeOversized) goes on in its place. It holds at most one line.
type lineGuard struct {
	r       *bufio.Reader
	limit   int
	pending []byte
	err     error
}

// headBytes is how much of a dropped line is kept to find its id.
const headBytes = 4 << 10

func (g *lineGuard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		g.next()
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

// next reads one line into pending (or the stand-in answer for one over
// the limit, or nothing for an oversized line without an id).
func (g *lineGuard) next() {
	var line []byte
	for {
		chunk, err := g.r.ReadSlice('\n')
		if len(line)+len(chunk) > g.limit {
			head := append(line[:min(len(line), headBytes)], chunk[:min(len(chunk), headBytes-min(len(line), headBytes))]...)
			size := len(line) + len(chunk)
			line = nil
			for err == bufio.ErrBufferFull {
				chunk, err = g.r.ReadSlice('\n')
				size += len(chunk)
			}
			if err != nil {
				g.err = err
			}
			g.pending = standIn(head, size)
			return
		}
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			g.err = err
		}
		g.pending = line
		return
	}
}

// standIn is the error answer to the request a dropped line of size
// bytes answered, read from its head; nil when the head names no id
// before its result.
func standIn(head []byte, size int) []byte {
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil
		}
		if k != "id" {
			if k != "jsonrpc" {
				return nil // the result or error comes before the id
			}
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		var id json.RawMessage
		if dec.Decode(&id) != nil {
			return nil
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
			"code": codeOversized, "message": fmt.Sprintf("the answer is %d bytes, over the gateway's limit", size),
			"data": map[string]int{oversizedMeta: size}}})
		return append(b, '\n')
	}
	return nil
}

// errResultTooLarge is what limitedRT's bodies fail with past the limit.
var errResultTooLarge = errors.New("mcp gateway: upstream answer over the limit")

// overflowKey is the context key of the flag limitedRT sets when it cuts
// the answer to a call's request: the SDK reports a body that failed as
// "request terminated without response", not with the body's error.
type overflowKey struct{}

// limitedRT bounds the body of every answer to a POST (a request's
// answer, as JSON or an event stream) of an HTTP upstream to limit bytes,
// and sets the request context's overflowKey flag when it cuts one.
type limitedRT struct {
	next  http.RoundTripper
	limit int
}

func (l limitedRT) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := l.next.RoundTrip(r)
	if err != nil || r.Method != http.MethodPost || res.Body == nil {
		return res, err
	}
	flag, _ := r.Context().Value(overflowKey{}).(*atomic.Bool)
	res.Body = &limitedBody{ReadCloser: res.Body, left: int64(l.limit), flag: flag}
	return res, nil
}

type limitedBody struct {
	io.ReadCloser
	left int64
	flag *atomic.Bool
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, errResultTooLarge
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		if b.flag != nil {
			b.flag.Store(true)
		}
		return 0, errResultTooLarge
	}
	return n, err
}
