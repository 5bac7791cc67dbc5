package console_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/internal/console"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/wire"
)

const (
	acmeToken  = "acme-token-0123456789"
	auditToken = "audit-token-0123456789"
)

// tenants is a ledger with two orchestrators' sessions, acme's a1 and
// globex's g1, each with a denied exec call; an operator's client.
type tenants struct {
	l          *apitest.Ledger
	ops        *client.Client
	acme, glbx *client.Client
}

func startTenants(t *testing.T) *tenants {
	t.Helper()
	l := apitest.Start(t, apitest.Options{Store: true, Follow: true, API: api.Config{Instance: "test"}})
	tn := &tenants{l: l, ops: client.New(l.Connect(), client.Options{Actor: "ops-alice"}),
		acme: client.New(l.Connect(), client.Options{Owner: "acme"}), glbx: client.New(l.Connect(), client.Options{Owner: "globex"})}
	ctx := t.Context()
	if _, err := tn.ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw",
		Document: json.RawMessage(`{"tools":{"deny":["exec"]}}`), Catalogue: []string{"read", "exec", "browser"}})); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		cl  *client.Client
		key events.SessionKey
	}{{tn.acme, "a1"}, {tn.glbx, "g1"}} {
		start := events.StartedData{Agent: "main", User: string(s.key) + "-user", Host: string(s.key) + "-host", Project: string(s.key) + "-project", Runtime: "openclaw"}
		for _, ev := range []client.Event{client.Start(s.key, start), client.Turn(s.key, events.TurnData{Turn: 1})} {
			if _, err := s.cl.Append(ctx, ev); err != nil {
				t.Fatal(err)
			}
		}
		tn.check(t, s.cl, s.key, "exec", string(s.key)+"-exec")
	}
	return tn
}

// check records a check of tool as call and returns its record's
// sequence.
func (tn *tenants) check(t *testing.T, cl *client.Client, key events.SessionKey, tool, call string) uint64 {
	t.Helper()
	r, err := cl.CheckAndRecord(t.Context(), key, tool, call)
	if err != nil {
		t.Fatal(err)
	}
	if r.Decision == "allow" {
		t.Fatalf("%s %s: allowed", key, tool)
	}
	return r.Recorded
}

// serve runs a console over the ledger with viewers (nil: none).
func (tn *tenants) serve(t *testing.T, viewers *console.Viewers) *httptest.Server {
	t.Helper()
	return tn.serveWith(t, viewers, 0)
}

