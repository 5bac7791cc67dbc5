package claudecode

import (
	"strings"

	"github.com/sessionledger/ledger/envelope"
)

// DialectName is the name written in policy.set.
const DialectName = "claude-code"

// Tool names the dialect gives a meaning to.
const (
	toolAgent           = "Agent"
	toolTask            = "Task" // alias of Agent everywhere
	toolBash            = "Bash"
	toolMonitor         = "Monitor"
	toolPowerShell      = "PowerShell"
	toolRead            = "Read"
	toolEdit            = "Edit"
	toolWrite           = "Write"
	toolMultiEdit       = "MultiEdit"
	toolNotebookEdit    = "NotebookEdit"
	toolGrep            = "Grep"
	toolGlob            = "Glob"
	toolLSP             = "LSP"
	toolWebFetch        = "WebFetch"
	toolWebSearch       = "WebSearch"
	toolSkill           = "Skill"
	toolEndConversation = "EndConversation"
	toolAskUserQuestion = "AskUserQuestion"
	toolExitPlanMode    = "ExitPlanMode"
)

// Reserved agent names: the main thread without a definition, and a fork.
const (
	agentMain = "main"
	agentFork = "fork"
)

// The permission modes (section 2).
const (
	modeDefault     = "default"
	modeAcceptEdits = "acceptEdits"
	modePlan        = "plan"
	modeBypass      = "bypassPermissions"
	modeDontAsk     = "dontAsk"
	modeManual      = "manual" // alias of default
	modeAuto        = "auto"   // refused: not modelled (section 14)
)

// normalizeTool applies the only alias: Task means Agent.
func normalizeTool(t string) string {
	if t == toolTask {
		return toolAgent
	}
	return t
}

const mcpPrefix = "mcp__"

// isMCP reports whether t is an MCP tool name (starts with mcp__).
func isMCP(t string) bool { return strings.HasPrefix(t, mcpPrefix) }

// mcpServer returns the server part of an MCP tool name: the text between
// the mcp__ prefix and the next "__". ok is false when t is not an MCP name
// with a server delimiter.
func mcpServer(t string) (server, tool string, ok bool) {
	if !isMCP(t) {
		return "", "", false
	}
	rest := t[len(mcpPrefix):]
	i := strings.Index(rest, "__")
	if i < 0 {
		return "", "", false
	}
	return rest[:i], rest[i+2:], true
}

// validMCPName reports whether t is a well-formed MCP tool name: a valid
// tool name of the form mcp__<server>__<tool> with a non-empty tool part.
func validMCPName(t string) bool {
	if !envelope.ValidToolName(t) {
		return false
	}
	_, tool, ok := mcpServer(t)
	return ok && tool != ""
}

// serverOnly returns the server of a name of the form mcp__<server> (no
// further "__", no '*'); ok is false for anything else.
func serverOnly(n string) (string, bool) {
	if !isMCP(n) || strings.Contains(n, "*") {
		return "", false
	}
	rest := n[len(mcpPrefix):]
	if rest == "" || strings.Contains(rest, "__") {
		return "", false
	}
	return rest, true
}

// parseMode reads a written mode: manual is stored as default; auto and
// unknown values are refused (ok false).
func parseMode(m string) (string, bool) {
	switch m {
	case modeDefault, modeAcceptEdits, modePlan, modeBypass, modeDontAsk:
		return m, true
	case modeManual:
		return modeDefault, true
	}
	return "", false
}

const modeList = "default, manual, acceptEdits, plan, bypassPermissions, dontAsk"

// Tool classes of section 9.1.
func isReadClass(t string) bool {
	switch t {
	case toolRead, toolGrep, toolGlob, toolLSP:
		return true
	}
	return false
}

func isEditClass(t string) bool {
	switch t {
	case toolEdit, toolWrite, toolNotebookEdit, toolMultiEdit:
		return true
	}
	return false
}

