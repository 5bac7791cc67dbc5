package claudecodetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Agent is one .claude/agents/NAME.md file. Its front-matter fields are
// written as given (raw YAML values); an empty field is left out.
type Agent struct {
	Name            string
	Description     string // default: "agent NAME"
	Tools           string // e.g. "Read, Grep" or "*"; "" leaves tools out
	DisallowedTools string
	PermissionMode  string
	Body            string
}

// Settings is the project's .claude/settings.json.
type Settings struct {
	Allow, Ask, Deny      []string
	DefaultMode           string
	AdditionalDirectories []string
	// BlockReads is permissions.blockReadsOutsideWorkingDirectories,
	// BlockWrites permissions.blockWritesOutsideWorkingDirectories,
	// DenyInstead permissions.denyInsteadOfPrompting.
	BlockReads, BlockWrites, DenyInstead bool
}

// any reports whether s sets anything.
func (s Settings) any() bool {
	return s.Allow != nil || s.Ask != nil || s.Deny != nil || s.DefaultMode != "" || s.AdditionalDirectories != nil || s.BlockReads || s.BlockWrites || s.DenyInstead
}

// permissions is s as a settings file's "permissions".
func (s Settings) permissions() map[string]any {
	perms := map[string]any{}
	for k, v := range map[string][]string{"allow": s.Allow, "ask": s.Ask, "deny": s.Deny, "additionalDirectories": s.AdditionalDirectories} {
		if v != nil {
			perms[k] = v
		}
	}
	if s.DefaultMode != "" {
		perms["defaultMode"] = s.DefaultMode
	}
	if s.BlockReads {
		perms["blockReadsOutsideWorkingDirectories"] = true
	}
	if s.BlockWrites {
		perms["blockWritesOutsideWorkingDirectories"] = true
	}
	if s.DenyInstead {
		perms["denyInsteadOfPrompting"] = true
	}
	return perms
}

// Case is one CLI run.
type Case struct {
	Name     string
	Settings Settings
	Agents   []Agent
	// Files are project files to create (relative path -> content).
	Files map[string]string
	// Scripts drive the model; "main" is the main thread's.
	Scripts Scripts
	// Args are extra CLI arguments (--permission-mode, --tools, ...).
	Args []string
	// Env are extra environment variables (KEY=VALUE).
	Env []string
	// Timeout bounds the run; default 60s.
	Timeout time.Duration
	// MCP are stdio MCP servers for the run (--mcp-config, with
	// --strict-mcp-config): server name -> tool names. Each is the test
	// binary itself, so the package's TestMain must call ServeMCPIfAsked.
	MCP map[string][]string
	// HTTPHook, when set, is a URL every hook event is also posted to (an
	// HTTP hook beside the capture hook).
	HTTPHook string
	// Prompt is the -p prompt; default "script:main".
	Prompt string
	// In, when set, runs the CLI in that earlier run's project and HOME
	// (a --resume): nothing is written there again, and only the hooks
	// this run captures are in its Result.
	In *Result
	// Setup, when set, is called with the project and HOME directories
	// once they are written, before the CLI starts.
	Setup func(dir, home string)
	// BeforeAnswer, when set, is called with every request to the
	// scripted model before it is answered, so that what it does happens
	// before the turn the request asks for. It runs on the server's
	// goroutine: it reports with t.Error, never t.Fatal.
	BeforeAnswer func(Request)
}

// Denial is one entry of the result's permission_denials.
type Denial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// Call is one tool_use block the model issued and what came back for it.
type Call struct {
	Issued
	// Result is the tool_result the CLI sent for it; nil when none came
	// (the run ended first, or the call never reached the CLI).
	Result *ToolResult
	// Denied: the call is in the result's permission_denials.
	Denied bool
	// PreToolUse / PermissionRequest / PermissionDenied: the hook events
	// that fired for this tool_use_id (PermissionRequest carries no id;
	// it is matched by tool name and input).
	PreToolUse, PostToolUse, PermissionRequest, PermissionDenied bool
	// Cwd is the cwd its PreToolUse payload named: where the shell was
	// when the call came (the CLI keeps a Bash call's cd for the next
	// ones); without a PreToolUse, the cwd the last earlier call of its
	// session named ("" when none did).
	Cwd string
}

