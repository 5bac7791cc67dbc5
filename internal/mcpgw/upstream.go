package mcpgw

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Restart backoff of an upstream that failed to start or died: the first
// restart may come at once, each later one waits twice as long as the one
// before, up to maxBackoff; a call or a tools/list the upstream answers
// resets it.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 5 * time.Second
	// connectTimeout bounds starting an upstream and its initialize.
	connectTimeout = 20 * time.Second
)

// upstream is one configured server and the gateway's client session to
// it. Invariants (TestUpstreamCrashIsSurvived): at most one session is
// live at a time; a session that ends (the process exited, the HTTP
// server went away) is dropped, and the next use connects again, no
// sooner than the backoff allows; the last tool list is kept across a
// restart, so that a crash does not change what clients are shown.
type upstream struct {
	name string
	cfg  ServerConfig
	// life is the gateway's context: a stdio server's process lives as
	// long as it (not as long as the call that started it).
	life context.Context
	log  *slog.Logger
	// gen, when set, is counted up whenever the kept tool list is dropped
	// (Gateway.upGen).
	gen *atomic.Uint64
	// callTimeout bounds every tools/call (Options.CallTimeout);
	// maxResult bounds one answer's size (Options.MaxResultBytes).
	callTimeout time.Duration
	maxResult   int
	// changed holds one pending list_changed: the upstream's notifications
	// only mark it, and follow lists the upstream once for however many
	// came meanwhile (TestUpstreamListChangedIsCoalesced).
	changed chan struct{}

	mu        sync.Mutex
	sess      *mcp.ClientSession
	tools     []*mcp.Tool // sorted by name; nil until first listed
	backoff   time.Duration
	notBefore time.Time
	lastErr   error
	restarts  int
}

// session returns the live session, connecting when there is none.
func (u *upstream) session(ctx context.Context) (*mcp.ClientSession, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.sess != nil {
		return u.sess, nil
	}
	if now := time.Now(); now.Before(u.notBefore) {
		return nil, fmt.Errorf("upstream %s is down (%v); next restart in %v", u.name, u.lastErr, u.notBefore.Sub(now).Round(time.Millisecond))
	}
	cs, err := u.connect(ctx)
	if err != nil {
		u.lastErr = err
		u.backoff = min(max(2*u.backoff, minBackoff), maxBackoff)
		u.notBefore = time.Now().Add(u.backoff)
		return nil, fmt.Errorf("upstream %s: %w", u.name, err)
	}
	u.sess = cs
	go u.wait(cs)
	return cs, nil
}

// open connects the upstream ahead of its first use (Gateway.New), so
// that no client's request waits for a server to start or an HTTP
// session to be made. A failure here is only logged: it sets no backoff
// and no error, so the first use connects as it would have
// (TestUpstreamsAreOpenedAtStart).
func (u *upstream) open() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.sess != nil || u.life.Err() != nil {
		return
	}
	cs, err := u.connect(u.life)
	if err != nil {
		u.log.Info("mcp upstream not opened at start; it is started on first use", "server", u.name, "err", err)
		return
	}
	u.sess = cs
	go u.wait(cs)
}

// wait drops cs when its session ends.
func (u *upstream) wait(cs *mcp.ClientSession) {
	err := cs.Wait()
	u.mu.Lock()
	if u.sess == cs {
		u.sess = nil
		u.lastErr = fmt.Errorf("session ended: %v", err)
		u.died()
		u.log.Warn("mcp upstream ended; it is restarted on next use", "server", u.name, "err", err)
	}
	u.mu.Unlock()
}

// upstreamHTTP is the HTTP client of every streamable-HTTP upstream: the
// default transport's settings, but keeping as many idle connections to
// an upstream as calls may run at once through it. (http.DefaultTransport
// keeps 2 a host: with more concurrent calls than that, every call past
// the second closed its connection after its answer and the next one
// dialled again: TestHTTPUpstreamConnectionsAreReused.)
var upstreamHTTP = func() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 0, maxIdlePerUpstream
	return &http.Client{Transport: tr}
}()

// maxIdlePerUpstream is how many idle connections to one HTTP upstream
// are kept.
const maxIdlePerUpstream = 256

// connect starts (stdio) or dials (HTTP) the upstream; with u.mu held.
func (u *upstream) connect(ctx context.Context) (*mcp.ClientSession, error) {
	var t mcp.Transport
	if u.cfg.URL != "" {
		hc := &http.Client{Transport: limitedRT{next: upstreamHTTP.Transport, limit: u.maxResult}}
		t = &mcp.StreamableClientTransport{Endpoint: u.cfg.URL, MaxRetries: -1, HTTPClient: hc}
	} else {
		cmd := exec.CommandContext(u.life, u.cfg.Command[0], u.cfg.Command[1:]...)
		cmd.Env = os.Environ()
		for k, v := range u.cfg.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.Dir = u.cfg.Dir
		cmd.Stderr = os.Stderr
		t = &commandTransport{cmd: cmd, limit: u.maxResult, terminate: time.Second}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "ledger-mcp", Version: "1"}, &mcp.ClientOptions{
		// Called on the session's reading goroutine: it must not block.
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case u.changed <- struct{}{}:
			default: // one is pending already
			}
		},
	})
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	cs, err := c.Connect(cctx, t, nil)
	if err != nil {
		return nil, err
	}
	if u.restarts > 0 || u.lastErr != nil {
		u.log.Info("mcp upstream restarted", "server", u.name, "restarts", u.restarts+1)
	}
	u.restarts++
	return cs, nil
}

