package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/mcpgw"
)

// upstreamEnv makes the test binary a stdio MCP server (the upstream of
// the gateway in TestPrintedCommandsRunAsPrinted): TestMain runs it.
const upstreamEnv = "LEDGER_CMD_TEST_MCP_UPSTREAM"

// runTestUpstream serves two tools, echo and secret, on standard input and
// output.
func runTestUpstream() {
	s := mcp.NewServer(&mcp.Implementation{Name: "printed-test-upstream", Version: "1"}, nil)
	obj := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}
	for _, name := range []string{"echo", "secret"} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
		})
	}
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
}

// printed is a command a source printed for a person to run, and what its
// answer must name.
type printed struct {
	source string
	cmd    string
	want   []string
}

// TestPrintedCommandsRunAsPrinted (issue 26, point 4): every `ledger ...`
// command the ledger prints (a hook's denial, a gateway's denial, the
// report's traces, denials, why --turn's calls, the demo and the no-ledger
// and unknown-call hints) run verbatim by sh, with the built binary on
// PATH, from an empty directory and with no NATS_URL or LEDGER_DATA in the
// environment, answers from the ledger that printed it: exit 0 and the
// expected decision and tool. Nothing is created where it runs (a
// ./ledger-data would be a second, empty ledger).
func TestPrintedCommandsRunAsPrinted(t *testing.T) {
	bin := ledgerBinary(t)
	var cmds []printed

	// A ledger served over loopback NATS, fed by the Claude Code hook and
	// by the MCP gateway.
	url, _ := serveLedger(t)
	cmds = append(cmds, hookDenial(t, url)...)
	cmds = append(cmds, gatewayDenial(t, bin, url))
	cmds = append(cmds, servedHookDenial(t))
	cmds = append(cmds, cliPrinted(t, url, "--nats", url)...)

	// A ledger in a data directory, named relative to where the demo ran:
	// the printed commands name it absolutely.
	parent := t.TempDir()
	t.Chdir(parent)
	out, errOut, err := runCLI(t, "", "demo", "--data", "d")
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, errOut)
	}
	demoWhy := false
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(line, "$ "))
		if strings.HasPrefix(line, "ledger ") && !strings.HasPrefix(line, "ledger demo:") {
			var want []string
			if strings.HasPrefix(line, "ledger why") {
				want, demoWhy = []string{"deny", "browser"}, true
			}
			cmds = append(cmds, printed{"demo", line, want})
		}
	}
	if !demoWhy {
		t.Errorf("the demo printed no ledger why:\n%s", out)
	}
	cmds = append(cmds, cliPrinted(t, url, "--data", "d")...)

	// The no-ledger hint: the demo it suggests makes the ledger that the
	// refused command then reads.
	missing := filepath.Join(t.TempDir(), "none")
	_, _, err = runCLI(t, "", "tree", "--data", missing)
	var msg strings.Builder
	if exitCode(err, &msg) != 2 {
		t.Fatalf("tree on no ledger: %v", err)
	}
	hint := regexp.MustCompile(`or: (ledger demo [^)]*)\)`).FindStringSubmatch(msg.String())
	if hint == nil {
		t.Fatalf("the no-ledger error names no demo to run: %s", msg.String())
	}

	seen := map[string]bool{}
	for _, c := range cmds {
		if seen[c.cmd] {
			continue
		}
		seen[c.cmd] = true
		runPrinted(t, bin, c)
	}
	runPrinted(t, bin, printed{"no-ledger hint", hint[1], nil})
	if out, _, err := runCLI(t, "", "tree", "--data", missing); err != nil || !strings.Contains(out, demoMain) {
		t.Errorf("after the hint's demo, tree --data %s: %v\n%s", missing, err, out)
	}
	for _, src := range []string{"hook denial", "served hook denial", "gateway denial", "denials --nats", "report --nats", "why --turn --nats", "unknown call --nats",
		"demo", "denials --data", "report --data", "unknown call --data"} {
		n := 0
		for _, c := range cmds {
			if c.source == src {
				n++
			}
		}
		if n == 0 {
			t.Errorf("no command printed by %s was run", src)
		}
	}
}

