package mcpgw

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
)

// Options configure a Gateway.
type Options struct {
	// Ledger is the client the gateway asks and records through; its
	// Owner is the orchestrator whose sessions the gateway serves.
	Ledger *client.Client
	// Start, when not empty, is the agent of the session.started the
	// gateway appends (with turn.started 1) for a session the ledger does
	// not know yet; empty, the gateway only joins sessions an
	// orchestrator (the same owner) has started.
	Start string
	// Scope is the ledger scope a session the gateway starts is bound to
	// (session.started's scope; "" is the ledger's default scope).
	// Sessions it joins keep the scope they were started in.
	Scope string
	// User and Host are who and where a session the gateway starts runs
	// for (session.started's user and host; empty: not recorded).
	User, Host string
	// Why is the command a denial tells to run; default "ledger why".
	Why []string
	// Logger receives what goes wrong with upstreams and the ledger
	// (default: discard).
	Logger *slog.Logger
	// IdleTimeout is how long an HTTP MCP session may go without a
	// request before it is closed, and a ledger session may have no MCP
	// session before the gateway forgets it (its watch ends; a later
	// client joins it again); default 30 minutes. Stdio sessions are
	// never idle.
	IdleTimeout time.Duration
	// CallTimeout bounds each forwarded tools/call: past it the call is
	// cancelled upstream and answered a tool error naming the deadline
	// (DeadlineError); default DefaultCallTimeout.
	CallTimeout time.Duration
	// MaxStarted bounds the live sessions the gateway has started (Start)
	// and not yet forgotten (IdleTimeout): past it, a session the ledger
	// does not know is refused (ErrTooManyStarted) rather than started;
	// default DefaultMaxStarted.
	MaxStarted int
	// MaxResultBytes bounds one upstream answer: one over it is dropped
	// and the call answered a tool error naming the limit
	// (ResultTooLargeError); default DefaultMaxResultBytes.
	MaxResultBytes int
	// Observe, when set, is told how long each step of an allowed
	// tools/call took: PartCheck (the one record that checks the call and
	// starts its effect) and PartUpstream (the forward), then PartCall (the
	// whole call as the gateway's middleware saw it, after the SDK
	// decoded the request and before it encodes the answer; also for a
	// refused call). It is for
	// measuring ('ledger bench --only mcp'), is called on the call's
	// goroutine, and must be quick.
	Observe func(part string, d time.Duration)
}

// The steps Options.Observe is told of.
const (
	PartCheck    = "check"
	PartUpstream = "upstream"
	PartCall     = "call"
)

// Runtime is session.started's runtime for a session the gateway starts;
// its runtime_version names the MCP client (ClientVersion).
const Runtime = "mcp-gateway"

// ClientVersion is the runtime_version of a session the gateway starts:
// the clientInfo of the initialize request of the first MCP session that
// maps to it, "name/version" ("claude-code/2.1.328"), or the name alone;
// "" when no client named itself, or its name and version would not fit
// an identity field (events.MaxIdentityLen).
func ClientVersion(c *mcp.Implementation) string {
	if c == nil || c.Name == "" {
		return ""
	}
	v := c.Name
	if c.Version != "" {
		v += "/" + c.Version
	}
	if len(v) > events.MaxIdentityLen {
		return ""
	}
	return v
}

// DefaultMaxStarted is Options.MaxStarted's default.
const DefaultMaxStarted = 1000

// ErrTooManyStarted is the refusal to start a session past
// Options.MaxStarted (TestStartIsBounded).
var ErrTooManyStarted = errors.New("the gateway's limit of live sessions it started is reached")

// DefaultIdleTimeout is Options.IdleTimeout's default.
const DefaultIdleTimeout = 30 * time.Minute

// Gateway is the MCP gateway: an MCP server to its clients, an MCP
// client to the configured upstream servers, and an orchestrator of the
// ledger.
type Gateway struct {
	cfg  *Config
	opts Options
	log  *slog.Logger
	ups  map[string]*upstream
	// order is the upstream names sorted: the order of tools/list.
	order []string

	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	sessions map[events.SessionKey]*session
	// started counts the live sessions the gateway started
	// (Options.MaxStarted); mcpClients is the configured client of each
	// live HTTP MCP session, by its Mcp-Session-Id (Config.Clients).
	started    int
	mcpClients map[string]string

	// upGen counts the upstream tool lists dropped (an upstream's
	// list_changed): a session whose tools were registered at another
	// count registers them again (session.apply).
	upGen atomic.Uint64
}

