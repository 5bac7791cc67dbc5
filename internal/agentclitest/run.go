package agentclitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Case is one run of a CLI.
type Case struct {
	Name string
	// Scripts drive the model; "main" is the main agent's.
	Scripts Scripts
	// Rules answer the recorder hook (none: it answers nothing, exit 0).
	Rules []Rule
	// Events are the hook events the recorder is installed for; default:
	// every event of the CLI (CodexEvents, GeminiEvents, QwenEvents,
	// CopilotEvents).
	Events []string
	// TrustHooks (codex): run without --dangerously-bypass-hook-trust, so
	// that only the hooks codex trusts run (Setup may have it trust them;
	// CodexHome is where codex keeps that trust).
	TrustHooks bool
	// HookTimeout is each hook's timeout in the CLI's config (0: the CLI's
	// default, which is left unset).
	HookTimeout time.Duration
	// Files are project files to create (relative path -> content).
	Files map[string]string
	// Args are extra CLI arguments; Env extra environment (KEY=VALUE).
	Args, Env []string
	// Model is the model the CLI is told to use; default the CLI's
	// (CodexModel, GeminiModel, QwenModel, CopilotModel).
	Model string
	// Prompt is the prompt; default "script:main".
	Prompt string
	// Timeout bounds the run; default 90s. On it the CLI's process group is
	// killed and the test fails.
	Timeout time.Duration
	// Setup, when set, is called with the project and HOME directories once
	// they are written, before the CLI starts.
	Setup func(dir, home string)
	// Before, when set, is called with every model request before it is
	// answered (see Responses.Before).
	Before func(Request)
}

// Result is what one run observed.
type Result struct {
	// Dir is the project (the CLI's working directory), Home its HOME, Base
	// the run's temp directory that holds both.
	Dir, Home, Base string
	Requests        []Request
	Issued          []Issued
	// Hooks are the recorder's invocations, in the order they started.
	Hooks      []Invocation
	Stdout     string
	Stderr     string
	ExitCode   int
	Unexpected []string
	Elapsed    time.Duration
}

// HooksFor are the invocations for the event (and the tool, when not "").
func (r *Result) HooksFor(event, tool string) []Invocation {
	var out []Invocation
	for _, h := range r.Hooks {
		if h.Event() == event && (tool == "" || h.Tool() == tool) {
			out = append(out, h)
		}
	}
	return out
}

// Output is the tool output for the call id the model got in any request.
func (r *Result) Output(id string) (string, bool) {
	for _, q := range r.Requests {
		if o, ok := q.Output(id); ok {
			return o, true
		}
	}
	return "", false
}

// dirs are a run's directories (layout): base holds the project (dir, the
// CLI's working directory), HOME (home) and the recorder's (hooks).
type dirs struct{ base, dir, home, hooks string }

// layout makes the run's directories: base/project, base/home and
// base/hooks (the recorder's).
func layout(t testing.TB, c Case) dirs {
	t.Helper()
	base := t.TempDir()
	d := dirs{base: base, dir: filepath.Join(base, "project"), home: filepath.Join(base, "home"), hooks: filepath.Join(base, "hooks")}
	for _, p := range []string{d.dir, d.home, d.hooks} {
		must(t, os.MkdirAll(p, 0o755))
	}
	WriteRules(t, d.hooks, c.Rules)
	for rel, content := range c.Files {
		p := filepath.Join(d.dir, filepath.FromSlash(rel))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return d
}

// observe is the end of every run, once the CLI's configuration is
// written: it calls c.Setup, opens the scripted model srv to requests
// (Set), runs argv in the project with env and c.Env, and returns what the
// run observed. cli names the CLI in failures.
func observe(ctx context.Context, t testing.TB, cli string, c Case, d dirs, srv *recorder, argv, env []string) *Result {
	t.Helper()
	if c.Setup != nil {
		c.Setup(d.dir, d.home)
	}
	srv.Set()
	res := &Result{Dir: d.dir, Home: d.home, Base: d.base}
	execute(ctx, t, cli+" "+c.Name, argv, append(env, c.Env...), d.dir, c.Timeout, res)
	res.Requests, res.Issued, res.Unexpected = srv.Requests(), srv.Issued(), srv.Unexpected()
	res.Hooks = ReadHooks(t, d.hooks)
	return res
}

// events are the events the recorder is installed for: c.Events, or all
// the CLI's.
func (c Case) events(all []string) []string {
	if c.Events == nil {
		return all
	}
	return c.Events
}

// prompt is c.Prompt, or "script:main".
func (c Case) prompt() string {
	if c.Prompt == "" {
		return "script:main"
	}
	return c.Prompt
}

// model is c.Model, or the CLI's default.
func (c Case) model(def string) string {
	if c.Model == "" {
		return def
	}
	return c.Model
}

// execute runs argv in dir with exactly env, bounded by timeout; on the
// deadline the whole process group goes and the test fails.
func execute(ctx context.Context, t testing.TB, name string, argv, env []string, dir string, timeout time.Duration, res *Result) {
	t.Helper()
	if timeout == 0 {
		timeout = 90 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res.Elapsed = time.Since(start)
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	res.Stdout, res.Stderr = stdout.String(), stderr.String()
	if ctx.Err() != nil {
		t.Fatalf("%s: no result within %v; stdout: %s; stderr: %s", name, timeout, tail(res.Stdout), tail(res.Stderr))
	}
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", name, err)
	}
}

// baseEnv is what every run's environment starts with: no inherited
// credentials, proxies or telemetry settings.
func baseEnv(home, base string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"TMPDIR=" + base,
		"NO_PROXY=127.0.0.1,localhost",
		"LANG=C.UTF-8",
	}
}

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	must(t, err)
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	must(t, os.WriteFile(path, b, 0o644))
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func tail(s string) string {
	if len(s) > 3000 {
		return "..." + s[len(s)-3000:]
	}
	return s
}

func quoteTOML(s string) string {
	b, _ := json.Marshal(s) // a JSON string is a TOML basic string
	return string(b)
}

var _ = strings.TrimSpace
