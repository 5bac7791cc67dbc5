package claudecodetest

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "write what the CLI did under testdata/claude-code-cli")

// candidates are tool names to try with --tools and an agent's tools: the
// input types of @anthropic-ai/claude-code's sdk-tools.d.ts under their
// tool names, the names seen in requests, and names of earlier releases.
var candidates = []string{
	"Agent", "AskUserQuestion", "Artifact", "Bash", "BashOutput", "ClaudeDesign", "Config", "CronCreate", "CronDelete",
	"CronList", "DeferredToolPlaceholder", "Edit", "EnterPlanMode", "EnterWorktree", "ExitPlanMode", "ExitWorktree",
	"Glob", "Grep", "KillShell", "LSP", "ListAgents", "ListMcpResourcesTool", "Monitor", "MultiEdit", "NotebookEdit",
	"OfferChromeSetup", "PowerShell", "Projects", "ProposeGoal", "ProposeSkills", "PushNotification", "REPL",
	"Read", "ReadMcpResourceDirTool", "ReadMcpResourceTool", "ReadNotifications", "RefreshMcpTools", "RemoteTrigger",
	"ReportFindings", "ScheduleWakeup", "SendFeedback", "SendMessage", "SendUserMessage", "ShowOnboardingRolePicker",
	"Skill", "Sleep", "StructuredOutput", "TaskCreate", "TaskGet", "TaskList", "TaskOutput", "TaskStop", "TaskUpdate",
	"TeamCreate", "TeamDelete", "TodoWrite", "ToolSearch", "WebBrowser", "WebFetch", "WebSearch", "Workflow", "Write",
}

// Pool is the tool pool one kind of session was sent.
type Pool struct {
	Tools      []string `json:"tools"`
	Deferred   []string `json:"deferred"`
	AgentTypes []string `json:"agent_types,omitempty"`
	// Result is the start of the tool_result of the Agent call that
	// spawned the kind, when it did not run.
	Spawn string `json:"spawn,omitempty"`
}

// PoolsFile is testdata/claude-code-cli/pools-VERSION.json.
type PoolsFile struct {
	Version string `json:"version"`
	Source  string `json:"source"`
	// BuiltIn is every tool name seen in any pool (tools or deferred).
	BuiltIn []string `json:"built_in"`
	// Default is the main thread's pool in default mode.
	Default Pool `json:"default"`
	// NamedOnly are the names absent from the default main pool that
	// the main pool holds when --tools names them.
	NamedOnly []string `json:"named_only"`
	// FlagOnly are the names no pool holds unless --tools names them.
	FlagOnly []string `json:"flag_only"`
	// Elsewhere are the names in neither, with the kinds whose pools
	// hold them.
	Elsewhere map[string][]string `json:"elsewhere"`
	// Unknown are the candidates no pool ever held.
	Unknown    []string        `json:"unknown_candidates"`
	AgentTypes []string        `json:"agent_types"`
	Kinds      map[string]Pool `json:"kinds"`
}

// poolAgent is one sub-agent a pool run spawns: a built-in type, or a
// custom agent with its tools: value.
type poolAgent struct {
	kind, typ string
	tools     string // custom agents only; "-" for no tools: line
	parent    string // "" for the main thread, else the spawning entry's typ
	mode      string // custom agents: permissionMode
}

// poolAgents are the sub-agents of the pool runs, each spawned from the
// main thread (or from parent) with a script of its own.
var poolAgents = []poolAgent{
	{kind: "agent Explore", typ: "Explore"},
	{kind: "agent Plan", typ: "Plan"},
	{kind: "agent general-purpose", typ: "general-purpose"},
	{kind: "agent statusline-setup", typ: "statusline-setup"},
	{kind: "agent claude", typ: "claude"},
	{kind: "agent fork", typ: "fork"},
	{kind: "custom agent, no tools:", typ: "plain", tools: "-"},
	{kind: "custom agent, tools: *", typ: "star", tools: "*"},
	{kind: "custom agent, tools: Read, Grep", typ: "grep", tools: "Read, Grep"},
	{kind: "custom agent, tools: Grep, Glob", typ: "globgrep", tools: "Grep, Glob"},
	{kind: "custom agent, tools: Read, Grep, Glob, Bash", typ: "search", tools: "Read, Grep, Glob, Bash"},
	{kind: "custom agent, tools: Read, TaskCreate", typ: "taskcreate", tools: "Read, TaskCreate"},
	{kind: "custom agent, tools: Read, KillShell", typ: "killshell", tools: "Read, KillShell"},
	{kind: "custom agent, tools: Read, Task", typ: "task", tools: "Read, Task"},
	{kind: "custom agent, tools: Read, Agent(Explore), Bash(ls *)", typ: "specifiers", tools: "Read, Agent(Explore), Bash(ls *)"},
	{kind: "custom agent, tools: every candidate", typ: "everything", tools: "ALL"},
	{kind: "custom agent, tools: Agent, Read", typ: "nester", tools: "Agent, Read"},
	{kind: "custom agent, permissionMode: plan", typ: "planner", tools: "-", mode: "plan"},
	{kind: "custom agent, permissionMode: acceptEdits", typ: "editor", tools: "-", mode: "acceptEdits"},
	{kind: "custom agent (no tools:) at depth 2, spawned by nester", typ: "plain", parent: "nester"},
	{kind: "agent general-purpose at depth 2, spawned by general-purpose", typ: "general-purpose", parent: "general-purpose"},
	{kind: "agent Explore at depth 2, spawned by general-purpose", typ: "Explore", parent: "general-purpose"},
}