// New makes a gateway and opens its upstreams in the background (a
// stdio server is started, an HTTP one's session made), so that a
// client's first call does not wait for them. Close ends its upstreams
// and its sessions' watches.
func New(cfg *Config, opts Options) (*Gateway, error) {
	if opts.Ledger == nil {
		return nil, errors.New("mcpgw: no ledger client")
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if len(opts.Why) == 0 {
		opts.Why = []string{"ledger", "why"}
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.MaxStarted <= 0 {
		opts.MaxStarted = DefaultMaxStarted
	}
	if opts.MaxResultBytes <= 0 {
		opts.MaxResultBytes = DefaultMaxResultBytes
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	g := &Gateway{cfg: cfg, opts: opts, log: log, ups: map[string]*upstream{}, order: cfg.names(),
		ctx: ctx, cancel: cancel, sessions: map[events.SessionKey]*session{}, mcpClients: map[string]string{}}
	for _, name := range g.order {
		u := &upstream{name: name, cfg: cfg.Servers[name], life: ctx, log: log, gen: &g.upGen,
			callTimeout: opts.CallTimeout, maxResult: opts.MaxResultBytes, changed: make(chan struct{}, 1)}
		g.ups[name] = u
		go u.follow(ctx, g.upstreamChanged)
		go u.open()
	}
	go g.janitor()
	return g, nil
}

// janitor forgets, every tenth of IdleTimeout, the ledger sessions whose
// server has had no MCP session for IdleTimeout (TestIdleSessionsAreForgotten).
// A client that connects in the instant between the count and the removal
// keeps the forgotten server: its tools/list still reads the ledger, but
// no list_changed comes; it gets the new server when it reconnects.
func (g *Gateway) janitor() {
	tick := time.NewTicker(max(g.opts.IdleTimeout/10, time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-g.ctx.Done():
			return
		case now := <-tick.C:
			g.evictIdle(now)
		}
	}
}

// evictIdle forgets the sessions idle for IdleTimeout at now.
func (g *Gateway) evictIdle(now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	live := map[string]bool{}
	for key, s := range g.sessions {
		n := 0
		for ss := range s.srv.Sessions() {
			n++
			live[ss.ID()] = true
		}
		switch {
		case n > 0:
			s.idleSince = time.Time{}
		case s.idleSince.IsZero():
			s.idleSince = now
		case now.Sub(s.idleSince) >= g.opts.IdleTimeout:
			s.cancel()
			delete(g.sessions, key)
			if s.startedHere {
				g.started--
			}
			g.log.Info("ledger session forgotten: no MCP session", "session", key, "idle", now.Sub(s.idleSince))
		}
	}
	for sid := range g.mcpClients {
		if !live[sid] {
			delete(g.mcpClients, sid)
		}
	}
}

// reserveStart counts a session the gateway is about to start, or
// refuses it past Options.MaxStarted; release gives the count back when
// the start failed.
func (g *Gateway) reserveStart(s *session) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.started >= g.opts.MaxStarted {
		return fmt.Errorf("%w: %d sessions it started are live (ledger mcp --max-started %d); one is forgotten after --idle-timeout without a client, or start this one elsewhere", ErrTooManyStarted, g.started, g.opts.MaxStarted)
	}
	g.started++
	s.startedHere = true
	return nil
}

func (g *Gateway) releaseStart(s *session) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s.startedHere {
		s.startedHere = false
		g.started--
	}
}

// Close stops every session's watch and every upstream.
func (g *Gateway) Close() {
	g.cancel()
	for _, u := range g.ups {
		u.close()
	}
}

// server returns the MCP server of a ledger session, making it on first
// use: every downstream MCP session that maps to the same ledger session
// shares it, and so sees the same tool set. client is the MCP client
// whose initialize brings it, when known: a session the gateway starts
// names it (ClientVersion).
func (g *Gateway) server(key events.SessionKey, client *mcp.Implementation) *mcp.Server {
	g.mu.Lock()
	if s, ok := g.sessions[key]; ok {
		g.mu.Unlock()
		s.noteClient(client)
		return s.srv
	}
	s := newSession(g, key)
	s.client = client
	g.sessions[key] = s
	g.mu.Unlock()
	// Register the tool set before any client connects: a server whose
	// tools change while a client is connected tells it so, and a
	// client's first tools/list is no change (TestRevocationSendsListChanged
	// counts the notifications). A session the ledger does not know yet
	// is joined at its first request instead.
	ctx, cancel := context.WithTimeout(g.ctx, connectTimeout)
	defer cancel()
	if err := s.refresh(ctx); err != nil {
		g.log.Info("ledger session not joined yet", "session", key, "err", err)
	}
	return s.srv
}

// session returns the gateway's state of a ledger session, or nil.
func (g *Gateway) session(key events.SessionKey) *session {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.sessions[key]
}

// ServeStdio serves one downstream client on r and w (the gateway's own
// standard input and output) as ledger session key, until the client
// closes or ctx ends. The client's first message, its initialize, is read
// before the session's server is made, so that a session the gateway
// starts names the client (ClientVersion) and has its tools registered
// before the client asks (no list_changed for them).
func (g *Gateway) ServeStdio(ctx context.Context, key events.SessionKey, r io.ReadCloser, w io.WriteCloser) error {
	if !validKey(key) {
		return fmt.Errorf("mcpgw: %q is not a session key", key)
	}
	br := bufio.NewReader(r)
	first := make(chan []byte, 1)
	go func() {
		// A newline-delimited JSON-RPC message (the stdio transport's
		// framing); an error or EOF leaves the rest to the transport.
		line, _ := br.ReadBytes('\n')
		first <- line
	}()
	var line []byte
	select {
	case line = <-first:
	case <-ctx.Done():
		return nil
	}
	_, client := parseInitialize(line)
	in := readCloser{Reader: io.MultiReader(bytes.NewReader(line), br), Closer: r}
	return g.server(key, client).Run(ctx, &mcp.IOTransport{Reader: in, Writer: w})
}

// readCloser reads from Reader and closes Closer.
type readCloser struct {
	io.Reader
	io.Closer
}

// Handler serves streamable HTTP at any path but a GET of one ending in
// ListingPath, which answers the Listing (TestListing). Every new MCP session (an
// initialize without Mcp-Session-Id) is mapped to its ledger session
// once, by the config's Session.From: the header (FromHeader), the
// SessionMeta entry of the initialize request's _meta (FromInitialize),
// or key (FromKey, or any mapping when key is not empty). A new session
// that names none is refused (400) with a message saying what to send
// (TestSessionFromInitialize).
//
// Invariant: the SDK's getServer, which it calls on every request (also
// on one naming an Mcp-Session-Id, to read the protocol versions), makes
// or joins a ledger session only for a new MCP session's first POST, and
// only the key authorize has checked against the client's token, carried
// in initContext; any other request gets nil, so naming a ledger session
// in a header beside an Mcp-Session-Id starts or joins nothing
// (TestMadeUpMcpSessionStartsNothing). That first POST's body is read
// only after its token is checked, and one over
// mcp.DefaultMaxRequestBodyBytes is answered 413, as the SDK answers it
// on an existing session (TestOversizedFirstPostIs413).
func (g *Gateway) Handler(key events.SessionKey) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		in, ok := r.Context().Value(initContext{}).(initRequest)
		if !ok || !validKey(in.key) {
			return nil
		}
		return g.server(in.key, in.client)
	}, &mcp.StreamableHTTPOptions{Logger: g.log, SessionTimeout: g.opts.IdleTimeout})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isListing(r) {
			g.serveListing(w, r)
			return
		}
		// A new MCP session's first request (its initialize) is read here:
		// for its _meta key (FromInitialize) and for its clientInfo, which
		// a session the gateway starts names.
		fresh := r.Header.Get("Mcp-Session-Id") == ""
		firstPost := r.Method == http.MethodPost && fresh
		var named events.SessionKey
		var in initRequest
		if firstPost {
			if _, ok := g.authorize(w, r, ""); !ok {
				return
			}
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, mcp.DefaultMaxRequestBodyBytes))
			if err != nil {
				if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
					http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
					return
				}
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			in.key, in.client = parseInitialize(body)
			if key == "" && g.cfg.Session.From == FromInitialize {
				named = in.key
			}
		}
		if fresh && named == "" {
			named = g.keyOf(r, key)
		}
		if !fresh {
			named = ""
		}
		client, ok := g.authorize(w, r, named)
		if !ok {
			return
		}
		if fresh && r.Method == http.MethodPost && key == "" && g.cfg.Session.From == FromInitialize && named == "" {
			http.Error(w, fmt.Sprintf("the ledger MCP gateway needs the ledger session key in the initialize request's _meta[%q]", SessionMeta), http.StatusBadRequest)
			return
		}
		if key == "" && g.cfg.Session.From != FromInitialize && fresh && !validKey(g.keyOf(r, key)) {
			http.Error(w, fmt.Sprintf("the ledger MCP gateway needs the ledger session key in the %s header", g.cfg.Session.Header), http.StatusBadRequest)
			return
		}
		if firstPost {
			// named is the key authorize checked: the only one getServer uses.
			in.key = named
			r = r.WithContext(context.WithValue(r.Context(), initContext{}, in))
		}
		h.ServeHTTP(w, r)
		if len(g.cfg.Clients) == 0 {
			return
		}
		// Bind a new MCP session to its client: another client's token
		// may not use it (authorize).
		if sid := w.Header().Get("Mcp-Session-Id"); fresh && sid != "" {
			g.mu.Lock()
			g.mcpClients[sid] = client
			g.mu.Unlock()
		} else if r.Method == http.MethodDelete {
			g.mu.Lock()
			delete(g.mcpClients, r.Header.Get("Mcp-Session-Id"))
			g.mu.Unlock()
		}
	})
}

