package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
)

const (
	consoleAcmeToken  = "acme-console-token-0123456789"
	consoleAuditToken = "audit-console-token-0123456789"
)

// writeViewers writes a viewers file of acme's viewer and an auditor.
func writeViewers(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "viewers.json")
	body := `{"viewers": [{"name": "acme-ops", "owner": "acme", "token": "` + consoleAcmeToken + `"},
	{"name": "audit", "owner": "all", "token": "` + consoleAuditToken + `"}]}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConsoleServeFlags: serve refuses, before it opens anything, an
// --http address that is not loopback without --http-viewers (naming the
// flag to add), --http-viewers without --http, and a viewers file that
// does not hold viewers.
func TestConsoleServeFlags(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"viewers": [{"name": "x", "owner": "acme", "token": "short"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"any address", []string{"--http", "0.0.0.0:0"}, []string{"--http 0.0.0.0:0", "loopback host only", "add --http-viewers FILE"}},
		{"a named host", []string{"--http", "ledger.example:8080"}, []string{"add --http-viewers FILE", "on ledger.example"}},
		{"IPv6 any", []string{"--http", "[::]:0"}, []string{"add --http-viewers FILE"}},
		{"viewers without --http", []string{"--http-viewers", writeViewers(t)}, []string{"--http-viewers goes with --http"}},
		{"a bad viewers file", []string{"--http", "127.0.0.1:0", "--http-viewers", bad}, []string{"--http-viewers " + bad, "a token is 16"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// Bounded: a serve that did not refuse would run.
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			err := run(ctx, append([]string{"serve", "--data", filepath.Join(t.TempDir(), "d")}, tt.args...), nil, io.Discard, io.Discard)
			var ee *exitError
			if !errors.As(err, &ee) || ee.code != 2 {
				t.Fatalf("serve %v: %v, want a usage error", tt.args, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(ee.msg, w) {
					t.Errorf("the refusal %q lacks %q", ee.msg, w)
				}
			}
		})
	}
}

// consoleLedger is a ledger served in process with --listen and --http.
type consoleLedger struct {
	nats, http string
	stop       func() error
}

// serveConsole runs serve in process with the embedded server on loopback
// and the console, and reads both addresses back from its output.
func serveConsole(t *testing.T, args ...string) *consoleLedger {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, append([]string{"serve", "--data", filepath.Join(t.TempDir(), "d"), "--listen", "127.0.0.1:-1", "--http", "127.0.0.1:0"}, args...), nil, outW, errW)
		outW.Close()
		errW.Close()
		done <- err
	}()
	natsURL, httpAddr := make(chan string, 1), make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`clients on (nats://\S+?);`)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				natsURL <- m[1]
			}
		}
	}()
	go func() {
		sc := bufio.NewScanner(errR)
		for sc.Scan() {
			var m struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &m) == nil && m.Msg == "console" {
				httpAddr <- m.Addr
			}
		}
	}()
	l := &consoleLedger{}
	stopped := false
	l.stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		return <-done
	}
	t.Cleanup(func() { _ = l.stop() })
	deadline := time.After(60 * time.Second)
	for l.nats == "" || l.http == "" {
		select {
		case l.nats = <-natsURL:
		case l.http = <-httpAddr:
		case err := <-done:
			stopped = true
			t.Fatalf("serve exited: %v", err)
		case <-deadline:
			t.Fatal("serve did not print its addresses")
		}
	}
	return l
}

