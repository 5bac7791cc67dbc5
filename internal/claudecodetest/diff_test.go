package claudecodetest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/cchook"
	"github.com/sessionledger/ledger/internal/dialects"
	ccimport "github.com/sessionledger/ledger/internal/importer/claudecode"
	"github.com/sessionledger/ledger/projection"
	"github.com/sessionledger/ledger/scenario"
)

// probe is one tool call a session's script makes.
type probe struct {
	tool  string
	input map[string]any
}

// session is one conversation of a differential case: the main thread
// (typ "") or a sub-agent of type typ spawned by parent's script. asked is
// the subagent_type the parent's Agent call names when it is not typ (the
// CLI resolves it to typ, the agent its hooks report).
type session struct {
	script string
	typ    string
	parent string
	turns  [][]probe
	asked  string
}

// dcase is one CLI run of the differential suite and the same policy for
// the dialect.
type dcase struct {
	name     string
	group    string // the category of the agreement table
	settings Settings
	agents   []Agent
	files    map[string]string
	// mode is --permission-mode (and the main session's mode for the
	// dialect); tools is --tools (for the dialect, the policy's catalogue
	// and the document's top-level "tools").
	mode  string
	tools string
	// agent is --agent: the main thread runs that agent's definition (the
	// main session's agent for the dialect).
	agent string
	// mcp are the run's MCP servers (server -> tool names): the main
	// session's MCP tools for the dialect.
	mcp      map[string][]string
	sessions []session
	// after is called with the project directory once the run is over.
	after func(t *testing.T, dir string)
	// release is the CLI's version (set by the suite).
	release string
	// paths: the dialect is given each call as the ledger's hook gives it
	// (claudecode.PathsKey: the project, HOME and the --add-dir
	// directories beside the input), with the run's temporary directory
	// read as runBase, so that recorded cases do not depend on where a run
	// happened. Cases without it give the input alone, as records written
	// before the key did.
	paths bool
	// addDirs are --add-dir arguments, relative to the project.
	addDirs []string
	// user are the permission rules of the user's settings (HOME/.claude/
	// settings.json); a paths case only. For the dialect they come before
	// the project's, each as 'ledger policy import' writes it
	// (ccimport.UserRule).
	user Settings
	// imported: the case's agents are agent files among its files
	// (.claude/agents/ and ../home/.claude/agents/), and the dialect's
	// agents are what 'ledger policy import' reads from the run's project
	// and user directory (importedAgents, set once the CLI has run).
	imported       bool
	importedAgents json.RawMessage
	// local are the permissions of the project's .claude/settings.local.json.
	local Settings
	// scopes: the dialect's permissions are what 'ledger policy import'
	// makes of the run's three settings files (the user's, the project's
	// and the local one: importedPerms, set once the CLI has run) instead
	// of user and settings as the document writes them.
	scopes        bool
	importedPerms json.RawMessage
	// links are symbolic links made in the project before the CLI starts:
	// the link's path (relative to the project, "../home/..." for HOME) ->
	// its target as written (BaseToken stands for the run's directory).
	links map[string]string
}

// runBase is what a paths case's temporary directory reads as for the
// dialect: the project is runBase/project, HOME runBase/home.
const runBase = "/r"

// shownInput is a call's input as a paths case names it (the run's
// directory read as runBase); other cases' inputs are as issued.
func (dc *dcase) shownInput(input map[string]any, base string) map[string]any {
	if !dc.paths || base == "" {
		return input
	}
	out := make(map[string]any, len(input))
	for k, v := range input {
		if s, ok := v.(string); ok {
			v = strings.ReplaceAll(s, base, runBase)
		}
		out[k] = v
	}
	return out
}

