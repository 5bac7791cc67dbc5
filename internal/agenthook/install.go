package agenthook

import (
	"path/filepath"
	"regexp"

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
func (rt Runtime) Install(src []byte, command string, timeoutSec int) ([]byte, cchook.Change, error) {
	return cchook.InstallOwn(src, rt.Block(command, timeoutSec), rt.Own)
}

// Uninstall removes the ledger's handlers, and what that leaves empty.
func (rt Runtime) Uninstall(src []byte) ([]byte, cchook.Change, error) {
	return cchook.UninstallOwn(src, rt.Own)
}
