package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/internal/cchook"
	ccimport "github.com/sessionledger/ledger/internal/importer/claudecode"
	"github.com/sessionledger/ledger/internal/natslog"
)

// noopHook is the no-op hook process the hook processes are compared with:
// it reads its payload and answers {} as the hook does for an allowed call.
var noopHook = []string{"sh", "-c", "cat >/dev/null; echo {}"}

// hookSession is the Claude Code session the hooks bench records.
const hookSession = "4115d956-87ab-486f-a3bd-768c14406260"

// hooksBench measures a PreToolUse through Claude Code's hooks against an
// embedded ledger the bench starts (under group sync, as `ledger serve`
// runs by default; its raw publishes go to a server that fsyncs every write), each row beside its floor composed in the same
// run:
//
//   - the thin ledger-hook process (`ledger-hook --hooks URL`) against the
//     bench's serve --hooks handler, over loopback HTTP and over a Unix
//     socket: floor = p50 of the no-op hook process fed the same payload +
//     p50 of one raw durable JetStream publish of a record of the size the
//     hook appends (what a hook process and one durable append cannot
//     avoid);
//   - serve --hooks's handler alone (a keep-alive loopback POST): floor =
//     p50 of a raw net/http round trip of the same POST + p50 of one raw
//     durable publish;
//   - `ledger hook claude-code --nats` as a process, for reference.
//
// Every run is a new call (its own tool_use_id, which the hook
// de-duplicates by), allowed, so each appends one record, the tool.checked
// that starts it. Ledger and raw runs alternate, so drift cancels.
func hooksBench(ctx context.Context, cfg *Config, rep *Report) error {
	d := dir(cfg, "hooks")
	n, err := startNodeListening(ctx, d)
	if err != nil {
		return err
	}
	defer n.close()
	env, err := hookEnv(d)
	if err != nil {
		return err
	}
	hook, err := startHookSession(ctx, n.srv, env)
	if err != nil {
		return fmt.Errorf("starting the hook's session: %w", err)
	}
	// The record the hook appended last (the measured call's), whose size
	// the raw publishes copy.
	record, err := recordBytes(ctx, n)
	if err != nil {
		return err
	}

	rounds, requests := 200, 2000
	if cfg.Quick {
		rounds, requests = 20, 200
	}
	payload := func(call string) []byte { return hookPayload(env, call) }

	// serve --hooks, as the thin hook reaches it: loopback HTTP and a Unix
	// socket, each with the token from the hook's environment.
	handler := &cchook.Handler{Hook: hook, Token: benchHooksToken, Timeout: 5 * time.Second}
	httpURL, stopHTTP, err := serveHTTP(handler)
	if err != nil {
		return err
	}
	defer stopHTTP()
	sock, stopSock, err := serveUnix(handler)
	if err != nil {
		return err
	}
	defer stopSock()
	vars := append(slices.Clone(env.vars), "LEDGER_BENCH_HOOKS_TOKEN="+benchHooksToken)

	slim, how, why := slimBinary(ctx, cfg)
	thin := func(url string) []string {
		return []string{slim, "--hooks", url, "--token-env", "LEDGER_BENCH_HOOKS_TOKEN"}
	}
	procs := []struct {
		name, missing string
		argv          []string
	}{
		{"ledger-hook --hooks (HTTP)", why, thin(httpURL + cchook.HTTPPath)},
		{"ledger-hook --hooks (Unix socket)", why, thin("unix:" + sock)},
		{"ledger hook claude-code --nats", "", []string{cfg.Exe, "hook", "claude-code", "--nats", n.ns.ClientURL()}},
	}
	if cfg.Exe == "" {
		procs[2].missing = "no ledger binary (under go test the running binary is not the ledger)"
	}
	// The start-up of the thin binary alone: a socket that is not there,
	// so the process starts, fails to connect and denies.
	refused := []string{slim, "--hooks", "unix:" + filepath.Join(d, "none.sock"), "--no-token"}
	cfg.logf("bench: hooks: %d rounds of processes, %d HTTP requests", rounds, requests)
	var noop, publish, startup []time.Duration
	times := make([][]time.Duration, len(procs))
	for i := 0; i < rounds; i++ {
		d, err := runHook(ctx, noopHook, vars, payload(fmt.Sprintf("toolu_bench_noop_%d", i)), "{}")
		if err != nil {
			return fmt.Errorf("the no-op hook: %w", err)
		}
		noop = append(noop, d)
		if d, err = rawPublish(ctx, n, record, fmt.Sprintf("hook-proc-%d", i)); err != nil {
			return err
		}
		publish = append(publish, d)
		for j, p := range procs {
			if p.missing != "" {
				continue
			}
			d, err := runHook(ctx, p.argv, vars, payload(fmt.Sprintf("toolu_bench_%d_%d", j, i)), "{}")
			if err != nil {
				return fmt.Errorf("%s: %w", p.name, err)
			}
			times[j] = append(times[j], d)
		}
		if why == "" {
			d, err := runHook(ctx, refused, vars, payload(fmt.Sprintf("toolu_bench_refused_%d", i)), "")
			if err != nil {
				return fmt.Errorf("ledger-hook, refused: %w", err)
			}
			startup = append(startup, d)
		}
	}
	noop50, pub50 := ms(quantile(noop, 0.5)), ms(quantile(publish, 0.5))
	floorNote := fmt.Sprintf("floor %.2f ms = no-op hook process p50 %.2f ms (sh -c 'cat >/dev/null; echo {}') + raw durable JetStream publish p50 %.3f ms (%d B record)",
		noop50+pub50, noop50, pub50, len(record))
	for j, p := range procs {
		name := "PreToolUse through " + p.name + " (a process)"
		if p.missing != "" {
			rep.add(Row{Section: "hooks", Name: name + ": p50", Unit: "ms", NotMeasured: p.missing})
			continue
		}
		if j == 2 {
			row := ratioRow("hooks", name+": p50", ms(quantile(times[j], 0.5)), noop50, "ms", "", nil)
			row.Note = "the NATS command hook in the ledger binary, against the no-op hook process, for reference"
			rep.add(row)
			continue
		}
		row := ratioRow("hooks", name+": p50", ms(quantile(times[j], 0.5)), noop50+pub50, "ms", "≤ 1.5x floor", func(r float64) bool { return r <= 1.5 })
		row.Note = floorNote + "; " + how
		rep.add(row)
		rep.add(ratioRow("hooks", name+": p99", ms(quantile(times[j], 0.99)), ms(quantile(noop, 0.99))+ms(quantile(publish, 0.99)), "ms", "", nil))
	}
	if why == "" {
		row := ratioRow("hooks", "ledger-hook start-up: no server, p50", ms(quantile(startup, 0.5)), noop50, "ms", "", nil)
		row.Note = "start, parse, fail to connect, deny: what the thin process costs before it talks to the ledger, against the no-op"
		rep.add(row)
	}

	// HTTP: serve --hooks's handler, its requests to the API in process
	// (as `ledger serve` gives it), a raw server beside it.
	rawURL, stopRaw, err := serveHTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("{}"))
	}))
	if err != nil {
		return err
	}
	defer stopRaw()
	runs, err := httpRuns(ctx, hook, n, record, rawURL, requests, payload)
	if err != nil {
		return err
	}
	rep.add(runs.row("PreToolUse through serve --hooks (HTTP)", "≤ 1.5x floor", func(r float64) bool { return r <= 1.5 }))
	rep.add(ratioRow("hooks", "PreToolUse through serve --hooks (HTTP): p99", quantile(runs.hook, 0.99), quantile(runs.raw, 0.99)+quantile(runs.publish, 0.99), "µs", "", nil))
	rep.add(runs.inlineRow("PreToolUse through serve --hooks (HTTP)"))

	// The same against a ledger that fsyncs every second instead of every
	// write (serve --sync-interval 1s): how much of the HTTP row is the
	// durable appends.
	in, err := startNodeWith(ctx, natslog.EmbeddedConfig{Dir: filepath.Join(d, "interval", "nats"), SyncInterval: time.Second}, filepath.Join(d, "interval"))
	if err != nil {
		return err
	}
	defer in.close()
	ihook, err := startHookSession(ctx, in.srv, env)
	if err != nil {
		return fmt.Errorf("starting the hook's session (--sync-interval): %w", err)
	}
	if runs, err = httpRuns(ctx, ihook, in, record, rawURL, requests, payload); err != nil {
		return err
	}
	rep.add(runs.row("PreToolUse through serve --hooks (HTTP), --sync-interval 1s", "", nil))
	rep.add(runs.inlineRow("PreToolUse through serve --hooks (HTTP), --sync-interval 1s"))
	return nil
}

