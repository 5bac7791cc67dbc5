package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/envelope/openclaw"
)

const importData = "../../internal/importer/claudecode/testdata/"

// ocImportData holds the OpenClaw importer's test configs and goldens.
const ocImportData = "../../internal/importer/openclaw/testdata/"

// importCLI runs ledger with args and returns stdout, stderr and the exit
// status main would use.
func importCLI(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), args, strings.NewReader(stdin), &stdout, &stderr)
	code := exitCode(err, &stderr)
	return stdout.String(), stderr.String(), code
}

// goldenDocument is the document of one of the importer's golden files.
func goldenDocument(t *testing.T, name string) string {
	t.Helper()
	dir := importData
	if strings.HasPrefix(name, "openclaw") {
		dir = ocImportData
	}
	src, err := os.ReadFile(dir + "golden/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Document json.RawMessage `json:"document"`
	}
	if err := json.Unmarshal(src, &g); err != nil {
		t.Fatal(err)
	}
	return compactJSON(t, g.Document)
}

func compactJSON(t *testing.T, raw []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, raw)
	}
	return b.String()
}

// policyEvent is the policy.set event as printed.
type policyEvent struct {
	Type  string `json:"type"`
	V     int    `json:"v"`
	Actor string `json:"actor"`
	Data  struct {
		Dialect   string          `json:"dialect"`
		Document  json.RawMessage `json:"document"`
		Catalogue []string        `json:"catalogue"`
	} `json:"data"`
}

func parseEvent(t *testing.T, line string) policyEvent {
	t.Helper()
	if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") {
		t.Fatalf("the event is not one line: %q", line)
	}
	var ev policyEvent
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ev); err != nil {
		t.Fatalf("event %s: %v", line, err)
	}
	if ev.Type != "policy.set" || ev.V != 1 || ev.Actor != "ledger-import" {
		t.Errorf("event header = %s %d %s, want policy.set 1 ledger-import", ev.Type, ev.V, ev.Actor)
	}
	return ev
}

// noClaudeUser points the user scope of claude-code imports at an empty
// directory, so that the tests do not read the ~/.claude of whoever runs
// them.
func noClaudeUser(t *testing.T) {
	t.Helper()
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
}

// builtInCatalogue is the catalogue an import without --catalogue carries.
func builtInCatalogue(t *testing.T) []string {
	t.Helper()
	cat, ok := claudecode.Catalogue(claudecode.LatestRelease)
	if !ok || len(cat) == 0 {
		t.Fatalf("no built-in catalogue for Claude Code %s", claudecode.LatestRelease)
	}
	return cat
}

