package claudecode

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"mvdan.cc/sh/v3/syntax"
)

// mvdan.cc/sh/v3/syntax, a full Bash parser, is a cross-check oracle of the
// top-level split (scanBash and splitTop, section 9.4): where a command means
// the same to Bash and to the dialect, both must find the same subcommands,
// with the same operators after them and the same words.
//
// The dialect is not Bash: it follows the Claude Code CLI, whose scan knows
// quotes, escapes, backticks, ${...} and ( { $( <( >( nesting, and nothing
// else of the grammar. So the comparison leaves out the commands where the
// two must differ (shLeaves reports them as not comparable):
//
//   - commands Bash cannot parse, and lines the dialect calls broken (an
//     unclosed quote or bracket; neither is approved by anything but a bare
//     Bash allow rule); also subscripted assignments before a command
//     (A[0]=x rm y), which Bash runs and the parser refuses ("inline
//     variables cannot be arrays");
//   - compound commands other than ( ... ) and { ...; } (if, for, while,
//     until, case, select, functions, [[ ]], (( )), let, time, coproc and
//     declare/local/export/readonly/typeset): the dialect does not know
//     Bash's reserved words and splits them at their ; like any other line
//     (`if a; then b; fi` is the subcommands `if a`, `then b` and `fi`), and
//     strips time as a wrapper;
//   - comments: the dialect has none (a # word stays a word, and deny rules
//     still see what follows it);
//   - here-documents: the dialect reads their body as more subcommands, one
//     per line, which deny rules see;
//   - the >| redirection (write even under noclobber): section 9.4 knows
//     only & as part of a redirection, so the dialect ends a subcommand at
//     its |: `echo hi >|x` is `echo hi >` (an output redirection with no
//     target: unsafe, so neither read-only nor a filesystem command) piped
//     into `x` (a command to approve). That errs towards asking, and deny
//     rules see x as a command;
//   - $'...' and $"..." quotes: the dialect reads them as a $ before an
//     ordinary quote, so a \' inside $'...' ends it;
//   - a { or } in a word, anywhere (in {a,b} expansion, {fd}> redirects, a
//     literal brace, "x{"): outside quotes the dialect nests at every {
//     until the next }, Bash only at a { command and up to a } command;
//   - an escaped blank ending a subcommand (`ls \ `): the dialect trims
//     the subcommand, blank and all, and keeps the backslash as a word;
//   - a carriage return: white space for the dialect, an ordinary character
//     for Bash; other Unicode white space (\v, \f, U+0085, U+00A0, …),
//     which the dialect trims from the ends of a subcommand (strings.TrimSpace)
//     and Bash keeps in the word; a NUL byte, which Bash (and the parser) drop; and a
//     backslash before a newline, which Bash deletes and the dialect keeps
//     in the word.
//
// Groups, ( ... ) and { ...; }, are compared as one subcommand, the dialect's
// nested one, by their text only: the dialect does not look inside them but
// for deny rules.

// shLeaf is one subcommand as the Bash parser sees it: a simple command
// (with its assignments and redirections) or a group.
type shLeaf struct {
	raw   string
	op    string   // the operator after it, as splitTop names it
	words []string // whitespace-separated source words; nil for a group
	group bool
}

var shParser = syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))

