package cchook

import (
	"context"
	"encoding/json"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/nats-io/nats.go"
	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	ccimport "github.com/sessionledger/ledger/internal/importer/claudecode"
)

// ClientLedger is the Ledger of the ledger's NATS API.
type ClientLedger struct{ C *client.Client }

var _ Ledger = ClientLedger{}

// Tree returns the session and its sub-tree; nil when the ledger has no such
// session of this client's orchestrator.
func (l ClientLedger) Tree(ctx context.Context, key events.SessionKey) (*client.TreeNode, error) {
	t, err := l.C.Tree(ctx, key)
	if events.CodeOf(err) == events.CodeUnknownSession {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(t) == 0 {
		return nil, nil
	}
	return t[0], nil
}

// Policy reads the policy in force from a why answer on key (any tool will
// do: the answer carries the policy).
func (l ClientLedger) Policy(ctx context.Context, key events.SessionKey) (*envelope.PolicyState, error) {
	w, err := l.C.Why(ctx, key, "Agent")
	if err != nil {
		return nil, err
	}
	return w.Policy, nil
}

// Append appends one event.
func (l ClientLedger) Append(ctx context.Context, ev client.Event) (client.AppendResult, error) {
	return l.C.Append(ctx, ev)
}

// Check decides a call, recording it when call is not empty.
func (l ClientLedger) Check(ctx context.Context, key events.SessionKey, tool string, input json.RawMessage, call string) (client.CheckResult, error) {
	var opts []client.QueryOpt
	if len(input) > 0 {
		opts = append(opts, client.WithInput(input))
	}
	if call != "" {
		return l.C.CheckAndRecord(ctx, key, tool, call, opts...)
	}
	return l.C.Check(ctx, key, tool, opts...)
}

// DownLedger answers every request with the error that kept a hook from
// reaching the ledger (the command hooks fail closed with it), which
// Unreached reports as an unreachable ledger whatever it is.
type DownLedger struct{ Err error }

var _ Ledger = DownLedger{}

func (d DownLedger) Tree(context.Context, events.SessionKey) (*client.TreeNode, error) {
	return nil, downError{d.Err}
}
func (d DownLedger) Policy(context.Context, events.SessionKey) (*envelope.PolicyState, error) {
	return nil, downError{d.Err}
}
func (d DownLedger) Append(context.Context, client.Event) (client.AppendResult, error) {
	return client.AppendResult{}, downError{d.Err}
}
func (d DownLedger) Check(context.Context, events.SessionKey, string, json.RawMessage, string) (client.CheckResult, error) {
	return client.CheckResult{}, downError{d.Err}
}
func (d DownLedger) Start(context.Context, events.SessionKey, string, json.RawMessage, string) (client.CheckResult, error) {
	return client.CheckResult{}, downError{d.Err}
}

// downError is DownLedger's error: its message is the connection's.
type downError struct{ err error }

func (e downError) Error() string {
	if e.err == nil {
		return "the ledger's connection was not made"
	}
	return e.err.Error()
}
func (e downError) Unwrap() error { return e.err }

// Dial connects a command hook to NATS once, within a bounded time (half
// its budget, at most a second), with no reconnects: a hook is
// short-lived. Under the roles 'ledger serve --gen-auth' writes, a user
// may only receive replies on its own inbox prefix.
func Dial(url, creds, user, password string, budget time.Duration) (*nats.Conn, error) {
	opts := []nats.Option{nats.Name("ledger-hook"), nats.Timeout(min(budget/2, time.Second)), nats.MaxReconnects(0)}
	if creds != "" {
		opts = append(opts, nats.UserCredentials(creds))
	}
	if user != "" {
		opts = append(opts, nats.UserInfo(user, password), nats.CustomInboxPrefix(client.InboxPrefix(user)))
	}
	return nats.Connect(url, opts...)
}

// WhoRuns is who runs a command hook and where: identity (--user-identity)
// else the OS user, the host name; runtimeVersion as the caller read it.
func WhoRuns(identity, runtimeVersion string) Who {
	w := Who{RuntimeVersion: runtimeVersion, User: identity}
	if w.User == "" {
		if u, err := user.Current(); err == nil {
			w.User = u.Username
		}
	}
	w.Host, _ = os.Hostname()
	return w
}

// Start decides a call at the moment it runs, recording its check and the
// start of its effect in one record.
func (l ClientLedger) Start(ctx context.Context, key events.SessionKey, tool string, input json.RawMessage, call string) (client.CheckResult, error) {
	var opts []client.QueryOpt
	if len(input) > 0 {
		opts = append(opts, client.WithInput(input))
	}
	return l.C.CheckAndStart(ctx, key, tool, call, opts...)
}

// ProjectDir is the project whose Claude Code configuration governs a
// session working in cwd: projectDir (Claude Code's CLAUDE_PROJECT_DIR, set
// for command hooks) when given, else the nearest directory at or above cwd
// that holds a .claude directory, the user's home excepted (~/.claude holds
// user settings, not a project's). "" when there is none.
func ProjectDir(cwd, projectDir, home string) string {
	return ProjectDirWithin(cwd, projectDir, home, nil)
}

// ProjectDirWithin is ProjectDir that never walks above roots (when not
// nil): a .claude outside them is not the project's (TestI24HookServerRootsWalkUp).
func ProjectDirWithin(cwd, projectDir, home string, roots []string) string {
	if projectDir != "" {
		return projectDir
	}
	if cwd == "" {
		return ""
	}
	dir := filepath.Clean(cwd)
	for roots == nil || underAny(dir, roots) {
		if dir != filepath.Clean(home) {
			if st, err := os.Stat(filepath.Join(dir, ".claude")); err == nil && st.IsDir() {
				return dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	return ""
}

// ProjectOfTranscript is the project directory Claude Code runs a session
// in, read from its transcript path (<home>/.claude/projects/<name>/<session>.jsonl):
// the directory at or above cwd whose path Claude Code names <name> (every
// character but A-Z a-z 0-9 made "-"; a name over 200 characters is cut
// there and given a hash of the path), nearest first.
// "" when none is. An HTTP hook has no CLAUDE_PROJECT_DIR, and its cwd may
// be a folder under the project with a .claude of its own
// (TestI24HookServerNestedClaudeDirShiftsPaths); CLI: a payload's cwd was
// /home/dev/project/src, its transcript under -home-dev-project.
func ProjectOfTranscript(cwd, transcript string) string {
	const mark = "/.claude/projects/"
	i := strings.LastIndex(transcript, mark)
	if i < 0 || cwd == "" || !filepath.IsAbs(cwd) {
		return ""
	}
	name, _, ok := strings.Cut(transcript[i+len(mark):], "/")
	if !ok || name == "" {
		return ""
	}
	for dir := filepath.Clean(cwd); ; dir = filepath.Dir(dir) {
		if claudeProjectName(dir) == name {
			return dir
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// claudeProjectName is Claude Code's name for a project directory's
// transcripts: every character but A-Z a-z 0-9 (each UTF-16 unit, as
// JavaScript's replace sees it) made "-"; a name over 200 characters is
// cut there and followed by "-" and the path's hash (JavaScript's
// string hash, (h<<5)-h+unit in 32 bits, its absolute value in base 36).
// CLI 2.1.328: the function that names a project's folder.
func claudeProjectName(dir string) string {
	const maxName = 200
	var b strings.Builder
	var h int32
	for _, u := range utf16.Encode([]rune(dir)) {
		h = (h << 5) - h + int32(u)
		switch {
		case u >= 'a' && u <= 'z' || u >= 'A' && u <= 'Z' || u >= '0' && u <= '9':
			b.WriteByte(byte(u))
		default:
			b.WriteByte('-')
		}
	}
	name := b.String()
	if len(name) <= maxName {
		return name
	}
	abs := int64(h)
	if abs < 0 {
		abs = -abs
	}
	return name[:maxName] + "-" + strconv.FormatInt(abs, 36)
}

// ImportProject is an Options.Import: the claude-code policy document of
// the project at dir (the hook's WorkDir, or projectDir when set), read by
// the importer; nil when dir holds no .claude directory. It does not look
// above dir: WorkDir found the project (ProjectDir, within the hook's
// roots). With a cache, a project whose files have the fingerprint of an
// earlier import is not parsed again.
func ImportProject(projectDir, home string, opt ccimport.ClaudeCodeOptions, cache *ImportCache) func(dir string) (json.RawMessage, error) {
	return func(dir string) (json.RawMessage, error) {
		if projectDir != "" {
			dir = projectDir
		}
		if dir == "" {
			return nil, nil
		}
		if st, err := os.Stat(filepath.Join(dir, ".claude")); err != nil || !st.IsDir() {
			return nil, nil
		}
		return cache.importDir(dir, opt)
	}
}