// consoleTenants sets a policy (exec denied) and starts acme's a1 and
// globex's g1 with a turn each; it returns the clients.
func consoleTenants(t *testing.T, url string) (ops, acme, globex *client.Client) {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ops = client.New(nc, client.Options{Actor: "ops-alice"})
	acme = client.New(nc, client.Options{Owner: "acme"})
	globex = client.New(nc, client.Options{Owner: "globex"})
	ctx := t.Context()
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw",
		Document: json.RawMessage(`{"tools":{"deny":["exec"]}}`), Catalogue: []string{"read", "exec", "browser"}})); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		cl  *client.Client
		key events.SessionKey
	}{{acme, "a1"}, {globex, "g1"}} {
		start := events.StartedData{Agent: "main", User: string(s.key) + "-user", Host: "h", Project: string(s.key) + "-project", Runtime: "openclaw"}
		for _, ev := range []client.Event{client.Start(s.key, start), client.Turn(s.key, events.TurnData{Turn: 1})} {
			if _, err := s.cl.Append(ctx, ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	return ops, acme, globex
}

// TestConsoleServeScopes: serve --http with viewers asks each request for
// a token and shows acme's viewer acme's sessions only; the report is for
// the auditor's viewer; /healthz needs none.
func TestConsoleServeScopes(t *testing.T) {
	l := serveConsole(t, "--http-viewers", writeViewers(t))
	consoleTenants(t, l.nats)
	get := func(path, token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), "GET", "http://"+l.http+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/", ""); code != 401 {
		t.Errorf("GET / without a token: %d %s", code, body)
	}
	code, body := get("/", consoleAcmeToken)
	if code != 200 || !strings.Contains(body, `id="t-a1"`) || strings.Contains(body, "g1") {
		t.Errorf("acme's console: %d, a1 %v, g1 %v", code, strings.Contains(body, `id="t-a1"`), strings.Contains(body, "g1"))
	}
	if code, _ := get("/report", consoleAcmeToken); code != 403 {
		t.Errorf("acme's report: %d, want 403", code)
	}
	if code, body := get("/report", consoleAuditToken); code != 200 || !strings.Contains(body, "g1") {
		t.Errorf("the auditor's report: %d", code)
	}
	if code, body := get("/healthz", ""); code != 200 || !strings.HasPrefix(body, "ok ") {
		t.Errorf("/healthz: %d %q", code, body)
	}
}

// requireChromium is chromiumBinary, except that in CI (CI=true), which
// installs Chromium, a missing one fails the test rather than skipping it.
func requireChromium(t *testing.T) string {
	t.Helper()
	if os.Getenv("CI") == "true" {
		for _, name := range []string{"chromium", "chromium-browser"} {
			if p, err := exec.LookPath(name); err == nil {
				return p
			}
		}
		t.Fatal("CI=true and no chromium binary on PATH: .ci/run installs it (apt-get install -y chromium); the console's browser test needs it")
	}
	return chromiumBinary(t)
}

// TestConsoleInBrowser opens acme's console in headless Chromium, then
// appends a denied call of globex's and one of acme's (a revocation's),
// and waits for acme's denial to appear in the page, with its why trace,
// without a reload; globex's never does.
func TestConsoleInBrowser(t *testing.T) {
	bin := requireChromium(t)
	l := serveConsole(t, "--http-viewers", writeViewers(t))
	ops, acme, globex := consoleTenants(t, l.nats)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	b := startBrowser(t, ctx, bin)
	page := b.open(fmt.Sprintf("http://%s/", l.http), map[string]string{"Authorization": "Bearer " + consoleAcmeToken})
	// The stream is open once the page says it is live.
	if state := page.eval(`new Promise(resolve => {
		const h = document.documentElement, done = () => ["open", "failed"].includes(h.getAttribute("data-live"));
		if (done()) return resolve(h.getAttribute("data-live") + ": " + document.getElementById("status").textContent);
		new MutationObserver((_, o) => { if (done()) { o.disconnect(); resolve(h.getAttribute("data-live") + ": " + document.getElementById("status").textContent); } })
			.observe(h, {attributes: true});
	})`); !strings.HasPrefix(state, "open") {
		t.Fatalf("the console's stream did not open: %s", state)
	}
	first := page.eval(`window.loadedOnce = "yes"; document.documentElement.outerHTML`)
	if !strings.Contains(first, `id="t-a1"`) || strings.Contains(first, "g1") {
		t.Fatalf("acme's console before the denials: a1 %v, g1 %v", strings.Contains(first, `id="t-a1"`), strings.Contains(first, "g1"))
	}

	if _, err := globex.CheckAndRecord(ctx, "g1", "exec", "g1-exec"); err != nil {
		t.Fatal(err)
	}
	if _, err := ops.Append(ctx, client.Deny(events.DenyData{Rule: "browser", Session: "a1", Note: "incident 7"})); err != nil {
		t.Fatal(err)
	}
	denied, err := acme.CheckAndRecord(ctx, "a1", "browser", "a1-browser")
	if err != nil || denied.Decision != "deny" {
		t.Fatalf("acme's browser call: %+v %v", denied, err)
	}
	id := fmt.Sprintf("d-%d", denied.Recorded)
	dom := page.eval(`new Promise(resolve => {
		const found = () => document.getElementById("` + id + `");
		const answer = () => resolve(window.loadedOnce + "\n" + document.documentElement.outerHTML);
		if (found()) return answer();
		new MutationObserver((_, o) => { if (found()) { o.disconnect(); answer(); } })
			.observe(document.getElementById("denials"), {childList: true});
	})`)
	if !strings.HasPrefix(dom, "yes\n") {
		t.Fatal("the page was loaded again: the denial must appear without a reload")
	}
	for _, want := range []string{`id="` + id + `"`, "a1-browser", "revocation:deny", "deny.added", `<b class="actor">ops-alice</b>`,
		"deny browser for session a1 (incident 7)", "<th>layer</th>", "ledger why --nats nats://127.0.0.1:"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page lacks %q after the denial", want)
		}
	}
	if strings.Contains(dom, "g1") {
		t.Error("acme's console shows globex's session")
	}
	// Serve stops with the page's stream open.
	if err := l.stop(); err != nil {
		t.Fatalf("serve with a console stream open: %v", err)
	}
}