// serveWith is serve with at most maxStreams streams (0: the default).
func (tn *tenants) serveWith(t *testing.T, viewers *console.Viewers, maxStreams int) *httptest.Server {
	t.Helper()
	report := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "the report") })
	h, err := console.New(console.Config{
		Client: func(owner string) *client.Client {
			if owner == wire.ScopeAll {
				owner = ""
			}
			return client.New(tn.l.Connect(), client.Options{Owner: owner})
		},
		Head: tn.l.Service.Position, Viewers: viewers, Report: report, Where: []string{"--nats", "nats://example"}, MaxStreams: maxStreams,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func viewers(t *testing.T) *console.Viewers {
	t.Helper()
	vs, err := console.ParseViewers([]byte(`{"viewers": [{"name": "acme-ops", "owner": "acme", "token": "` + acmeToken + `"},
		{"name": "audit", "owner": "all", "token": "` + auditToken + `"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

func get(t *testing.T, srv *httptest.Server, path string, hdr http.Header) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	if h := hdr.Get("Host"); h != "" {
		req.Host = h // the request's field, not a header
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func bearer(token string) http.Header { return http.Header{"Authorization": {"Bearer " + token}} }

// TestConsoleAuth: with viewers, a request without a token, with an
// unknown one or a malformed header is refused 401 with a Basic challenge
// (a browser's prompt); a bearer token or Basic's password lets its viewer
// in; the report is for viewers of every tenant only. Without viewers,
// only a loopback connection addressed to a loopback host is let in.
func TestConsoleAuth(t *testing.T) {
	tn := startTenants(t)
	srv := tn.serve(t, viewers(t))
	for _, tt := range []struct {
		name string
		path string
		hdr  http.Header
		want int
	}{
		{"no token", "/", nil, 401},
		{"no token, stream", "/events", nil, 401},
		{"no token, report", "/report", nil, 401},
		{"unknown token", "/", bearer("nobody-0123456789abcdef"), 401},
		{"empty bearer", "/", http.Header{"Authorization": {"Bearer "}}, 401},
		{"another scheme", "/", http.Header{"Authorization": {"Token " + acmeToken}}, 401},
		{"bad basic", "/", http.Header{"Authorization": {"Basic !!!"}}, 401},
		{"bearer", "/", bearer(acmeToken), 200},
		{"basic", "/", http.Header{"Authorization": {"Basic " + basic("anyone", auditToken)}}, 200},
		{"report, one orchestrator", "/report", bearer(acmeToken), 403},
		{"report, every tenant", "/report", bearer(auditToken), 200},
		{"bad from", "/?from=x", bearer(acmeToken), 400},
		{"not a page", "/nope", bearer(acmeToken), 404},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, hdr, body := get(t, srv, tt.path, tt.hdr)
			if code != tt.want {
				t.Fatalf("GET %s: %d, want %d: %.300s", tt.path, code, tt.want, body)
			}
			if code == 401 && !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Basic ") {
				t.Errorf("a 401 without a Basic challenge: %q", hdr.Get("WWW-Authenticate"))
			}
		})
	}

	open := tn.serve(t, nil)
	if code, _, body := get(t, open, "/", nil); code != 200 || !strings.Contains(body, "every tenant") {
		t.Errorf("without viewers, from loopback: %d %.300s", code, body)
	}
	// A page of another site whose name resolves to 127.0.0.1 (DNS
	// rebinding) names its own host.
	if code, _, body := get(t, open, "/", http.Header{"Host": {"evil.example"}}); code != 403 || !strings.Contains(body, "--http-viewers") {
		t.Errorf("without viewers, Host evil.example: %d %.300s", code, body)
	}
}

func basic(user, pass string) string {
	req, _ := http.NewRequest("GET", "/", nil)
	req.SetBasicAuth(user, pass)
	return strings.TrimPrefix(req.Header.Get("Authorization"), "Basic ")
}

// TestConsoleScoping: acme's viewer sees acme's trees and denials only,
// with each denial's why trace; the auditor's sees both tenants; the
// filters narrow the view.
func TestConsoleScoping(t *testing.T) {
	tn := startTenants(t)
	srv := tn.serve(t, viewers(t))
	_, hdr, acme := get(t, srv, "/", bearer(acmeToken))
	// Self-contained: nothing loads from elsewhere, and only the page's
	// own script runs (its nonce is this answer's).
	if m := regexp.MustCompile(`(?i)(src|href|action)="(https?:)?//`).FindString(acme); m != "" {
		t.Errorf("the page loads or links elsewhere: %s", m)
	}
	nonce := regexp.MustCompile(`<script nonce="([^"]+)">`).FindStringSubmatch(acme)
	if nonce == nil || !strings.Contains(hdr.Get("Content-Security-Policy"), "script-src 'nonce-"+nonce[1]+"'") {
		t.Errorf("the script's nonce is not the policy's: %v, %q", nonce, hdr.Get("Content-Security-Policy"))
	}
	for _, want := range []string{`id="t-a1"`, `id="d-`, "a1-exec", "orchestrator <b>acme</b>", "global:deny", `tools.deny: &#34;exec&#34;`,
		"a1-user", "ledger why --nats nats://example --call a1-exec --record 4"} {
		if !strings.Contains(acme, want) {
			t.Errorf("acme's page lacks %q", want)
		}
	}
	for _, leak := range []string{"g1", "globex", "report"} {
		if strings.Contains(acme, leak) {
			t.Errorf("acme's page shows %q", leak)
		}
	}
	_, _, audit := get(t, srv, "/", bearer(auditToken))
	for _, want := range []string{`id="t-a1"`, `id="t-g1"`, "a1-exec", "g1-exec", `href="report"`} {
		if !strings.Contains(audit, want) {
			t.Errorf("the auditor's page lacks %q", want)
		}
	}
	_, _, narrowed := get(t, srv, "/?user=g1-user", bearer(auditToken))
	if !strings.Contains(narrowed, `id="t-g1"`) || strings.Contains(narrowed, `id="t-a1"`) || strings.Contains(narrowed, "a1-exec") {
		t.Errorf("?user=g1-user: the page shows a1 or lacks g1")
	}
}

// sseEvent is one event of the stream.
type sseEvent struct{ id, name, data string }

// stream opens the console's stream and returns its events.
func stream(t *testing.T, srv *httptest.Server, path, token string, lastID ...string) <-chan sseEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	for _, id := range lastID {
		req.Header.Set("Last-Event-ID", id) // as a browser reconnecting sends it
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	out := make(chan sseEvent, 64)
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); resp.Body.Close(); <-done })
	go func() {
		defer close(done)
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		var e sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if e.name != "" {
					out <- e
				}
				e = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				e.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				e.name = line[7:]
			case strings.HasPrefix(line, "data: "):
				e.data = line[6:]
			}
		}
	}()
	return out
}

