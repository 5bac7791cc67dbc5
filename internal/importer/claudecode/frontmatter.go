package ccimport

import (
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// The front matter of an agent file is read the way Claude Code 2.1.328
// reads it (its bundled JavaScript, function qc and the agent loader Pyn),
// and every rule below was checked against the CLI: agent files were laid
// out in a project and the agents it offered ("Available agent types for
// the Agent tool:" in the system prompt of its first request), with their
// tools, were compared. Each rule names the observation it follows.

// fmBlock is the YAML of a front matter and the file line it starts on.
type fmBlock struct {
	text string
	line int
}

// isJSSpace reports whether r is whitespace to a JavaScript regexp (\s).
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// cutFrontMatter cuts the front matter out of an agent file as Claude Code
// does with /^---\s*\n([\s\S]*?)---\s*\n?/ after dropping a byte order
// mark: the file must start with "---", then blanks up to a line break; the
// front matter ends at the first "---" after that, wherever it stands.
//
//   - A closing "----" or "---x" closes it (the rest of the line is body):
//     CLI: fence "----" and "---x" loaded, the tools before them kept.
//   - "---" inside a value closes it too: "description: a --- b" loaded
//     with description "a" and the keys after it lost.
//   - An opening "----", a blank line before "---", or no closing "---"
//     leaves the file without front matter, and Claude Code skips it
//     (CLI: none of those loaded). Blank lines after the opening, trailing
//     blanks on the fences, CRLF and a BOM are fine (CLI: all loaded).
//
// It returns a problem when there is no front matter.
func cutFrontMatter(src []byte) (fmBlock, string) {
	s := strings.TrimPrefix(string(src), "\ufeff")
	if !strings.HasPrefix(s, "---") {
		return fmBlock{}, "no front matter: the first line must be '---' (Claude Code skips a file that does not start with it)"
	}
	start := -1
	for i, r := range s[3:] {
		if !isJSSpace(r) {
			break
		}
		if r == '\n' {
			start = 3 + i + 1
		}
	}
	if start < 0 {
		return fmBlock{}, "no front matter: the first line must be '---' alone (Claude Code skips a file whose first line is " + strconv.Quote(firstLine(s)) + ")"
	}
	end := strings.Index(s[start:], "---")
	if end < 0 {
		return fmBlock{}, "the front matter has no closing '---' (Claude Code skips the file)"
	}
	return fmBlock{text: s[start : start+end], line: 1 + strings.Count(s[:start], "\n")}, ""
}

func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return s
}