// poolRun runs the CLI once with args, the main thread spawning every
// poolAgent (depth 2 ones from their parent), and returns each pool by
// prefix + kind.
func poolRun(t *testing.T, prefix string, args, env []string) map[string]Pool {
	all := strings.Join(candidates, ", ")
	scripts := Scripts{}
	var agents []Agent
	scriptOfType := map[string]string{} // depth-1 typ -> its script
	for i, a := range poolAgents {
		name := fmt.Sprintf("pool%02d", i)
		scripts[name] = nil
		spawn := Block{ID: "toolu_" + name, Tool: "Agent", Input: map[string]any{"description": "pool " + a.typ,
			"prompt": "script:" + name, "subagent_type": a.typ, "run_in_background": false}}
		if a.parent == "" {
			scriptOfType[a.typ] = name
			if len(scripts["main"]) == 0 {
				scripts["main"] = []Turn{nil}
			}
			scripts["main"][0] = append(scripts["main"][0], spawn)
		} else {
			p := scriptOfType[a.parent]
			if len(scripts[p]) == 0 {
				scripts[p] = []Turn{nil}
			}
			scripts[p][0] = append(scripts[p][0], spawn)
		}
		switch a.tools {
		case "":
		case "-":
			agents = append(agents, Agent{Name: a.typ, PermissionMode: a.mode})
		case "ALL":
			agents = append(agents, Agent{Name: a.typ, Tools: all, PermissionMode: a.mode})
		default:
			agents = append(agents, Agent{Name: a.typ, Tools: a.tools, PermissionMode: a.mode})
		}
	}
	res := Run(t.Context(), t, Case{Name: "pools" + prefix, Agents: agents, Scripts: scripts, Args: args, Env: env})
	pools := res.Pools()
	out := map[string]Pool{}
	q := pools["main"]
	out[strings.TrimSpace(prefix+" main")] = Pool{Tools: q.Tools, Deferred: q.Deferred, AgentTypes: q.AgentTypes}
	for i, a := range poolAgents {
		name := fmt.Sprintf("pool%02d", i)
		q, ok := pools[name]
		p := Pool{Tools: q.Tools, Deferred: q.Deferred, AgentTypes: q.AgentTypes}
		if !ok {
			if c := res.Call("toolu_" + name); c != nil && c.Result != nil {
				p.Spawn = firstLine(c.Result.Content)
			} else {
				p.Spawn = "(no request and no tool result)"
			}
		}
		out[strings.TrimSpace(prefix+" "+a.kind)] = p
	}
	return out
}