// Result is what one run observed.
type Result struct {
	Dir, Home string
	base      string // the run's temp directory: Dir, Home and the captured hooks
	Requests  []Request
	Calls     []Call
	// Hooks are the hook payloads, in the order they were captured.
	Hooks             []map[string]any
	PermissionDenials []Denial
	// Output is the CLI's result JSON (--output-format json).
	Output     json.RawMessage
	Stderr     string
	Unexpected []string
}

// hookEvents are the events a capture hook is installed for: those
// 2.1.328 sent in ../shared/claude-code-hooks (an unknown event name could
// make the CLI refuse the whole settings file).
var hookEvents = []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "PermissionRequest",
	"PermissionDenied", "UserPromptSubmit", "Stop", "StopFailure", "SubagentStart", "SubagentStop",
	"SessionStart", "SessionEnd", "InstructionsLoaded", "CwdChanged"}

// Run runs the CLI once in -p mode on a temp project and HOME against a
// scripted model on loopback, and returns what it observed. It fails the
// test when the CLI cannot be started or does not finish in time.
func Run(ctx context.Context, t testing.TB, c Case) *Result {
	t.Helper()
	bin := CLI(t)
	if c.In != nil {
		return run(ctx, t, bin, c, c.In.base)
	}
	base := t.TempDir()
	dir := filepath.Join(base, "project")
	home := filepath.Join(base, "home")
	hooks := filepath.Join(base, "hooks")
	for _, d := range []string{filepath.Join(dir, ".claude", "agents"), filepath.Join(home, ".claude"), hooks} {
		must(t, os.MkdirAll(d, 0o755))
	}
	writeJSON(t, filepath.Join(home, ".claude.json"), map[string]any{
		"projects": map[string]any{dir: map[string]any{"hasTrustDialogAccepted": true}},
		// Onboarding done, so nothing interactive is waited for.
		"hasCompletedOnboarding": true,
	})
	// useAutoModeDuringPlan is read from user settings only: false gives
	// plain plan mode (true would hand plan-mode calls to a classifier).
	// skipWebFetchPreflight: WebFetch would otherwise ask claude.ai
	// whether a host is safe, which is not loopback.
	writeJSON(t, filepath.Join(home, ".claude", "settings.json"), map[string]any{"useAutoModeDuringPlan": false, "skipWebFetchPreflight": true})

	perms := c.Settings.permissions()
	hookCmd := fmt.Sprintf(`cat > '%s'/"$(date +%%s%%N)-$$.json"`, hooks)
	hookCfg := map[string]any{}
	for _, ev := range hookEvents {
		hooks := []any{map[string]any{"type": "command", "command": hookCmd}}
		if c.HTTPHook != "" {
			hooks = append(hooks, map[string]any{"type": "http", "url": c.HTTPHook})
		}
		hookCfg[ev] = []any{map[string]any{"matcher": "*", "hooks": hooks}}
	}
	writeJSON(t, filepath.Join(dir, ".claude", "settings.json"), map[string]any{"permissions": perms, "hooks": hookCfg})
	for _, a := range c.Agents {
		must(t, os.WriteFile(filepath.Join(dir, ".claude", "agents", a.Name+".md"), []byte(a.markdown()), 0o644))
	}
	for rel, content := range c.Files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
	if c.Setup != nil {
		c.Setup(dir, home)
	}
	c.Scripts = withBase(c.Scripts, base)
	return run(ctx, t, bin, c, base)
}