func TestPolicyImportEvents(t *testing.T) {
	noClaudeUser(t)
	dir := t.TempDir()
	listFile := filepath.Join(dir, "tools.txt")
	jsonFile := filepath.Join(dir, "tools.json")
	os.WriteFile(listFile, []byte("# the tools of this gateway\nread\n\nexec\n  browser  \n"), 0o644)
	os.WriteFile(jsonFile, []byte(`["Read", "Edit", "Bash"]`), 0o644)
	openclaw, err := os.ReadFile(ocImportData + "openclaw.json5")
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name      string
		stdin     string
		args      []string
		dialect   string
		golden    string
		catalogue []string
		warning   string // a line stderr must contain
	}{
		// With no --catalogue or --tools, the release's core tools (issue
		// 26, point 5: a guessed tools.txt missed tools OpenClaw offered).
		{"openclaw", "", []string{"--dialect", "openclaw", ocImportData + "openclaw.json5"},
			"openclaw", "openclaw.json", openclawCore(t),
			ocImportData + "openclaw.json5:7:3: warning: dropped gateway: not part of the openclaw policy document"},
		{"openclaw from stdin with --tools", string(openclaw), []string{"--dialect", "openclaw", "--tools", "read, exec,browser", "-"},
			"openclaw", "openclaw.json", []string{"read", "exec", "browser"},
			"<stdin>:56:5: warning: converted agents.entries to agents.list (2 agents: intake, coder)"},
		{"openclaw list with a catalogue file", "", []string{"--catalogue", listFile, "--dialect=openclaw", ocImportData + "openclaw-list.json5"},
			"openclaw", "openclaw-list.json", []string{"read", "exec", "browser"}, "warning: dropped agents.list[0].default"},
		{"claude-code project", "", []string{"--dialect", "claude-code", "--catalogue", jsonFile, importData + "claude-project"},
			"claude-code", "claude-code.json", []string{"Read", "Edit", "Bash"},
			importData + "claude-project/.claude/settings.json:3:3: warning: dropped model: not part of the claude-code policy document"},
		{"claude-code .claude directory with options", "", []string{"--dialect", "claude-code", "--built-in-agents", "Explore, Plan",
			"--max-subagent-depth", "4", importData + "claude-project/.claude"},
			"claude-code", "claude-code-options.json", builtInCatalogue(t), "replaces CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH=2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := importCLI(t, tt.stdin, append([]string{"policy", "import"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			ev := parseEvent(t, stdout)
			if ev.Data.Dialect != tt.dialect {
				t.Errorf("dialect = %q, want %q", ev.Data.Dialect, tt.dialect)
			}
			if got, want := compactJSON(t, ev.Data.Document), goldenDocument(t, tt.golden); got != want {
				t.Errorf("document\n got %s\nwant %s", got, want)
			}
			if strings.Join(ev.Data.Catalogue, ",") != strings.Join(tt.catalogue, ",") {
				t.Errorf("catalogue = %q, want %q", ev.Data.Catalogue, tt.catalogue)
			}
			if !strings.Contains(stdout, `"catalogue"`) != (tt.catalogue == nil) {
				t.Errorf("catalogue present = %v, want %v", strings.Contains(stdout, `"catalogue"`), tt.catalogue != nil)
			}
			if !strings.Contains(stderr, tt.warning) {
				t.Errorf("stderr lacks %q:\n%s", tt.warning, stderr)
			}
		})
	}
}

// openclawCore is the newest pinned OpenClaw release's core catalogue.
func openclawCore(t *testing.T) []string {
	t.Helper()
	cat, ok := openclaw.Catalogue("")
	if !ok || len(cat) < 20 || cat[0] == "" {
		t.Fatalf("no core catalogue: %v", cat)
	}
	return cat
}

// TestOpenClawDefaultCatalogue: the default catalogue of an openclaw
// import adds the tools pluginTools marks to the release's core tools,
// each once, plugins in name order.
func TestOpenClawDefaultCatalogue(t *testing.T) {
	doc := `{"tools":{"deny":["group:plugins"]},"pluginTools":{"zeta":["zeta_tool","browser"],"acme":["acme_search"]}}`
	cat := openclawCatalogue(json.RawMessage(doc))
	core := openclawCore(t)
	if len(cat) != len(core)+2 || cat[len(core)] != "acme_search" || cat[len(core)+1] != "zeta_tool" {
		t.Fatalf("catalogue %v", cat[len(core):])
	}
	if openclawCatalogue(json.RawMessage(`{"nope":1}`)) != nil {
		t.Fatal("a document the dialect refuses got a catalogue")
	}
}