// poolKinds runs the CLI on every kind of session and returns its pool by
// kind name.
func poolKinds(t *testing.T) map[string]Pool {
	out := poolRun(t, "", nil, nil)
	maps.Copy(out, poolRun(t, "--tools every candidate:", []string{"--tools", strings.Join(candidates, ",")}, nil))
	mcpRun := Run(t.Context(), t, Case{Name: "pools mcp", MCP: map[string][]string{"srv": {"echo", "danger"}},
		Agents:  []Agent{{Name: "plain"}, {Name: "named", Tools: "Read, mcp__srv__echo"}},
		Scripts: Scripts{"main": {{spawnBlock("plain", "mcpplain"), spawnBlock("named", "mcpnamed")}}, "mcpplain": nil, "mcpnamed": nil}})
	for script, kind := range map[string]string{"main": "main with MCP server srv (echo, danger)",
		"mcpplain": "custom agent, no tools:, MCP server srv", "mcpnamed": "custom agent, tools: Read, mcp__srv__echo"} {
		q := mcpRun.Pools()[script]
		out[kind] = Pool{Tools: q.Tools, Deferred: q.Deferred, AgentTypes: q.AgentTypes}
	}
	for _, m := range []struct {
		kind string
		args []string
		env  []string
	}{
		{"main --permission-mode plan", []string{"--permission-mode", "plan"}, nil},
		{"main --permission-mode acceptEdits", []string{"--permission-mode", "acceptEdits"}, nil},
		{"main --permission-mode dontAsk", []string{"--permission-mode", "dontAsk"}, nil},
		{"main --permission-mode bypassPermissions", []string{"--permission-mode", "bypassPermissions"}, []string{"IS_SANDBOX=1"}},
	} {
		res := Run(t.Context(), t, Case{Name: m.kind, Args: m.args, Env: m.env, Scripts: Scripts{"main": nil}})
		q := res.Pools()["main"]
		out[m.kind] = Pool{Tools: q.Tools, Deferred: q.Deferred, AgentTypes: q.AgentTypes}
	}
	return out
}

func spawnBlock(typ, script string) Block {
	return Block{Tool: "Agent", Input: map[string]any{"description": "pool " + typ, "prompt": "script:" + script,
		"subagent_type": typ, "run_in_background": false}}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// TestPools records the tool pool of every kind of session and compares it
// with testdata/claude-code-cli/pools-VERSION.json (written by -update).
func TestPools(t *testing.T) {
	CLI(t)
	version := Pin(t)
	kinds := poolKinds(t)
	f := PoolsFile{Version: version, Kinds: kinds,
		Source: "claude-code " + version + " CLI run: internal/claudecodetest TestPools"}
	seen := map[string]bool{}
	for _, p := range kinds {
		for _, n := range append(slices.Clone(p.Tools), p.Deferred...) {
			seen[n] = true
		}
	}
	for n := range seen {
		if !strings.HasPrefix(n, "mcp__") {
			f.BuiltIn = append(f.BuiltIn, n)
		}
	}
	sort.Strings(f.BuiltIn)
	f.Default = kinds["main"]
	f.AgentTypes = f.Default.AgentTypes
	inDefault := map[string]bool{}
	for _, n := range append(slices.Clone(f.Default.Tools), f.Default.Deferred...) {
		inDefault[n] = true
	}
	named := kinds["--tools every candidate: main"]
	inNamed := setOf(append(slices.Clone(named.Tools), named.Deferred...))
	withoutFlag := map[string]bool{}
	for k, p := range kinds {
		if !strings.HasPrefix(k, "--tools") {
			for _, n := range append(slices.Clone(p.Tools), p.Deferred...) {
				withoutFlag[n] = true
			}
		}
	}
	for _, n := range f.BuiltIn {
		if !withoutFlag[n] {
			f.FlagOnly = append(f.FlagOnly, n)
		}
	}
	f.Elsewhere = map[string][]string{}
	for _, n := range f.BuiltIn {
		switch {
		case inDefault[n]:
		case inNamed[n]:
			f.NamedOnly = append(f.NamedOnly, n)
		default:
			for _, k := range slices.Sorted(maps.Keys(kinds)) {
				if slices.Contains(kinds[k].Tools, n) || slices.Contains(kinds[k].Deferred, n) {
					f.Elsewhere[n] = append(f.Elsewhere[n], k)
				}
			}
		}
	}
	for _, n := range candidates {
		if !seen[n] {
			f.Unknown = append(f.Unknown, n)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		p := kinds[k]
		t.Logf("%-50s tools %v deferred %v types %v %s", k, p.Tools, p.Deferred, p.AgentTypes, p.Spawn)
	}
	t.Logf("built-in %v", f.BuiltIn)
	t.Logf("named only %v", f.NamedOnly)
	t.Logf("flag only %v", f.FlagOnly)
	t.Logf("elsewhere %v", f.Elsewhere)
	t.Logf("unknown %v", f.Unknown)
	got, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join(ModuleRoot(t), "testdata", "claude-code-cli", "pools-"+version+".json")
	if *update {
		must(t, os.MkdirAll(filepath.Dir(path), 0o755))
		must(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to record it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the CLI's pools differ from %s (run with -update and review the diff):\n%s", path, got)
	}
}