// dialectInput is the input the dialect is given for a call of tool: in a
// paths case, the shown input with the project, HOME and added
// directories under claudecode.PathsKey, the shell's directory cwd (the
// call's PreToolUse cwd) when it is not the project, and the spellings of
// the call's path, or of its command's paths, through the run's symbolic
// links (read once the run is over), as the ledger's hook gives it.
func (dc *dcase) dialectInput(tool string, input map[string]any, base, cwd string) map[string]any {
	if !dc.paths {
		return input
	}
	out := dc.shownInput(input, base)
	ctx := map[string]any{"project": runBase + "/project", "home": runBase + "/home"}
	if base != "" && cwd != "" && filepath.Clean(cwd) != filepath.Join(base, "project") {
		ctx["cwd"] = strings.ReplaceAll(filepath.Clean(cwd), base, runBase)
	}
	if base != "" {
		// The hook's reading of the path, on the run's own directories.
		real := maps.Clone(input)
		where := map[string]any{"project": filepath.Join(base, "project"), "home": filepath.Join(base, "home")}
		if c, ok := ctx["cwd"]; ok {
			where["cwd"] = strings.ReplaceAll(c.(string), runBase, base)
		}
		real[claudecode.PathsKey] = where
		raw, _ := json.Marshal(real)
		if p, ok := claudecode.CallPath(tool, raw); ok {
			resolved, link := cchook.LinkedPaths(p, filepath.Join(base, "project"), filepath.Join(base, "home"))
			for i, r := range resolved {
				resolved[i] = strings.ReplaceAll(r, base, runBase)
			}
			if len(resolved) > 0 {
				ctx["resolved"] = resolved
			}
			if link {
				ctx["link"] = true
			}
		} else if linked := cchook.CommandLinks(tool, raw, filepath.Join(base, "project"), filepath.Join(base, "home")); len(linked) > 0 {
			// A Bash command's paths through the links.
			m := make(map[string]any, len(linked))
			for p, resolved := range linked {
				for i, r := range resolved {
					resolved[i] = strings.ReplaceAll(r, base, runBase)
				}
				m[strings.ReplaceAll(p, base, runBase)] = resolved
			}
			ctx["linked"] = m
		}
	}
	if len(dc.addDirs) > 0 {
		var dirs []string
		for _, d := range dc.addDirs {
			dirs = append(dirs, filepath.Join(runBase+"/project", d))
		}
		ctx["dirs"] = dirs
	}
	out[claudecode.PathsKey] = ctx
	return out
}

// Outcomes a call can have, on either side.
const (
	outAllow  = "allow"
	outAsk    = "ask"
	outDeny   = "deny"
	outAbsent = "absent" // not in the session's pool
	// outRefused: the dialect refused to start the session (the dialect's
	// side only).
	outRefused = "session refused"
)

// cliOutcome reads what the CLI did with a call (see the package comment).
// ok is false when the evidence fits no outcome.
func cliOutcome(c Call) (string, bool) {
	// The text the CLI gives the model when nobody answered a prompt: an
	// ask the PermissionRequest pairing must have seen.
	if c.Result != nil && strings.HasPrefix(c.Result.Content, "Claude requested permissions to") && !c.PermissionRequest {
		return "", false
	}
	switch {
	case c.Result != nil && strings.Contains(c.Result.Content, "No such tool available") && !c.PreToolUse:
		return outAbsent, true
	case c.Denied && c.PermissionRequest:
		return outAsk, true
	case c.Denied:
		return outDeny, true
	case c.PostToolUse:
		return outAllow, true
	}
	return "", false
}

