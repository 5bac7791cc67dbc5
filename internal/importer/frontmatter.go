package importer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sessionledger/ledger/envelope/claudecode"
)

// agentDef is one agent read from a Markdown file's front matter.
type agentDef struct {
	name string
	file string
	line int // line of the name key
	v    *Value
}

// frontMatter returns the YAML between the opening and closing '---' lines
// of a Markdown file, and the file line the YAML starts on.
func frontMatter(file string, src []byte) ([]byte, int, error) {
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	lines := bytes.SplitAfter(src, []byte("\n"))
	isFence := func(l []byte) bool { return string(bytes.TrimRight(l, " \t\r\n")) == "---" }
	if len(lines) == 0 || !isFence(lines[0]) {
		return nil, 0, &Error{File: file, Line: 1, Msg: "front matter: the file must start with a '---' line"}
	}
	for i := 1; i < len(lines); i++ {
		if isFence(lines[i]) {
			return bytes.Join(lines[1:i], nil), 2, nil
		}
	}
	return nil, 0, &Error{File: file, Line: 1, Msg: "front matter: no closing '---' line"}
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlParserProblems are the problems yaml.v3's parser (not its scanner)
// reports. For those, "line N" is the 0-based line of the construct being
// parsed (the '[' of an unclosed flow list, say), so N+1 is the line.
var yamlParserProblems = []string{
	"did not find expected <stream-start>", "did not find expected <document start>",
	"did not find expected node content", "did not find expected '-' indicator",
	"did not find expected key", "did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"found undefined tag handle", "found duplicate %YAML directive", "found incompatible YAML document",
	"found duplicate %TAG directive",
}

// yamlError places a yaml.v3 error ("yaml: line 3: ...") in the file.
func yamlError(file string, start int, err error) *Error {
	msg := strings.TrimSpace(err.Error())
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		if contains(yamlParserProblems, m[2]) {
			n++
		}
		return &Error{File: file, Line: start + n - 1, Msg: "front matter: " + m[2]}
	}
	return &Error{File: file, Line: start, Msg: "front matter: " + strings.TrimPrefix(msg, "yaml: ")}
}

// agent reads one agent definition. Its keys are written out in the order
// of the dialect's schema; the prompt (the Markdown body) is not part of the
// policy.
func (c *ccImporter) agent(file string, src []byte) (*agentDef, error) {
	fm, start, err := frontMatter(file, src)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(fm)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{File: file, Line: 1, Msg: "front matter: empty; name and description are required"}
		}
		return nil, yamlError(file, start, err)
	}
	root := resolve(&doc)
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = resolve(root.Content[0])
	}
	line := func(n *yaml.Node) int { return start + n.Line - 1 }
	fail := func(n *yaml.Node, format string, args ...any) error {
		return &Error{File: file, Line: line(n), Msg: "front matter: " + fmt.Sprintf(format, args...)}
	}
	if root.Kind != yaml.MappingNode {
		return nil, fail(root, "must be a mapping of keys to values")
	}
	fields := map[string]*yaml.Node{}
	keys := map[string]*yaml.Node{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := resolve(root.Content[i]), resolve(root.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return nil, fail(k, "keys must be plain names")
		}
		if prev, dup := keys[k.Value]; dup {
			return nil, fail(k, "duplicate key %q (first at line %d)", k.Value, line(prev))
		}
		keys[k.Value] = k
		switch {
		case contains([]string{"name", "description", "tools", "disallowedTools", "permissionMode", "model", "background"}, k.Value):
			fields[k.Value] = v
		case contains(ignoredAgentKeys, k.Value):
			c.warn(file, Pos{Line: line(k)}, k.Value, "dropped %s: ignored by the claude-code dialect", k.Value)
		default:
			c.warn(file, Pos{Line: line(k)}, k.Value, "dropped %s: not a field of a claude-code agent", k.Value)
		}
	}
	str := func(key string) (string, bool, error) {
		n := fields[key]
		if n == nil {
			return "", false, nil
		}
		if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
			return "", false, fail(n, "%s must be a string", key)
		}
		return n.Value, true, nil
	}
	name, ok, err := str("name")
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, &Error{File: file, Line: 1, Msg: "front matter: name is required"}
	case name == "main" || name == "fork":
		return nil, fail(fields["name"], "name %q is reserved", name)
	case !agentName.MatchString(name):
		return nil, fail(fields["name"], "name %q is not an agent name (up to 64 letters, digits, '_', '.' or '-', starting with a letter or digit)", name)
	}
	a := &agentDef{name: name, file: file, line: line(keys["name"]), v: &Value{Kind: Object}}
	at := join("agents", name)
	c.r.record(at, file, Pos{Line: a.line})
	add := func(key string, v *Value) {
		c.r.record(join(at, key), file, Pos{Line: line(keys[key])})
		a.v.Members = append(a.v.Members, Member{Key: key, Value: v})
	}

	desc, ok, err := str("description")
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, fail(keys["name"], "description is required")
	case strings.TrimSpace(desc) == "":
		return nil, fail(fields["description"], "description must not be empty")
	}
	add("description", &Value{Kind: String, Str: desc})

	for _, key := range []string{"tools", "disallowedTools"} {
		n := fields[key]
		if n == nil {
			continue
		}
		list, err := c.toolList(file, key, n, line, fail)
		if err != nil {
			return nil, err
		}
		if list == nil {
			continue
		}
		add(key, list)
		for i, e := range list.Elems {
			c.r.record(index(join(at, key), i), file, e.Pos)
		}
	}
	if mode, ok, err := str("permissionMode"); err != nil {
		return nil, err
	} else if ok {
		add("permissionMode", &Value{Kind: String, Str: mode})
	}
	if n := fields["background"]; n != nil {
		var b bool
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&b) != nil {
			return nil, fail(n, "background must be true or false")
		}
		add("background", &Value{Kind: Bool, Bool: b})
	}
	if model, ok, err := str("model"); err != nil {
		return nil, err
	} else if ok {
		add("model", &Value{Kind: String, Str: model})
	}
	return a, nil
}

// toolList reads tools or disallowedTools: a comma-separated string (split
// on commas outside parentheses) or a list of strings. An empty value
// (null) is treated as absent, with a warning, since that is what Claude
// Code does with it; it returns nil then.
func (c *ccImporter) toolList(file, key string, n *yaml.Node, line func(*yaml.Node) int, fail func(*yaml.Node, string, ...any) error) (*Value, error) {
	list := &Value{Kind: Array}
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		c.warn(file, Pos{Line: line(n)}, key, "%s has no value: treated as absent", key)
		return nil, nil
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		for _, entry := range claudecode.SplitToolList(n.Value) {
			list.Elems = append(list.Elems, &Value{Kind: String, Str: entry, Pos: Pos{Line: line(n)}})
		}
		if len(list.Elems) == 0 {
			return nil, fail(n, "%s is an empty string: write %s: [] for none, or leave it out", key, key)
		}
	case n.Kind == yaml.SequenceNode:
		for _, e := range n.Content {
			e = resolve(e)
			if e.Kind != yaml.ScalarNode || e.Tag != "!!str" {
				return nil, fail(e, "%s must be a string or a list of strings", key)
			}
			list.Elems = append(list.Elems, &Value{Kind: String, Str: e.Value, Pos: Pos{Line: line(e)}})
		}
	default:
		return nil, fail(n, "%s must be a string or a list of strings", key)
	}
	return list, nil
}

// resolve follows YAML aliases.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}
