package cchook

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/oklog/ulid/v2"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/events"
)

// Dialect is the ledger dialect Claude Code's sessions are decided in.
const Dialect = "claude-code"

// MainAgent is the agent a root session runs as: the main thread, with no
// agent definition.
const MainAgent = "main"

// ForkAgent is the agent_type Claude Code gives a fork, and the dialect's
// name for one.
const ForkAgent = "fork"

// EventID is the id of an event the hook appends, derived from what
// identifies it (the session key and the payload's ids) so that a payload
// delivered twice appends once: the ledger answers a re-sent id with its
// first outcome. It is a ULID whose time part is zero (the ledger stamps
// the record's time itself) and whose 80 random bits are the first bytes of
// SHA-256 over the parts.
func EventID(parts ...string) string {
	sum := sha256.Sum256([]byte("ledger-hook\x00" + strings.Join(parts, "\x00")))
	var id ulid.ULID
	copy(id[6:], sum[:10])
	return id.String()
}

// modes are the permission modes the dialect takes in session.started.
var modes = map[string]string{"default": "default", "manual": "default", "acceptEdits": "acceptEdits",
	"plan": "plan", "bypassPermissions": "bypassPermissions", "dontAsk": "dontAsk"}

// TurnMode is the mode a payload of the main thread reports for the turn
// it opens, as the dialect names it; "" for a sub-agent's payload (its
// mode derives from its parent's at its spawn, and its payloads report
// modes of Claude Code's own, such as a fork's bubble) or a mode the
// dialect does not have (auto, bubble: the mode in force stays).
// CLI 2.1.328: every payload carries permission_mode; Shift-Tab and
// --permission-mode change it mid-session (issue 25).
func (p *Payload) TurnMode() string {
	if p.Sub() {
		return ""
	}
	return modes[p.PermissionMode]
}

// RootMode is the mode a new root session is started in: the mode the
// payload reports (UserPromptSubmit and tool events carry Claude Code's
// permission_mode), else the project's permissions.defaultMode, else none
// (the ledger then applies its own rule to the policy in force). Modes the
// dialect does not have (auto, bubble) count as none.
func RootMode(payloadMode string, doc json.RawMessage) string {
	if m, ok := modes[payloadMode]; ok {
		return m
	}
	var d struct {
		Permissions struct {
			DefaultMode string `json:"defaultMode"`
		} `json:"permissions"`
	}
	if len(doc) > 0 && json.Unmarshal(doc, &d) == nil {
		return modes[d.Permissions.DefaultMode]
	}
	return ""
}

// StartEvent starts root as the main thread in mode, in the default scope
// and with no identity (StartEventOf with the rest).
func StartEvent(root events.SessionKey, mode string) client.Event {
	return StartEventOf(root, events.StartedData{Agent: MainAgent, Mode: mode})
}

// StartEventOf starts root with d (StartData). Its id is the key's alone,
// so that a start delivered twice, or by two hooks, lands once.
func StartEventOf(root events.SessionKey, d events.StartedData) client.Event {
	ev := client.Start(root, d)
	ev.ID = EventID(string(root), "start")
	return ev
}

// EndEvent ends root (SessionEnd), with Claude Code's reason. Its id is
// derived from the key, the payload's prompt and the session's turn count:
// a SessionEnd delivered twice lands once.
func EndEvent(root events.SessionKey, reason, promptID string, turns int) client.Event {
	ev := client.End(root, cut(reason, events.MaxTextLen))
	ev.ID = EventID(string(root), "end", promptID, fmt.Sprint(turns))
	return ev
}

// ReopenEvent reopens an ended root resumed by Claude Code; reason is the
// SessionStart's source ("resume"), or the event that found the session
// ended. Its id is derived from the key and the session's turn count.
func ReopenEvent(root events.SessionKey, reason string, turns int) client.Event {
	ev := client.Reopen(root, cut(reason, events.MaxTextLen))
	ev.ID = EventID(string(root), "reopen", fmt.Sprint(turns))
	return ev
}

// SpawnEvent spawns child from parent as agentType (a fork when Claude Code
// says "fork").
func SpawnEvent(child, parent events.SessionKey, agentType string) client.Event {
	d := events.SpawnedData{Parent: parent, Agent: agentType}
	if agentType == ForkAgent {
		d.Fork = true
	}
	ev := client.Spawn(child, d)
	ev.ID = EventID(string(child), "spawn")
	return ev
}

