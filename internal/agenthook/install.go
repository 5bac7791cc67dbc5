package agenthook

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/sessionledger/ledger/internal/cchook"
)

// The hooks `ledger hook install --runtime codex|gemini` writes: one
// handler per event the mapping records something for, each running
// `ledger hook codex|gemini` with the hook's flags. Only the ledger's own
// handlers are touched (Own), with cchook's byte-preserving editor: every
// other byte of the file stays, installing twice changes nothing, and
// uninstalling restores the file as it was (TestInstallGolden).

// File is the project-level file the runtime reads its hooks from: codex's
// DIR/.codex/hooks.json (the project layer of a trusted project), gemini's
// DIR/.gemini/settings.json (the project settings of a trusted folder).
func (rt Runtime) File(project string) string {
	switch rt.Name {
	case Gemini.Name:
		return filepath.Join(project, ".gemini", "settings.json")
	case Qwen.Name:
		// Qwen Code 0.24.4 reads the workspace's .qwen/settings.json
		// (unless the folder is untrusted, or the workspace is HOME) and
		// concatenates its hooks with the user's (TestQwenLedger).
		return filepath.Join(project, ".qwen", "settings.json")
	}
	return filepath.Join(project, ".codex", "hooks.json")
}

// HandlerName is the name of gemini's handler (gemini shows it in its
// warnings and its hooksConfig.disabled list).
const HandlerName = "ledger"

// Events are the events the runtime's block installs, in order.
func (rt Runtime) Events() []string {
	if rt.Name == Gemini.Name {
		return []string{SessionStart, BeforeAgent, BeforeTool, SessionEnd}
	}
	return []string{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, SubagentStart, SessionEnd}
}

// Block is the hooks block running command for every event of Events,
// with the runtime's own timeout (timeoutSec seconds: codex and qwen take
// seconds, gemini milliseconds). Codex's PostToolUse matches spawn_agent
// alone, qwen's agent (the one call whose end records something: its
// sub-agent's spawn); a call's event matches every tool.
func (rt Runtime) Block(command string, timeoutSec int) []cchook.EventGroup {
	e := cchook.Entry{Type: "command", Command: command, Timeout: timeoutSec}
	switch rt.Name {
	case Gemini.Name:
		e.Name, e.Timeout = HandlerName, timeoutSec*1000
	case Qwen.Name:
		e.Name = HandlerName
	}
	var out []cchook.EventGroup
	for _, ev := range rt.Events() {
		g := cchook.Group{Hooks: []cchook.Entry{e}}
		switch ev {
		case PostToolUse:
			g.Matcher = "^" + rt.spawnTool() + "$"
		case BeforeTool:
			g.Matcher = "*"
		}
		out = append(out, cchook.EventGroup{Event: ev, Group: g})
	}
	return out
}

// Own reports whether a handler (as decoded from the file) is the ledger's
// for the runtime: a command hook running `... hook codex` (or `hook
// gemini`, `hook qwen`) followed by nothing or by flags, as install writes
// it (another program's `hook codex stop` is not: TestOwnIsWhatInstallWrites
// in cchook, TestAgentOwnIsWhatInstallWrites), or the thin `ledger-hook
// --runtime codex --hooks URL ...` (TestInstallThinOwn).
func (rt Runtime) Own(h map[string]any) bool {
	if h["type"] != "command" {
		return false
	}
	c, _ := h["command"].(string)
	q := regexp.QuoteMeta(rt.Command)
	return regexp.MustCompile(`(^|\s)hook\s+`+q+`(\s+-|\s*$)`).MatchString(c) ||
		regexp.MustCompile(`(^|\s)--runtime[=\s]+`+q+`(\s|$)`).MatchString(c) && regexp.MustCompile(`(^|\s)--hooks[=\s]`).MatchString(c)
}

// Install merges the block into the file's bytes (empty: a new file).
// For a runtime that trusts a handler by its position (codex), a ledger
// handler that changes is replaced where it stands
// (cchook.InstallOwnInPlace), so that a reinstall moves none of the
// user's handlers (TestInstallKeepsCodexPositions); gemini and qwen,
// which do not (TrustsByPosition), have it removed and appended.
func (rt Runtime) Install(src []byte, command string, timeoutSec int) ([]byte, cchook.Change, error) {
	if rt.TrustsByPosition() {
		return cchook.InstallOwnInPlace(src, rt.Block(command, timeoutSec), rt.Own)
	}
	return cchook.InstallOwn(src, rt.Block(command, timeoutSec), rt.Own)
}