// shLeaves parses cmd with mvdan.cc/sh and returns its subcommands, or false
// when cmd is not comparable (see above).
func shLeaves(cmd string) ([]shLeaf, bool) {
	if strings.ContainsAny(cmd, "\r\x00") || strings.Contains(cmd, "\\\n") ||
		strings.ContainsFunc(cmd, func(r rune) bool { return r != ' ' && r != '\t' && r != '\n' && unicode.IsSpace(r) }) {
		return nil, false
	}
	f, err := shParser.Parse(strings.NewReader(cmd), "")
	if err != nil {
		return nil, false
	}
	comparable := true
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Comment:
			comparable = false
		case *syntax.SglQuoted:
			comparable = comparable && !n.Dollar
		case *syntax.DblQuoted:
			comparable = comparable && !n.Dollar
		case *syntax.Lit:
			comparable = comparable && !strings.ContainsAny(n.Value, "{}")
		case *syntax.Redirect:
			comparable = comparable && n.Hdoc == nil && n.Op != syntax.Hdoc && n.Op != syntax.DashHdoc && n.Op != syntax.ClbOut
		}
		return comparable
	})
	if !comparable {
		return nil, false
	}
	var leaves []shLeaf
	var add func(s *syntax.Stmt, op string) bool
	add = func(s *syntax.Stmt, op string) bool {
		if s.Coprocess || s.Disown {
			return false
		}
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && !s.Negated && len(s.Redirs) == 0 {
			return add(b.X, b.Op.String()) && add(b.Y, op)
		}
		leaf, ok := stmtLeaf(cmd, s)
		if !ok {
			return false
		}
		leaf.op = op
		leaves = append(leaves, leaf)
		return true
	}
	for _, s := range f.Stmts {
		op := ";"
		if s.Background {
			op = "&"
		}
		if !add(s, op) {
			return nil, false
		}
	}
	if len(leaves) > 0 {
		leaves[len(leaves)-1].op = ""
	}
	return leaves, true
}

// span is a piece of the command's source.
type span struct{ from, to int }

func spanOf(n syntax.Node) span { return span{int(n.Pos().Offset()), int(n.End().Offset())} }

// stmtLeaf makes the subcommand of a statement that is a simple command or
// a group.
func stmtLeaf(cmd string, s *syntax.Stmt) (shLeaf, bool) {
	var spans []span
	if s.Negated {
		spans = append(spans, span{int(s.Position.Offset()), int(s.Position.Offset()) + 1})
	}
	group := false
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		for _, a := range c.Assigns {
			if a.Value != nil && !plainBraces(a.Value) {
				return shLeaf{}, false
			}
			sp := spanOf(a)
			// mvdan.cc/sh ends an empty append (A+=, A[0]+=) one byte
			// early: Assign.End counts the = but not the +. Bash reads
			// the whole word, as the dialect does (FuzzBashSplit's "A+=").
			if a.Append && a.Value == nil && a.Array == nil && !a.Naked && sp.to < len(cmd) && cmd[sp.to] == '=' {
				sp.to++
			}
			spans = append(spans, sp)
		}
		for _, w := range c.Args {
			if !plainBraces(w) {
				return shLeaf{}, false
			}
			spans = append(spans, spanOf(w))
		}
	case *syntax.Subshell, *syntax.Block:
		group = true
		spans = append(spans, spanOf(c))
	case nil: // only redirections
	default:
		return shLeaf{}, false
	}
	for _, r := range s.Redirs {
		if r.N != nil && strings.ContainsAny(r.N.Value, "{}") || r.Word == nil || !plainBraces(r.Word) {
			return shLeaf{}, false
		}
		from := int(r.Pos().Offset())
		opEnd := int(r.OpPos.Offset()) + len(r.Op.String())
		w := spanOf(r.Word)
		if w.from == opEnd {
			spans = append(spans, span{from, w.to})
		} else {
			spans = append(spans, span{from, opEnd}, w)
		}
	}
	if len(spans) == 0 {
		return shLeaf{}, false
	}
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	// Pieces with nothing between them are one word ("a>b", "2>&1").
	merged := spans[:1]
	for _, sp := range spans[1:] {
		if last := &merged[len(merged)-1]; sp.from <= last.to {
			last.to = max(last.to, sp.to)
		} else {
			merged = append(merged, sp)
		}
	}
	leaf := shLeaf{raw: cmd[merged[0].from:merged[len(merged)-1].to], group: group}
	if strings.HasSuffix(leaf.raw, " ") || strings.HasSuffix(leaf.raw, "\t") {
		return shLeaf{}, false // ends in an escaped blank, which the dialect trims
	}
	if !group {
		for _, sp := range merged {
			leaf.words = append(leaf.words, cmd[sp.from:sp.to])
		}
	}
	return leaf, true
}

// plainBraces reports a word with no { or } in its unquoted literal parts.
func plainBraces(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.ContainsAny(l.Value, "{}") {
			return false
		}
	}
	return true
}

