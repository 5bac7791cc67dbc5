package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/report"
	"github.com/sessionledger/ledger/internal/shellquote"
)

// demoBatch is the id the demo's yield gets in its scenario, so the resume
// can name its batch.
const demoBatch = "01JBATCHDEM000000000000000"

// demoScenario writes the demo's story as a scenario file: the same events,
// but run with the scenario clock and ids, so the log it makes, and so the
// report and the export of it, are the same on every run.
func demoScenario(t testing.TB) string {
	t.Helper()
	type step struct {
		Append json.RawMessage `json:"append"`
		Reject string          `json:"reject,omitempty"`
	}
	var steps []step
	// The first step sets the policy: the scenario file carries it.
	for _, st := range demoSteps()[1:] {
		var ev map[string]any
		if err := json.Unmarshal([]byte(strings.ReplaceAll(st.event, "{batch}", demoBatch)), &ev); err != nil {
			t.Fatal(err)
		}
		s := step{}
		switch ev["type"] {
		case string(events.SessionYielded):
			ev["id"] = demoBatch
		case string(events.EffectStarted):
			// The browser grant was revoked after the check.
			if ev["data"].(map[string]any)["tool"] == "browser" {
				s.Reject = string(events.CodeAuthorizationChanged)
			}
		}
		s.Append, _ = json.Marshal(ev)
		steps = append(steps, s)
	}
	b, err := json.MarshalIndent(map[string]any{
		"name": "the demo's story", "dialect": "openclaw", "tools": demoCatalogue,
		"policy": json.RawMessage(demoPolicy), "steps": steps,
	}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "demo.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDemoScenarioPasses(t *testing.T) {
	out, _, err := runCLI(t, "", "test", "--memory", demoScenario(t))
	if err != nil {
		t.Fatalf("the demo's scenario: %v\n%s", err, out)
	}
}

// TestGoldenReport pins the report page of the demo's story.
func TestGoldenReport(t *testing.T) {
	// From the scenario's directory, so that the commands the page
	// prints name it the same on every run (--scenario demo.json).
	t.Chdir(filepath.Dir(demoScenario(t)))
	out, errOut, err := runCLI(t, "", "report", "--scenario", "demo.json", "--html", "-")
	if err != nil {
		t.Fatalf("report: %v\n%s", err, errOut)
	}
	golden(t, "report-demo.html", out)
}

// TestReportShowsTheStory checks the report's content on both dialects
// without a browser: the sessions, the tools lost and their reason, the
// continuations' policy sources, grants and revocations, and why traces.
func TestReportShowsTheStory(t *testing.T) {
	demo := demoScenario(t)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"demo", []string{"--scenario", demo}, []string{
			`id="s1"`, demoMain, demoCoder, demoReviewer,
			"grant revoked", "also_allow for agent coder, target coder: browser",
			"effect refused", "effect:authorization_changed",
			"runs under settle_batch", "the continuation at seq 18",
			`<tr class="o-removed"><td>6</td><td>agent</td><td>removed</td><td><code>agent:allow</code></td>`,
			"ledger why --scenario " + shellquote.Word(demo) + " --call call-exec-2",
		}},
		{"openclaw: tools lost at a turn", []string{"--scenario", ocScenario}, []string{
			"agent:main:discord:direct:alice", "agent:main:subagent:a", "agent:main:subagent:b",
			`lost at turn 4`, `&minus;read</span> <code>sender:deny</code>`,
			"current_request (external_requester)",
			"ledger why --scenario " + ocScenario + " --session agent:main:discord:direct:alice --tool exec --turn 2",
		}},
		{"claude-code", []string{"--scenario", ccScenario}, []string{"lead", "WebFetch"}},
		{"one tree", []string{"--scenario", demoScenario(t), "--session", demoReviewer}, []string{demoReviewer, "the spawn tree under"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, err := runCLI(t, "", append([]string{"report", "--html", "-"}, tt.args...)...)
			if err != nil {
				t.Fatalf("report: %v\n%s", err, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("the report lacks %q", w)
				}
			}
			for _, bad := range []string{"src=\"http", "href=\"http", "<link", "@import", "url("} {
				if strings.Contains(out, bad) {
					t.Errorf("the report refers to an external asset: %q", bad)
				}
			}
		})
	}
	out, _, _ := runCLI(t, "", "report", "--html", "-", "--scenario", demoScenario(t), "--session", demoReviewer)
	if strings.Contains(out, demoCoder) {
		t.Errorf("a report of the reviewer's tree shows the coder")
	}
}

func TestReportWritesAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.html")
	out, _, err := runCLI(t, "", "report", "--scenario", ocScenario, "--html", path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "wrote " + path + ": 3 session(s), 2 denial(s), 1 policy change(s), the log up to sequence 14\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(b), "<!DOCTYPE html>") {
		t.Fatalf("%s: %v\n%.200s", path, err, b)
	}
}

// TestGoldenExport pins the export lines of a whole log and of one tree.
func TestGoldenExport(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"export-openclaw.jsonl", []string{"export", "--scenario", ocScenario}},
		{"export-demo-coder.jsonl", []string{"export", "--scenario", demoScenario(t), "--session", demoCoder}},
		{"export-claude-code.jsonl", []string{"export", "--scenario", ccScenario, "--to", "6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, err := runCLI(t, "", tt.args...)
			if err != nil {
				t.Fatalf("export: %v\n%s", err, errOut)
			}
			golden(t, tt.name, out)
			checkExport(t, out)
		})
	}
}

// checkExport checks what the README promises of every export line: the
// version, increasing sequences, the record as stored, and for a turn the
// tool set whose hash the record holds.
func checkExport(t *testing.T, out string) {
	t.Helper()
	var last uint64
	for i, text := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var l struct {
			Export  int               `json:"export"`
			Seq     uint64            `json:"seq"`
			Type    events.Type       `json:"type"`
			Session events.SessionKey `json:"session"`
			Root    events.SessionKey `json:"root"`
			Record  json.RawMessage   `json:"record"`
			Derived *struct {
				ToolSet *envelope.ToolSet `json:"tool_set"`
				Gained  []string          `json:"gained"`
				Lost    []envelope.Denial `json:"lost"`
				Source  string            `json:"policy_source"`
			} `json:"derived"`
		}
		if err := json.Unmarshal([]byte(text), &l); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if l.Export != 1 || l.Seq <= last {
			t.Fatalf("line %d: export %d seq %d after %d", i+1, l.Export, l.Seq, last)
		}
		last = l.Seq
		rec, err := events.DecodeRecord(l.Record)
		if err != nil {
			t.Fatalf("line %d: record: %v", i+1, err)
		}
		if enc, _ := rec.Encode(); string(enc) != string(l.Record) {
			t.Errorf("line %d: the record is not as stored (canonical):\n%s\n%s", i+1, l.Record, enc)
		}
		if rec.Type != l.Type || rec.Session != l.Session || (l.Session != "") != (l.Root != "") {
			t.Errorf("line %d: type %s session %q root %q for a %s record of %q", i+1, l.Type, l.Session, l.Root, rec.Type, rec.Session)
		}
		switch rec.Type {
		case events.TurnStarted:
			var dec struct {
				Hash string `json:"tool_set_hash"`
			}
			json.Unmarshal(rec.Decided, &dec)
			if l.Derived == nil || l.Derived.ToolSet == nil || l.Derived.Gained == nil || l.Derived.Lost == nil {
				t.Fatalf("line %d: a turn without its tool set, gained and lost: %s", i+1, text)
			}
			if h := l.Derived.ToolSet.Hash(); h != dec.Hash {
				t.Errorf("line %d: the exported tool set hashes to %s, the record holds %s", i+1, h, dec.Hash)
			}
		case events.SessionResumed:
			if l.Derived == nil || l.Derived.Source == "" {
				t.Errorf("line %d: a continuation without its policy source: %s", i+1, text)
			}
		default:
			if l.Derived != nil {
				t.Errorf("line %d: derived facts on a %s: %s", i+1, rec.Type, text)
			}
		}
	}
}

func TestExportToAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	demo := demoScenario(t)
	out, _, err := runCLI(t, "", "export", "--scenario", demo, "--session", demoReviewer, "--out", path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "exported 7 record(s) of 19 to " + path + " (export format 1)\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	stdout, _, err := runCLI(t, "", "export", "--scenario", demo, "--session", demoReviewer)
	if err != nil || string(b) != stdout {
		t.Fatalf("--out and stdout differ: %v\n%s\n%s", err, b, stdout)
	}
}

func TestExportAndReportUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"report", "--scenario", ocScenario}, 2, "--html FILE is required"},
		{[]string{"report", "--scenario", ocScenario, "--html", "-", "--session", "ghost"}, 1, "unknown_session"},
		{[]string{"report", "--scenario", ocScenario, "--html", "-", "--to", "99"}, 1, "not_caught_up"},
		{[]string{"export", "--scenario", ocScenario, "--session", "ghost"}, 1, "unknown_session"},
		{[]string{"export", "--scenario", ocScenario, "--to", "99"}, 1, "beyond the head"},
		{[]string{"export", "--scenario", ocScenario, "--log", "x"}, 2, "one of --scenario and --log"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, _, err := runCLI(t, "", tt.args...)
			var msg strings.Builder
			if code := exitCode(err, &msg); code != tt.code || !strings.Contains(msg.String(), tt.msg) {
				t.Fatalf("exit %d %q, want %d containing %q", code, msg.String(), tt.code, tt.msg)
			}
		})
	}
}

// TestServeHTTPReport runs the demo into a data dir, serves it with
// --http and reads the report (at /report) and the health check; the
// console at /, which reads through the API that --no-api does not serve,
// says so.
func TestServeHTTPReport(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	if _, errOut, err := runCLI(t, "", "demo", "--data", data); err != nil {
		t.Fatalf("demo: %v\n%s", err, errOut)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errR, errW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--data", data, "--no-api", "--http", "127.0.0.1:0"}, nil, io.Discard, errW)
		errW.Close()
	}()
	addrCh := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(errR)
		for sc.Scan() {
			var m struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &m) == nil && m.Msg == "console" {
				addrCh <- m.Addr
			}
		}
	}()
	var addr string
	select {
	case addr = <-addrCh:
	case err := <-done:
		t.Fatalf("serve exited: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not start its console server")
	}
	var hdr http.Header
	get := func(path string) (int, string, string) {
		t.Helper()
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		hdr = resp.Header
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
	}
	code, ctype, body := get("/report")
	if code != 200 || ctype != "text/html; charset=utf-8" {
		t.Fatalf("GET /report: %d %s\n%.300s", code, ctype, body)
	}
	// Served, the report carries the policy of its own script, and is
	// not sniffed or framed (report.TestContentSecurityPolicy).
	if csp := hdr.Get("Content-Security-Policy"); csp != report.ContentSecurityPolicy([]byte(body)) || !strings.Contains(csp, "frame-ancestors 'none'") || hdr.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("GET /report's headers: %v", hdr)
	}
	for _, want := range []string{demoMain, demoCoder, demoReviewer, "the log up to sequence 19", "effect refused", `class="trace"`} {
		if !strings.Contains(body, want) {
			t.Errorf("GET /report lacks %q", want)
		}
	}
	if code, _, body := get("/report?session=" + demoReviewer); code != 200 || strings.Contains(body, demoCoder) {
		t.Errorf("GET /report?session=reviewer: %d, shows the coder: %v", code, strings.Contains(body, demoCoder))
	}
	if code, _, body := get("/report?to=7"); code != 200 || !strings.Contains(body, "the log up to sequence 7") {
		t.Errorf("GET /report?to=7: %d\n%.300s", code, body)
	}
	if code, _, body := get("/"); code != 502 || !strings.Contains(body, "the ledger's API") {
		t.Errorf("GET / without the API: %d, want 502 naming the API: %.300s", code, body)
	}
	for path, want := range map[string]int{"/report?session=ghost": 404, "/report?to=99": 400, "/report?to=x": 400, "/nope": 404} {
		if code, _, body := get(path); code != want {
			t.Errorf("GET %s: %d, want %d: %s", path, code, want, body)
		}
	}
	if code, _, body := get("/healthz"); code != 200 || body != "ok 19\n" {
		t.Errorf("GET /healthz: %d %q", code, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve after cancel: %v", err)
	}
}