// TurnEvent starts turn n of key; basis says what started it (TurnBasis).
// Without a basis the event gets no derived id (the client makes one).
func TurnEvent(key events.SessionKey, n int, basis string) client.Event {
	return TurnEventIn(key, n, basis, "")
}

// TurnEventIn is TurnEvent with the mode the payload reported for the
// turn ("" names none: the mode in force stays).
func TurnEventIn(key events.SessionKey, n int, basis, mode string) client.Event {
	ev := client.Turn(key, events.TurnData{Turn: n, Mode: mode})
	if basis != "" {
		ev.ID = EventID(string(key), "turn", basis)
	}
	return ev
}

// FirstTurn is the basis of a session's first turn when no prompt or batch
// started it (a sub-agent's first model turn, or a root whose prompt was not
// seen).
const FirstTurn = "first"

// TurnBasis names what starts the turn a payload opens: the prompt
// (UserPromptSubmit) or the batch of calls that just ended (PostToolBatch),
// which makes the model's next turn. "" when the payload has no id to
// name it by.
func (p *Payload) TurnBasis() string {
	switch p.Event {
	case UserPromptSubmit:
		if p.PromptID != "" {
			return "prompt:" + p.PromptID
		}
	case PostToolBatch:
		ids := make([]string, 0, len(p.ToolCalls))
		for _, c := range p.ToolCalls {
			if c.ToolUseID == "" {
				return ""
			}
			ids = append(ids, c.ToolUseID)
		}
		if len(ids) > 0 {
			slices.Sort(ids)
			return "batch:" + strings.Join(ids, ",")
		}
	}
	return ""
}

// EffectEvent records that call (prepared by the check at preparedAt) goes
// ahead.
func EffectEvent(key events.SessionKey, turn int, tool, call string, preparedAt uint64) client.Event {
	ev := client.EffectStarted(key, events.EffectData{Turn: turn, Tool: tool, Call: call, PreparedAt: preparedAt})
	ev.ID = EventID(string(key), "effect", call)
	return ev
}

// The input a check records is the tool's top-level scalar parameters (all
// the dialect reads: the primary field and parameter rules), with every
// string longer than maxParam left out except the primary field's, so that
// a Write of a large file neither bloats the log nor overflows an event.
const maxParam = 256

// primary is each tool's primary input field (dialect section 9.1).
var primary = map[string]string{"Bash": "command", "Monitor": "command", "PowerShell": "command",
	"Read": "file_path", "Edit": "file_path", "Write": "file_path", "MultiEdit": "file_path", "LSP": "file_path",
	"NotebookEdit": "notebook_path", "Grep": "path", "Glob": "path", "WebFetch": "url",
	"Agent": "subagent_type", "Task": "subagent_type", "Skill": "skill"}

// pathTools are the tools whose decision reads paths: a primary field
// that is a path, or a command whose words are.
var pathTools = map[string]bool{"Read": true, "Edit": true, "Write": true, "MultiEdit": true, "LSP": true,
	"NotebookEdit": true, "Grep": true, "Glob": true, "Bash": true, "Monitor": true}

// CallInput is the input recorded for a call of tool with Claude Code's
// tool_input: an object of its top-level scalars (see maxParam), in key
// order; nil when there is none. Paths stay as Claude Code's tools send
// them (absolute); for a tool whose decision reads paths, the input also
// says where the call runs under claudecode.PathsKey: {"project": workDir,
// "home": home}, each left out when it is not absolute, the whole key when
// workDir is not. The dialect then matches every rule anchor against the
// absolute path as Claude Code 2.1.328 does (dialect section 0.2).
// Directories added with --add-dir reach no payload: the key has no
// "dirs" from the hook (docs/claude-code-hooks.md).
func CallInput(tool string, input json.RawMessage, workDir, home string) json.RawMessage {
	return CallInputAt(tool, input, workDir, home, "")
}

// CallInputAt is CallInput for a call whose payload names the shell's
// directory cwd: when it is absolute and not workDir (an earlier Bash
// call's cd left Claude Code's shell there; it keeps the cd between
// calls), the key also says {"cwd": cwd}, and the dialect reads relative
// paths from there, as Claude Code 2.1.328 does (after cd locked it denies
// rm x.txt under Edit(./locked/**): internal/claudecodetest
// TestDifferential/sh3-cwd-*).
func CallInputAt(tool string, input json.RawMessage, workDir, home, cwd string) json.RawMessage {
	var m map[string]json.RawMessage
	if len(input) == 0 || json.Unmarshal(input, &m) != nil {
		return nil
	}
	return callInputOf(tool, m, workDir, home, cwd, false)
}

