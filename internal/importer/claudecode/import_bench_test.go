package ccimport

import (
	"fmt"
	"strings"
	"testing"
)

// The import is linear in its input: these benchmarks import generated
// files of growing size, and ns/op grows with the size, MB/s stays level
// (go test ./internal/importer/claudecode -run '^$' -bench Import). A file written on
// one line was quadratic before (columns counted from the line's start for
// every token), and so was a large front matter (the text split again for
// every node's column).

var sizes = []int{128 << 10, 1 << 20, 5 << 20}

func sizeName(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return fmt.Sprintf("%dKiB", n>>10)
}

// settingsOf is a settings.json of about n bytes of allow rules, the bulk
// of a large real file, separated by sep.
func settingsOf(n int, sep string) []byte {
	var b strings.Builder
	b.WriteString(`{"permissions": {"allow": [`)
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteString(sep)
		}
		fmt.Fprintf(&b, `"Bash(make target-%d)"`, i)
	}
	b.WriteString("]}}\n")
	return []byte(b.String())
}

func BenchmarkImportClaudeCodeSettings(b *testing.B) {
	for _, layout := range []struct{ name, sep string }{{"lines", ",\n"}, {"one-line", ","}} {
		for _, size := range sizes {
			b.Run(layout.name+"/"+sizeName(size), func(b *testing.B) {
				root := project(b, map[string]string{"settings.json": string(settingsOf(size, layout.sep))})
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := ClaudeCode(root, ClaudeCodeOptions{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// agentOf is an agent file of about n bytes: a long tools list.
func agentOf(n int) []byte {
	var b strings.Builder
	b.WriteString("---\nname: big\ndescription: d\ntools:\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "  - Bash(make t%d)\n", i)
	}
	b.WriteString("---\nbody\n")
	return []byte(b.String())
}

func BenchmarkImportClaudeCodeAgent(b *testing.B) {
	for _, size := range []int{64 << 10, 256 << 10, 1000 << 10} { // under Claude Code's 1 MiB
		b.Run(sizeName(size), func(b *testing.B) {
			root := project(b, map[string]string{"agents/big.md": string(agentOf(size))})
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ClaudeCode(root, ClaudeCodeOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkImportClaudeCodeAgentFiles: many small agent files (each file
// was compared with every file read before it).
func BenchmarkImportClaudeCodeAgentFiles(b *testing.B) {
	for _, n := range []int{250, 1000, 4000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			files := map[string]string{}
			for i := range n {
				files[fmt.Sprintf("agents/a%d.md", i)] = fmt.Sprintf("---\nname: a%d\ndescription: d\n---\n", i)
			}
			root := project(b, files)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ClaudeCode(root, ClaudeCodeOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBenchmarkInputsImport keeps the generated inputs valid (a benchmark
// that fails is only seen when someone runs it).
func TestBenchmarkInputsImport(t *testing.T) {
	root := project(t, map[string]string{"settings.json": string(settingsOf(4<<10, ",")), "agents/big.md": string(agentOf(4 << 10))})
	if r, err := ClaudeCode(root, ClaudeCodeOptions{}); err != nil || !strings.Contains(string(r.Document), `"big"`) {
		t.Errorf("claude-code: %v", err)
	}
}
