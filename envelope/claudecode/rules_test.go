package claudecode

import (
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope"
)

func TestNames(t *testing.T) {
	for _, c := range []struct {
		name       string
		tool, mcp  bool
		agent      bool
		server     string
		serverOnly bool
	}{
		{name: "Read", tool: true, agent: true},
		{name: "mcp__github__get_issue", tool: true, mcp: true, agent: true, server: "github"},
		{name: "mcp__plugin_x_srv__do", tool: true, mcp: true, agent: true, server: "plugin_x_srv"},
		{name: "mcp__github", tool: true, agent: true, serverOnly: true},
		{name: "mcp__github__", tool: true, agent: true},
		{name: "Stop Task"},
		{name: "Read\n"},
		{name: ""},
		{name: strings.Repeat("a", 64), tool: true, agent: true},
		{name: strings.Repeat("a", 65)},
		{name: "code-reviewer", tool: true, agent: true},
		{name: "my.agent", agent: true},
		{name: ".hidden"},
		{name: "-x", tool: true},
	} {
		if got := envelope.ValidToolName(c.name); got != c.tool {
			t.Errorf("envelope.ValidToolName(%q) = %v", c.name, got)
		}
		if got := validMCPName(c.name); got != c.mcp {
			t.Errorf("validMCPName(%q) = %v", c.name, got)
		}
		if got := envelope.ValidAgentName(c.name); got != c.agent {
			t.Errorf("envelope.ValidAgentName(%q) = %v", c.name, got)
		}
		if s, _, _ := mcpServer(c.name); c.server != "" && s != c.server {
			t.Errorf("mcpServer(%q) = %q", c.name, s)
		}
		if _, ok := serverOnly(c.name); ok != c.serverOnly {
			t.Errorf("serverOnly(%q) = %v", c.name, ok)
		}
	}
	if normalizeTool("Task") != "Agent" || normalizeTool("task") != "task" {
		t.Error("Task is the only alias, case-sensitive")
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]string{"default": "default", "manual": "default", "plan": "plan",
		"acceptEdits": "acceptEdits", "bypassPermissions": "bypassPermissions", "dontAsk": "dontAsk",
		"auto": "", "Default": "", "": ""} {
		got, ok := parseMode(in)
		if got != want || ok != (want != "") {
			t.Errorf("parseMode(%q) = %q, %v", in, got, ok)
		}
	}
}

func TestGlobMatch(t *testing.T) {
	for _, c := range []struct {
		p, s string
		want bool
	}{
		{"*", "", true}, {"*", "anything at all", true}, {"B*", "Bash", true}, {"B*", "Read", false},
		{"mcp__github__*", "mcp__github__get", true}, {"mcp__github__*", "mcp__gitlab__get", false},
		{"a*b*c", "aXXbYYc", true}, {"a*b*c", "aXXbYY", false}, {"opus", "claude-opus-5", false},
		{"*opus*", "claude-opus-5", true}, {"", "", true}, {"", "x", false}, {"**", "x", true},
		{"a?c", "abc", false}, // '?' is literal in name globs
	} {
		if got := globMatch(c.p, c.s); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v", c.p, c.s, got)
		}
	}
}

func TestSplitRule(t *testing.T) {
	for _, c := range []struct {
		in, name, spec string
		bad            bool
	}{
		{in: "Bash", name: "Bash"},
		{in: "  Bash  ", name: "Bash"},
		{in: "Bash(npm test)", name: "Bash", spec: "npm test"},
		{in: "Bash( npm test )", name: "Bash", spec: "npm test"},
		{in: " Bash (git push *) ", name: "Bash", spec: "git push *"},
		{in: "Agent(worker, researcher)", name: "Agent", spec: "worker, researcher"},
		{in: "Bash(echo (a))", name: "Bash", spec: "echo (a)"},
		{in: "Stop Task", name: "Stop Task"},
		{in: "Bash(", bad: true},
		{in: "Bash()", bad: true},
		{in: "Bash(  )", bad: true},
		{in: "(x)", bad: true},
		{in: "", bad: true},
		{in: "   ", bad: true},
		{in: "Bash(x) y", bad: true},
	} {
		name, spec, err := splitRule(c.in)
		if (err != nil) != c.bad || !c.bad && (name != c.name || spec != c.spec) {
			t.Errorf("splitRule(%q) = %q, %q, %v", c.in, name, spec, err)
		}
	}
}

