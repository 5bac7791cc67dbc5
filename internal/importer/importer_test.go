package importer

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/internal/dialects"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

var _ Compiler = envelope.Dialect(nil)

// golden is what a golden file holds: the document and the warnings.
type golden struct {
	Document json.RawMessage `json:"document"`
	Warnings []Warning       `json:"warnings"`
}

func checkGolden(t *testing.T, name string, r *Result) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(golden{r.Document, r.Warnings}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/importer -update)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s differs from the import (run go test ./internal/importer -update and review the diff):\n%s", file, buf.Bytes())
	}
}

// readFile reads a test input; the name in errors is the path as given.
func readFile(t testing.TB, path string) []byte {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestImportGolden(t *testing.T) {
	tests := []struct {
		name   string
		golden string
		run    func() (*Result, error)
	}{
		{"openclaw with agents.entries and unrelated sections", "openclaw.json", func() (*Result, error) {
			return OpenClaw("testdata/openclaw.json5", readFile(t, "testdata/openclaw.json5"))
		}},
		{"openclaw with agents.list", "openclaw-list.json", func() (*Result, error) {
			return OpenClaw("testdata/openclaw-list.json5", readFile(t, "testdata/openclaw-list.json5"))
		}},
		{"claude-code project root", "claude-code.json", func() (*Result, error) {
			return ClaudeCode("testdata/claude-project", ClaudeCodeOptions{})
		}},
		{"claude-code .claude directory", "claude-code.json", func() (*Result, error) {
			return ClaudeCode("testdata/claude-project/.claude", ClaudeCodeOptions{})
		}},
		{"claude-code with command-line options", "claude-code-options.json", func() (*Result, error) {
			return ClaudeCode("testdata/claude-project", ClaudeCodeOptions{BuiltInAgents: "Explore, Plan", MaxSubagentDepth: 4})
		}},
	}
	all := dialects.All()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.run()
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.golden, r)
			d, ok := all[r.Dialect]
			if !ok {
				t.Fatalf("no %s dialect registered", r.Dialect)
			}
			if err := r.Check(d, nil); err != nil {
				t.Errorf("the dialect refuses the imported document: %v", err)
			}
		})
	}
}

