package ccimport

import (
	"os"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/internal/dialects"
	"github.com/sessionledger/ledger/internal/importer"
	"github.com/sessionledger/ledger/internal/importer/importertest"
)

var _ importer.Compiler = envelope.Dialect(nil)

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
		run    func() (*importer.Result, error)
	}{
		{"claude-code project root", "claude-code.json", func() (*importer.Result, error) {
			return ClaudeCode("testdata/claude-project", ClaudeCodeOptions{})
		}},
		{"claude-code .claude directory", "claude-code.json", func() (*importer.Result, error) {
			return ClaudeCode("testdata/claude-project/.claude", ClaudeCodeOptions{})
		}},
		{"claude-code with command-line options", "claude-code-options.json", func() (*importer.Result, error) {
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
			importertest.CheckGolden(t, "./internal/importer/claudecode", tt.golden, r)
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
		path string // a claude-code project
		want string
	}{
		{"not a project", m, m + ": no .claude directory here: give the project root or its .claude directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ClaudeCode(tt.path, ClaudeCodeOptions{})
			if err == nil {
				t.Fatalf("import succeeded with %s, want error %q", r.Document, tt.want)
			}
			if _, ok := err.(*importer.Error); !ok {
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
		run  func() (*importer.Result, error)
		want []string
	}{
		{"claude-code rule", func() (*importer.Result, error) {
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