func TestCompileRuleKinds(t *testing.T) {
	for _, c := range []struct {
		in    string
		name  string
		nk    nameKind
		sk    specKind
		spec  string
		param string
	}{
		{in: "Bash", name: "Bash", nk: nameExact, sk: specNone},
		{in: "Bash(*)", name: "Bash", sk: specNone},
		{in: "Task", name: "Agent", sk: specNone},
		{in: "Task(Explore)", name: "Agent", sk: specAgentTypes, spec: "Explore"},
		// A domain rule, not the bare rule: Claude Code 2.1.328 keeps
		// WebFetch in the pool under a deny of WebFetch(domain:*) and
		// denies each call (TestDifferential/gentools-domainstar-deny-*).
		{in: "WebFetch(domain:*)", name: "WebFetch", sk: specDomain, spec: "domain:*"},
		{in: "WebFetch(domain:example.com)", name: "WebFetch", sk: specDomain, spec: "domain:example.com"},
		// Claude Code 2.1.328 skips a WebFetch rule without domain: as
		// invalid (TestDifferential/genparams-tools-*:
		// WebFetch(prompt:*secret*) stops no fetch).
		{in: "WebFetch(https://x)", name: "WebFetch", sk: specNothing, spec: "https://x"},
		{in: "WebFetch(prompt:*x*)", name: "WebFetch", sk: specNothing, spec: "prompt:*x*"},
		{in: "WebSearch(query:led*)", name: "WebSearch", sk: specNothing, spec: "query:led*"},
		{in: "WebSearch(query:ledger)", name: "WebSearch", sk: specParam, param: "query", spec: "query:ledger"},
		{in: "Write(content:*key*)", name: "Write", sk: specNothing, spec: "content:*key*"},
		{in: "Write(content:kez*)", name: "Write", sk: specParam, param: "content", spec: "content:kez*"},
		{in: "Read(limit:*)", name: "Read", sk: specNothing, spec: "limit:*"},
		{in: "Read(limit:5)", name: "Read", sk: specParam, param: "limit", spec: "limit:5"},
		{in: "Edit(replace_all:*)", name: "Edit", sk: specNothing, spec: "replace_all:*"},
		{in: "Grep(-i:*)", name: "Grep", sk: specNothing, spec: "-i:*"},
		{in: "Grep(output_mode:*)", name: "Grep", sk: specParam, param: "output_mode", spec: "output_mode:*"},
		{in: "WebFetch(example.com)", name: "WebFetch", sk: specNothing, spec: "example.com"},
		{in: "Bash(npm:*)", name: "Bash", sk: specCommand, spec: "npm:*"},
		{in: "Bash(git:* push)", name: "Bash", sk: specParam, param: "git", spec: "git:* push"},
		{in: "Bash(timeout:30)", name: "Bash", sk: specParam, param: "timeout", spec: "timeout:30"},
		{in: "PowerShell(Get-Item:*)", name: "PowerShell", sk: specPowerShell, spec: "Get-Item:*"},
		{in: "Monitor(tail -f *)", name: "Monitor", sk: specCommand, spec: "tail -f *"},
		{in: "Agent(model:opus)", name: "Agent", sk: specParam, param: "model", spec: "model:opus"},
		{in: "Read(./.env)", name: "Read", sk: specPath, spec: "./.env"},
		{in: "Edit(src/**)", name: "Edit", sk: specPath, spec: "src/**"},
		{in: "Write(build/**)", name: "Write", sk: specNothing, spec: "build/**"},
		{in: "Glob(src/**)", name: "Glob", sk: specNothing, spec: "src/**"},
		{in: "Skill(deploy *)", name: "Skill", sk: specSkill, spec: "deploy *"},
		{in: "mcp__github", name: "mcp__github", nk: nameServer},
		{in: "mcp__github__*", name: "mcp__github__*", nk: nameGlob},
		{in: "mcp__*", name: "mcp__*", nk: nameGlob},
		{in: "*", name: "*", nk: nameGlob},
		{in: "Read(_x9:v)", name: "Read", sk: specParam, param: "_x9", spec: "_x9:v"},
		{in: "Read(9x:v)", name: "Read", sk: specPath, spec: "9x:v"},
	} {
		r, err := compileRule(c.in)
		if err != nil {
			t.Errorf("compileRule(%q): %v", c.in, err)
			continue
		}
		if r.name != c.name || r.nameKind != c.nk || r.specKind != c.sk || r.spec != c.spec || r.param != c.param {
			t.Errorf("compileRule(%q) = name %q kind %d spec %q kind %d param %q", c.in, r.name, r.nameKind, r.spec, r.specKind, r.param)
		}
	}
}

func TestRuleNameMatches(t *testing.T) {
	for _, c := range []struct {
		rule, tool string
		allow      bool // matches in an allow rule
		deny       bool // matches in a deny rule
	}{
		{"Bash", "Bash", true, true},
		{"Bash", "bash", false, false},
		{"Task", "Agent", true, true},
		{"mcp__github", "mcp__github__get_issue", true, true},
		{"mcp__github", "mcp__githubx__get", false, false},
		{"mcp__github", "mcp__plugin_p_github__get", false, false},
		{"mcp__github__*", "mcp__github__get_issue", true, true},
		{"mcp__github__get_*", "mcp__github__get_issue", true, true},
		{"mcp__github__get_*", "mcp__github__create_pr", false, false},
		{"mcp__*", "mcp__github__get_issue", false, true},
		{"*", "Read", false, true},
		{"B*", "Bash", false, true},
		{"mcp__*x*__*", "mcp__axb__t", false, true},
		{"Stop Task", "TaskStop", false, false},
	} {
		r, err := compileRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.nameMatches(c.tool, bAllow); got != c.allow {
			t.Errorf("allow %q vs %q = %v", c.rule, c.tool, got)
		}
		if got := r.nameMatches(c.tool, bDeny); got != c.deny {
			t.Errorf("deny %q vs %q = %v", c.rule, c.tool, got)
		}
	}
}