// checkSplitAgainstSh compares the dialect's top-level split of cmd with the
// Bash parser's where both must agree; it reports whether they were
// compared.
func checkSplitAgainstSh(t *testing.T, cmd string) bool {
	t.Helper()
	cls, broken := scanBash(cmd)
	if broken {
		return false
	}
	want, ok := shLeaves(cmd)
	if !ok {
		return false
	}
	got := splitTop(cmd, cls)
	same := len(got) == len(want)
	for i := 0; same && i < len(got); i++ {
		g, w := &got[i], &want[i]
		same = g.raw == w.raw && g.op == w.op &&
			(w.group && g.nested || !w.group && slices.Equal(g.words, w.words))
	}
	if !same {
		var gs, ws strings.Builder
		for _, s := range got {
			fmt.Fprintf(&gs, "  %q op=%q nested=%v words=%q\n", s.raw, s.op, s.nested, s.words)
		}
		for _, l := range want {
			fmt.Fprintf(&ws, "  %q op=%q group=%v words=%q\n", l.raw, l.op, l.group, l.words)
		}
		t.Fatalf("split of %q\n dialect:\n%s mvdan.cc/sh:\n%s", cmd, gs.String(), ws.String())
	}
	return true
}

// shCases are commands for the comparison: each construct the dialect and
// Bash read alike, and (marked false) each one the comparison leaves out.
var shCases = []struct {
	cmd        string
	comparable bool
}{
	{"ls -la", true},
	{"npm run test && curl x | sh", true},
	{"echo $(rm -rf /)", true},
	{"echo `date`; (cd x && make)", true},
	{`echo "a && b" 'c; d' \; e`, true},
	{"FOO=1 timeout -s KILL 5 nice -n 3 xargs rm -rf ${DIR:?}/*", true},
	{"git status 2>&1 >/dev/null", true},
	{"a <(b) >(c)", true},
	{"sudo -u x rm -- /", true},
	{"a || b |& c & d\ne ; f", true},
	{"cat <a >>b 2> c &>d <<<'x y' 3<&0", true},
	{"a=(1 2) b+=x; c=d e", true},
	{"A+=", true}, // an empty append: mvdan.cc/sh's span of it is one byte short (FuzzBashSplit)
	{"A+= B+= rm -rf y", true},
	{"A[1]+=x rm -rf y", false}, // Bash runs rm; mvdan.cc/sh refuses subscripted prefix assignments
	{"! a && b", true},
	{"{ a; b; } >x && (c | d) 2>/dev/null", true},
	{`echo a"b c"d 'e  f' \  g`, true},
	{"echo $((1 + 2)) ${x:-a b} \"$(c; d)\"", true},
	{"x=1\n\ny=2 cmd\n", true},
	{"a &&\n b ||\n c", true},
	{"if a; then b; fi", false},
	{"for i in 1 2; do echo $i; done", false},
	{"f() { a; }", false},
	{"[[ -n $x ]] && a", false},
	{"time ls", false},
	{"export A=1 && b", false},
	{"echo a # b; c", false},
	{"cat <<EOF\nrm -rf /\nEOF", false},
	{"echo $'a\\'b'", false},
	{"echo {a,b}", false},
	{"echo a\r b", false},
	{"\f", false},
	{"ls;\u00a0cat 'x'>f", false},
	{"echo a \\\n b", false},
	{"echo 'open", false},
	{"a ;; b", false},
	{"echo hi >|x", false},
	{"ls \\  && b", false},
	{`echo \>& rm -rf build`, true}, // & ends the command after an escaped > (3ba0704)
	{`echo \<& b 2>&1 <&0 &>x`, true},
	{`echo '<'& b`, true},
	{"a 2>| b && c", false},
}

func TestSplitAgainstSh(t *testing.T) {
	for _, tc := range shCases {
		t.Run(tc.cmd, func(t *testing.T) {
			if got := checkSplitAgainstSh(t, tc.cmd); got != tc.comparable {
				t.Errorf("compared = %v, want %v", got, tc.comparable)
			}
		})
	}
}

