package console

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgercmd"
	"github.com/sessionledger/ledger/internal/shellquote"
	"github.com/sessionledger/ledger/wire"
)

// Config configures a console. The zero value of each optional field
// means its default.
type Config struct {
	// Client returns a client of the ledger's API that reads as owner: an
	// orchestrator's name, or wire.ScopeAll for every session. Required.
	Client func(owner string) *client.Client
	// Head is the position the page starts near: the serving replica's.
	// Required.
	Head func() uint64
	// Viewers, when set, are the only ones let in. Nil lets in anyone on
	// a loopback connection addressed to a loopback host, as the auditor
	// scope; serving such a console on another address is the caller's to
	// refuse.
	Viewers *Viewers
	// Report serves the audit report at /report (with its query, less
	// /report), to viewers who see every tenant; nil serves none.
	Report http.Handler
	// Window is how many records before the head the page's denials
	// start; default 1024.
	Window uint64
	// MaxStreams bounds the live streams open at once; past it a stream
	// is answered 503 and the browser retries. Default 64.
	MaxStreams int
	// Where are the flags with which 'ledger why' finds this ledger, for
	// the command shown with each denial (for example --nats URL).
	Where []string
	// Logger logs refused requests and failed streams; nil discards.
	Logger *slog.Logger
}

// Validate reports every problem of the configuration at once.
func (c *Config) Validate() error {
	var errs []error
	if c.Client == nil {
		errs = append(errs, errors.New("console: Client is required"))
	}
	if c.Head == nil {
		errs = append(errs, errors.New("console: Head is required"))
	}
	if c.MaxStreams < 0 {
		errs = append(errs, fmt.Errorf("console: MaxStreams %d is negative", c.MaxStreams))
	}
	return errors.Join(errs...)
}

// MaxDenials is how many denials the page keeps; older ones leave it.
const MaxDenials = 500

// maxRoots is how many spawn trees the page renders, the newest.
const maxRoots = 1000

// Handler serves the console: GET / (the page), GET /events (its live
// stream, text/event-stream) and GET /report.
type Handler struct {
	cfg     Config
	mux     *http.ServeMux
	streams chan struct{}
	// pages bounds the pages rendered at once: each asks the API for a
	// page of denials, the trees, and a why per denial.
	pages chan struct{}
}