// document is the dialect's policy document for a case: the settings'
// permissions, the case's agents, and the --tools list as the document's
// "tools" (which the dialect reads as the flag when the document names a
// release: what the flag names exists and is exempt from the release's
// pool rules).
func (dc *dcase) document() map[string]any {
	perms := map[string]any{}
	user := func(l []string) []string {
		var out []string
		for _, r := range l {
			r, _ = ccimport.UserRule(r, runBase+"/home/.claude", runBase+"/home")
			out = append(out, r)
		}
		return out
	}
	for k, v := range map[string][]string{"allow": append(user(dc.user.Allow), dc.settings.Allow...),
		"ask": append(user(dc.user.Ask), dc.settings.Ask...), "deny": append(user(dc.user.Deny), dc.settings.Deny...),
		"additionalDirectories": dc.settings.AdditionalDirectories} {
		if v != nil {
			perms[k] = v
		}
	}
	if dc.settings.DefaultMode != "" {
		perms["defaultMode"] = dc.settings.DefaultMode
	}
	if dc.settings.BlockReads || dc.user.BlockReads {
		perms["blockReadsOutsideWorkingDirectories"] = true
	}
	if dc.settings.BlockWrites || dc.user.BlockWrites {
		perms["blockWritesOutsideWorkingDirectories"] = true
	}
	agents := map[string]any{}
	for _, a := range dc.agents {
		def := map[string]any{"description": a.description()}
		if a.Tools != "" {
			def["tools"] = frontValue(a.Tools)
		}
		if a.DisallowedTools != "" {
			def["disallowedTools"] = frontValue(a.DisallowedTools)
		}
		if a.PermissionMode != "" {
			def["permissionMode"] = a.PermissionMode
		}
		agents[a.Name] = def
	}
	doc := map[string]any{}
	if dc.importedPerms != nil {
		perms = nil
		doc["permissions"] = dc.importedPerms
	}
	if dc.importedAgents != nil {
		doc["agents"] = dc.importedAgents
	}
	if l := dc.toolsFlag(); l != nil {
		doc["tools"] = l
	}
	if slices.Contains(claudecode.Releases(), dc.release) {
		// The release the CLI is, when the dialect holds its tables: what
		// 'ledger policy import' writes for a project.
		doc["release"] = dc.release
	}
	if len(perms) > 0 {
		doc["permissions"] = perms
	}
	if len(agents) > 0 {
		doc["agents"] = agents
	}
	return doc
}