// runPrinted runs c.cmd with sh from an empty directory and checks its
// answer.
func runPrinted(t *testing.T, bin string, c printed) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sh := exec.CommandContext(ctx, "sh", "-c", c.cmd)
	sh.Dir = dir
	// Only what the command says reaches the ledger: no NATS_URL,
	// LEDGER_DATA or NATS_CREDS from the environment.
	sh.Env = []string{"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + dir, "NO_COLOR=1",
		"TMPDIR=" + os.TempDir()}
	var stdout, stderr bytes.Buffer
	sh.Stdout, sh.Stderr = &stdout, &stderr
	if err := sh.Run(); err != nil {
		t.Errorf("%s printed %s; run as printed: %v\n%s%s", c.source, c.cmd, err, stdout.String(), stderr.String())
		return
	}
	for _, w := range c.want {
		if !strings.Contains(stdout.String(), w) {
			t.Errorf("%s printed %s; its answer does not name %q:\n%s", c.source, c.cmd, w, stdout.String())
		}
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("%s printed %s; run as printed it left %v where it ran", c.source, c.cmd, left)
	}
}

// hookDenial runs the Claude Code hook against the ledger at url until it
// denies a call, and returns the command its denial prints.
func hookDenial(t *testing.T, url string) []printed {
	t.Helper()
	project := hookProject(t)
	args := []string{"--nats", url, "--tools", "Agent,Bash,Edit,Glob,Grep,Read,Write"}
	in := func(name string, patch map[string]any) string {
		p := map[string]any{"session_id": hookSession, "cwd": project, "transcript_path": filepath.Join(t.TempDir(), hookSession+".jsonl")}
		for k, v := range patch {
			p[k] = v
		}
		return payload(t, name, p)
	}
	runHookCLI(t, in("SessionStart.json", nil), args...)
	runHookCLI(t, in("UserPromptSubmit.json", nil), args...)
	r := runHookCLI(t, in("PreToolUse.json", map[string]any{"tool_use_id": "toolu_rm", "tool_input": map[string]any{"command": "rm -rf build"}}), args...)
	reason := r.denial(t)
	_, cmd, ok := strings.Cut(reason, "Explain it with: ")
	if !ok {
		t.Fatalf("the hook's denial names no command: %s", reason)
	}
	return []printed{{"hook denial", cmd, []string{"deny", "Bash", "permission:deny", "toolu_rm"}}}
}