// quoteLossyValues is Claude Code's second try at YAML that does not parse
// (function nu, then leading tabs made two spaces each): each line
// "key: value" whose key is letters, '_' and '-' only and whose value holds
// one of {}[]*&#!|>%@` or ": " gets the value double-quoted, unless the
// value is quoted already or is a flow list that parses.
//
//   - CLI: "description: Use when: the user asks" and "tools: *" loaded
//     (values "Use when: the user asks" and every tool); "description:
//     [draft] reviews code" and "@mention" loaded as written.
//   - The quoting is all or nothing: once the file needs it, "tools: Read #
//     only read" became the four tools "Read, #, only, read" (CLI), while in
//     a file that parses as it is "# ..." stays a comment.
//   - It does not apply to a key with a digit ("example1: see: this"), a
//     value starting with a quote it does not end with, or a line ending in
//     CR (JavaScript's '.' stops at CR): all three files were skipped (CLI),
//     a CRLF file with "description: Use when: x" among them.
//   - Tabs: a list indented with tabs loaded (CLI).
func quoteLossyValues(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		key, val, ok := lossyLine(l)
		if !ok {
			continue
		}
		if len(val) >= 1 && (val[0] == '"' && val[len(val)-1] == '"' || val[0] == '\'' && val[len(val)-1] == '\'') {
			continue
		}
		if strings.HasPrefix(val, "[") && strings.HasSuffix(val, "]") {
			var n yaml.Node
			if yaml.Unmarshal([]byte(val), &n) == nil && len(n.Content) == 1 && n.Content[0].Kind == yaml.SequenceNode {
				continue
			}
		}
		if strings.ContainsAny(val, "{}[]*&#!|>%@`") || strings.Contains(val, ": ") {
			q := strings.ReplaceAll(strings.ReplaceAll(val, `\`, `\\`), `"`, `\"`)
			lines[i] = key + `: "` + q + `"`
		}
	}
	return leadingTabs.ReplaceAllStringFunc(strings.Join(lines, "\n"), func(t string) string {
		lead := strings.TrimRight(t, "\t") // the line break before the tabs
		return lead + strings.Repeat("  ", len(t)-len(lead))
	})
}

// leadingTabs is /^\t+/gm: JavaScript's multiline '^' also follows CR,
// U+2028 and U+2029.
var leadingTabs = regexp.MustCompile("(?:^|[\n\r\u2028\u2029])\t+")

// lossyLine matches /^([a-zA-Z_-]+):\s+(\S.*)$/ on one line (split at LF):
// it returns the key and the value.
func lossyLine(l string) (string, string, bool) {
	i := 0
	for i < len(l) && (l[i] >= 'a' && l[i] <= 'z' || l[i] >= 'A' && l[i] <= 'Z' || l[i] == '_' || l[i] == '-') {
		i++
	}
	if i == 0 || i >= len(l) || l[i] != ':' {
		return "", "", false
	}
	key, rest := l[:i], l[i+1:]
	j := 0
	for j < len(rest) {
		r, n := utf8.DecodeRuneInString(rest[j:])
		if !isJSSpace(r) {
			break
		}
		j += n
	}
	if j == 0 || j == len(rest) {
		return "", "", false
	}
	val := rest[j:]
	if strings.ContainsAny(val, "\r\u2028\u2029") { // '.' does not match them and '$' is the end of the input
		return "", "", false
	}
	return key, val, true
}

// tabShift maps a column of the tab-expanded text back to the file, on a
// line that starts with the given number of tabs.
func tabShift(tabs, col int) int {
	switch {
	case tabs == 0:
		return col
	case col-1 >= 2*tabs:
		return col - tabs
	default:
		return (col-1)/2 + 1
	}
}

// tabsPerLine counts the tabs that start each line of text. Counted once
// per file: a position is asked for every node, and scanning the text
// each time made a large front matter quadratic.
func tabsPerLine(text string) []int {
	lines := strings.Split(text, "\n")
	tabs := make([]int, len(lines))
	for i, l := range lines {
		tabs[i] = len(l) - len(strings.TrimLeft(l, "\t"))
	}
	return tabs
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

// yamlProblem places a yaml.v3 error ("yaml: line 3: ...") in the YAML text
// and returns the problem. yaml.v3 gives no column: the column is where the
// value (or the line's first character) starts, which is where to look.
func yamlProblem(text string, err error) (Pos, string) {
	msg := strings.TrimSpace(err.Error())
	m := yamlLine.FindStringSubmatch(msg)
	if m == nil {
		return Pos{Line: 1}, strings.TrimPrefix(msg, "yaml: ")
	}
	n, _ := strconv.Atoi(m[1])
	if contains(yamlParserProblems, m[2]) {
		n++
	}
	lines := strings.Split(text, "\n")
	col := 0
	if n >= 1 && n <= len(lines) {
		l := strings.TrimRight(lines[n-1], "\r")
		col = utf8.RuneCountInString(l) - utf8.RuneCountInString(strings.TrimLeft(l, " \t")) + 1
		if m := keyValue.FindStringSubmatchIndex(l); m != nil {
			col = utf8.RuneCountInString(l[:m[2]]) + 1
		}
	}
	return Pos{Line: n, Col: col}, m[2]
}

// keyValue finds the value of a "key: value" line.
var keyValue = regexp.MustCompile(`^\s*[^\s#:-][^:#]*:[ \t]+(\S)`)

// decodeYAML parses one YAML document; nil with no error when it is empty.
func decodeYAML(text string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(strings.NewReader(text)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, err
	}
	root := resolve(&doc)
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = resolve(root.Content[0])
	}
	return root, nil
}

// parseFrontMatter parses the YAML, and when it does not parse, once more
// after quoteLossyValues, as Claude Code does (function Bar). It returns the
// text that parsed (positions refer to it) or the first try's problem.
func parseFrontMatter(text string) (*yaml.Node, string, error) {
	root, err := decodeYAML(text)
	if err == nil {
		return root, text, nil
	}
	retry := quoteLossyValues(text)
	if root, err2 := decodeYAML(retry); err2 == nil {
		return root, retry, nil
	}
	return nil, text, err
}

// scalar is a YAML scalar as Claude Code sees it after Bun.YAML.parse.
type scalar struct {
	kind string // "null", "bool", "number" or "string"
	str  string // the string; the text as written for the others
	b    bool
}

var (
	coreInt   = regexp.MustCompile(`^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$`)
	coreFloat = regexp.MustCompile(`^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
)

// scalarOf resolves a scalar node with the YAML 1.2 core schema, which is
// what Bun's parser follows and yaml.v3 does not quite (it reads 1_000,
// 0b101 and 2024-01-01 as numbers and a timestamp). CLI: the names
// 2024-01-01, 1_000, 0b101, yes, on and "!!str 12" loaded as strings; 0o17,
// 0x1F, +1, .5, 1e3, .inf, .NaN, 012, ~, Null, NULL, null, True, TRUE and
// FALSE did not load (not strings). A custom tag is ignored ("description:
// !custom d" loaded as "d").
func scalarOf(n *yaml.Node) scalar {
	v := n.Value
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return scalar{kind: "string", str: v}
	}
	if n.Style&yaml.TaggedStyle != 0 {
		switch n.Tag {
		case "!!str", "!!binary", "!!timestamp":
			return scalar{kind: "string", str: v}
		case "!!null":
			return scalar{kind: "null", str: v}
		case "!!bool":
			return scalar{kind: "bool", str: v, b: strings.EqualFold(v, "true")}
		case "!!int", "!!float":
			return scalar{kind: "number", str: v}
		}
	}
	switch v {
	case "", "~", "null", "Null", "NULL":
		return scalar{kind: "null", str: v}
	case "true", "True", "TRUE":
		return scalar{kind: "bool", str: v, b: true}
	case "false", "False", "FALSE":
		return scalar{kind: "bool", str: v}
	}
	if coreInt.MatchString(v) || coreFloat.MatchString(v) {
		return scalar{kind: "number", str: v}
	}
	return scalar{kind: "string", str: v}
}

// kindOf names what a node is, for messages.
func kindOf(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch s := scalarOf(n); s.kind {
		case "null":
			return "no value"
		case "string":
			return "a string"
		default:
			return "a " + s.kind + " (" + s.str + ")"
		}
	}
	return "a YAML " + strconv.Itoa(int(n.Kind)) + " node"
}

// truthy is JavaScript's truthiness of the value.
func truthy(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode {
		return true
	}
	s := scalarOf(n)
	switch s.kind {
	case "null":
		return false
	case "bool":
		return s.b
	case "number":
		f, err := strconv.ParseFloat(strings.ReplaceAll(strings.Replace(s.str, "0o", "0", 1), "_", ""), 64)
		if strings.HasPrefix(strings.TrimLeft(s.str, "+-"), "0x") {
			i, _ := strconv.ParseInt(strings.Replace(s.str, "0x", "", 1), 16, 64)
			return i != 0
		}
		return err != nil || f != 0 // NaN and the infinities do not parse as 0
	}
	return s.str != ""
}

// fmField is one key of the front matter and its value.
type fmField struct {
	key, val *yaml.Node
}

// fields reads the front-matter mapping: the last of a repeated key wins
// (CLI: "name: y06-dup-a" then "name: y06-dup-b" loaded y06-dup-b), and
// "<<: *anchor" merges a mapping in under the keys written (CLI: tools
// merged from an anchored mapping applied).
func (a *agentReader) fields(root *yaml.Node) map[string]fmField {
	out := map[string]fmField{}
	var merged []fmField
	mapping := func(v *yaml.Node) {
		if v = resolve(v); v.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(v.Content); i += 2 {
				merged = append(merged, fmField{resolve(v.Content[i]), resolve(v.Content[i+1])})
			}
		}
	}
	// A merge takes a mapping or a list of mappings, no deeper: a list of
	// lists of aliases would grow exponentially.
	mergeFrom := func(v *yaml.Node) {
		if v = resolve(v); v.Kind == yaml.SequenceNode {
			for _, e := range v.Content {
				mapping(e)
			}
			return
		}
		mapping(v)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := resolve(root.Content[i]), resolve(root.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			a.warn(k, "", "dropped a key that is %s: keys must be plain names", kindOf(k))
			continue
		}
		if k.Value == "<<" && k.Style == 0 {
			mergeFrom(v)
			continue
		}
		if prev, dup := out[k.Value]; dup {
			a.warn(k, k.Value, "key %q repeated (first at line %d): Claude Code keeps the last", k.Value, a.line(prev.key))
		}
		out[k.Value] = fmField{k, v}
	}
	for _, f := range merged {
		if _, set := out[f.key.Value]; !set && f.key.Kind == yaml.ScalarNode {
			out[f.key.Value] = f
		}
	}
	return out
}

// resolve follows YAML aliases.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// jsLen is the length of s in UTF-16 code units, as JavaScript counts.
func jsLen(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// nfkcColon reports whether the NFKC form of s holds ':'. Only these
// characters have a compatibility form with a colon in it (U+2A74 is
// "::="); a colon has no decomposition, so no combining sequence makes one.
func nfkcColon(s string) bool {
	return strings.ContainsAny(s, ":\u2a74\ufe13\ufe55\uff1a")
}

// splitTools splits a tools value the way Claude Code does (function mf):
// at commas and spaces outside parentheses, where '(' opens and ')' closes
// (no nesting: a ')' always closes). CLI: "Read Grep  Bash(git diff *)" is
// three tools; "Bash(npm run test, npm run lint), Read" two.
func splitTools(s string) []string {
	var out []string
	var cur strings.Builder
	in := false
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			out = append(out, t)
		}
		cur.Reset()
	}
	for _, r := range s {
		switch {
		case r == '(':
			in = true
			cur.WriteRune(r)
		case r == ')':
			in = false
			cur.WriteRune(r)
		case (r == ',' || r == ' ') && !in:
			flush()
		default:
			if cur.Len() > 0 || strings.TrimSpace(string(r)) != "" {
				cur.WriteRune(r)
			}
		}
	}
	flush()
	return out
}