// toolsFlag is the --tools list, as the CLI splits it; nil without the
// flag. It is policy, not an agent: the tools that exist in the run.
func (dc *dcase) toolsFlag() []string {
	if dc.tools == "" {
		return nil
	}
	var out []string
	for _, n := range strings.Split(dc.tools, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// placeholder is a name 2.1.328 puts in a request's tools that is no tool:
// an internal stand-in for the deferred tools, which the model cannot call.
// It is left out of the CLI's side of every pool comparison and of the
// catalogue the dialect is given.
const placeholder = "DeferredToolPlaceholder"

// cliPool is a session's pool as the CLI sent it: its tools and deferred
// tools, sorted, without the placeholder.
func cliPool(q Request) []string {
	names := setOf(append(slices.Clone(q.Tools), q.Deferred...))
	delete(names, placeholder)
	return slices.Sorted(maps.Keys(names))
}

// keyOf is the dialect's session key of a script: "main", and each child
// under its parent's key.
func (dc *dcase) keyOf(script string) events.SessionKey {
	for _, s := range dc.sessions {
		if s.script == script {
			if s.parent == "" {
				return events.SessionKey(s.script)
			}
			return dc.keyOf(s.parent) + ":" + events.SessionKey(s.script)
		}
	}
	return ""
}

// steps are the events that put the dialect where the CLI was: the main
// session started with its first turn, each child spawned with its first
// turn, parents before children.
func (dc *dcase) steps() []map[string]any {
	var out []map[string]any
	for _, s := range dc.sessions {
		key := dc.keyOf(s.script)
		if s.parent == "" {
			data := map[string]any{"agent": "main"}
			if dc.agent != "" {
				data["agent"] = dc.agent
			}
			if dc.mode != "" {
				data["mode"] = dc.mode
			}
			if names := dc.mcpNames(); names != nil {
				data["tools"] = names
			}
			out = append(out, map[string]any{"type": events.SessionStarted, "session": key, "data": data})
		} else {
			data := map[string]any{"parent": dc.keyOf(s.parent), "agent": s.typ}
			if s.typ == "fork" {
				data["fork"] = true
			}
			out = append(out, map[string]any{"type": events.SessionSpawned, "session": key, "data": data})
		}
		out = append(out, map[string]any{"type": events.TurnStarted, "session": key, "data": map[string]any{"turn": 1}})
	}
	return out
}

// scripts builds the CLI's scripts: each session's probe turns, then one
// turn spawning its children (in the foreground, so the run waits for
// them).
func (dc *dcase) scripts() Scripts {
	out := Scripts{}
	for _, s := range dc.sessions {
		var turns []Turn
		for ti, tr := range s.turns {
			var turn Turn
			for pi, p := range tr {
				turn = append(turn, Block{ID: fmt.Sprintf("toolu_%s_%d_%d", s.script, ti, pi), Tool: p.tool, Input: p.input})
			}
			turns = append(turns, turn)
		}
		var spawn Turn
		for _, c := range dc.sessions {
			if c.parent == s.script {
				typ := c.typ
				if c.asked != "" {
					typ = c.asked
				}
				spawn = append(spawn, Block{ID: "toolu_spawn_" + c.script, Tool: "Agent", Input: map[string]any{
					"description": "run " + c.script, "prompt": "script:" + c.script, "subagent_type": typ,
					"run_in_background": false}})
			}
		}
		if spawn != nil {
			turns = append(turns, spawn)
		}
		out[s.script] = turns
	}
	return out
}

// mcpNames are the MCP tools of the run as Claude Code names them,
// mcp__<server>__<tool>, sorted; nil without MCP servers.
func (dc *dcase) mcpNames() []string {
	var out []string
	for srv, tools := range dc.mcp {
		for _, tl := range tools {
			out = append(out, "mcp__"+srv+"__"+tl)
		}
	}
	sort.Strings(out)
	return out
}

func (dc *dcase) cliCase() Case {
	c := Case{Name: dc.name, Settings: dc.settings, Agents: dc.agents, Files: dc.files, Scripts: dc.scripts(), MCP: dc.mcp}
	// A long script on a loaded machine outlasts Run's default minute
	// (i25-readonly-scope's 146 calls took 49s, then over 60s): two
	// seconds a call, at least the default.
	calls := 0
	for _, s := range dc.sessions {
		for _, tr := range s.turns {
			calls += len(tr)
		}
	}
	if d := time.Duration(calls) * 2 * time.Second; d > time.Minute {
		c.Timeout = d
	}
	if dc.mode != "" {
		c.Args = append(c.Args, "--permission-mode", dc.mode)
	}
	if dc.tools != "" {
		c.Args = append(c.Args, "--tools", dc.tools)
	}
	if dc.agent != "" {
		c.Args = append(c.Args, "--agent", dc.agent)
	}
	for _, d := range dc.addDirs {
		c.Args = append(c.Args, "--add-dir", d)
	}
	// bypassPermissions as root needs IS_SANDBOX=1; it is set only where
	// bypass is in play, so other cases run as a user would.
	bypass := dc.mode == "bypassPermissions" || dc.settings.DefaultMode == "bypassPermissions" ||
		dc.user.DefaultMode == "bypassPermissions" || dc.local.DefaultMode == "bypassPermissions"
	for _, a := range dc.agents {
		bypass = bypass || a.PermissionMode == "bypassPermissions"
	}
	if bypass {
		c.Env = append(c.Env, "IS_SANDBOX=1")
	}
	if len(dc.links) > 0 {
		c.Setup = func(dir, _ string) {
			base := filepath.Dir(dir)
			for l, target := range dc.links {
				p := filepath.Join(dir, filepath.FromSlash(l))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					panic(err)
				}
				// What withEditFiles wrote there for an Edit probe through
				// the link goes: the link's target holds the file.
				_ = os.RemoveAll(p)
				if err := os.Symlink(strings.ReplaceAll(target, BaseToken, base), p); err != nil {
					panic(err)
				}
			}
		}
	}
	if u, l := dc.user, dc.local; u.any() || l.any() {
		links := c.Setup
		c.Setup = func(dir, home string) {
			if links != nil {
				links(dir, home)
			}
			if u.any() {
				b, _ := json.Marshal(map[string]any{"useAutoModeDuringPlan": false, "skipWebFetchPreflight": true, "permissions": u.permissions()})
				if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), b, 0o644); err != nil {
					panic(err)
				}
			}
			if l.any() {
				b, _ := json.Marshal(map[string]any{"permissions": l.permissions()})
				if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.local.json"), b, 0o644); err != nil {
					panic(err)
				}
			}
		}
	}
	return c
}