// CallInputLinked is CallInputAt that also resolves the call's path
// through symbolic links on this machine, now (LinkedPaths): when any
// are met, the key also says {"resolved": [...]} and, when the path is
// itself a link, {"link": true}, and the dialect decides on every
// spelling as Claude Code 2.1.328 does (dialect section 9.5). A path that
// does not resolve is decided as given. For a Bash or Monitor call, each
// path its command's words name (claudecode.CommandPaths) is resolved so,
// and the key says {"linked": {path: [...]}} for those that meet a link
// (CommandLinks).
func CallInputLinked(tool string, input json.RawMessage, workDir, home, cwd string) json.RawMessage {
	var m map[string]json.RawMessage
	if len(input) == 0 || json.Unmarshal(input, &m) != nil {
		return nil
	}
	return callInputOf(tool, m, workDir, home, cwd, true)
}

// callInputOf is CallInput of the input's members m, decoded already (by
// Parse, which keeps them: Payload.inputFields); with links, the call's
// path, or its command's paths, resolved through symbolic links
// (CallInputLinked).
func callInputOf(tool string, m map[string]json.RawMessage, workDir, home, cwd string, links bool) json.RawMessage {
	keep := make(map[string]json.RawMessage, len(m)+1)
	var cut []string
	for k, v := range m {
		switch t := strings.TrimSpace(string(v)); {
		case k == claudecode.PathsKey:
			// Only the hook says where a call runs.
		case t == "" || t[0] == '{' || t[0] == '[' || t == "null":
		case k == claudecode.CutKey:
			// Only the hook says what it left out.
		case t[0] == '"' && len(t) > maxParam+2 && k != primary[tool]:
			cut = append(cut, k)
		default:
			keep[k] = v
		}
	}
	if len(cut) > 0 {
		// Named, so that a parameter rule on one fails closed.
		slices.Sort(cut)
		keep[claudecode.CutKey], _ = json.Marshal(cut)
	}
	if len(keep) == 0 {
		return nil
	}
	if pathTools[tool] && filepath.IsAbs(workDir) {
		where := map[string]any{"project": filepath.ToSlash(filepath.Clean(workDir))}
		if filepath.IsAbs(home) {
			where["home"] = filepath.ToSlash(filepath.Clean(home))
		}
		if filepath.IsAbs(cwd) {
			if c := filepath.ToSlash(filepath.Clean(cwd)); c != where["project"] {
				where["cwd"] = c
			}
		}
		keep[claudecode.PathsKey], _ = json.Marshal(where)
		if links {
			b, err := events.CanonicalJSON(objectOf(keep))
			if err != nil {
				return nil
			}
			if p, ok := claudecode.CallPath(tool, b); ok {
				resolved, link := LinkedPaths(filepath.FromSlash(p), workDir, home)
				if len(resolved) > 0 {
					where["resolved"] = resolved
				}
				if link {
					where["link"] = true
				}
				if len(resolved) == 0 && !link {
					return b
				}
				keep[claudecode.PathsKey], _ = json.Marshal(where)
			} else if linked := CommandLinks(tool, b, workDir, home); len(linked) > 0 {
				where["linked"] = linked
				keep[claudecode.PathsKey], _ = json.Marshal(where)
			} else {
				return b
			}
		}
	}
	b, err := events.CanonicalJSON(objectOf(keep))
	if err != nil {
		return nil
	}
	return b
}