// browser is headless Chromium driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: requests on its fd 3, answers and
// events on fd 4, each JSON message ended by a NUL byte): no port, no
// network beyond the pages it opens.
type browser struct {
	t      *testing.T
	ctx    context.Context
	in     io.Writer
	msgs   chan cdpMessage
	events []cdpMessage
	next   int
}

type cdpMessage struct {
	ID        int             `json:"id"`
	Method    string          `json:"method"`
	SessionID string          `json:"sessionId"`
	Result    json.RawMessage `json:"result"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func startBrowser(t *testing.T, ctx context.Context, bin string) *browser {
	t.Helper()
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	resR, resW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--window-size=1400,1000", "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, resW}
	// Its caches and settings (fontconfig's, dconf's) go to the test's
	// directories, not the user's ~/.cache and ~/.config.
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, "cache"),
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_DATA_HOME="+filepath.Join(home, "data"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cmdR.Close()
	resW.Close()
	b := &browser{t: t, ctx: ctx, in: cmdW, msgs: make(chan cdpMessage, 256)}
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer close(b.msgs)
		r := bufio.NewReader(resR)
		for {
			raw, err := r.ReadBytes(0)
			if err != nil {
				return
			}
			var m cdpMessage
			if json.Unmarshal(raw[:len(raw)-1], &m) == nil {
				b.msgs <- m
			}
		}
	}()
	t.Cleanup(func() {
		cmdW.Close() // the browser ends when its pipe closes
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait() }()
		select {
		case <-waited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-waited
		}
		resR.Close()
		for range b.msgs {
		}
		<-read
		if t.Failed() {
			t.Logf("chromium's stderr:\n%s", stderr.String())
		}
	})
	return b
}

// call sends a request (to a page's session, or the browser's with
// session "") and returns its result.
func (b *browser) call(session, method string, params any) json.RawMessage {
	b.t.Helper()
	b.next++
	id := b.next
	msg, err := json.Marshal(map[string]any{"id": id, "sessionId": session, "method": method, "params": params})
	if err != nil {
		b.t.Fatal(err)
	}
	if session == "" {
		msg = bytes.Replace(msg, []byte(`"sessionId":"",`), nil, 1)
	}
	if _, err := b.in.Write(append(msg, 0)); err != nil {
		b.t.Fatalf("chromium: %s: %v", method, err)
	}
	for {
		m := b.receive(method)
		if m.ID == id {
			if m.Error != nil {
				b.t.Fatalf("chromium: %s: %s", method, m.Error.Message)
			}
			return m.Result
		}
		if m.Method != "" {
			b.events = append(b.events, m)
		}
	}
}

// waitEvent waits for an event of a page's session.
func (b *browser) waitEvent(session, method string) {
	b.t.Helper()
	for i, m := range b.events {
		if m.Method == method && m.SessionID == session {
			b.events = append(b.events[:i], b.events[i+1:]...)
			return
		}
	}
	for {
		m := b.receive(method)
		if m.Method == method && m.SessionID == session {
			return
		}
		if m.Method != "" {
			b.events = append(b.events, m)
		}
	}
}

// receive is the browser's next message, failing the test at the
// deadline or when the browser has gone.
func (b *browser) receive(waitingFor string) cdpMessage {
	b.t.Helper()
	select {
	case m, ok := <-b.msgs:
		if !ok {
			b.t.Fatalf("chromium ended while waiting for %s", waitingFor)
		}
		return m
	case <-b.ctx.Done():
		b.t.Fatalf("chromium: no %s before the deadline", waitingFor)
	}
	return cdpMessage{}
}

// page is one tab.
type page struct {
	b       *browser
	session string
}

// open opens url in a new tab, sending headers with every request of
// the page (its stream's included), and waits for it to load.
func (b *browser) open(url string, headers map[string]string) *page {
	b.t.Helper()
	var target struct{ TargetID string }
	json.Unmarshal(b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}), &target)
	var attached struct{ SessionID string }
	json.Unmarshal(b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}), &attached)
	p := &page{b: b, session: attached.SessionID}
	b.call(p.session, "Network.enable", map[string]any{})
	b.call(p.session, "Network.setExtraHTTPHeaders", map[string]any{"headers": headers})
	b.call(p.session, "Page.enable", map[string]any{})
	b.call(p.session, "Page.navigate", map[string]any{"url": url})
	b.waitEvent(p.session, "Page.loadEventFired")
	return p
}

// eval evaluates a JavaScript expression in the page, awaiting it if it
// is a promise, and returns its value as a string.
func (p *page) eval(expr string) string {
	p.b.t.Helper()
	var res struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	raw := p.b.call(p.session, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true})
	if err := json.Unmarshal(raw, &res); err != nil {
		p.b.t.Fatal(err)
	}
	if e := res.ExceptionDetails; e != nil {
		p.b.t.Fatalf("the page's script failed: %s %s", e.Text, e.Exception.Description)
	}
	s, _ := res.Result.Value.(string)
	return s
}