// compared is one comparison: a call or a session's pool.
type compared struct {
	Case     string `json:"case"`
	Group    string `json:"group"`
	Session  string `json:"session"`
	What     string `json:"call"` // "<tool> <input>", "pool" or "spawn"
	CLI      string `json:"cli"`
	Dialect  string `json:"dialect"`
	Evidence string `json:"evidence,omitempty"`
	kind     int
}

// What a comparison compares.
const (
	kindCall = iota
	kindPool
	kindSpawn
)

func (c compared) agree() bool { return c.CLI == c.Dialect }

// strictness orders call outcomes: a refusal is stricter than a prompt,
// a prompt stricter than running.
var strictness = map[string]int{outAllow: 0, outAsk: 1, outDeny: 2, outAbsent: 2}

// failClosed reports whether the dialect is stricter than the CLI where
// they differ: a call it refuses or asks about that the CLI ran (or asked
// about), a pool holding no tool the CLI's lacks, a spawn it refuses.
func (c compared) failClosed() bool {
	switch c.kind {
	case kindPool:
		return strings.HasSuffix(c.Evidence, "only the dialect has []")
	case kindSpawn:
		return c.CLI == "spawned"
	}
	d, _, _ := strings.Cut(c.Dialect, " (")
	cli, okC := strictness[c.CLI]
	dl, okD := strictness[d]
	return okC && okD && dl > cli
}

// equallyStrict reports whether two differing call outcomes refuse alike:
// a call the CLI denies that is absent from the dialect's pool, or the
// other way round.
func (c compared) equallyStrict() bool {
	if c.kind == kindPool || c.kind == kindSpawn {
		return false
	}
	d, _, _ := strings.Cut(c.Dialect, " (")
	cli, okC := strictness[c.CLI]
	dl, okD := strictness[d]
	return okC && okD && dl == cli
}

// key names a comparison in deliberate.json and in the recorded
// scenarios.
func (c compared) key() string { return c.Case + " | " + c.Session + " | " + c.What }

func callWhat(tool string, input any) string {
	b, _ := json.Marshal(input)
	return tool + " " + string(b)
}

// dialectView is the dialect's state after a case's steps.
type dialectView struct {
	run     *scenario.Runner
	refused map[events.SessionKey]string // session -> the code its start or spawn was refused with
}

// dialectRun runs a case's policy and steps through the project's scenario
// runner (in memory) and keeps the runner to query.
func dialectRun(ctx context.Context, t *testing.T, dc *dcase, catalogue []string) *dialectView {
	t.Helper()
	doc, _ := json.Marshal(dc.document())
	f := &scenario.File{Name: dc.name, Dialect: "claude-code", Tools: catalogue, Policy: doc}
	steps := dc.steps()
	for _, st := range steps {
		b, _ := json.Marshal(map[string]any{"append": st})
		f.Steps = append(f.Steps, b)
	}
	r, err := scenario.InMemory(dialects.All())
	if err != nil {
		t.Fatal(err)
	}
	rep := r.Run(ctx, f)
	v := &dialectView{run: r, refused: map[events.SessionKey]string{}}
	for _, fl := range rep.Failures {
		if fl.Step == 0 {
			t.Fatalf("%s: the dialect refused the case's policy: %s", dc.name, fl.Msg)
		}
		key := events.SessionKey(steps[fl.Step-1]["session"].(events.SessionKey))
		if _, ok := v.refused[key]; !ok {
			v.refused[key] = fl.Msg
		}
	}
	return v
}