// servedHookDenial posts Claude Code's HTTP hooks to 'ledger serve --hooks'
// (a ledger of its own, served on loopback NATS) until it denies a call,
// and returns the command its denial prints.
func servedHookDenial(t *testing.T) printed {
	t.Helper()
	project := hookProject(t)
	cat := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(cat, []byte(`["Agent","Bash","Read"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	const token = "printed-test-hooks-token"
	_, hooks := serveLedger(t, "--hooks", "127.0.0.1:0", "--hooks-token", token, "--hooks-catalogue", cat, "--hooks-roots", filepath.Dir(project))
	post := func(body string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, hooks, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	patch := map[string]any{"session_id": hookSession, "cwd": project}
	post(payload(t, "UserPromptSubmit.json", patch))
	patch["tool_input"], patch["tool_use_id"] = map[string]any{"command": "rm -rf /"}, "toolu_served"
	var out struct {
		Specific struct{ PermissionDecision, PermissionDecisionReason string } `json:"hookSpecificOutput"`
	}
	body := post(payload(t, "PreToolUse.json", patch))
	if err := json.Unmarshal([]byte(body), &out); err != nil || out.Specific.PermissionDecision != "deny" {
		t.Fatalf("the served hook did not deny rm: %s (%v)", body, err)
	}
	_, cmd, ok := strings.Cut(out.Specific.PermissionDecisionReason, "Explain it with: ")
	if !ok {
		t.Fatalf("the served hook's denial names no command: %s", body)
	}
	return printed{"served hook denial", cmd, []string{"deny", "Bash", "permission:deny", "toolu_served"}}
}

// gatewayDenial runs the built 'ledger mcp' in front of the test binary's
// upstream, for a session its owner started in the ledger at url, and
// returns the command the denial of a call prints.
func gatewayDenial(t *testing.T, bin, url string) printed {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx := t.Context()
	ops, gw := client.New(nc, client.Options{}), client.New(nc, client.Options{Owner: "gw"})
	doc := json.RawMessage(`{"permissions": {"allow": ["mcp__t"], "deny": ["mcp__t__secret"]}}`)
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "claude-code", Document: doc, Catalogue: []string{"mcp__t__echo", "mcp__t__secret"}})); err != nil {
		t.Fatal(err)
	}
	const key = "gw-session"
	if _, err := gw.Append(ctx, client.Start(key, events.StartedData{Agent: "main"})); err != nil {
		t.Fatal(err)
	}
	if _, err := gw.Append(ctx, client.Turn(key, events.TurnData{Turn: 1})); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, `{"servers": {"t": {"command": [%q], "env": {%q: "1"}}}}`, exe, upstreamEnv), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "mcp", "--config", cfg, "--session", key, "--nats", url, "--owner", "gw")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	cmd.Stderr = &stderr
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "printed-test", Version: "1"}, nil).Connect(cctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("ledger mcp: %v\n%s", err, stderr.String())
	}
	defer cs.Close()
	res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "t__secret", Arguments: map[string]any{"text": "x"}})
	if err != nil || !res.IsError {
		t.Fatalf("t__secret through the gateway: %v, %v\n%s", res, err, stderr.String())
	}
	m, _ := res.Meta[mcpgw.DenialMeta].(map[string]any)
	why, _ := m["why"].(string)
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if why == "" || !strings.HasSuffix(text.String(), "Explain it with: "+why) {
		t.Fatalf("the gateway's denial %q and its why %q disagree", text.String(), why)
	}
	return printed{"gateway denial", why, []string{"deny", "mcp__t__secret", "permission:deny"}}
}

// codeRE finds the commands a report page prints.
var codeRE = regexp.MustCompile(`<code>(ledger [^<]*)</code>`)

// cliPrinted collects the commands the CLI prints when pointed at a
// ledger with where (--nats URL or --data DIR): denials, the report's
// traces, why --turn's calls, and the unknown-call hint.
func cliPrinted(t *testing.T, url string, where ...string) []printed {
	t.Helper()
	kind := where[0]
	var out []printed
	call := func(line string) {
		i := strings.Index(line, "ledger why ")
		if i < 0 {
			t.Fatalf("no command in %q", line)
		}
		cmd := strings.TrimSpace(line[i:])
		want := []string{"deny"}
		if f := strings.Fields(cmd); len(f) > 2 {
			for i, w := range f[:len(f)-1] {
				if w == "--call" {
					want = append(want, strings.Trim(f[i+1], "'"))
				}
			}
		}
		out = append(out, printed{"", cmd, want})
	}

	lines, errOut, err := runCLI(t, "", append([]string{"denials"}, where...)...)
	if err != nil {
		t.Fatalf("denials: %v\n%s", err, errOut)
	}
	n := len(out)
	for _, l := range strings.Split(strings.TrimSpace(lines), "\n") {
		call(l)
	}
	for i := n; i < len(out); i++ {
		out[i].source = "denials " + kind
	}

	page, errOut, err := runCLI(t, "", append([]string{"report", "--html", "-"}, where...)...)
	if err != nil {
		t.Fatalf("report: %v\n%s", err, errOut)
	}
	for _, m := range codeRE.FindAllStringSubmatch(page, -1) {
		cmd := html.UnescapeString(m[1])
		// The footer's commands have ID, S, T and N to fill in; it
		// also names ledger report, which made the page.
		if !strings.HasPrefix(cmd, "ledger why ") || strings.HasSuffix(cmd, " ID") || strings.HasSuffix(cmd, " --turn N") {
			continue
		}
		want := []string{"deny"}
		if f := strings.Fields(cmd); len(f) > 2 {
			for i, w := range f[:len(f)-1] {
				if w == "--tool" || w == "--call" {
					want = append(want, strings.Trim(f[i+1], "'"))
				}
			}
		}
		out = append(out, printed{"report " + kind, cmd, want})
	}

	if kind == "--nats" {
		why, errOut, err := runCLI(t, "", "why", "--nats", url, "--session", hookSession, "--tool", "Bash", "--turn", "1")
		if err != nil {
			t.Fatalf("why --turn: %v\n%s", err, errOut)
		}
		n := len(out)
		for _, l := range strings.Split(why, "\n") {
			if strings.Contains(l, "ledger why ") {
				call(l)
			}
		}
		for i := n; i < len(out); i++ {
			out[i].source = "why --turn " + kind
		}
	}

	_, _, err = runCLI(t, "", append([]string{"why", "--call", "no-such-call"}, where...)...)
	var msg strings.Builder
	exitCode(err, &msg)
	_, hint, ok := strings.Cut(msg.String(), "denied and asked calls: ")
	if !ok {
		t.Fatalf("why --call no-such-call: %s", msg.String())
	}
	out = append(out, printed{"unknown call " + kind, strings.TrimSuffix(strings.TrimSpace(hint), ")"), []string{"deny"}})
	return out
}