func TestImportRefusals(t *testing.T) {
	m := "testdata/malformed/"
	tests := []struct {
		name string
		path string // a .json5 file is an openclaw config, anything else a claude-code project
		want string
	}{
		{"missing comma", m + "missing-comma.json5", m + "missing-comma.json5:12:5: expected ',' or '}' after object member"},
		{"unclosed string", m + "unclosed-string.json5", m + "unclosed-string.json5:3:21: unterminated string: line break before the closing ' (end the line with '\\' to continue a string)"},
		{"string where a list belongs", m + "wrong-type.json5", m + "wrong-type.json5:4:11: tools.deny must be a list of strings, got string"},
		{"number in a tool list", m + "list-of-numbers.json5", m + "list-of-numbers.json5:4:43: agents.list[0].tools.allow[1] must be a string, got number"},
		{"NaN depth", m + "nan-depth.json5", m + "nan-depth.json5:2:53: agents.defaults.subagents.maxSpawnDepth must be an integer, got NaN"},
		{"repeated key", m + "duplicate-key.json5", m + `duplicate-key.json5:4:3: duplicate key "tools" (first written at 2:3)`},
		{"an id in an entry", m + "entries-id.json5", m + `entries-id.json5:4:16: openclaw 2026.9.6 refuses the config: agents.entries.coder: unrecognized key: "id"`},
		{"agent in list and entries", m + "duplicate-agent.json5", m + `duplicate-agent.json5:3:5: openclaw 2026.9.6 refuses the config: agents: unrecognized key: "list"`},
		{"not a project", m, m + ": no .claude directory here: give the project root or its .claude directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r *Result
			var err error
			if strings.HasSuffix(tt.path, ".json5") {
				r, err = OpenClaw(tt.path, readFile(t, tt.path))
			} else {
				r, err = ClaudeCode(tt.path, ClaudeCodeOptions{})
			}
			if err == nil {
				t.Fatalf("import succeeded with %s, want error %q", r.Document, tt.want)
			}
			if _, ok := err.(*Error); !ok {
				t.Errorf("error is %T, want *Error", err)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

// TestCheckPlacesDialectErrors checks that the dialect's own refusals are
// located in the files the offending keys came from.
func TestCheckPlacesDialectErrors(t *testing.T) {
	all := dialects.All()
	m := "testdata/malformed/"
	tests := []struct {
		name string
		run  func() (*Result, error)
		want []string
	}{
		{"openclaw values", func() (*Result, error) {
			return OpenClaw(m+"invalid-policy.json5", readFile(t, m+"invalid-policy.json5"))
		}, []string{
			m + "invalid-policy.json5:3:3: invalid openclaw policy: tools: allow and alsoAllow may not both be set; list the extra tools in allow, or drop allow and keep alsoAllow",
			m + "invalid-policy.json5:8:30: invalid openclaw policy: agents.defaults.subagents.maxSpawnDepth must be an integer from 1 to 5, got 9",
			m + `invalid-policy.json5:10:27: invalid openclaw policy: agents.list[0].sandbox.mode must be "off", "non-main" or "all", got "sometimes"`,
		}},
		{"claude-code rule", func() (*Result, error) {
			return ClaudeCode(m+"claude-invalid", ClaudeCodeOptions{})
		}, []string{
			m + "claude-invalid/.claude/settings.json:4:14: invalid claude-code policy: ",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.run()
			if err != nil {
				t.Fatal(err)
			}
			err = r.Check(all[r.Dialect], nil)
			if err == nil {
				t.Fatalf("Check accepted %s", r.Document)
			}
			got := strings.Split(err.Error(), "\n")
			if len(got) != len(tt.want) {
				t.Fatalf("Check = %d problems, want %d:\n%v", len(got), len(tt.want), err)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("problem %d\n got %s\nwant %s...", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestOpenClawShapes(t *testing.T) {
	// Every document names the release it was validated for.
	const rel = `"release":"2026.9.6"`
	tests := []struct {
		name     string
		in       string
		want     string
		warnings []string
	}{
		{"empty config", `{}`, `{` + rel + `}`, nil},
		{"only unrelated sections", `{gateway: {port: 1}}`, `{` + rel + `}`,
			[]string{"t:1:2: warning: dropped gateway: not part of the openclaw policy document"}},
		{"emptied sections are left out", `{channels: {slack: {botToken: 'x'}}, tools: {web: {}}}`, `{` + rel + `}`, []string{
			"t:1:21: warning: dropped channels.slack.botToken: not part of the openclaw policy document",
			"t:1:46: warning: dropped tools.web: not part of the openclaw policy document",
		}},
		{"sections written empty are kept", `{tools: {}, channels: {}}`, `{` + rel + `,"tools":{},"channels":{}}`, nil},
		{"an emptied agent keeps its place", `{agents: {ownership: 'explicit', list: [{id: 'x', name: 'x'}, {id: 'y'}]}}`, `{` + rel + `,"agents":{"list":[{"id":"x"},{"id":"y"}]}}`,
			[]string{
				"t:1:11: warning: dropped agents.ownership: not part of the openclaw policy document",
				"t:1:51: warning: dropped agents.list[0].name: not part of the openclaw policy document",
			}},
		{"entries get their normalized key as id", `{agents: {ownership: 'explicit', entries: {Coder: {}, b: {sandbox: {mode: 'all'}}}}}`,
			`{` + rel + `,"agents":{"list":[{"id":"coder"},{"id":"b","sandbox":{"mode":"all"}}]}}`,
			[]string{
				"t:1:11: warning: dropped agents.ownership: not part of the openclaw policy document",
				"t:1:34: warning: converted agents.entries to agents.list (2 agents: Coder, b)",
				`t:1:44: warning: agents.entries key "Coder" is agent "coder" (OpenClaw normalizes agent ids)`,
			}},
		{"exec and fs kept as written", `{tools: {exec: {host: 'sandbox', safeBins: ['jq']}, fs: {}}}`,
			`{` + rel + `,"tools":{"exec":{"host":"sandbox","safeBins":["jq"]},"fs":{}}}`, nil},
		{"quoted keys in paths", `{tools: {byProvider: {'openai/gpt-5': {profile: 'minimal'}}}}`, `{` + rel + `,"tools":{"byProvider":{"openai/gpt-5":{"profile":"minimal"}}}}`, nil},
		{"hex and plus numbers become JSON", `{agents: {defaults: {subagents: {maxSpawnDepth: 0x3, maxChildrenPerAgent: +4}}}}`,
			`{` + rel + `,"agents":{"defaults":{"subagents":{"maxSpawnDepth":3,"maxChildrenPerAgent":4}}}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := OpenClaw("t", []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(r.Document) != tt.want {
				t.Errorf("document\n got %s\nwant %s", r.Document, tt.want)
			}
			var got []string
			for _, w := range r.Warnings {
				got = append(got, w.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.warnings, "\n") {
				t.Errorf("warnings\n got %q\nwant %q", got, tt.warnings)
			}
		})
	}
}

// TestOpenClawRefusesWhatTheReleaseRefuses: configs OpenClaw 2026.9.6's
// own validator refuses (tests/openclawdiff checks the same against the
// package), each refusal placed where the offending key or value is.
func TestOpenClawRefusesWhatTheReleaseRefuses(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"unknown root key", `{toolz: {}}`, `t:1:2: openclaw 2026.9.6 refuses the config: unrecognized key: "toolz"`},
		{"unknown tools key", `{tools: {denny: ['exec']}}`, `t:1:10: openclaw 2026.9.6 refuses the config: tools: unrecognized key: "denny"`},
		{"unknown exec key", `{tools: {exec: {weird: 1}}}`, `t:1:17: openclaw 2026.9.6 refuses the config: tools.exec: unrecognized key: "weird"`},
		{"a dropped section's value", `{gateway: {port: 'x'}}`, `t:1:18: openclaw 2026.9.6 refuses the config: gateway.port: invalid input: expected integer, received string`},
		{"a multi-agent roster without ownership", `{agents: {entries: {a: {}, b: {}}}}`, `t:1:10: openclaw 2026.9.6 refuses the config: agents.ownership: multi-agent rosters require agents.ownership="explicit"`},
		{"an agent id that is not canonical in agents.list", `{agents: {list: [{id: 'Coder'}]}}`, `t:1:11: openclaw 2026.9.6 refuses the config: agents: agents.list is kept only when OpenClaw can move it to agents.entries: agents.list[0].id "Coder" is not a canonical agent id (write "coder")`},
		{"an agent key that is no id", `{agents: {entries: {'my agent': {}}}}`, `t:1:21: openclaw 2026.9.6 refuses the config: agents.entries: key "my agent": invalid string`},
		{"two keys for one agent", `{agents: {ownership: 'explicit', entries: {coder: {}, Coder: {}}}}`, `t:1:55: openclaw 2026.9.6 refuses the config: agents.entries: agents.entries keys "coder" and "Coder" resolve to the same agent id "coder"`},
		{"delegateToolsTo is the ledger's", `{agents: {entries: {a: {subagents: {delegateToolsTo: ['b']}}}}}`, `t:1:37: openclaw 2026.9.6 refuses the config: agents.entries.a.subagents: unrecognized key: "delegateToolsTo"`},
		{"a list with entries", `{agents: {list: [{id: 'a'}], entries: {b: {}}}}`, `t:1:11: openclaw 2026.9.6 refuses the config: agents: unrecognized key: "list"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := OpenClaw("t", []byte(tt.in))
			if err == nil {
				t.Fatalf("imported %s, want a refusal", r.Document)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error\n got %s\nwant %s...", err, tt.want)
			}
		})
	}
}

func TestSplitTools(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Read", []string{"Read"}},
		{" Read , Edit ", []string{"Read", "Edit"}},
		{"Agent(worker, researcher), Read", []string{"Agent(worker, researcher)", "Read"}},
		{"Bash(a (b, c)), d", []string{"Bash(a (b, c))", "d"}},
		{"a),b", []string{"a)", "b"}},
		{",,", nil},
		{"", nil},
	}
	for _, tt := range tests {
		got := claudecode.SplitToolList(tt.in)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("SplitToolList(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
