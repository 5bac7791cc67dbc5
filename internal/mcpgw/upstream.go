package mcpgw

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Restart backoff of an upstream that failed to start or died: the first
// retry may come at once, each later one waits twice as long as the one
// before, up to maxBackoff; a connection that lists its tools resets it.
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
	life     context.Context
	log      *slog.Logger
	onChange func() // the upstream's tool list changed

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
	go func() {
		err := cs.Wait()
		u.mu.Lock()
		if u.sess == cs {
			u.sess = nil
			u.lastErr = fmt.Errorf("session ended: %v", err)
			u.notBefore = time.Now().Add(u.backoff)
			u.log.Warn("mcp upstream ended; it is restarted on next use", "server", u.name, "err", err)
		}
		u.mu.Unlock()
	}()
	return cs, nil
}

// connect starts (stdio) or dials (HTTP) the upstream; with u.mu held.
func (u *upstream) connect(ctx context.Context) (*mcp.ClientSession, error) {
	var t mcp.Transport
	if u.cfg.URL != "" {
		t = &mcp.StreamableClientTransport{Endpoint: u.cfg.URL, MaxRetries: -1}
	} else {
		cmd := exec.CommandContext(u.life, u.cfg.Command[0], u.cfg.Command[1:]...)
		cmd.Env = os.Environ()
		for k, v := range u.cfg.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.Dir = u.cfg.Dir
		cmd.Stderr = os.Stderr
		t = &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "ledger-mcp", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			u.mu.Lock()
			u.tools = nil
			u.mu.Unlock()
			if u.onChange != nil {
				go u.onChange()
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
	u.mu.Lock()
	u.tools, u.backoff = list, 0
	u.mu.Unlock()
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
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		var werr *jsonrpc.Error
		if errors.As(err, &werr) {
			return nil, werr
		}
		return nil, fmt.Errorf("upstream %s: %w", u.name, err)
	}
	return res, nil
}

// close ends the live session, if any (a stdio server's stdin is closed,
// then it is terminated).
func (u *upstream) close() {
	u.mu.Lock()
	cs := u.sess
	u.sess = nil
	u.mu.Unlock()
	if cs != nil {
		_ = cs.Close()
	}
}
