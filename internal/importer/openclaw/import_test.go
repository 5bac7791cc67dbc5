package openclaw

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/importer"
	"github.com/sessionledger/ledger/internal/importer/importertest"
)

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
		path   string
	}{
		{"openclaw with agents.entries and unrelated sections", "openclaw.json", "testdata/openclaw.json5"},
		{"openclaw with agents.list", "openclaw-list.json", "testdata/openclaw-list.json5"},
	}
	d := dialects.All()[importer.DialectOpenClaw]
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Import(tt.path, readFile(t, tt.path))
			if err != nil {
				t.Fatal(err)
			}
			importertest.CheckGolden(t, "./internal/importer/openclaw", tt.golden, r)
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
		path string
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Import(tt.path, readFile(t, tt.path))
			if err == nil {
				t.Fatalf("import succeeded with %s, want error %q", r.Document, tt.want)
			}
			if _, ok := err.(*importer.Error); !ok {
				t.Errorf("error is %T, want *importer.Error", err)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

// TestCheckPlacesDialectErrors checks that the dialect's own refusals are
// located in the file the offending keys came from.
func TestCheckPlacesDialectErrors(t *testing.T) {
	m := "testdata/malformed/"
	r, err := Import(m+"invalid-policy.json5", readFile(t, m+"invalid-policy.json5"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		m + "invalid-policy.json5:3:3: invalid openclaw policy: tools: allow and alsoAllow may not both be set; list the extra tools in allow, or drop allow and keep alsoAllow",
		m + "invalid-policy.json5:8:30: invalid openclaw policy: agents.defaults.subagents.maxSpawnDepth must be an integer from 1 to 5, got 9",
		m + `invalid-policy.json5:10:27: invalid openclaw policy: agents.list[0].sandbox.mode must be "off", "non-main" or "all", got "sometimes"`,
	}
	err = r.Check(dialects.All()[importer.DialectOpenClaw], nil)
	if err == nil {
		t.Fatalf("Check accepted %s", r.Document)
	}
	got := strings.Split(err.Error(), "\n")
	if len(got) != len(want) {
		t.Fatalf("Check = %d problems, want %d:\n%v", len(got), len(want), err)
	}
	for i := range got {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d\n got %s\nwant %s...", i, got[i], want[i])
		}
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
			r, err := Import("t", []byte(tt.in))
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
			r, err := Import("t", []byte(tt.in))
			if err == nil {
				t.Fatalf("imported %s, want a refusal", r.Document)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error\n got %s\nwant %s...", err, tt.want)
			}
		})
	}
}

// TestImportRefusesLargeFiles: a config over the limit is refused before
// it is parsed.
func TestImportRefusesLargeFiles(t *testing.T) {
	big := []byte(`{"x": "` + strings.Repeat("a", importer.DefaultMaxFileSize) + `"}`)
	r, err := Import("big.json5", big)
	var e *importer.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v (result %v), want a refusal", err, r)
	}
	if e.File != "big.json5" {
		t.Errorf("the refusal names %q, want %q: %v", e.File, "big.json5", err)
	}
	for _, p := range []string{"limit of 8 MiB", "nothing was imported"} {
		if !strings.Contains(e.Msg, p) {
			t.Errorf("the refusal lacks %q: %v", p, err)
		}
	}
}

// The import is linear in its input: BenchmarkImport imports generated
// configs of growing size, and ns/op grows with the size, MB/s stays level
// (go test ./internal/importer/openclaw -run '^$' -bench Import).

var sizes = []int{128 << 10, 1 << 20, 5 << 20}

func sizeName(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return fmt.Sprintf("%dKiB", n>>10)
}

// openClawShapes are the sections the bulk of a generated openclaw.json
// is in: the text before the items, one item (%d is its number) and the
// text after them.
var openClawShapes = map[string][3]string{
	"allow":    {`{tools: {allow: [`, `'read','write',`, `]}}`},
	"list":     {`{agents: {ownership: 'explicit', list: [`, `{id: 'a%d', tools: {allow: ['read']}},`, `]}}`},
	"entries":  {`{agents: {ownership: 'explicit', entries: {`, `a%d: {name: 'x', tools: {deny: ['exec']}},`, `}}}`},
	"channels": {`{channels: {slack: {groups: {`, `g%d: {tools: {deny: ['exec']}},`, `}}}}`},
}

// openClawOf is an openclaw.json of about n bytes, on one line.
func openClawOf(n int, shape string) []byte {
	parts := openClawShapes[shape]
	var b strings.Builder
	b.WriteString(parts[0])
	for i := 0; b.Len() < n; i++ {
		b.WriteString(strings.ReplaceAll(parts[1], "%d", strconv.Itoa(i)))
	}
	b.WriteString(parts[2])
	return []byte(b.String())
}

func BenchmarkImport(b *testing.B) {
	for _, shape := range []string{"allow", "list", "entries", "channels"} {
		for _, size := range sizes {
			b.Run(shape+"/"+sizeName(size), func(b *testing.B) {
				src := openClawOf(size, shape)
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Import("openclaw.json", src); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestBenchmarkInputsImport keeps the generated inputs valid (a benchmark
// that fails is only seen when someone runs it).
func TestBenchmarkInputsImport(t *testing.T) {
	for _, shape := range []string{"allow", "list", "entries", "channels"} {
		if _, err := Import("openclaw.json", openClawOf(4<<10, shape)); err != nil {
			t.Errorf("%s: %v", shape, err)
		}
	}
}