// next waits for the next event of a kind, failing at the deadline.
func next(t *testing.T, feed <-chan sseEvent, name string, deadline <-chan time.Time) sseEvent {
	t.Helper()
	for {
		select {
		case e, ok := <-feed:
			if !ok {
				t.Fatalf("the stream ended before a %s event", name)
			}
			if e.name == "failure" {
				t.Fatalf("the stream failed: %s", e.data)
			}
			if e.name == name {
				return e
			}
		case <-deadline:
			t.Fatalf("no %s event within the deadline", name)
		}
	}
}

// TestConsoleStreamDeliversDenials: the stream of acme's viewer, opened
// where the page ended, delivers acme's denial that lands afterwards with
// its why trace (the revocation that caused it, its operator), and none of
// globex's, appended before it; a session's new turn sends its tree.
func TestConsoleStreamDeliversDenials(t *testing.T) {
	tn := startTenants(t)
	srv := tn.serve(t, viewers(t))
	_, _, page := get(t, srv, "/", bearer(acmeToken))
	m := regexp.MustCompile(`data-events="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the page names no stream")
	}
	path := "/" + strings.ReplaceAll(m[1], "&amp;", "&")
	feed := stream(t, srv, path, acmeToken)
	ctx := t.Context()

	tn.check(t, tn.glbx, "g1", "exec", "g1-late")
	if _, err := tn.ops.Append(ctx, client.Deny(events.DenyData{Rule: "browser", Session: "a1", Note: "incident 7"})); err != nil {
		t.Fatal(err)
	}
	seq := tn.check(t, tn.acme, "a1", "browser", "a1-browser")

	deadline := time.After(30 * time.Second)
	e := next(t, feed, "denial", deadline)
	var d struct {
		Seq  uint64
		HTML string
	}
	if err := json.Unmarshal([]byte(e.data), &d); err != nil {
		t.Fatal(err)
	}
	if d.Seq != seq {
		t.Fatalf("the first denial streamed is %d, want acme's %d: %s", d.Seq, seq, d.HTML)
	}
	for _, want := range []string{fmt.Sprintf(`id="d-%d"`, seq), "a1-browser", "revocation:deny", "deny.added", `<b class="actor">ops-alice</b>`,
		"deny browser for session a1 (incident 7)", "allow before, deny after"} {
		if !strings.Contains(d.HTML, want) {
			t.Errorf("the streamed denial lacks %q:\n%s", want, d.HTML)
		}
	}
	if id, err := strconv.ParseUint(e.id, 10, 64); err != nil || id > seq+1 {
		t.Errorf("the denial event's id %q: want a sequence to resume from, at most %d", e.id, seq+1)
	}

	// A new session's first turn sends its tree, in a group of its own.
	for _, ev := range []client.Event{client.Start("a2", events.StartedData{Agent: "main", User: "someone-else"}), client.Turn("a2", events.TurnData{Turn: 1})} {
		if _, err := tn.acme.Append(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	for {
		e := next(t, feed, "tree", deadline)
		var tr struct {
			Root, Group, HTML string
			GroupHTML         string `json:"group_html"`
		}
		if err := json.Unmarshal([]byte(e.data), &tr); err != nil {
			t.Fatal(err)
		}
		if tr.Root != "a2" {
			continue
		}
		if !strings.Contains(tr.HTML, `id="t-a2"`) || !strings.Contains(tr.GroupHTML, `id="`+tr.Group+`"`) || !strings.Contains(tr.GroupHTML, "someone-else") {
			t.Errorf("a2's tree event: %+v", tr)
		}
		break
	}
}

// TestConsoleViewersFile: a viewers file is refused with every problem.
func TestConsoleViewersFile(t *testing.T) {
	_, err := console.ParseViewers([]byte(`{"viewers": [{"name": "", "owner": "acme", "token": "short"},
		{"name": "b", "owner": "no such owner", "token": "` + acmeToken + `"}, {"name": "b", "owner": "all", "token": "` + acmeToken + `"}]}`))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{`viewers[0]: name ""`, "viewers[0] (): a token is 16", `owner "no such owner"`, `name "b" is given twice`, "another viewer's too"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q: %v", want, err)
		}
	}
	for _, bad := range []string{``, `{}`, `{"viewers": []}`, `{"viewers": [], "x": 1}`, `{"viewers": [{"name": "a", "owner": "all", "token": "` + acmeToken + `", "role": "x"}]}`} {
		if _, err := console.ParseViewers([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// TestConsoleStreamsAreBounded: past MaxStreams open streams another is
// answered 503 with Retry-After; once one closes, a new one is let in.
func TestConsoleStreamsAreBounded(t *testing.T) {
	tn := startTenants(t)
	srv := tn.serveWith(t, viewers(t), 1)
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+acmeToken)
	resp, err := srv.Client().Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the first stream: %v %v", resp, err)
	}
	code, hdr, body := get(t, srv, "/events", bearer(auditToken))
	if code != 503 || hdr.Get("Retry-After") == "" {
		t.Fatalf("a second stream: %d %q %s, want 503 with Retry-After", code, hdr.Get("Retry-After"), body)
	}
	cancel()
	resp.Body.Close()
	// The first stream's slot is free once its handler has returned,
	// which closing it brings about: wait for it, with a deadline.
	ledgertest.WaitFor(t, 30*time.Second, "a stream let in (200) after the first closed", func() bool {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", srv.URL+"/events", nil)
		req.Header.Set("Authorization", "Bearer "+auditToken)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return resp.StatusCode == 200
	})
}

// TestConsoleStreamResumes: a browser that reconnects sends the last id it
// had; the stream starts there, not at the page's from, so a denial that
// landed meanwhile is delivered, and the auditor's stream has both
// tenants' denials in stream order.
func TestConsoleStreamResumes(t *testing.T) {
	tn := startTenants(t)
	srv := tn.serve(t, viewers(t))
	head := tn.l.Service.Position()
	late := tn.check(t, tn.glbx, "g1", "exec", "g1-late")
	feed := stream(t, srv, fmt.Sprintf("/events?from=%d", late+1), auditToken, strconv.FormatUint(head, 10))
	deadline := time.After(30 * time.Second)
	var got []uint64
	for len(got) < 2 {
		var d struct{ Seq uint64 }
		if err := json.Unmarshal([]byte(next(t, feed, "denial", deadline).data), &d); err != nil {
			t.Fatal(err)
		}
		got = append(got, d.Seq)
	}
	if want := []uint64{head, late}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("resumed from %d: denials %v, want %v (g1's first denial, then its late one)", head, got, want)
	}
}

// TestConsolePageReadsToTheHead: an API page of denials ends at 256 calls,
// counted across every tenant; the console reads on to the head, so the
// newest denial is on the page, for the viewer of every tenant and for a
// tenant's own.
func TestConsolePageReadsToTheHead(t *testing.T) {
	tn := startTenants(t)
	var last uint64
	for i := range 300 {
		last = tn.check(t, tn.glbx, "g1", "exec", fmt.Sprintf("g1-more-%d", i))
	}
	acme := tn.check(t, tn.acme, "a1", "exec", "a1-last")
	srv := tn.serve(t, viewers(t))
	_, _, body := get(t, srv, "/", bearer(auditToken))
	for _, want := range []string{"g1-more-299", "a1-last", fmt.Sprintf("records up to sequence %d", acme)} {
		if !strings.Contains(body, want) {
			t.Errorf("the page of every tenant lacks %q (the last of globex's at %d)", want, last)
		}
	}
	_, _, body = get(t, srv, "/", bearer(acmeToken))
	if !strings.Contains(body, "a1-last") || strings.Contains(body, "g1-more") {
		t.Errorf("acme's page: the newest of its denials missing, or globex's shown")
	}
}

// TestConsoleStartLinkKeepsFilters: the page's "from the start" link keeps
// the filters the page shows.
func TestConsoleStartLinkKeepsFilters(t *testing.T) {
	tn := startTenants(t)
	srv := tn.serve(t, viewers(t))
	_, _, body := get(t, srv, "/?user=a1-user&scope=default", bearer(auditToken))
	if want := `href="?from=1&amp;scope=default&amp;user=a1-user">from the start`; !strings.Contains(body, want) {
		t.Errorf("the page lacks %s", want)
	}
}

// TestConsoleFromPastTheHead: a ?from= past the next record is refused at
// once, naming where the ledger is, instead of waiting for spawn trees at
// a position that does not exist and answering 502; the next record's
// position (where the page's stream goes on) is served.
func TestConsoleFromPastTheHead(t *testing.T) {
	tn := startTenants(t)
	last := tn.check(t, tn.acme, "a1", "exec", "a1-last")
	srv := tn.serve(t, viewers(t))
	for _, from := range []string{"999999", "18446744073709551615", strconv.FormatUint(last+2, 10)} {
		status, _, body := get(t, srv, "/?from="+from, bearer(auditToken))
		if status != http.StatusBadRequest || !strings.Contains(body, fmt.Sprintf("records up to sequence %d", last)) {
			t.Errorf("?from=%s: %d %q, want 400 naming sequence %d", from, status, body, last)
		}
	}
	if status, _, body := get(t, srv, "/?from="+strconv.FormatUint(last+1, 10), bearer(auditToken)); status != http.StatusOK {
		t.Errorf("?from= the next record: %d %q, want 200", status, body)
	}
}