// New returns a console handler.
func New(cfg Config) (*Handler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Window == 0 {
		cfg.Window = 1024
	}
	if cfg.MaxStreams == 0 {
		cfg.MaxStreams = 64
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	h := &Handler{cfg: cfg, mux: http.NewServeMux(), streams: make(chan struct{}, cfg.MaxStreams), pages: make(chan struct{}, 4)}
	h.mux.HandleFunc("GET /{$}", h.withViewer(h.page))
	h.mux.HandleFunc("GET /events", h.withViewer(h.events))
	h.mux.HandleFunc("GET /report", h.withViewer(h.report))
	return h, nil
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// withViewer lets through the requests of a viewer: with Viewers, one
// that presents a viewer's token; without, one on a loopback connection
// addressed to a loopback host (a page elsewhere that resolves its own
// name to 127.0.0.1 is not let in).
func (h *Handler) withViewer(next func(http.ResponseWriter, *http.Request, *Viewer)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if h.cfg.Viewers == nil {
			if !loopbackConn(r) {
				h.cfg.Logger.Warn("console: refused a request that is not to and from loopback", "remote", r.RemoteAddr, "host", r.Host)
				http.Error(w, "this console takes no credentials, so it answers loopback connections to a loopback host only; "+
					"serve it with --http-viewers FILE to let viewers in from elsewhere", http.StatusForbidden)
				return
			}
			next(w, r, &Viewer{Name: "loopback", Owner: wire.ScopeAll})
			return
		}
		v := h.cfg.Viewers.find(r)
		if v == nil {
			w.Header().Set("WWW-Authenticate", `Basic realm="ledger console", charset="UTF-8"`)
			http.Error(w, "present a viewer's token: Authorization: Bearer TOKEN, or HTTP Basic with the token as the password", http.StatusUnauthorized)
			return
		}
		next(w, r, v)
	}
}

// loopbackConn reports whether a request came from a loopback address
// and names a loopback host.
func loopbackConn(r *http.Request) bool {
	rhost, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil || !isLoopback(rhost) {
		return false
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return isLoopback(strings.Trim(host, "[]"))
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (h *Handler) report(w http.ResponseWriter, r *http.Request, v *Viewer) {
	if h.cfg.Report == nil {
		http.NotFound(w, r)
		return
	}
	if !v.Every() {
		// The report folds the whole log, every tenant's records.
		http.Error(w, fmt.Sprintf("the audit report shows every tenant; viewer %s sees orchestrator %s's sessions only", v.Name, v.Owner), http.StatusForbidden)
		return
	}
	h.cfg.Report.ServeHTTP(w, r)
}

// filterOf is the filter a request's query names.
func filterOf(q url.Values) wire.Filter {
	return wire.Filter{Scope: q.Get("scope"), User: q.Get("user"), Project: q.Get("project"), Runtime: q.Get("runtime")}
}

// pageData is what the page template renders.
type pageData struct {
	Viewer  *Viewer
	Filter  wire.Filter
	From    uint64
	Next    uint64
	Groups  []*group
	Hidden  int // trees left out, past maxRoots
	Denials []denialView
	Events  string
	// Start is the page from the log's start, with the page's filters.
	Start  string
	Report bool
	Nonce  string // the script's, for the content security policy
}

// group is the spawn trees of one scope and identity.
type group struct {
	ID       string
	Scope    string
	Identity wire.Identity
	Roots    []*wire.TreeNode
}

// groupOf is the group a tree belongs to: its scope and its root's
// runtime, user, host and project.
func groupOf(n *wire.TreeNode) *group {
	var id wire.Identity
	if n.Identity != nil {
		id = wire.Identity{Runtime: n.Identity.Runtime, User: n.Identity.User, Host: n.Identity.Host, Project: n.Identity.Project}
	}
	sum := sha256.Sum256([]byte(strings.Join([]string{n.Scope, id.Runtime, id.User, id.Host, id.Project}, "\x00")))
	return &group{ID: "g-" + hex.EncodeToString(sum[:8]), Scope: n.Scope, Identity: id}
}

// groups puts trees, in the order they started, into groups, in the
// order of their first tree.
func groups(trees []*wire.TreeNode) []*group {
	var out []*group
	at := map[string]*group{}
	for _, n := range trees {
		g := groupOf(n)
		if at[g.ID] == nil {
			at[g.ID] = g
			out = append(out, g)
		}
		at[g.ID].Roots = append(at[g.ID].Roots, n)
	}
	return out
}

// denialView is one denial with its why trace, or why that could not be
// read.
type denialView struct {
	wire.Denial
	Why     *wire.WhyResult
	Cause   *wire.Cause
	WhyErr  string
	Command string
}

// page renders the console: the denials from the start of the window
// (or ?from=), then the trees at a position that includes them, so that
// the stream, which starts after those denials, misses no change.
func (h *Handler) page(w http.ResponseWriter, r *http.Request, v *Viewer) {
	q := r.URL.Query()
	from, err := h.from(q.Get("from"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f := filterOf(q)
	ctx := r.Context()
	select {
	case h.pages <- struct{}{}:
		defer func() { <-h.pages }()
	case <-ctx.Done():
		return
	}
	cl := h.cfg.Client(v.Owner)
	head := h.cfg.Head()
	res, err := cl.Denials(ctx, wire.DenialsQuery{Filter: f, From: from})
	if err != nil {
		h.fail(w, "the denials", err)
		return
	}
	// An API page ends at 256 calls of every tenant's: the page reads on
	// to the head it started at, maxDenialPages pages at most, keeping the
	// newest (TestConsolePageReadsToTheHead).
	for pages := 1; res.Next <= head && pages < maxDenialPages; pages++ {
		more, err := cl.Denials(ctx, wire.DenialsQuery{Filter: f, From: res.Next})
		if err != nil {
			h.fail(w, "the denials", err)
			return
		}
		if more.Next <= res.Next {
			break
		}
		more.Denials = append(res.Denials, more.Denials...)
		if len(more.Denials) > 2*MaxDenials {
			more.Denials = more.Denials[len(more.Denials)-MaxDenials:]
		}
		res = more
	}
	trees, err := cl.Tree(ctx, "", client.Filtered(f), client.WithMinSeq(res.Next-1))
	if err != nil {
		h.fail(w, "the spawn trees", err)
		return
	}
	d := pageData{Viewer: v, Filter: f, From: from, Next: res.Next, Report: h.cfg.Report != nil && v.Every()}
	if len(trees) > maxRoots {
		d.Hidden, trees = len(trees)-maxRoots, trees[len(trees)-maxRoots:]
	}
	d.Groups = groups(trees)
	dens := res.Denials
	if len(dens) > MaxDenials {
		dens = dens[len(dens)-MaxDenials:]
	}
	for i := len(dens) - 1; i >= 0; i-- { // newest first
		d.Denials = append(d.Denials, h.denial(ctx, cl, dens[i]))
	}
	ev := url.Values{"from": {strconv.FormatUint(res.Next, 10)}}
	for _, kv := range [][2]string{{"scope", f.Scope}, {"user", f.User}, {"project", f.Project}, {"runtime", f.Runtime}} {
		if kv[1] != "" {
			ev.Set(kv[0], kv[1])
		}
	}
	d.Events = "events?" + ev.Encode()
	ev.Set("from", "1")
	d.Start = "?" + ev.Encode()
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	d.Nonce = hex.EncodeToString(nonce[:])
	var page bytes.Buffer
	if err := pageTemplate.ExecuteTemplate(&page, "page", d); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	// The page's own inline script (this answer's, by its nonce) and
	// style, its own origin for the stream, nothing else.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'nonce-"+d.Nonce+"'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(page.Bytes())
}

// from is where the page's denials start: ?from=SEQ, else a window
// before the head.
func (h *Handler) from(s string) (uint64, error) {
	if s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || n == 0 {
			return 0, fmt.Errorf("from: a sequence number from 1, for example ?from=42")
		}
		// A position past the next record would make the page wait for
		// spawn trees at a position the ledger has not reached, and
		// answer 502 after the API's wait (TestConsoleFromPastTheHead).
		if head := h.cfg.Head(); n > head+1 {
			return 0, fmt.Errorf("from: the ledger holds records up to sequence %d, so ?from= goes up to %d", head, head+1)
		}
		return n, nil
	}
	head := h.cfg.Head()
	if head < h.cfg.Window {
		return 1, nil
	}
	return head - h.cfg.Window + 1, nil
}

// maxDenialPages bounds the API pages of denials a page reads: from the
// window's start they reach the head; from an old ?from= the page shows
// the records up to where they stop, and its stream goes on from there.
const maxDenialPages = 16

// fail answers a request the API did not answer.
func (h *Handler) fail(w http.ResponseWriter, what string, err error) {
	status := http.StatusBadGateway
	switch events.CodeOf(err) {
	case events.CodeInvalidEvent:
		status = http.StatusBadRequest
	case events.CodeUnknownSession:
		status = http.StatusNotFound
	}
	http.Error(w, fmt.Sprintf("the console reads %s through the ledger's API, which answered: %v", what, err), status)
}

// denial reads a denial's why trace: the decision recorded at its record
// with every layer and the record that caused it, as 'ledger why
// --record' prints it.
func (h *Handler) denial(ctx context.Context, cl *client.Client, d wire.Denial) denialView {
	// The record shown, by its sequence (ledgercmd.WhyArgs).
	words := append(append([]string{"ledger", "why"}, h.cfg.Where...), ledgercmd.WhyArgs(d.Call, d.Seq)...)
	dv := denialView{Denial: d, Command: shellquote.Join(words...)}
	why, err := cl.WhyRecord(ctx, d.Seq, client.WithMinSeq(d.Seq))
	if err != nil {
		dv.WhyErr = err.Error()
		return dv
	}
	dv.Why = &why
	if why.Call != nil {
		dv.Cause = why.Call.Cause
	}
	return dv
}

// sse is one event of the stream.
type sse struct {
	name string
	data any
}

// events streams what lands from ?from= (or the browser's Last-Event-ID)
// on: each denial the filter selects with its why trace (event
// "denial"), each spawn tree again when one of its sessions starts a
// turn (event "tree"), and why the stream ended if the API failed it
// (event "failure"; the browser reconnects from the last id). An event's
// id is where both feeds have delivered to.
func (h *Handler) events(w http.ResponseWriter, r *http.Request, v *Viewer) {
	q := r.URL.Query()
	fromText := q.Get("from")
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		fromText = id
	}
	from, err := h.from(fromText)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	select {
	case h.streams <- struct{}{}:
		defer func() { <-h.streams }()
	default:
		w.Header().Set("Retry-After", "5")
		http.Error(w, fmt.Sprintf("%d live streams are open already", h.cfg.MaxStreams), http.StatusServiceUnavailable)
		return
	}
	f := filterOf(q)
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if _, err := io.WriteString(w, "retry: 3000\n: streaming from sequence "+strconv.FormatUint(from, 10)+"\n\n"); err != nil {
		return
	}
	if rc.Flush() != nil {
		return
	}

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	cl := h.cfg.Client(v.Owner)
	out := make(chan sse)
	send := func(e sse) bool {
		select {
		case out <- e:
			return true
		case <-ctx.Done():
			return false
		}
	}
	var denialsAt, changesAt atomic.Uint64
	denialsAt.Store(from)
	changesAt.Store(from)
	ended := func(feed string, err error) {
		if ctx.Err() != nil {
			return
		}
		h.cfg.Logger.Warn("console: a stream's feed failed", "viewer", v.Name, "feed", feed, "err", err)
		send(sse{"failure", map[string]string{"feed": feed, "error": err.Error()}})
		cancel()
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		err := cl.FollowDenials(ctx, wire.DenialsQuery{Filter: f, From: from}, func(d wire.Denial) error {
			var html bytes.Buffer
			if err := pageTemplate.ExecuteTemplate(&html, "denial", h.denial(ctx, cl, d)); err != nil {
				return err
			}
			denialsAt.Store(d.Seq + 1)
			send(sse{"denial", map[string]any{"seq": d.Seq, "html": html.String()}})
			return ctx.Err()
		})
		ended("denials", err)
	})
	wg.Go(func() {
		roots := map[events.SessionKey]events.SessionKey{}
		err := cl.Watch(ctx, client.WatchOptions{All: true, From: from}, func(c wire.Change) error {
			e, err := h.tree(ctx, cl, f, roots, c)
			if err != nil {
				return err
			}
			changesAt.Store(c.Seq + 1)
			if e != nil {
				send(sse{"tree", e})
			}
			return ctx.Err()
		})
		ended("watch", err)
	})
	// Stop both feeds and wait for them, whichever way the stream ends.
	defer func() { cancel(); wg.Wait() }()
	ping := time.NewTicker(25 * time.Second)
	defer ping.Stop()
	for {
		var b []byte
		select {
		case e := <-out:
			data, err := json.Marshal(e.data)
			if err != nil {
				return
			}
			id := min(denialsAt.Load(), changesAt.Load())
			b = fmt.Appendf(nil, "id: %d\nevent: %s\ndata: %s\n\n", id, e.name, data)
		case <-ping.C:
			b = []byte(": ping\n\n")
		case <-ctx.Done():
			return
		}
		if _, err := w.Write(b); err != nil {
			return
		}
		if rc.Flush() != nil {
			return
		}
	}
}

// treeEvent is the "tree" event: a spawn tree rendered again, with the
// group it belongs in (and that group's markup, for a page that has none
// yet).
type treeEvent struct {
	Root      events.SessionKey `json:"root"`
	Group     string            `json:"group"`
	GroupHTML string            `json:"group_html"`
	HTML      string            `json:"html"`
}

// tree renders the spawn tree of the session a change is about, nil when
// the filter leaves that tree out. roots remembers each session's root.
func (h *Handler) tree(ctx context.Context, cl *client.Client, f wire.Filter, roots map[events.SessionKey]events.SessionKey, c wire.Change) (*treeEvent, error) {
	root, ok := roots[c.Session]
	if !ok {
		var walked []events.SessionKey
		// Up the parents to the root: spawn depth is bounded
		// (events.MaxSpawnDepth), and so is this walk.
		for k := c.Session; root == ""; {
			if len(walked) > 256 {
				return nil, fmt.Errorf("session %s: no root within 256 parents", c.Session)
			}
			if r, ok := roots[k]; ok {
				root = r
				break
			}
			walked = append(walked, k)
			sv, err := cl.Session(ctx, k, client.WithMinSeq(c.Seq))
			if err != nil {
				return nil, err
			}
			if sv.Parent == "" {
				root = k
			}
			k = sv.Parent
		}
		for _, k := range walked {
			roots[k] = root
		}
	}
	trees, err := cl.Tree(ctx, root, client.WithMinSeq(c.Seq))
	if err != nil {
		return nil, err
	}
	if len(trees) != 1 {
		return nil, fmt.Errorf("the tree of %s: %d trees", root, len(trees))
	}
	n := trees[0]
	if !matches(f, n) {
		return nil, nil
	}
	g := groupOf(n)
	var gh, th bytes.Buffer
	if err := pageTemplate.ExecuteTemplate(&gh, "group", g); err != nil {
		return nil, err
	}
	if err := pageTemplate.ExecuteTemplate(&th, "tree", n); err != nil {
		return nil, err
	}
	return &treeEvent{Root: root, Group: g.ID, GroupHTML: gh.String(), HTML: th.String()}, nil
}

// matches reports whether a tree passes the filter, as the tree query
// decides for its roots (wire.Filter.Match).
func matches(f wire.Filter, n *wire.TreeNode) bool {
	var d *events.StartedData
	if id := n.Identity; id != nil {
		d = &events.StartedData{User: id.User, Project: id.Project, Runtime: id.Runtime}
	}
	return f.Match(n.Scope, d)
}