func TestPolicyImportOutputs(t *testing.T) {
	src := ocImportData + "openclaw.json5"
	want := goldenDocument(t, "openclaw.json")

	t.Run("document only", func(t *testing.T) {
		stdout, _, code := importCLI(t, "", "policy", "import", "--dialect", "openclaw", "--document", src)
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		if got := compactJSON(t, []byte(stdout)); got != want {
			t.Errorf("document\n got %s\nwant %s", got, want)
		}
	})
	t.Run("json with warnings, quiet stderr", func(t *testing.T) {
		stdout, stderr, code := importCLI(t, "", "policy", "import", "--dialect", "openclaw", "--json", src)
		if code != 0 || stderr != "" {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		var out struct {
			Event    *policyEvent `json:"event"`
			Warnings []struct {
				File    string `json:"file"`
				Line    int    `json:"line"`
				Column  int    `json:"column"`
				Path    string `json:"path"`
				Message string `json:"message"`
			} `json:"warnings"`
		}
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatal(err)
		}
		if out.Event == nil || compactJSON(t, out.Event.Data.Document) != want {
			t.Errorf("event = %+v", out.Event)
		}
		if len(out.Warnings) != 25 {
			t.Errorf("%d warnings, want 25", len(out.Warnings))
		}
		w := out.Warnings[2]
		if w.File != src || w.Line != 7 || w.Column != 3 || w.Path != "gateway" || !strings.HasPrefix(w.Message, "dropped gateway") {
			t.Errorf("warning 2 = %+v", w)
		}
	})
	t.Run("json document", func(t *testing.T) {
		stdout, _, code := importCLI(t, "", "policy", "import", "--dialect", "openclaw", "--json", "--document", src)
		var out struct {
			Event    json.RawMessage   `json:"event"`
			Document json.RawMessage   `json:"document"`
			Warnings []json.RawMessage `json:"warnings"`
		}
		if err := json.Unmarshal([]byte(stdout), &out); code != 0 || err != nil {
			t.Fatalf("exit %d, %v", code, err)
		}
		if out.Event != nil || compactJSON(t, out.Document) != want || len(out.Warnings) == 0 {
			t.Errorf("output = %s", stdout)
		}
	})
	t.Run("no warnings is an empty list", func(t *testing.T) {
		stdout, _, code := importCLI(t, `{tools: {deny: ['exec']}}`, "policy", "import", "--dialect", "openclaw", "--json", "-")
		if code != 0 || !strings.Contains(stdout, `"warnings": []`) {
			t.Errorf("exit %d, output %s", code, stdout)
		}
	})
	t.Run("output file", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "policy.jsonl")
		stdout, _, code := importCLI(t, "", "policy", "import", "--dialect", "openclaw", "-o", out, src)
		if code != 0 || stdout != "" {
			t.Fatalf("exit %d, stdout %q", code, stdout)
		}
		written, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		direct, _, _ := importCLI(t, "", "policy", "import", "--dialect", "openclaw", src)
		if string(written) != direct {
			t.Errorf("file holds\n%s\nstdout gives\n%s", written, direct)
		}
	})
}

func TestPolicyImportRefusals(t *testing.T) {
	noClaudeUser(t)
	m := importData + "malformed/"
	om := ocImportData + "malformed/"
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"syntax error", []string{"--dialect", "openclaw", om + "missing-comma.json5"}, 1,
			om + "missing-comma.json5:12:5: expected ',' or '}' after object member\n"},
		{"settings rule the dialect refuses", []string{"--dialect", "claude-code", m + "claude-invalid"}, 1,
			m + "claude-invalid/.claude/settings.json:4:14: invalid claude-code policy: "},
		{"dialect refuses the values", []string{"--dialect", "openclaw", om + "invalid-policy.json5"}, 1,
			om + "invalid-policy.json5:8:30: invalid openclaw policy: agents.defaults.subagents.maxSpawnDepth must be an integer from 1 to 5, got 9\n"},
		{"dialect refuses the catalogue", []string{"--dialect", "claude-code", "--tools", "Read,Read", importData + "claude-project"}, 1,
			"invalid claude-code policy: "},
		{"missing file", []string{"--dialect", "openclaw", om + "nope.json5"}, 1, "no such file"},
		{"no dialect", []string{om + "missing-comma.json5"}, 2, "policy import needs --dialect"},
		{"unknown dialect", []string{"--dialect", "crewai", "x"}, 2, `unknown dialect "crewai"`},
		{"no path", []string{"--dialect", "openclaw"}, 2, "policy import takes one PATH"},
		{"two catalogues", []string{"--dialect", "openclaw", "--tools", "a", "--catalogue", "f", "x"}, 2, "not both"},
		{"claude-code option for openclaw", []string{"--dialect", "openclaw", "--built-in-agents", "false", "x"}, 2, "claude-code options"},
		{"user config for openclaw", []string{"--dialect", "openclaw", "--user-config", "none", "x"}, 2, "claude-code options"},
		{"--follow-symlinks for openclaw", []string{"--dialect", "openclaw", "--follow-symlinks", "x"}, 2, "claude-code options"},
		{"a config that is a device", []string{"--dialect", "openclaw", "/dev/zero"}, 1, "/dev/zero: not a regular file: a character device: nothing was imported"},
		{"user config not a directory", []string{"--dialect", "claude-code", "--user-config", m + "nope", importData + "claude-project"}, 1,
			"--user-config " + m + "nope: not a directory"},
		{"empty --tools", []string{"--dialect", "openclaw", "--tools", " , ", om + "missing-comma.json5"}, 2, "--tools names no tools"},
		{"unknown flag", []string{"--dialect", "openclaw", "--bogus", "x"}, 2, "flag provided but not defined: -bogus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.jsonl")
			args := append([]string{"policy", "import", "-o", out}, tt.args...)
			stdout, stderr, code := importCLI(t, "", args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tt.stderr)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("output file written on refusal (%v)", err)
			}
		})
	}
}