// rawPublish is one raw durable JetStream publish of body to the node's
// raw stream (file storage, on the node's server: fsync as the ledger's
// stream), timed to its acknowledgement.
func rawPublish(ctx context.Context, n *node, body []byte, id string) (time.Duration, error) {
	t0 := time.Now()
	if _, err := n.js.Publish(ctx, "raw.hook", body, jetstream.WithMsgID(id)); err != nil {
		return 0, fmt.Errorf("the raw publish: %w", err)
	}
	return time.Since(t0), nil
}

// httpTimes are the round trips of serve --hooks's handler, of the raw
// server, of the raw publishes made beside them, and of the raw server
// that publishes before it answers (serveInline).
type httpTimes struct{ hook, raw, publish, inline []time.Duration }

// inlineRow is the handler's p50 against the raw server that makes the
// raw publish before it answers: the floor's two parts as one call. It is
// no target's floor; it shows what the composed floor leaves out, the
// cost of a call that waits for an fsync in its middle (the threads park
// through the wait and are woken after it), which the round trip and the
// publish measured apart do not pay together.
func (h httpTimes) inlineRow(name string) Row {
	in50 := quantile(h.inline, 0.5)
	row := ratioRow("hooks", name+", against a raw server that publishes before it answers: p50", quantile(h.hook, 0.5), in50, "µs", "", nil)
	row.Note = fmt.Sprintf("raw = a net/http server that makes the floor's raw durable publish before it answers {} (p50 %.0f µs against the floor's sum %.0f µs): no target's floor, it shows what waiting for the publish in the middle of one call costs beyond its two parts measured apart", in50, quantile(h.raw, 0.5)+quantile(h.publish, 0.5))
	return row
}

