package agenthook

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Codex runs a project hook only once the user has trusted it: its
// hooks review saves the handler's hash, as codex computes it, under
// hooks.state in the user's $CODEX_HOME/config.toml. TrustCodex does what
// that review does for the ledger's own handlers and for nothing else,
// through codex itself: `codex app-server` lists the hooks codex reads for
// the project with their keys and current hashes (hooks/list), and writes
// the trust with its own config writer (config/batchWrite, an upsert of
// hooks.state that keeps every other entry). The hash is never computed
// here, so a codex release that hashes differently still agrees with
// itself. TestTrustCodexFake guards the protocol and every refusal;
// TestCodexTrustedInstall runs it against the real codex 0.169.0 and then
// a codex exec without --dangerously-bypass-hook-trust whose hook denies.

// CodexTrust is what TrustCodex found and did: the ledger's handlers
// codex lists for the project, by key, in codex's order.
type CodexTrust struct {
	// Trusted are the handlers whose trust TrustCodex wrote.
	Trusted []string `json:"trusted"`
	// Already are the handlers codex trusted before.
	Already []string `json:"already_trusted"`
	// ConfigFile is the file codex wrote the trust into ("" when nothing
	// was written).
	ConfigFile string `json:"config_file,omitempty"`
}

// codexHook is one handler of codex's hooks/list answer (the fields read).
type codexHook struct {
	Key         string `json:"key"`
	HandlerType string `json:"handlerType"`
	Command     string `json:"command"`
	SourcePath  string `json:"sourcePath"`
	Enabled     *bool  `json:"enabled"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
}

type codexHookList struct {
	Data []struct {
		Cwd      string      `json:"cwd"`
		Hooks    []codexHook `json:"hooks"`
		Warnings []any       `json:"warnings"`
		Errors   []any       `json:"errors"`
	} `json:"data"`
}

// TrustCodex makes codex (the binary, run with env: its CODEX_HOME and
// PATH) trust the ledger's handlers in project's .codex/hooks.json. It
// refuses, saying what to do, when codex lists none of them (the project
// is not trusted, or the file does not read), when one is disabled in
// codex, and when one is still not trusted after the write.
func TrustCodex(ctx context.Context, codex string, env []string, project string) (CodexTrust, error) {
	var res CodexTrust
	abs, err := filepath.Abs(project)
	if err != nil {
		return res, err
	}
	file := Codex.File(abs)
	cmd := exec.CommandContext(ctx, codex, "app-server")
	cmd.Env = env
	cmd.WaitDelay = 2 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return res, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return res, err
	}
	stderr := &limitedWriter{n: 16 << 10}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return res, fmt.Errorf("running %s app-server: %w", codex, err)
	}
	// Wait runs once, after the last read of stdout (it closes the pipe):
	// when the answers end early, so that what codex said on stderr has
	// been copied before the error quotes it; or when TrustCodex returns.
	var once sync.Once
	exited := make(chan struct{})
	wait := func() { once.Do(func() { go func() { _ = cmd.Wait(); close(exited) }() }) }
	defer func() {
		_ = stdin.Close()
		wait()
		<-exited
	}()
	rpc := &codexRPC{in: stdin, out: bufio.NewScanner(stdout), stderr: stderr, ended: func() {
		wait()
		select {
		case <-exited:
		case <-time.After(cmd.WaitDelay):
		}
	}}
	rpc.out.Buffer(make([]byte, 64<<10), 8<<20)
	if _, err := rpc.call(1, "initialize", map[string]any{"clientInfo": map[string]any{"name": "ledger", "version": "hook-install"}}); err != nil {
		return res, err
	}
	if err := rpc.send(map[string]any{"method": "initialized"}); err != nil {
		return res, err
	}
	own, err := rpc.ledgerHooks(2, abs, file)
	if err != nil {
		return res, err
	}
	edits := map[string]any{}
	for _, h := range own {
		if h.TrustStatus == "trusted" {
			res.Already = append(res.Already, h.Key)
			continue
		}
		edits[h.Key] = map[string]any{"trusted_hash": h.CurrentHash}
		res.Trusted = append(res.Trusted, h.Key)
	}
	if len(edits) == 0 {
		return res, nil
	}
	raw, err := rpc.call(3, "config/batchWrite", map[string]any{"edits": []any{
		map[string]any{"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": edits},
	}})
	if err != nil {
		return res, err
	}
	var wrote struct {
		Status   string `json:"status"`
		FilePath string `json:"filePath"`
	}
	if err := json.Unmarshal(raw, &wrote); err != nil || wrote.Status != "ok" {
		return res, fmt.Errorf("codex did not write the hooks' trust (config/batchWrite answered %s)", raw)
	}
	res.ConfigFile = wrote.FilePath
	after, err := rpc.ledgerHooks(4, abs, file)
	if err != nil {
		return res, err
	}
	for _, h := range after {
		if h.TrustStatus != "trusted" {
			return res, fmt.Errorf("codex still lists the ledger's hook %s as %q after its trust was written to %s; review it in codex's hooks list", h.Key, h.TrustStatus, wrote.FilePath)
		}
	}
	return res, nil
}

// codexRPC is a JSON-RPC conversation with codex's app-server over its
// standard input and output, one JSON object a line.
type codexRPC struct {
	in     io.Writer
	out    *bufio.Scanner
	stderr *limitedWriter
	// ended, when not nil, waits (a bounded time) for codex to exit once
	// its answers ended, so that stderr holds all it said
	// (TestTrustCodexFake, "dies").
	ended func()
}

func (r *codexRPC) send(msg map[string]any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := r.in.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("writing to codex app-server: %w%s", err, r.said())
	}
	return nil
}

// call sends a request and returns its result, skipping the
// notifications codex sends meanwhile.
func (r *codexRPC) call(id int, method string, params any) (json.RawMessage, error) {
	if err := r.send(map[string]any{"id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for r.out.Scan() {
		var msg struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(r.out.Bytes(), &msg) != nil || msg.ID == nil || *msg.ID != id || msg.Method != "" {
			continue
		}
		if msg.Error != nil {
			return nil, fmt.Errorf("codex app-server refused %s: %s (code %d)", method, msg.Error.Message, msg.Error.Code)
		}
		return msg.Result, nil
	}
	if r.ended != nil {
		r.ended()
	}
	if err := r.out.Err(); err != nil {
		return nil, fmt.Errorf("reading codex app-server's answer to %s: %w%s", method, err, r.said())
	}
	return nil, fmt.Errorf("codex app-server ended before it answered %s (is it codex 0.169.0 or later?)%s", method, r.said())
}

// ledgerHooks lists the hooks codex reads for the project and keeps the
// ledger's handlers from its .codex/hooks.json.
func (r *codexRPC) ledgerHooks(id int, project, file string) ([]codexHook, error) {
	raw, err := r.call(id, "hooks/list", map[string]any{"cwds": []string{project}})
	if err != nil {
		return nil, err
	}
	var list codexHookList
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("codex's hooks/list answer does not read: %w", err)
	}
	var own []codexHook
	var problems []string
	for _, d := range list.Data {
		for _, p := range append(d.Errors, d.Warnings...) {
			b, _ := json.Marshal(p)
			problems = append(problems, string(b))
		}
		for _, h := range d.Hooks {
			if !samePath(h.SourcePath, file) || !Codex.Own(map[string]any{"type": h.HandlerType, "command": h.Command}) {
				continue
			}
			if h.Enabled != nil && !*h.Enabled {
				return nil, fmt.Errorf("codex lists the ledger's hook %s as disabled: enable it in codex's hooks list (a disabled hook lets every call run unchecked)", h.Key)
			}
			if h.Key == "" || h.CurrentHash == "" {
				return nil, fmt.Errorf("codex listed the ledger's hook in %s without a key or hash: %+v", file, h)
			}
			own = append(own, h)
		}
	}
	if len(own) == 0 {
		msg := fmt.Sprintf("codex lists no ledger hook in %s: codex reads a project's .codex/hooks.json only when the project is trusted; trust %s in codex (or add [projects.%q] trust_level = \"trusted\" to $CODEX_HOME/config.toml) and run again", file, project, project)
		if len(problems) > 0 {
			msg += "; codex said: " + strings.Join(problems, "; ")
		}
		return nil, errors.New(msg)
	}
	return own, nil
}

// said is what codex wrote on its standard error, for an error message.
func (r *codexRPC) said() string {
	s := strings.TrimSpace(r.stderr.String())
	if s == "" {
		return ""
	}
	return "; codex said: " + s
}

// samePath reports whether two paths name one file (codex may list it
// with its symbolic links resolved).
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}

// limitedWriter keeps the first n bytes written to it and drops the
// rest; it is read while codex may still write.
type limitedWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
	n   int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n > 0 {
		k := min(len(p), l.n)
		l.n -= k
		l.buf.Write(p[:k])
	}
	return len(p), nil
}

func (l *limitedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
