package ledgerpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// readCommand splits a command line into its simple commands with
// mvdan.cc/sh (Bash syntax). Each simple command's unit is its words as
// the shell reads them (quotes removed), joined by single spaces, its
// leading assignments first. The line is known only when every statement
// is a simple command or a list of them (&&, ||, ;, |, |&, newlines, &)
// whose every word is a literal: command substitution, process
// substitution, parameter and arithmetic expansion, $'...', an unquoted
// glob or brace character, a subshell, a block, a compound or declaration
// command, a function, and a redirection other than to /dev/null or a
// descriptor duplication all make it not known, and a line the parser
// refuses is not known either. Deny and ask patterns also see, as extra
// texts, the literal line, every simple command anywhere in the tree
// (inside substitutions too) as printed and as its words read, and for a
// line the parser refuses the pieces between its operator characters,
// and what each simple command runs through wrappers, -c scripts and eval
// (seeThrough).
func (c *call) readCommand(line string) {
	c.extra = append(c.extra, collapse(line))
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		c.why = "the command does not parse: " + err.Error()
		for _, piece := range strings.FieldsFunc(line, func(r rune) bool { return strings.ContainsRune(";&|\n()`${}<>", r) }) {
			if t := collapse(piece); t != "" {
				c.extra = append(c.extra, t)
			}
		}
		return
	}
	s := &splitter{known: true}
	for _, st := range f.Stmts {
		s.stmt(st)
	}
	// Every simple command anywhere in the tree is seen twice: as printed
	// and as the shell reads its words (quotes and backslashes removed), so
	// that quoting hides no denied command inside $(...), (...), {...} or
	// a compound command (TestNestedCommandQuotesRemoved).
	syntax.Walk(f, func(n syntax.Node) bool {
		if ce, ok := n.(*syntax.CallExpr); ok {
			c.extra = append(c.extra, printed(ce), (&splitter{}).callUnit(ce))
			c.seeThrough(ce, 0)
		}
		return true
	})
	c.units, c.known, c.why = s.units, s.known, s.why
	if len(s.units) == 0 && c.known {
		c.known, c.why = false, "the command is empty"
	}
}

type splitter struct {
	units []string
	known bool
	why   string
}

func (s *splitter) unknown(why string) {
	if s.known {
		s.known, s.why = false, why
	}
}

func (s *splitter) stmt(st *syntax.Stmt) {
	if st.Coprocess {
		s.unknown("a coprocess")
	}
	for _, r := range st.Redirs {
		if !harmlessRedirect(r) {
			s.unknown("a redirection to or from a file")
		}
	}
	switch cmd := st.Cmd.(type) {
	case *syntax.CallExpr:
		s.units = append(s.units, s.callUnit(cmd))
	case *syntax.BinaryCmd:
		s.stmt(cmd.X)
		s.stmt(cmd.Y)
	case nil:
		s.unknown("a statement with no command")
	default:
		s.unknown("a compound command (" + printed(cmd) + ")")
	}
}

// callUnit is a simple command's unit: its leading assignments, then its
// words as the shell reads them (a word that is not a literal as printed),
// joined by single spaces. What cannot be known makes s not known.
func (s *splitter) callUnit(cmd *syntax.CallExpr) string {
	var words []string
	for _, a := range cmd.Assigns {
		if a.Value == nil || a.Array != nil || a.Index != nil || a.Naked {
			s.unknown("an assignment that is not NAME=word")
			continue
		}
		v, ok := literal(a.Value)
		if !ok {
			s.unknown("an assignment whose value is not a literal")
		}
		words = append(words, a.Name.Value+"="+v)
	}
	for _, w := range cmd.Args {
		v, ok := literal(w)
		if !ok {
			s.unknown("a word that is not a literal: " + printed(w))
		}
		words = append(words, v)
	}
	return strings.Join(words, " ")
}

// harmlessRedirect: a duplication of a descriptor (2>&1, >&-) or output
// to /dev/null.
func harmlessRedirect(r *syntax.Redirect) bool {
	target, ok := literal(r.Word)
	if !ok {
		return false
	}
	switch r.Op {
	case syntax.DplIn, syntax.DplOut:
		return target == "-" || target != "" && strings.Trim(target, "0123456789") == ""
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.ClbOut:
		return target == "/dev/null"
	}
	return false
}

// literal returns a word as the shell reads it when it has no expansion:
// unquoted text with backslashes removed, '...' verbatim, "..." of
// literal parts. An unquoted glob or brace character (* ? [ {) makes it
// not a literal, as does an unquoted leading '~'.
func literal(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	for i, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "*?[{") || i == 0 && strings.HasPrefix(p.Value, "~") {
				return printed(w), false
			}
			b.WriteString(unescape(p.Value, false))
		case *syntax.SglQuoted:
			if p.Dollar {
				return printed(w), false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return printed(w), false
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return printed(w), false
				}
				b.WriteString(unescape(l.Value, true))
			}
		default:
			return printed(w), false
		}
	}
	return b.String(), true
}

// unescape removes the backslashes the shell removes: outside quotes
// before any character (a backslash-newline goes whole), inside double
// quotes before $ ` " \ and newline.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			n := s[i+1]
			switch {
			case n == '\n':
				i++
				continue
			case !quoted || strings.IndexByte("$`\"\\", n) >= 0:
				i++
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func printed(n syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter(syntax.SingleLine(true)).Print(&b, n); err != nil {
		return ""
	}
	return collapse(b.String())
}

// collapse trims a text and turns each run of white space into one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