// serveInline serves a raw HTTP server that, for each POST, makes one raw
// durable publish of record to n (rawPublish, as the floor's) and then
// answers {}.
func serveInline(ctx context.Context, n *node, record []byte) (url string, stop func(), err error) {
	var seq atomic.Uint64
	return serveHTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if _, err := rawPublish(ctx, n, record, fmt.Sprintf("hook-inline-%p-%d", n, seq.Add(1))); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("{}"))
	}))
}

// row is the p50 row of the handler against its floor: a raw round trip
// and a raw durable publish.
func (h httpTimes) row(name, target string, met func(float64) bool) Row {
	raw50, pub50 := quantile(h.raw, 0.5), quantile(h.publish, 0.5)
	row := ratioRow("hooks", name+": p50", quantile(h.hook, 0.5), raw50+pub50, "µs", target, met)
	row.Note = fmt.Sprintf("floor %.0f µs = raw loopback HTTP round trip p50 %.0f µs (net/http answering {} to the same keep-alive POST) + raw durable JetStream publish p50 %.0f µs",
		raw50+pub50, raw50, pub50)
	return row
}

// httpRuns posts requests PreToolUse payloads to serve --hooks's handler
// running hook and as many to the raw server at rawURL and to the raw
// server that publishes before it answers (serveInline), with a raw
// publish of record to n beside each. The four go in each of their 24
// orders in turn, so that each is measured as often after any other: in
// one fixed order (raw, publish, hook), the raw round trip always followed
// an HTTP request and the hook a JetStream publish, which put about 0.15x
// on the ratio (BenchmarkHTTPRunsOrder).
func httpRuns(ctx context.Context, hook *cchook.Hook, n *node, record []byte, rawURL string, requests int, payload func(string) []byte) (httpTimes, error) {
	var t httpTimes
	hooksURL, stop, err := serveHTTP(&cchook.Handler{Hook: hook, Token: benchHooksToken, Timeout: 5 * time.Second})
	if err != nil {
		return t, err
	}
	defer stop()
	inlineURL, stopInline, err := serveInline(ctx, n, record)
	if err != nil {
		return t, err
	}
	defer stopInline()
	hc := &http.Client{Timeout: 10 * time.Second}
	defer hc.CloseIdleConnections()
	ops := httpOps(ctx, hc, hooksURL, rawURL, inlineURL, n, record, payload)
	for i := 0; i < requests; i++ {
		for _, k := range httpOrders[i%len(httpOrders)] {
			d, err := ops[k](i)
			if err != nil {
				return t, err
			}
			switch k {
			case opRaw:
				t.raw = append(t.raw, d)
			case opPublish:
				t.publish = append(t.publish, d)
			case opHook:
				t.hook = append(t.hook, d)
			case opInline:
				t.inline = append(t.inline, d)
			}
		}
	}
	return t, nil
}

// The four measurements of httpRuns, and their 24 orders.
const (
	opRaw = iota
	opPublish
	opHook
	opInline
)

var httpOrders = orders(4)