// initContext carries a new MCP session's first POST (an initRequest) to
// the SDK's getServer, its key the one authorize checked.
type initContext struct{}

// initRequest is what a new MCP session's first POST names: its ledger
// session key and the client.
type initRequest struct {
	key    events.SessionKey
	client *mcp.Implementation
}

// keyOf is the ledger session a request names by header, or key.
func (g *Gateway) keyOf(r *http.Request, key events.SessionKey) events.SessionKey {
	if key != "" || g.cfg.Session.From == FromKey {
		return key
	}
	if g.cfg.Session.From == FromHeader || g.cfg.Session.From == "" {
		return events.SessionKey(r.Header.Get(g.cfg.Session.Header))
	}
	return ""
}

// clientInfoMeta is the _meta entry in which a client of the 2026-07-28
// protocol names itself on every request (server/discover first), where
// an older one names itself once, in its initialize's clientInfo.
const clientInfoMeta = "io.modelcontextprotocol/clientInfo"

// parseInitialize reads a new MCP session's first request: the
// SessionMeta entry of an initialize request's _meta ("" when it names
// none, or body is not an initialize) and the client, from an
// initialize's clientInfo or any request's _meta[clientInfoMeta] (nil
// when it names none).
func parseInitialize(body []byte) (events.SessionKey, *mcp.Implementation) {
	var req struct {
		Method string `json:"method"`
		Params struct {
			// The tags are SessionMeta and clientInfoMeta.
			Meta struct {
				Key    string              `json:"sessionledger/session"`
				Client *mcp.Implementation `json:"io.modelcontextprotocol/clientInfo"`
			} `json:"_meta"`
			ClientInfo *mcp.Implementation `json:"clientInfo"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &req) != nil {
		return "", nil
	}
	if req.Method != "initialize" {
		return "", req.Params.Meta.Client
	}
	c := req.Params.ClientInfo
	if c == nil {
		c = req.Params.Meta.Client
	}
	return events.SessionKey(req.Params.Meta.Key), c
}

// validKey reports whether key can be a ledger session key as far as the
// gateway is concerned (the ledger checks the rest).
func validKey(key events.SessionKey) bool { return key != "" && len(key) <= 256 }

// upstreamChanged resyncs every session when an upstream's tool list
// changed.
func (g *Gateway) upstreamChanged() {
	g.mu.Lock()
	ss := make([]*session, 0, len(g.sessions))
	for _, s := range g.sessions {
		ss = append(ss, s)
	}
	g.mu.Unlock()
	for _, s := range ss {
		s.resync(g.ctx)
	}
}

// catalogue is every upstream tool, in server then tool order, with the
// upstream errors of those that could not be listed.
func (g *Gateway) catalogue(ctx context.Context) ([]upTool, []error) {
	var out []upTool
	var errs []error
	for _, name := range g.order {
		tools, err := g.ups[name].listTools(ctx)
		if err != nil {
			g.log.Warn("mcp upstream tools not listed", "server", name, "err", err)
			errs = append(errs, err)
			continue
		}
		for _, t := range tools {
			out = append(out, upTool{server: name, tool: t})
		}
	}
	return out, errs
}

// upTool is one upstream tool.
type upTool struct {
	server string
	tool   *mcp.Tool
}