// BaseToken in a script's input strings stands for the run's temporary
// directory, which holds the project (BaseToken/project) and HOME
// (BaseToken/home): a call can name the absolute paths the CLI's tools send
// before the directory exists. Run replaces it before the CLI starts, so
// the Calls of a Result hold the real paths.
const BaseToken = "@BASE@"

// withBase is scripts with BaseToken replaced by base in every string of
// every tool input.
func withBase(scripts Scripts, base string) Scripts {
	var subst func(v any) any
	subst = func(v any) any {
		switch x := v.(type) {
		case string:
			return strings.ReplaceAll(x, BaseToken, base)
		case map[string]any:
			m := make(map[string]any, len(x))
			for k, e := range x {
				m[k] = subst(e)
			}
			return m
		case []any:
			l := make([]any, len(x))
			for i, e := range x {
				l[i] = subst(e)
			}
			return l
		}
		return v
	}
	out := make(Scripts, len(scripts))
	for name, turns := range scripts {
		nt := make([]Turn, len(turns))
		for i, turn := range turns {
			nt[i] = make(Turn, len(turn))
			for j, b := range turn {
				if b.Input != nil {
					b.Input = subst(b.Input).(map[string]any)
				}
				nt[i][j] = b
			}
		}
		out[name] = nt
	}
	return out
}