// objectOf is a JSON object of m's members, for events.CanonicalJSON, which
// orders and writes them canonically: what it makes of this is what it
// makes of json.Marshal(m), without reflection (TestCallInputOfIsCanonical).
// m's values are valid JSON.
func objectOf(m map[string]json.RawMessage) []byte {
	n := 2
	for k, v := range m {
		n += len(k) + len(v) + 4
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	first := true
	for k, v := range m {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(events.AppendJSONString(b, k), ':')
		b = append(b, v...)
	}
	return append(b, '}')
}

// HomeOf is the home directory of the user Claude Code runs as, read from a
// transcript path (<home>/.claude/projects/<project>/<session>.jsonl); ""
// when the path is not of that form.
func HomeOf(transcript string) string {
	const mark = "/.claude/projects/"
	i := strings.LastIndex(transcript, mark)
	if i <= 0 || !filepath.IsAbs(transcript) {
		return ""
	}
	return transcript[:i]
}

// PolicyEvent installs doc as scope's policy; catalogue is left out when
// nil (the ledger keeps the scope's one in force).
func PolicyEvent(doc json.RawMessage, catalogue []string, scope string) client.Event {
	return client.SetPolicy(events.PolicySetData{Dialect: Dialect, Document: doc, Catalogue: catalogue, Scope: scope})
}

// PolicyChange compares the project's document (and the hook's catalogue,
// when it has one) with in, the policy of scope in force (the session's
// scope's, as a why on the session answers it), and returns the policy.set
// of scope to append, if any. in is nil when the scope has no policy.
func PolicyChange(doc json.RawMessage, catalogue []string, scope string, in *envelope.PolicyState) (*client.Event, error) {
	if in == nil {
		ev := PolicyEvent(doc, catalogue, scope)
		return &ev, nil
	}
	if in.Dialect != Dialect {
		return nil, fmt.Errorf("the policy of scope %s is in the %s dialect, not %s: the project's policy is not imported", events.ScopeName(scope), in.Dialect, Dialect)
	}
	want, err := events.CanonicalJSON(doc)
	if err != nil {
		return nil, fmt.Errorf("the imported document is not JSON: %v", err)
	}
	have, err := events.CanonicalJSON(in.Document)
	if err != nil {
		have = nil
	}
	newCat := catalogue != nil && !slices.Equal(catalogue, in.Catalogue)
	if string(want) == string(have) && !newCat {
		return nil, nil
	}
	if !newCat {
		catalogue = nil
	}
	ev := PolicyEvent(doc, catalogue, scope)
	return &ev, nil
}

// Meta is what Claude Code 2.1.328 writes about a sub-agent in
// <transcript dir>/<session>/subagents/agent-<id>.meta.json (the fields
// the mapping reads). ParentAgentID is empty for a sub-agent of the main
// thread.
type Meta struct {
	AgentType     string `json:"agentType"`
	ParentAgentID string `json:"parentAgentId"`
	ToolUseID     string `json:"toolUseId"`
}

// MetaPath is where Claude Code keeps the metadata of sub-agent agentID of
// the session whose transcript is at transcript; "" when there is no
// transcript path or the id could name another file.
func MetaPath(transcript, agentID string) string {
	if transcript == "" || !strings.HasSuffix(transcript, ".jsonl") || !validAgentID(agentID) {
		return ""
	}
	return filepath.Join(strings.TrimSuffix(transcript, ".jsonl"), "subagents", "agent-"+agentID+".meta.json")
}

// ParseMeta reads a metadata file; it must be about an agent of agentType.
func ParseMeta(b []byte, agentType string) (*Meta, error) {
	var m Meta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if agentType != "" && m.AgentType != agentType {
		return nil, fmt.Errorf("it is about a %q agent, the payload about a %q", m.AgentType, agentType)
	}
	if m.ParentAgentID != "" && !validAgentID(m.ParentAgentID) {
		return nil, fmt.Errorf("parentAgentId %q is not an agent id", m.ParentAgentID)
	}
	return &m, nil
}

// Placement is where a sub-agent's spawn goes.
type Placement struct {
	// Parent is the spawning session; empty when it is unknown.
	Parent events.SessionKey
	// How says how the parent was found, or why it was not.
	How string
}

// PlaceByTree places a sub-agent that has no metadata at SubagentStart: a
// session whose ledger tree holds no sub-agent but this one has only the
// main thread to have launched it (a sub-agent the ledger does not know
// cannot pass its PreToolUse, so it launched nothing). Otherwise the
// parent waits for the metadata.
func PlaceByTree(root *client.TreeNode, child events.SessionKey) Placement {
	for _, c := range root.Children {
		if c.Key != child {
			return Placement{How: "the session already has sub-agents, any of which may have launched this one: waiting for Claude Code's sub-agent metadata"}
		}
	}
	return Placement{Parent: root.Key, How: "the main session's first sub-agent"}
}

// Candidates lists the sessions of a tree other than child that are
// active: those that could have launched child. Root first, then in tree
// order.
func Candidates(root *client.TreeNode, child events.SessionKey) []events.SessionKey {
	var out []events.SessionKey
	var walk func(n *client.TreeNode)
	walk = func(n *client.TreeNode) {
		if n.Key != child && n.State == envelope.Active {
			out = append(out, n.Key)
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(root)
	return out
}