func TestPolicyImportHelp(t *testing.T) {
	stdout, stderr, code := importCLI(t, "", "policy", "import", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	help := stdout + stderr
	for _, flag := range []string{"-dialect", "-catalogue", "-tools", "-document", "-json", "-o FILE", "-built-in-agents", "-max-subagent-depth",
		"-strict", "-user-config DIR", "-follow-symlinks", "named pipe", "8 MiB", "docs/importer-claude-code.md"} {
		if !strings.Contains(help, flag) {
			t.Errorf("--help does not document %s:\n%s", flag, help)
		}
	}
	if out, _, code := importCLI(t, "", "policy", "--help"); code != 0 || !strings.Contains(out, "ledger policy import") {
		t.Errorf("policy --help: exit %d, %q", code, out)
	}
}

const ccProject = importData + "importer-claude-code/project"

// TestPolicyImportClaudeCodeProject imports a project as Claude Code loads
// it, with the user scope given: the event (built-in catalogue included)
// and the warnings are golden files.
func TestPolicyImportClaudeCodeProject(t *testing.T) {
	noClaudeUser(t)
	stdout, stderr, code := importCLI(t, "", "policy", "import", "--dialect", "claude-code",
		"--user-config", importData+"importer-claude-code/user", ccProject)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	ev := parseEvent(t, stdout)
	if strings.Join(ev.Data.Catalogue, ",") != strings.Join(builtInCatalogue(t), ",") {
		t.Errorf("catalogue = %q, want the built-in one of %s", ev.Data.Catalogue, claudecode.LatestRelease)
	}
	// The catalogue is the dialect's table, checked above; the golden file
	// holds the rest of the event.
	cat, _ := json.Marshal(builtInCatalogue(t))
	golden(t, "import-claude-code.jsonl", strings.Replace(stdout, `"catalogue":`+string(cat), `"catalogue":"BUILT-IN"`, 1))
	golden(t, "import-claude-code-warnings.txt", stderr)
}

// TestPolicyImportUserConfig checks where the user scope comes from:
// CLAUDE_CONFIG_DIR (as in Claude Code), --user-config, or none.
func TestPolicyImportUserConfig(t *testing.T) {
	user := importData + "importer-claude-code/user"
	deny := func(t *testing.T, stdout string) string {
		t.Helper()
		var doc struct {
			Permissions struct {
				Deny []string `json:"deny"`
			} `json:"permissions"`
			Agents map[string]json.RawMessage `json:"agents"`
		}
		if err := json.Unmarshal(parseEvent(t, stdout).Data.Document, &doc); err != nil {
			t.Fatal(err)
		}
		_, scratch := doc.Agents["scratchpad"]
		return strings.Join(doc.Permissions.Deny, ",") + " scratchpad=" + map[bool]string{true: "yes", false: "no"}[scratch]
	}
	tests := []struct {
		name string
		env  string // CLAUDE_CONFIG_DIR
		args []string
		want string
	}{
		{"CLAUDE_CONFIG_DIR is the default", user, nil, "WebFetch,Read(./.env),Read(./.env.*),Bash(curl *) scratchpad=yes"},
		{"an empty CLAUDE_CONFIG_DIR reads nothing", t.TempDir(), nil, "Read(./.env),Read(./.env.*),Bash(curl *) scratchpad=no"},
		{"--user-config names the directory", t.TempDir(), []string{"--user-config", user}, "WebFetch,Read(./.env),Read(./.env.*),Bash(curl *) scratchpad=yes"},
		{"--user-config none", user, []string{"--user-config", "none"}, "Read(./.env),Read(./.env.*),Bash(curl *) scratchpad=no"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CLAUDE_CONFIG_DIR", tt.env)
			args := append([]string{"policy", "import", "--dialect", "claude-code"}, tt.args...)
			stdout, stderr, code := importCLI(t, "", append(args, ccProject)...)
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			if got := deny(t, stdout); got != tt.want {
				t.Errorf("deny rules and user agent\n got %s\nwant %s", got, tt.want)
			}
		})
	}
	t.Run("HOME/.claude without CLAUDE_CONFIG_DIR", func(t *testing.T) {
		home := t.TempDir()
		if err := os.CopyFS(filepath.Join(home, ".claude"), os.DirFS(user)); err != nil {
			t.Fatal(err)
		}
		t.Setenv("CLAUDE_CONFIG_DIR", "")
		t.Setenv("HOME", home)
		stdout, stderr, code := importCLI(t, "", "policy", "import", "--dialect", "claude-code", ccProject)
		if code != 0 {
			t.Fatalf("exit %d, stderr:\n%s", code, stderr)
		}
		if got, want := deny(t, stdout), "WebFetch,Read(./.env),Read(./.env.*),Bash(curl *) scratchpad=yes"; got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	})
}