// outcome is the dialect's answer for one call: absent when the tool is
// not in the session's tool set, else its decision.
func (v *dialectView) outcome(ctx context.Context, key events.SessionKey, tool string, input any) (string, string) {
	if msg, ok := v.refused[key]; ok {
		return outRefused, msg
	}
	raw, _ := json.Marshal(input)
	var out, reason string
	err := v.run.Ledger.View(ctx, key, projection.Position{}, func(st *projection.State) error {
		ts, err := st.Tools(key)
		if err != nil {
			return err
		}
		if d, r, ok := ts.Lookup(st.Dialect().Normalize(tool)); !ok || d != envelope.Allow {
			out, reason = outAbsent, "catalogue:unknown"
			if r != nil {
				reason = r.Code
			}
			return nil
		}
		vd, err := st.Why(key, tool, raw)
		if err != nil {
			return err
		}
		out, reason = string(vd.Decision), vd.Reason.Code
		return nil
	})
	if err != nil {
		return "error", err.Error()
	}
	return out, reason
}

// pool is the dialect's allowed tools of a session.
func (v *dialectView) pool(ctx context.Context, key events.SessionKey) ([]string, error) {
	if msg, ok := v.refused[key]; ok {
		return nil, fmt.Errorf("session refused: %s", msg)
	}
	var out []string
	err := v.run.Ledger.View(ctx, key, projection.Position{}, func(st *projection.State) error {
		ts, err := st.Tools(key)
		out = slices.Clone(ts.Allowed)
		return err
	})
	sort.Strings(out)
	return out, err
}

// recordedPools reads TestPools' recording of the pinned CLI.
func recordedPools(t *testing.T) PoolsFile {
	t.Helper()
	path := filepath.Join(ModuleRoot(t), "testdata", "claude-code-cli", "pools-"+Pin(t)+".json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run TestPools -update first)", err)
	}
	var f PoolsFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

// catalogue is the pool catalogue the dialect is given for a case: the
// --tools list when the case has one (the flag is the set of tools that
// exist in the run), else every built-in tool name the CLI showed in
// TestPools but those no pool holds without the flag, and never the
// placeholder. (That is the CLI's input mapped to the dialect's: which
// tools exist in the run. What each session gets of them is the dialect's
// to decide.) MCP tools are the main session's start tools (see steps).
func (dc *dcase) catalogue(pf PoolsFile) []string {
	if l := dc.toolsFlag(); l != nil {
		return slices.DeleteFunc(l, func(n string) bool { return n == placeholder })
	}
	var out []string
	for _, n := range pf.BuiltIn {
		if !slices.Contains(pf.FlagOnly, n) && n != placeholder {
			out = append(out, n)
		}
	}
	return out
}

// deliberate are the disagreements testdata/deliberate.json accepts: key ->
// reason. The file is a list of {"case", "session", "call", "reason"},
// where call is "<Tool> <input JSON>" as the failure message prints it,
// "pool" or "spawn". Only fail-closed choices belong there (see
// failClosed); an entry whose comparison now agrees must go.
func deliberate(t testing.TB) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "deliberate.json"))
	if err != nil {
		t.Fatal(err)
	}
	var list []struct {
		Case, Session, Call, Reason string
	}
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatalf("testdata/deliberate.json: %v", err)
	}
	out := map[string]string{}
	for _, d := range list {
		if strings.TrimSpace(d.Reason) == "" {
			t.Fatalf("testdata/deliberate.json: %s | %s | %s has no reason", d.Case, d.Session, d.Call)
		}
		out[d.Case+" | "+d.Session+" | "+d.Call] = d.Reason
	}
	return out
}

