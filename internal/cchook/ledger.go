package cchook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/importer"
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
		opts = append(opts, client.Recorded(call))
	}
	return l.C.Check(ctx, key, tool, opts...)
}

// ProjectDir is the project whose Claude Code configuration governs a
// session working in cwd: projectDir (Claude Code's CLAUDE_PROJECT_DIR, set
// for command hooks) when given, else the nearest directory at or above cwd
// that holds a .claude directory, the user's home excepted (~/.claude holds
// user settings, not a project's). "" when there is none.
func ProjectDir(cwd, projectDir, home string) string {
	if projectDir != "" {
		return projectDir
	}
	if cwd == "" {
		return ""
	}
	dir := filepath.Clean(cwd)
	for {
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
}

// ImportProject is an Options.Import: the claude-code policy document of
// the project governing cwd (see ProjectDir), read by the importer; nil when
// there is no project configuration. projectDir and home are as ProjectDir
// takes them. With a cache, a project whose files have the fingerprint of
// an earlier import is not parsed again.
func ImportProject(projectDir, home string, opt importer.ClaudeCodeOptions, cache *ImportCache) func(cwd string) (json.RawMessage, error) {
	return func(cwd string) (json.RawMessage, error) {
		dir := ProjectDir(cwd, projectDir, home)
		if dir == "" {
			return nil, nil
		}
		if st, err := os.Stat(filepath.Join(dir, ".claude")); err != nil || !st.IsDir() {
			return nil, nil
		}
		var key [32]byte
		keyed := false
		if cache != nil {
			var err error
			if key, err = importer.ClaudeCodeFingerprint(dir, opt); err == nil {
				keyed = true
				if doc, ok := cache.Get(key); ok {
					return doc, nil
				}
			}
		}
		res, err := importer.ClaudeCode(dir, opt)
		if err != nil {
			return nil, err
		}
		// Cached only when the files did not change while they were
		// imported: the document must be the one of those bytes.
		if again, err := importer.ClaudeCodeFingerprint(dir, opt); keyed && err == nil && again == key {
			cache.Put(key, res.Document)
		}
		return res.Document, nil
	}
}