// TrustsByPosition reports whether the runtime keys its trust of a hook
// by the hook's position in its file. Codex 0.169.0 does: one
// hooks.state entry per handler, keyed FILE:EVENT:GROUP:INDEX
// (pre_tool_use:1:0: the first handler of the second group of
// PreToolUse), holding the hash of what is there; a handler moved to
// another position is "modified", and not run, until trusted again
// (observed with codex app-server's hooks/list). Gemini CLI 0.61 trusts
// a project hook by its name and command (its getHookKey) and only warns
// about a new one; Qwen Code 0.24.4 has no hook trust.
func (rt Runtime) TrustsByPosition() bool { return rt.Name == Codex.Name }

// Uninstall removes the ledger's handlers, and what that leaves empty.
// A handler of the user's after a removed one moves up (Moved says which).
func (rt Runtime) Uninstall(src []byte) ([]byte, cchook.Change, error) {
	return cchook.UninstallOwn(src, rt.Own)
}

// Moved is a handler, not the ledger's, that an edit of a hooks file
// moved to another position: for codex (TrustsByPosition) one that is no
// longer trusted, and does not run, until it is trusted again.
type Moved struct {
	// Event is the hook event it is under (PreToolUse).
	Event string `json:"event"`
	// Command is its command line (its type, for a handler of another
	// kind).
	Command string `json:"command"`
	// From and To are its keys in codex's hooks.state before and after
	// the edit (FILE:pre_tool_use:1:0, FILE:pre_tool_use:0:0).
	From string `json:"from"`
	To   string `json:"to"`
}

// Moved lists the handlers that are not the ledger's whose position
// (group, and index in the group) under their event differs between the
// file's bytes before and after an edit, with file (the file's absolute
// path, as codex names it) in their keys; nil for a runtime that does not
// trust by position. The editor never reorders nor removes a handler of
// the user's, so the k-th of an event before is its k-th after
// (TestUninstallMovedCodex).
func (rt Runtime) Moved(file string, before, after []byte) []Moved {
	if !rt.TrustsByPosition() {
		return nil
	}
	was, is := rt.userHandlers(before), rt.userHandlers(after)
	var out []Moved
	for _, ev := range slices.Sorted(maps.Keys(was)) {
		for k, h := range was[ev] {
			if k >= len(is[ev]) {
				break
			}
			if now := is[ev][k]; now.group != h.group || now.index != h.index {
				out = append(out, Moved{Event: ev, Command: h.command, From: CodexKey(file, ev, h.group, h.index), To: CodexKey(file, ev, now.group, now.index)})
			}
		}
	}
	return out
}

// CodexKey is codex's key of the handler at index of group under event
// in file: FILE:pre_tool_use:GROUP:INDEX (the event in snake case).
func CodexKey(file, event string, group, index int) string {
	var b strings.Builder
	for i, r := range event {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return file + ":" + b.String() + ":" + strconv.Itoa(group) + ":" + strconv.Itoa(index)
}

// userHandler is a handler that is not the ledger's, at its position.
type userHandler struct {
	group, index int
	command      string
}

// userHandlers are the handlers of a hooks file that are not the
// ledger's, by event, in order: every element of a group's "hooks" list
// that is not rt.Own, with its position, counted as codex counts it (every
// group and every handler, one it skips included). Bytes that do not read
// have none.
func (rt Runtime) userHandlers(src []byte) map[string][]userHandler {
	// Maps of raw members: the keys as written (codex reads them so),
	// not encoding/json's case-insensitive match of a struct's fields.
	var root, events map[string]json.RawMessage
	out := map[string][]userHandler{}
	if json.Unmarshal(src, &root) != nil || json.Unmarshal(root["hooks"], &events) != nil {
		return out
	}
	for ev, raw := range events {
		var groups []json.RawMessage
		if json.Unmarshal(raw, &groups) != nil {
			continue
		}
		for gi, g := range groups {
			var grp map[string]json.RawMessage
			var hooks []json.RawMessage
			if json.Unmarshal(g, &grp) != nil || json.Unmarshal(grp["hooks"], &hooks) != nil {
				continue
			}
			for hi, h := range hooks {
				var v map[string]any
				if json.Unmarshal(h, &v) == nil && rt.Own(v) {
					continue
				}
				c, _ := v["command"].(string)
				if c == "" {
					c, _ = v["type"].(string)
				}
				out[ev] = append(out[ev], userHandler{gi, hi, c})
			}
		}
	}
	return out
}