// isPermissionFree lists the tools that need no approval in default mode.
func isPermissionFree(t string) bool {
	switch t {
	case "Agent", "CronCreate", "CronDelete", "CronList", "EndConversation", "EnterPlanMode",
		"ExitWorktree", "Glob", "Grep", "ListAgents", "ListMcpResourcesTool", "LSP",
		"PushNotification", "Read", "ReadMcpResourceTool", "RemoteTrigger", "ReportFindings",
		"ScheduleWakeup", "SendFeedback", "SendMessage", "SendUserFile", "SubagentHandback",
		"TaskCreate", "TaskGet", "TaskList", "TaskOutput", "TaskStop", "TaskUpdate", "TodoWrite",
		"ToolSearch", "WaitForMcpServers", "SyntheticOutput", "StructuredOutput":
		return true
	}
	return false
}

// primaryField is the input parameter a string input stands for.
func primaryField(t string) string {
	switch t {
	case toolBash, toolMonitor, toolPowerShell:
		return "command"
	case toolRead, toolEdit, toolWrite, toolMultiEdit, toolLSP:
		return "file_path"
	case toolNotebookEdit:
		return "notebook_path"
	case toolGrep, toolGlob:
		return "path"
	case toolWebFetch:
		return "url"
	case toolAgent:
		return "subagent_type"
	case toolSkill:
		return "skill"
	}
	return ""
}

// isContentField names the parameters a parameter specifier never matches.
func isContentField(p string) bool {
	switch p {
	case "command", "file_path", "path", "notebook_path", "url":
		return true
	}
	return false
}

// Pool layer sets (section 7.2).
func isCoordinatorTool(t string) bool {
	switch t {
	case "Agent", "TaskStop", "SendMessage", "SyntheticOutput":
		return true
	}
	return false
}

func isFirstFiltered(t string) bool {
	switch t {
	case "AskUserQuestion", "EndConversation", "EnterPlanMode", "ScheduleWakeup", "TaskOutput",
		"WaitForMcpServers", "Workflow":
		return true
	}
	return false
}

func isBackgroundKept(t string) bool {
	switch t {
	case "Read", "Grep", "Glob", "Bash", "PowerShell", "Edit", "Write", "NotebookEdit", "WebFetch",
		"WebSearch", "TodoWrite", "Skill", "ToolSearch", "EnterWorktree", "ExitWorktree", "Monitor",
		"TaskStop", "SendMessage", "Artifact":
		return true
	}
	return false
}

func isTeamKept(t string) bool {
	switch t {
	case "TaskCreate", "TaskGet", "TaskList", "TaskUpdate", "CronCreate", "CronDelete", "CronList":
		return true
	}
	return false
}

// teammateAdditions are added to a teammate's non-wildcard tools list.
var teammateAdditions = []string{"SendMessage", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate"}

const (
	firstFilterList    = "AskUserQuestion, EndConversation, EnterPlanMode, ScheduleWakeup, TaskOutput, WaitForMcpServers, Workflow"
	backgroundKeepList = "Read, Grep, Glob, Bash, PowerShell, Edit, Write, NotebookEdit, WebFetch, WebSearch, TodoWrite, Skill, ToolSearch, EnterWorktree, ExitWorktree, Monitor, TaskStop, SendMessage, Artifact"
	teamKeepList       = "TaskCreate, TaskGet, TaskList, TaskUpdate, CronCreate, CronDelete, CronList"
	coordinatorList    = "Agent, TaskStop, SendMessage, SyntheticOutput"
)

// globMatch reports whether s matches p where '*' matches any run of
// characters (including none) and everything else is literal. It runs in
// O(len(p)*len(s)) at worst, so hostile patterns cannot blow up.
func globMatch(p, s string) bool {
	px, sx := 0, 0
	starP, starS := -1, 0
	for sx < len(s) {
		if px < len(p) && p[px] == '*' {
			starP, starS = px, sx
			px++
			continue
		}
		if px < len(p) && p[px] == s[sx] {
			px++
			sx++
			continue
		}
		if starP >= 0 {
			starS++
			sx = starS
			px = starP + 1
			continue
		}
		return false
	}
	for px < len(p) && p[px] == '*' {
		px++
	}
	return px == len(p)
}