// TestDifferential runs every case of the matrix on the CLI and compares
// each call's outcome and each session's pool with the dialect's.
func TestDifferential(t *testing.T) {
	CLI(t)
	pf := recordedPools(t)
	ok := deliberate(t)
	var mu sync.Mutex
	var all []compared
	t.Run("case", func(t *testing.T) {
		for _, dc := range matrix() {
			dc.release = Pin(t)
			t.Run(dc.name, func(t *testing.T) {
				// Two CLIs at a time: each is mostly waiting on its scripted
				// model and its hooks.
				t.Parallel()
				cs := runCase(t, &dc, dc.catalogue(pf))
				for _, c := range cs {
					reason, listed := ok[c.key()]
					switch {
					case c.agree() && listed:
						t.Errorf("testdata/deliberate.json lists %s, which agrees now: remove it", c.key())
					case c.agree():
					case listed && !c.failClosed():
						t.Errorf("testdata/deliberate.json lists %s, but the dialect is not stricter than the CLI there (CLI %s, dialect %s)", c.key(), c.CLI, c.Dialect)
					case listed:
						t.Logf("deliberate: %s: CLI %s, dialect %s (%s)", c.key(), c.CLI, c.Dialect, reason)
					default:
						// Which way it differs, so that a fail-open stands
						// out among many (the generated cases).
						way := "fail-closed"
						switch {
						case c.equallyStrict():
							way = "equally strict"
						case strings.HasPrefix(c.Dialect, outRefused):
							// The session's spawn differs, and that
							// comparison says which way; its calls
							// were not made on the dialect's side
							// (gen-agents seed 22 labelled them
							// fail-open).
							way = "in a session the dialect refused"
						case !c.failClosed():
							way = "fail-open"
						}
						t.Errorf("disagreement (%s): %s\n\tCLI: %s (%s)\n\tdialect: %s", way, c.key(), c.CLI, c.Evidence, c.Dialect)
					}
				}
				mu.Lock()
				all = append(all, cs...)
				mu.Unlock()
			})
		}
	})
	printTable(t, all)
}

// askedForAgent is what Claude Code 2.1.328 answers in -p mode to an
// Agent call it would ask the user about.
const askedForAgent = "Claude requested permissions to use Agent"

// parallelCLIs bounds the CLIs running at once.
var parallelCLIs = make(chan struct{}, 2)