// run runs the CLI in the project and HOME under base, which Run wrote.
func run(ctx context.Context, t testing.TB, bin string, c Case, base string) *Result {
	t.Helper()
	dir := filepath.Join(base, "project")
	home := filepath.Join(base, "home")
	hooks := filepath.Join(base, "hooks")
	// The capture hooks of this run only (an earlier run's are in its
	// Result).
	must(t, os.RemoveAll(hooks))
	must(t, os.MkdirAll(hooks, 0o755))
	srv := startServer(t, c.Scripts, c.BeforeAnswer)
	timeout := c.Timeout
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	prompt := c.Prompt
	if prompt == "" {
		prompt = "script:main"
	}
	args := append([]string{"-p", prompt, "--output-format", "json"}, c.Args...)
	if len(c.MCP) > 0 {
		self, err := os.Executable()
		must(t, err)
		servers := map[string]any{}
		for name, tools := range c.MCP {
			servers[name] = map[string]any{"type": "stdio", "command": self, "args": []string{},
				"env": map[string]string{MCPEnv: strings.Join(tools, ",")}}
		}
		cfg, _ := json.Marshal(map[string]any{"mcpServers": servers})
		args = append(args, "--mcp-config", string(cfg), "--strict-mcp-config")
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	// Only what the run needs: no inherited credentials, no proxy, no
	// telemetry; the model is the loopback server.
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"ANTHROPIC_BASE_URL=" + srv.URL(),
		"ANTHROPIC_API_KEY=sk-scripted",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"NO_PROXY=127.0.0.1",
		"TMPDIR=" + base,
		// One run may spawn dozens of sub-agents (TestPools); on a loaded
		// machine more than the default 20 can be running at once, and the
		// CLI then refuses the spawn ("Concurrent subagent limit reached").
		"CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS=200",
	}, c.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// On timeout the whole process group goes: the CLI's shells and hooks
	// too.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = nil
	err := cmd.Run()
	if cmd.Process != nil {
		// Anything the CLI left running in its group.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	res := &Result{Dir: dir, Home: home, base: base, Requests: srv.Requests(), Stderr: stderr.String(), Unexpected: srv.Unexpected()}
	if ctx.Err() != nil {
		for i, q := range res.Requests {
			if i < 8 {
				t.Logf("request %d: script %q turn %d, %d tools, messages %s", i, q.Script, q.Turn, len(q.Tools), shape(q.Raw))
			}
		}
		t.Fatalf("claude run %s: no result within %v (%d requests, unexpected %v; stdout: %s; stderr: %s)", c.Name, timeout,
			len(res.Requests), res.Unexpected, tail(stdout.String()), tail(stderr.String()))
	}
	out := bytes.TrimSpace(stdout.Bytes())
	var parsed struct {
		PermissionDenials []Denial `json:"permission_denials"`
	}
	if jerr := json.Unmarshal(out, &parsed); jerr != nil {
		t.Fatalf("claude run %s: %v; stdout is not its result JSON (%v): %s; stderr: %s", c.Name, err, jerr, tail(string(out)), tail(stderr.String()))
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("claude run %s: %v", c.Name, err)
	}
	if len(res.Unexpected) > 0 {
		// Only streaming POST /v1/messages is scripted: anything else is a
		// request the harness does not understand.
		t.Errorf("claude run %s: requests the scripted model does not serve: %v", c.Name, res.Unexpected)
	}
	res.Output = out
	res.PermissionDenials = parsed.PermissionDenials
	res.Hooks = readHooks(t, hooks)
	res.Calls = joinCalls(srv.Issued(), res)
	return res
}

func (a Agent) description() string {
	if a.Description == "" {
		return "agent " + a.Name
	}
	return a.Description
}

func (a Agent) markdown() string {
	var b strings.Builder
	b.WriteString("---\nname: " + a.Name + "\n")
	b.WriteString("description: " + a.description() + "\n")
	for _, f := range [][2]string{{"tools", a.Tools}, {"disallowedTools", a.DisallowedTools}, {"permissionMode", a.PermissionMode}} {
		if f[1] != "" {
			b.WriteString(f[0] + ": " + f[1] + "\n")
		}
	}
	body := a.Body
	if body == "" {
		body = "You are " + a.Name + ". Do what the prompt says."
	}
	b.WriteString("---\n" + body + "\n")
	return b.String()
}

func readHooks(t testing.TB, dir string) []map[string]any {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	// Names start with the capture's nanosecond time: the order of capture.
	sort.Strings(names)
	var out []map[string]any
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if json.Unmarshal(b, &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// joinCalls pairs every issued tool_use with its tool_result, its
// permission denial and its hook events.
func joinCalls(issued []Issued, res *Result) []Call {
	results := map[string]ToolResult{}
	for _, r := range res.Requests {
		for _, tr := range r.Results {
			results[tr.ToolUseID] = tr
		}
	}
	denied := map[string]bool{}
	for _, d := range res.PermissionDenials {
		denied[d.ToolUseID] = true
	}
	hookFor := map[string]map[string]bool{}
	agentOf := map[string]any{}  // tool_use_id -> the agent_id its PreToolUse named
	cwdOf := map[string]string{} // tool_use_id -> the cwd its PreToolUse named
	var requests []map[string]any
	for _, h := range res.Hooks {
		ev, _ := h["hook_event_name"].(string)
		if ev == "PermissionRequest" {
			requests = append(requests, h)
			continue
		}
		if id, ok := h["tool_use_id"].(string); ok {
			if hookFor[id] == nil {
				hookFor[id] = map[string]bool{}
			}
			hookFor[id][ev] = true
			if ev == "PreToolUse" {
				agentOf[id] = h["agent_id"]
				cwdOf[id], _ = h["cwd"].(string)
			}
		}
	}
	calls := make([]Call, 0, len(issued))
	for _, is := range issued {
		c := Call{Issued: is, Denied: denied[is.ID], Cwd: cwdOf[is.ID]}
		if tr, ok := results[is.ID]; ok {
			c.Result = &tr
		}
		h := hookFor[is.ID]
		c.PreToolUse, c.PostToolUse, c.PermissionDenied = h["PreToolUse"], h["PostToolUse"] || h["PostToolUseFailure"], h["PermissionDenied"]
		calls = append(calls, c)
	}
	// A PermissionRequest names no tool_use_id: it is a call's when it
	// comes from the same agent with the same tool and input (the input
	// the script sent, which the hook's may extend). The calls the CLI
	// refused are paired first: a call that ran with the input of one that
	// was asked about, less a field (Bash echo hi beside echo hi with a
	// timeout an ask rule names), took the other's request (gen-params
	// seed 5101).
	for _, refused := range []bool{true, false} {
		for ci := range calls {
			c := &calls[ci]
			if c.Denied != refused || !c.PreToolUse {
				continue
			}
			dir := res.Dir
			if cwd := cwdOf[c.ID]; cwd != "" {
				dir = cwd // a relative path is resolved where the shell is
			}
			for i, pr := range requests {
				if pr != nil && pr["agent_id"] == agentOf[c.ID] && pr["tool_name"] == c.Tool && sameInput(pr["tool_input"], c.Input, dir) {
					c.PermissionRequest = true
					requests[i] = nil // one request answers one call
					break
				}
			}
		}
	}
	// A call the CLI refused before its PreToolUse (a Read path a deny
	// rule covers) ran where the session's shell was: the cwd the last
	// earlier call of its session named, as the ledger's hook would have
	// seen it.
	last := map[string]string{}
	for i := range calls {
		if calls[i].Cwd == "" {
			calls[i].Cwd = last[calls[i].Script]
		} else {
			last[calls[i].Script] = calls[i].Cwd
		}
	}
	return calls
}

// sameInput reports whether a hook's tool_input carries every field the
// script sent with the same value. The CLI may add fields and makes paths
// absolute: a string that differs compares equal when it is the sent
// relative path resolved against the project directory dir.
func sameInput(hook any, sent map[string]any, dir string) bool {
	hm, ok := hook.(map[string]any)
	if !ok {
		return false
	}
	for k, v := range sent {
		hv, ok := hm[k]
		if !ok {
			return false
		}
		hs, ok1 := hv.(string)
		vs, ok2 := v.(string)
		if ok1 && ok2 {
			// The hook names the path the tool resolved: a relative one
			// under dir (the shell's directory), an absolute one cleaned
			// of "..".
			if hs != vs && !(filepath.IsAbs(hs) && filepath.Clean(hs) == filepath.Clean(filepath.Join(dir, vs)) && !filepath.IsAbs(vs)) &&
				!(filepath.IsAbs(hs) && filepath.IsAbs(vs) && filepath.Clean(hs) == filepath.Clean(vs)) {
				return false
			}
			continue
		}
		a, _ := json.Marshal(hv)
		b, _ := json.Marshal(v)
		if !bytes.Equal(a, b) {
			return false
		}
	}
	return true
}

// Pools returns, per script, the tools of the script's first request and
// the deferred tools it announced.
func (r *Result) Pools() map[string]Request {
	out := map[string]Request{}
	for _, q := range r.Requests {
		if _, ok := out[q.Script]; !ok && q.Script != "" {
			out[q.Script] = q
		}
	}
	return out
}

// Call returns the call with tool_use id, or nil.
func (r *Result) Call(id string) *Call {
	i := slices.IndexFunc(r.Calls, func(c Call) bool { return c.ID == id })
	if i < 0 {
		return nil
	}
	return &r.Calls[i]
}

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	must(t, err)
	must(t, os.WriteFile(path, b, 0o644))
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func tail(s string) string {
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}

// shape summarizes a request's messages: role and block types, with the
// first characters of every text.
func shape(raw json.RawMessage) string {
	var in struct {
		Messages []message `json:"messages"`
	}
	_ = json.Unmarshal(raw, &in)
	var b strings.Builder
	for _, m := range in.Messages {
		b.WriteString(m.Role + "[")
		for _, c := range blocksOf(m.Content) {
			txt := c.Text
			if len(txt) > 60 {
				txt = txt[:60]
			}
			fmt.Fprintf(&b, "%s %q %s; ", c.Type, txt, c.ToolUseID)
		}
		b.WriteString("] ")
	}
	return b.String()
}