// TestPolicyImportStrict: a file Claude Code would not load is skipped with
// a warning and the rest imports; --strict turns any warning into exit 1
// with nothing written.
func TestPolicyImportStrict(t *testing.T) {
	noClaudeUser(t)
	m := importData + "malformed/"
	warning := m + "claude-no-fm/.claude/agents/notes.md:1:1: warning: skipped: no front matter"

	stdout, stderr, code := importCLI(t, "", "policy", "import", "--dialect", "claude-code", m+"claude-no-fm")
	if code != 0 || !strings.Contains(stderr, warning) {
		t.Fatalf("without --strict: exit %d, stderr %q", code, stderr)
	}
	parseEvent(t, stdout)

	out := filepath.Join(t.TempDir(), "policy.jsonl")
	for _, extra := range [][]string{nil, {"--json"}} {
		args := append([]string{"policy", "import", "--dialect", "claude-code", "--strict", "-o", out}, extra...)
		stdout, stderr, code = importCLI(t, "", append(args, m+"claude-no-fm")...)
		if code != 1 || stdout != "" {
			t.Errorf("--strict %v: exit %d, stdout %q", extra, code, stdout)
		}
		// With --json the error is JSON, as every command's is.
		wantErr := "ledger: --strict: 1 warning, so nothing was written"
		if extra != nil {
			wantErr = `{"error":{"code":"error","message":"--strict: 1 warning, so nothing was written"}}`
		}
		if !strings.Contains(stderr, warning) || !strings.Contains(stderr, wantErr) {
			t.Errorf("--strict %v: stderr %q", extra, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("--strict %v wrote %s (%v)", extra, out, err)
		}
	}

	// A clean project passes --strict.
	clean := t.TempDir()
	os.MkdirAll(filepath.Join(clean, ".claude", "agents"), 0o755)
	os.WriteFile(filepath.Join(clean, ".claude", "agents", "a.md"), []byte("---\nname: a\ndescription: d\ntools: Read\n---\n"), 0o644)
	if stdout, stderr, code := importCLI(t, "", "policy", "import", "--dialect", "claude-code", "--strict", clean); code != 0 || stderr != "" {
		t.Errorf("clean project with --strict: exit %d, stderr %q", code, stderr)
	} else {
		parseEvent(t, stdout)
	}
}

// TestPolicyImportAppends appends an imported project (no --catalogue) to a
// ledger and starts sessions under it: the main thread and a spawn of an
// imported agent get the tools Claude Code gives them.
func TestPolicyImportAppends(t *testing.T) {
	noClaudeUser(t)
	policy, stderr, code := importCLI(t, "", "policy", "import", "--dialect", "claude-code", "--user-config", importData+"importer-claude-code/user", ccProject)
	if code != 0 {
		t.Fatalf("import: exit %d\n%s", code, stderr)
	}
	data := filepath.Join(t.TempDir(), "data")
	events := policy +
		`{"type": "session.started", "v": 1, "actor": "test", "session": "lead", "data": {"agent": "main"}}` + "\n" +
		`{"type": "turn.started", "v": 1, "actor": "test", "session": "lead", "data": {"turn": 1}}` + "\n" +
		`{"type": "session.spawned", "v": 1, "actor": "test", "session": "lead:review", "data": {"parent": "lead", "agent": "code-reviewer"}}` + "\n" +
		`{"type": "session.spawned", "v": 1, "actor": "test", "session": "lead:tests", "data": {"parent": "lead", "agent": "test-writer"}}` + "\n"
	out, errOut, err := runCLI(t, events, "append", "--data", data, "--json")
	if err != nil {
		t.Fatalf("append: %v\n%s%s", err, out, errOut)
	}
	for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct {
			Seq   int    `json:"seq"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Error != "" || r.Seq != i+1 {
			t.Errorf("event %d: %s", i+1, line)
		}
	}
	tools := func(session string) (allowed, denied []string) {
		t.Helper()
		out, errOut, err := runCLI(t, "", "tools", "--json", "--data", data, "--session", session)
		if err != nil {
			t.Fatalf("tools %s: %v\n%s", session, err, errOut)
		}
		var v struct {
			Tools struct {
				Allowed []string `json:"allowed"`
				Denied  []struct {
					Tool string `json:"tool"`
				} `json:"denied"`
			} `json:"tools"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatal(err)
		}
		for _, d := range v.Tools.Denied {
			denied = append(denied, d.Tool)
		}
		return v.Tools.Allowed, denied
	}
	// Only what each agent's tools: list names (whether Grep and Glob join
	// Bash is the dialect's business, not the import's).
	has := func(allowed []string, want, not string) bool {
		set := "," + strings.Join(allowed, ",") + ","
		for _, w := range strings.Split(want, ",") {
			if !strings.Contains(set, ","+w+",") {
				return false
			}
		}
		for _, n := range strings.Split(not, ",") {
			if strings.Contains(set, ","+n+",") {
				return false
			}
		}
		return true
	}
	// code-reviewer: "tools: Read, Grep, Glob, Bash(git diff *), Bash(git log *)".
	if allowed, _ := tools("lead:review"); !has(allowed, "Read,Bash", "Edit,Write,Agent,WebFetch") {
		t.Errorf("code-reviewer's tools = %q, want Read and Bash, no Edit, Write, Agent or WebFetch", allowed)
	}
	// test-writer: "tools: Read, Write, Edit, Bash(npm test *)".
	if allowed, _ := tools("lead:tests"); !has(allowed, "Read,Write,Edit,Bash", "Agent,WebFetch") {
		t.Errorf("test-writer's tools = %q, want Read, Write, Edit and Bash, no Agent or WebFetch", allowed)
	}
	// The main thread: the built-in catalogue less the user's deny of WebFetch.
	if allowed, _ := tools("lead"); !has(allowed, "Agent,Read,Edit,Write,Bash", "WebFetch") {
		t.Errorf("the main thread's tools = %q, want Agent, Read, Edit, Write and Bash, not WebFetch", allowed)
	}
}