func TestRuleFamilies(t *testing.T) {
	for _, c := range []struct {
		rule, tool string
		b          behavior
		want       bool
	}{
		{"Edit", "Write", bAllow, false}, // a bare Edit allow approves Edit alone (CLI: TestDifferential/i25-gitignore-semantics, Write n.md asks)
		{"Edit", "NotebookEdit", bDeny, true},
		{"Edit", "MultiEdit", bAsk, true},
		{"Edit", "Read", bAllow, false}, // bare Edit does not grant reading
		{"Edit(src/**)", "Read", bAllow, true},
		{"Edit(src/**)", "Grep", bAllow, true},
		{"Edit(src/**)", "Read", bDeny, false},
		{"Read", "Grep", bDeny, false}, // bare Read is name-level
		{"Read(secrets/**)", "Grep", bDeny, true},
		{"Read(secrets/**)", "LSP", bAllow, true},
		{"Read(secrets/**)", "Edit", bDeny, true},
		{"Read(secrets/**)", "Write", bDeny, true},
		{"Read(secrets/**)", "NotebookEdit", bDeny, false},
		{"Read(secrets/**)", "Edit", bAsk, false},
		{"Read(secrets/**)", "Edit", bAllow, false},
		{"Bash(tail *)", "Monitor", bDeny, true},
		{"Bash", "Monitor", bDeny, false},
		{"Bash(timeout:5)", "Monitor", bDeny, false}, // never for parameter specifiers
		{"Edit(model:x)", "Write", bDeny, false},
		{"Monitor(x)", "Bash", bDeny, false},
	} {
		r, err := compileRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.applies(c.tool, c.b); got != c.want {
			t.Errorf("%s rule %q applies to %q = %v", c.b, c.rule, c.tool, got)
		}
	}
}

func TestCommandPattern(t *testing.T) {
	for _, c := range []struct {
		p, text string
		want    bool
	}{
		{"ls *", "ls", true},
		{"ls *", "ls -la", true},
		{"ls *", "lsof", false},
		{"ls*", "lsof", true},
		{"ls:*", "ls -la", true},
		{"ls:*", "lsof", false},
		{"npm run test *", "npm run test -- --watch", true},
		{"npm run test *", "npm run testx", false},
		{"npm test", "npm test", true},
		{"npm test", "npm test --watch", false},
		{"git * main", "git push origin main", true},
		{"git * main", "git push origin main2", false},
		{"*", "", true},
		{"* --help", "npm --help", true},
		{"aws *", "aws s3 ls", true},
	} {
		cp := compileCommand(c.p)
		if got := cp.match(c.text); got != c.want {
			t.Errorf("command pattern %q vs %q = %v", c.p, c.text, got)
		}
	}
}

func TestToolEntries(t *testing.T) {
	for _, c := range []struct {
		entry      string
		tool       string
		inTools    bool
		disallowed bool
	}{
		{"Read", "Read", true, true},
		{"Task", "Agent", true, true},
		{"Bash(git diff:*)", "Bash", true, true},
		{"*", "Anything", true, true},
		{"mcp__*", "mcp__github__x", false, true},
		{"mcp__*", "Read", false, false},
		{"mcp__github__*", "mcp__github__x", true, true},
		{"mcp__github__*", "mcp__gitlab__x", false, false},
		{"mcp__github", "mcp__github__x", true, true},
		{"mcp__*iteworks*__*", "mcp__Kiteworks__x", false, false},
		{"mcp__kiteworks__*", "mcp__Kiteworks__x", false, false},
		{"mcp__github__get_*", "mcp__github__get_x", false, false},
		{"Re*", "Read", false, false},
		{"mcp___*", "mcp___x", false, false},
	} {
		e, err := compileEntry(c.entry)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.match(c.tool, false); got != c.inTools {
			t.Errorf("tools entry %q vs %q = %v", c.entry, c.tool, got)
		}
		if got := e.match(c.tool, true); got != c.disallowed {
			t.Errorf("disallowed entry %q vs %q = %v", c.entry, c.tool, got)
		}
	}
	e, _ := compileEntry("Agent(worker, researcher )")
	if len(e.types) != 2 || e.types[1] != "researcher" {
		t.Errorf("Agent types = %q", e.types)
	}
}

func TestSplitToolsString(t *testing.T) {
	for in, want := range map[string]string{
		"Agent(worker, researcher), Read": "Agent(worker, researcher)|Read",
		" Read ,Grep,, ":                  "Read|Grep",
		"":                                "",
		"Bash(a,(b,c)),X":                 "Bash(a,(b,c))|X",
	} {
		if got := strings.Join(SplitToolList(in), "|"); got != want {
			t.Errorf("SplitToolList(%q) = %q, want %q", in, got, want)
		}
	}
}