// httpOps are the four measurements of httpRuns' iteration i.
func httpOps(ctx context.Context, hc *http.Client, hooksURL, rawURL, inlineURL string, n *node, record []byte, payload func(string) []byte) [4]func(i int) (time.Duration, error) {
	return [4]func(i int) (time.Duration, error){
		opRaw: func(i int) (time.Duration, error) {
			d, err := post(ctx, hc, rawURL+cchook.HTTPPath, payload(fmt.Sprintf("toolu_bench_raw_%d", i)))
			if err != nil {
				return 0, fmt.Errorf("the raw HTTP server: %w", err)
			}
			return d, nil
		},
		opPublish: func(i int) (time.Duration, error) {
			return rawPublish(ctx, n, record, fmt.Sprintf("hook-http-%p-%d", n, i))
		},
		opHook: func(i int) (time.Duration, error) {
			d, err := post(ctx, hc, hooksURL+cchook.HTTPPath, payload(fmt.Sprintf("toolu_bench_http_%d", i)))
			if err != nil {
				return 0, fmt.Errorf("serve --hooks: %w", err)
			}
			return d, nil
		},
		opInline: func(i int) (time.Duration, error) {
			d, err := post(ctx, hc, inlineURL+cchook.HTTPPath, payload(fmt.Sprintf("toolu_bench_inline_%d", i)))
			if err != nil {
				return 0, fmt.Errorf("the raw HTTP server that publishes: %w", err)
			}
			return d, nil
		},
	}
}

// serveUnix serves h on a Unix socket in a new temporary directory (a
// socket's path is bounded to about 100 bytes) until stop.
func serveUnix(h http.Handler) (path string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "ledger-bench-hooks")
	if err != nil {
		return "", nil, err
	}
	path = filepath.Join(dir, "hooks.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return path, func() { _ = srv.Close(); os.RemoveAll(dir) }, nil
}

func ms(us float64) float64 { return us / 1000 }

// hookEnvironment is the project, home and environment the hook processes
// run in: a project whose policy allows the measured call, a home with no
// Claude Code user settings, nothing of the caller's NATS settings.
type hookEnvironment struct {
	project, home string
	vars          []string
}

func hookEnv(d string) (*hookEnvironment, error) {
	e := &hookEnvironment{project: filepath.Join(d, "project"), home: filepath.Join(d, "home")}
	files := map[string]string{
		filepath.Join(e.project, ".claude", "settings.json"): `{"permissions": {"allow": ["Bash(echo *)"], "deny": ["Bash(rm *)"]}}` + "\n",
		filepath.Join(e.home, ".claude", "settings.json"):    "{}\n",
	}
	for p, content := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return nil, err
		}
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "NATS_") || strings.HasPrefix(k, "CLAUDE_") || k == "HOME" || k == "LEDGER_OWNER" {
			continue
		}
		e.vars = append(e.vars, kv)
	}
	e.vars = append(e.vars, "HOME="+e.home, "CLAUDE_CONFIG_DIR="+filepath.Join(e.home, ".claude"), "CLAUDE_PROJECT_DIR="+e.project)
	return e, nil
}

// hookPayload is a PreToolUse as Claude Code 2.1.328 sends it
// (testdata/claude-code-hooks/PreToolUse.json), in the bench's project.
func hookPayload(e *hookEnvironment, call string) []byte {
	b, _ := json.Marshal(map[string]any{
		"session_id":      hookSession,
		"transcript_path": filepath.Join(e.home, ".claude", "projects", "bench", hookSession+".jsonl"),
		"cwd":             e.project,
		"prompt_id":       "58d67000-a4b6-4c00-a776-662e81a64055",
		"permission_mode": "default",
		"effort":          map[string]any{"level": "medium"},
		"hook_event_name": cchook.PreToolUse,
		"tool_name":       "Bash",
		"tool_input":      map[string]any{"command": "echo hi", "description": "Say hi"},
		"tool_use_id":     call,
	})
	return b
}