// listTools returns the upstream's tools, listing them when not known
// (first use, after a list_changed). When the upstream cannot be reached
// the last known list is kept and the error returned with it.
func (u *upstream) listTools(ctx context.Context) ([]*mcp.Tool, error) {
	u.mu.Lock()
	tools := u.tools
	u.mu.Unlock()
	if tools != nil {
		return tools, nil
	}
	list, err := u.list(ctx)
	if err != nil {
		return nil, err
	}
	u.mu.Lock()
	u.tools, u.backoff = list, 0
	u.mu.Unlock()
	return list, nil
}

// list asks the upstream for its tools, sorted by name.
func (u *upstream) list(ctx context.Context) ([]*mcp.Tool, error) {
	cs, err := u.session(ctx)
	if err != nil {
		return nil, err
	}
	var list []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("upstream %s: tools/list: %w", u.name, err)
		}
		list = append(list, t)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	if list == nil {
		list = []*mcp.Tool{}
	}
	return list, nil
}

// call forwards a tools/call. An error the upstream answered (a JSON-RPC
// error) is returned as it came, to be passed on unchanged; any other
// error means the upstream could not be reached or died during the call.
func (u *upstream) call(ctx context.Context, tool string, args any) (*mcp.CallToolResult, error) {
	cs, err := u.session(ctx)
	if err != nil {
		return nil, err
	}
	if args == nil {
		args = map[string]any{}
	}
	cctx, cancel := context.WithTimeoutCause(ctx, u.callTimeout, errCallDeadline)
	defer cancel()
	overflow := new(atomic.Bool)
	cctx = context.WithValue(cctx, overflowKey{}, overflow)
	res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		if werr := answered(err); werr != nil {
			if size, ok := oversizedAnswer(werr); ok {
				return nil, &ResultTooLargeError{Server: u.name, Tool: tool, Size: size, Limit: u.maxResult}
			}
			return nil, werr
		}
		if overflow.Load() || errors.Is(err, errResultTooLarge) {
			// An HTTP answer over the limit (limitedRT): the session
			// itself is sound.
			return nil, &ResultTooLargeError{Server: u.name, Tool: tool, Limit: u.maxResult}
		}
		if ctx.Err() == nil && context.Cause(cctx) == errCallDeadline {
			// The SDK has told the upstream the call is cancelled; the
			// session is not broken, only slow.
			return nil, &DeadlineError{Server: u.name, Tool: tool, Timeout: u.callTimeout}
		}
		if ctx.Err() == nil {
			// Not the caller giving up: the session is broken (an HTTP
			// server that went away may leave it open). Drop it, so
			// that the next use connects again.
			u.drop(cs, err)
		}
		return nil, fmt.Errorf("upstream %s: %w", u.name, err)
	}
	u.mu.Lock()
	u.backoff = 0
	u.mu.Unlock()
	return res, nil
}

// follow lists the upstream again after its list_changed, until ctx
// ends: however many notifications came while it listed, it lists once
// more, then resyncs every session once (resync). A flood of
// notifications so costs a few lists, not one per notification, and
// never holds a lock a session's request waits on
// (TestUpstreamListChangedIsCoalesced).
func (u *upstream) follow(ctx context.Context, resync func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-u.changed:
		}
		lctx, cancel := context.WithTimeout(ctx, connectTimeout)
		list, err := u.list(lctx)
		cancel()
		u.mu.Lock()
		u.tools = list // nil when it could not be listed: listed on next use
		if err == nil {
			u.backoff = 0
		}
		u.mu.Unlock()
		if err != nil {
			u.log.Warn("mcp upstream tools not listed after its list_changed", "server", u.name, "err", err)
		}
		if u.gen != nil {
			u.gen.Add(1)
		}
		resync()
	}
}

// died sets the next restart after a live session ended: the current
// backoff from now (none after a session that served a call), and a
// longer one for the time after; with u.mu held.
func (u *upstream) died() {
	u.notBefore = time.Now().Add(u.backoff)
	u.backoff = min(max(2*u.backoff, minBackoff), maxBackoff)
}

// answered returns the JSON-RPC error the upstream answered a call with,
// or nil when err is not one: the SDK returns a peer's error answer as
// "calling %q: <the error>", the error itself one wrap down, while its
// transport's own failures wrap its sentinels (rejected by transport,
// client or server closing) deeper, and are not the upstream's answer
// (TestHTTPUpstreamFailureIsReported, TestUpstreamErrorsPassThrough).
func answered(err error) *jsonrpc.Error {
	werr, ok := errors.Unwrap(err).(*jsonrpc.Error)
	if !ok {
		return nil
	}
	switch werr.Code {
	case -32003, -32004, -32005: // the SDK's closing and rejected sentinels
		return nil
	}
	return werr
}

// drop ends cs if it is still the live session.
func (u *upstream) drop(cs *mcp.ClientSession, why error) {
	u.mu.Lock()
	live := u.sess == cs
	if live {
		u.sess, u.lastErr = nil, why
		u.died()
	}
	u.mu.Unlock()
	if live {
		u.log.Warn("mcp upstream failed; it is reconnected on next use", "server", u.name, "err", why)
		_ = cs.Close()
	}
}

// close ends the live session, if any (a stdio server's stdin is closed,
// then it is terminated). The gateway's context is done first (Close), so
// no open or use connects after it.
func (u *upstream) close() {
	u.mu.Lock()
	cs := u.sess
	u.sess = nil
	u.mu.Unlock()
	if cs != nil {
		_ = cs.Close()
	}
}