// TestPolicyImportFollowSymlinks: a link out of the project refuses the
// import, naming the link, until --follow-symlinks.
func TestPolicyImportFollowSymlinks(t *testing.T) {
	noClaudeUser(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "settings.json"), []byte(`{"permissions": {"deny": ["WebFetch"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, ".claude", "settings.json")
	if err := os.Symlink(filepath.Join(outside, "settings.json"), link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	stdout, stderr, code := importCLI(t, "", "policy", "import", "--dialect", "claude-code", "--document", root)
	if want := link + ": is a symbolic link to " + filepath.Join(outside, "settings.json"); code != 1 || stdout != "" || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1 and %q", code, stdout, stderr, want)
	}
	stdout, stderr, code = importCLI(t, "", "policy", "import", "--dialect", "claude-code", "--document", "--follow-symlinks", root)
	if code != 0 || !strings.Contains(stdout, "WebFetch") {
		t.Errorf("--follow-symlinks: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestPolicyImportStdinLimit: standard input is read no further than the
// limit.
func TestPolicyImportStdinLimit(t *testing.T) {
	big := "{x: '" + strings.Repeat("a", 8<<20) + "'}"
	_, stderr, code := importCLI(t, big, "policy", "import", "--dialect", "openclaw", "-")
	if code != 1 || !strings.Contains(stderr, "<stdin>: larger than the limit of 8 MiB") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