// startHookSession starts the measured session as the hook does at
// SessionStart and UserPromptSubmit (the project's policy, the session, its
// first turn) and checks that a call is allowed and recorded, so that every
// measured run takes the same path. It returns the hook serve --hooks
// would run.
func startHookSession(ctx context.Context, nc client.Requester, e *hookEnvironment) (*cchook.Hook, error) {
	catalogue, _ := claudecode.Catalogue(claudecode.LatestRelease)
	h := &cchook.Hook{
		L: cchook.ClientLedger{C: client.NewOn(nc, client.Options{Owner: "claude-code", Timeout: 2 * time.Second, Retries: 1, Coalesce: 1})},
		Opts: cchook.Options{
			Catalogue: catalogue,
			Import:    cchook.ImportProject(e.project, e.home, ccimport.ClaudeCodeOptions{UserDir: filepath.Join(e.home, ".claude")}, nil),
			Why:       []string{"ledger", "why"},
			Home:      e.home,
			WorkDir:   func(string, string) string { return e.project },
		},
	}
	base := map[string]any{"session_id": hookSession, "cwd": e.project, "permission_mode": "default",
		"transcript_path": filepath.Join(e.home, ".claude", "projects", "bench", hookSession+".jsonl")}
	for _, ev := range []map[string]any{
		{"hook_event_name": cchook.SessionStart, "source": "startup"},
		{"hook_event_name": cchook.UserPromptSubmit, "prompt": "bench", "prompt_id": "58d67000-a4b6-4c00-a776-662e81a64055"},
	} {
		for k, v := range base {
			ev[k] = v
		}
		raw, _ := json.Marshal(ev)
		if res := h.Handle(ctx, raw); len(res.Warnings) > 0 {
			return nil, fmt.Errorf("%s: %s", ev["hook_event_name"], strings.Join(res.Warnings, "; "))
		}
	}
	res := h.Handle(ctx, hookPayload(e, "toolu_bench_probe"))
	if res.Denied || len(res.Appended) != 1 {
		return nil, fmt.Errorf("the measured call is not allowed and recorded: %s %+v", res.Output, res)
	}
	return h, nil
}

// runHook runs one hook process on payload and times it to its exit. want,
// when set, is the output it must print (the answer to an allowed call).
func runHook(ctx context.Context, argv, env []string, payload []byte, want string) (time.Duration, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(payload)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("%v: %s", err, errOut.Bytes())
	}
	if got := strings.TrimSpace(out.String()); want != "" && got != want {
		return 0, fmt.Errorf("answered %s, want %s (%s)", got, want, errOut.Bytes())
	}
	return d, nil
}

// serveHTTP serves h on a loopback port until stop.
func serveHTTP(h http.Handler) (url string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = srv.Close() }, nil
}

// benchHooksToken is the bearer token the bench's serve --hooks handler
// requires, as a served one does by default; every POST, the raw server's
// too, carries it, so both round trips send the same request.
const benchHooksToken = "bench-hooks-token-0123456789"

// post sends one hook payload and reads the whole answer, which must be
// the {} of an allowed call.
func post(ctx context.Context, hc *http.Client, url string, body []byte) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+benchHooksToken)
	start := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(b)) != "{}" {
		return 0, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	return d, nil
}

// slimBinary is the ledger-hook binary to measure: built from this module
// into the bench's directory when the go toolchain is on PATH, else the one
// beside the running ledger binary; how says which. When there is none, why
// says so. The full run builds it static, as docs/claude-code-hooks.md
// recommends (CGO_ENABLED=0: no dynamic loader, no cgo threads); the quick
// run takes the toolchain's default, whose packages the go run that
// started it has compiled already (a static build recompiles the whole
// graph, most of a minute on a 2-core machine).
func slimBinary(ctx context.Context, cfg *Config) (path, how, why string) {
	var reasons []string
	if gobin, err := exec.LookPath("go"); err == nil {
		out := filepath.Join(cfg.Dir, "bin", cchook.SlimBinary)
		cmd := exec.CommandContext(ctx, gobin, "build", "-trimpath", "-o", out, "github.com/sessionledger/ledger/cmd/"+cchook.SlimBinary)
		cmd.Env, how = os.Environ(), "go build -trimpath"
		if !cfg.Quick {
			cmd.Env, how = append(cmd.Env, "CGO_ENABLED=0"), "CGO_ENABLED=0 go build -trimpath"
		}
		msg, err := cmd.CombinedOutput()
		if err == nil {
			cfg.logf("bench: hooks: built %s (%s)", out, how)
			return out, "built with " + how, ""
		}
		reasons = append(reasons, fmt.Sprintf("go build failed (%v: %s)", err, bytes.TrimSpace(msg)))
	} else {
		reasons = append(reasons, "no go toolchain on PATH")
	}
	if cfg.Exe != "" {
		beside := filepath.Join(filepath.Dir(cfg.Exe), cchook.SlimBinary)
		if st, err := os.Stat(beside); err == nil && st.Mode().IsRegular() {
			return beside, "the one beside the ledger binary", ""
		}
		reasons = append(reasons, "no "+beside)
	}
	return "", "", strings.Join(reasons, "; ")
}