// runCase runs one case on the CLI and the dialect and returns every
// comparison. With -update it writes the case as a scenario.
func runCase(t *testing.T, dc *dcase, cat []string) []compared {
	parallelCLIs <- struct{}{}
	res := func() *Result {
		// Released however Run ends: a case that fails on its deadline
		// (t.Fatalf) once kept its slot, and every case after it waited
		// for one (gen-ro seed 5411).
		defer func() { <-parallelCLIs }()
		return Run(t.Context(), t, dc.cliCase())
	}()
	if dc.after != nil {
		dc.after(t, res.Dir)
	}
	if dc.imported {
		dc.importedAgents = importAgents(t, res)
	}
	if dc.scopes {
		dc.importedPerms = importPermissions(t, res)
	}
	v := dialectRun(t.Context(), t, dc, cat)
	var out []compared
	pools := res.Pools()
	for _, s := range dc.sessions {
		key := dc.keyOf(s.script)
		q, ran := pools[s.script]
		if s.parent != "" {
			// Whether the child came to be: the CLI sent a request for it;
			// the dialect accepted its spawn.
			c := compared{Case: dc.name, Group: dc.group, Session: string(key), What: "spawn", kind: kindSpawn,
				CLI: "refused", Dialect: "refused"}
			if ran {
				c.CLI = "spawned"
			} else if call := res.Call("toolu_spawn_" + s.script); call != nil && call.Result != nil {
				c.Evidence = firstLine(call.Result.Content)
			}
			// The CLI asked for the Agent call (that call's own
			// comparison says whether the dialect asks too), or the
			// parent never ran there: no spawn was decided on the CLI's
			// side. The dialect reads a spawn's record as the approval
			// given (section 12), so the two are not compared (gen-agents
			// seed 23 read such spawns as fail-open).
			_, parentRan := pools[s.parent]
			undecided := !ran && (!parentRan || strings.Contains(c.Evidence, askedForAgent))
			if msg, refused := v.refused[key]; !refused {
				c.Dialect = "spawned"
			} else if c.CLI != "refused" {
				c.Dialect = "refused: " + msg
			}
			if !undecided {
				out = append(out, c)
			}
		}
		if _, refused := v.refused[key]; !ran || refused {
			continue
		}
		cliPool := cliPool(q)
		dPool, err := v.pool(t.Context(), key)
		c := compared{Case: dc.name, Group: dc.group, Session: string(key), What: "pool", CLI: strings.Join(cliPool, " "), kind: kindPool}
		if err != nil {
			c.Dialect = err.Error()
		} else {
			c.Dialect = strings.Join(dPool, " ")
		}
		if !c.agree() {
			c.Evidence = poolDiff(cliPool, dPool)
			c.CLI, c.Dialect = "pool differs", c.Evidence
		}
		out = append(out, c)
	}
	for _, call := range res.Calls {
		key := dc.keyOf(call.Script)
		if key == "" {
			t.Errorf("%s: a call of no session of the case: %+v", dc.name, call)
			continue
		}
		got, ok := cliOutcome(call)
		if !ok {
			t.Errorf("%s: the CLI's outcome of %s %s fits no reading: %+v", dc.name, key, callWhat(call.Tool, call.Input), call)
			continue
		}
		d, reason := v.outcome(t.Context(), key, call.Tool, dc.dialectInput(call.Tool, call.Input, res.base, call.Cwd))
		c := compared{Case: dc.name, Group: dc.group, Session: string(key), What: callWhat(call.Tool, dc.shownInput(call.Input, res.base)),
			CLI: got, Dialect: d}
		if call.Result != nil {
			c.Evidence = firstLine(call.Result.Content)
		}
		if d != got {
			c.Dialect = d + " (" + reason + ")"
		}
		out = append(out, c)
	}
	if *update {
		writeScenario(t, dc, cat, res, v)
	}
	return out
}

func setOf(l []string) map[string]bool {
	m := map[string]bool{}
	for _, s := range l {
		m[s] = true
	}
	return m
}

func poolDiff(cli, d []string) string {
	cs, ds := setOf(cli), setOf(d)
	var onlyCLI, onlyD []string
	for _, n := range cli {
		if !ds[n] {
			onlyCLI = append(onlyCLI, n)
		}
	}
	for _, n := range d {
		if !cs[n] {
			onlyD = append(onlyD, n)
		}
	}
	return fmt.Sprintf("only the CLI has %v; only the dialect has %v", onlyCLI, onlyD)
}

// printTable logs the agreement table: calls, pools and spawns, per
// category.
func printTable(t *testing.T, all []compared) {
	type row [3][2]int // per kind: agree, total
	rows := map[string]*row{}
	total := &row{}
	for _, c := range all {
		r := rows[c.Group]
		if r == nil {
			r = &row{}
			rows[c.Group] = r
		}
		for _, x := range []*row{r, total} {
			x[c.kind][1]++
			if c.agree() {
				x[c.kind][0]++
			}
		}
	}
	var b strings.Builder
	line := func(name string, r *row) {
		fmt.Fprintf(&b, "%-28s", name)
		for _, k := range r {
			fmt.Fprintf(&b, " %9s", fmt.Sprintf("%d/%d", k[0], k[1]))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n%-28s %9s %9s %9s\n", "category", "calls", "pools", "spawns")
	for _, g := range slices.Sorted(maps.Keys(rows)) {
		line(g, rows[g])
	}
	line("all", total)
	t.Log(b.String())
	if path := os.Getenv("CLAUDECODETEST_REPORT"); path != "" {
		// The full comparison list, for a note.
		sort.Slice(all, func(i, j int) bool { return all[i].key() < all[j].key() })
		js, _ := json.MarshalIndent(all, "", " ")
		_ = os.WriteFile(path, js, 0o644)
	}
}