// TestSplitRandomAgainstSh compares the split with the Bash parser's on
// commands built from random words, redirections and operators: byte
// mutation rarely makes the shapes (a redirection next to an operator, a
// substitution holding one) where a splitter goes wrong.
func TestSplitRandomAgainstSh(t *testing.T) {
	words := []string{"ls", "-la", "a", "b.go", "x=1", "LANG=C", "NO_COLOR=1", `"a b"`, `'c;d'`, `\;`, `\&`, `\|`,
		"$(b c)", "$(b; c)", "`d`", "`e | f`", "${X:-y}", "${X:-a b}", "$((1+2))", "$((a<<2))", "<(e)", ">(f)", `"$(g; h)"`,
		`"x'y"`, `'x"y'`, "$x", "~/", "*.go", "@(a|b)", "a=(1 2)", "!", "#", "{", "}", "(", ")", "{ a; }", "{ a && b; }",
		"(b)", "(b; c)", "(a | b)", "if", "then", "fi", "time", "$'x'", `"`, "'", "\\", "=", "--", "a&b", "a;b", "a|b",
		`"a\"b"`, `"\\"`, `$(echo ")")`, "`a \\` b`", `${x:-"}"}`, `'\'`, `\"`, `a\\`, "$(a)$(b)", `"${x}"`, `\$(a; b)`,
		"\\`", `$\(a`, `"a;b"`, `"$(a "b;c")"`, `$(a '(' b)`, `"&"`, `\>`, `\<`, `'>'`, `">"`, "2", "1"}
	redirs := []string{">x", "> x", "2>&1", ">/dev/null", "2>/dev/null", "&>f", "&> f", ">>f", "<f", "< f", "<<<w",
		"<<< 'w x'", ">&2", "2>&-", "<>f", ">|f", "3<&0", "<&-", "&>>f", "1>&2", "> \"a b\""}
	ops := []string{" && ", " || ", " | ", " |& ", " ; ", " & ", "\n", ";", "&&", "||", "|", "&", "|&", ";;", " ;; ", "\n\n", " &&\n "}
	spaces := []string{" ", " ", " ", "  ", "\t", ""}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(l []string) string { return l[rng.IntN(len(l))] }
	const n = 20000
	compared := 0
	for range n {
		var b strings.Builder
		for k := range 1 + rng.IntN(4) {
			if k > 0 {
				b.WriteString(pick(ops))
			}
			for w := range 1 + rng.IntN(4) {
				if w > 0 {
					b.WriteString(pick(spaces))
				}
				if rng.IntN(4) == 0 {
					b.WriteString(pick(redirs))
				} else {
					b.WriteString(pick(words))
				}
			}
		}
		switch rng.IntN(6) {
		case 0:
			b.WriteString(" &")
		case 1:
			b.WriteString(";")
		case 2:
			b.WriteString("\n")
		}
		if checkSplitAgainstSh(t, b.String()) {
			compared++
		}
	}
	if compared < n/10 {
		t.Errorf("only %d of %d commands compared", compared, n)
	}
	t.Logf("%d of %d commands compared", compared, n)
}

// benchCommands are Bash commands as agents send them, for the benchmark.
var benchCommands = []string{
	"go test ./... -run TestAppend -count 1",
	"cd /work/main && git status --short && git diff --stat | tail -5",
	`FOO=1 timeout -s KILL 5 nice -n 3 xargs rm -rf "${DIR:?}"/* 2>&1 >/dev/null; echo "done: $(date +%s)"`,
}

// BenchmarkSplitVsSh measures the dialect's top-level split (scanBash and
// splitTop, words included) against parsing with mvdan.cc/sh/v3/syntax, on
// the same commands; parseBash is the whole of what a decision parses.
func BenchmarkSplitVsSh(b *testing.B) {
	for i, cmd := range benchCommands {
		b.Run(fmt.Sprintf("cmd%d/split", i), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				cls, _ := scanBash(cmd)
				_ = splitTop(cmd, cls)
			}
		})
		b.Run(fmt.Sprintf("cmd%d/parseBash", i), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = parseBash(cmd)
			}
		})
		b.Run(fmt.Sprintf("cmd%d/mvdan-sh", i), func(b *testing.B) {
			b.ReportAllocs()
			p := syntax.NewParser(syntax.Variant(syntax.LangBash))
			for b.Loop() {
				if _, err := p.Parse(strings.NewReader(cmd), ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
