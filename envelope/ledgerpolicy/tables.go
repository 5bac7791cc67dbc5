package ledgerpolicy

import (
	"slices"
	"strings"
)

// argKind is what a tool's patterns are matched against: the kind of the
// one argument the policy reads (docs/dialects/ledger.md, "Rules").
type argKind uint8

const (
	kindNone    argKind = iota // no argument is read: bare rules only
	kindCommand                // a shell command line
	kindPath                   // a file or directory path
	kindPatch                  // an apply_patch text: the paths it names
	kindURL                    // text holding http(s) URLs
)

func (k argKind) String() string {
	return [...]string{"none", "command", "path", "patch", "url"}[k]
}

// toolSpec is one tool of a runtime release as its hooks see it: the name
// the hook payload's tool_name carries, the argument kind and the
// tool_input field that holds it. dflt is the value of an optional field
// the call left out, as the runtime reads it ("" when the field is
// required: a call without it matches no pattern). oneURL says a url
// field holds one URL, not free text (qwen's web_fetch url).
type toolSpec struct {
	name   string
	kind   argKind
	field  string
	dflt   string
	oneURL bool
}

// runtimeTable is one runtime release's tools, sorted by name, and the tool
// its model spawns a sub-agent with ("" when none).
type runtimeTable struct {
	id    string // <runtime>@<version>
	tools []toolSpec
	spawn string
}

// tables are the built-in runtime releases, sorted by id.
var tables = func() []*runtimeTable {
	ts := []*runtimeTable{codex0169, gemini0610, qwen0244}
	for _, t := range ts {
		slices.SortFunc(t.tools, func(a, b toolSpec) int { return strings.Compare(a.name, b.name) })
		for i := 1; i < len(t.tools); i++ {
			if t.tools[i].name == t.tools[i-1].name {
				panic("ledgerpolicy: tool " + t.tools[i].name + " twice in " + t.id)
			}
		}
	}
	slices.SortFunc(ts, func(a, b *runtimeTable) int { return strings.Compare(a.id, b.id) })
	return ts
}()

func tableOf(id string) *runtimeTable {
	for _, t := range tables {
		if t.id == id {
			return t
		}
	}
	return nil
}

// spec returns the table's entry for tool; a tool the table does not hold
// (an MCP tool of the policy's catalogue) has kind none.
func (t *runtimeTable) spec(tool string) toolSpec {
	if i, ok := slices.BinarySearchFunc(t.tools, tool, func(s toolSpec, n string) int { return strings.Compare(s.name, n) }); ok {
		return t.tools[i]
	}
	return toolSpec{name: tool}
}

func (t *runtimeTable) has(tool string) bool {
	_, ok := slices.BinarySearchFunc(t.tools, tool, func(s toolSpec, n string) int { return strings.Compare(s.name, n) })
	return ok
}

// Runtimes returns the runtime releases with a built-in tool table, as a
// policy's runtime names them (<runtime>@<version>), sorted.
func Runtimes() []string {
	out := make([]string, len(tables))
	for i, t := range tables {
		out[i] = t.id
	}
	return out
}

// Catalogue returns the hook-visible tool names of a runtime release,
// sorted: what `ledger hook install --runtime` writes as the policy's
// catalogue. runtime is <runtime>@<version>, or a bare runtime name for its
// newest table. ok is false for a runtime without a table.
func Catalogue(runtime string) ([]string, bool) {
	t := tableOf(runtime)
	if t == nil && !strings.Contains(runtime, "@") {
		for _, c := range tables {
			if strings.HasPrefix(c.id, runtime+"@") {
				t = c // tables are sorted: the last is the newest listed
			}
		}
	}
	if t == nil {
		return nil, false
	}
	out := make([]string, len(t.tools))
	for i, s := range t.tools {
		out[i] = s.name
	}
	return out, true
}
