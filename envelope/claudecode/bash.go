package claudecode

import (
	"regexp"
	"slices"
	"strings"
)

// bashLine is a parsed Bash (or Monitor) command (section 9.4).
type bashLine struct {
	subs []bashSub
	// broken: a quote, backtick or bracket was left open (or a ')' closed
	// nothing). No subcommand of a broken line is approved by an allow rule
	// with a specifier, the read-only list or acceptEdits.
	broken bool
	// denyTexts are every text deny and ask rules are checked against: the
	// top-level subcommands and every segment nested anywhere in the line.
	denyTexts []string
	// pathSegs are the segments (nested ones included, the deny strip
	// applied) whose paths Read and Edit deny rules are checked against.
	pathSegs [][]string
	// pathPlain has bit i set when pathSegs[i] begins with its command as
	// written: no assignment, wrapper or reserved word before it, and not
	// a variable's value (plainCopy reads it). A segment past the 64th is
	// never plain, the stricter reading (a bit mask: no allocation).
	pathPlain uint64
	// line is the command as written (unquotedGlobIn reads it).
	line string
	// cds counts the subcommands that change directory (cd, pushd, popd,
	// chdir), moves those of them but cd ., and git is set when one runs
	// git (dirChange; approve asks for two cds, or a move and git).
	cds, moves int
	git        bool
	// shellSegs are the segments, in the shell's reading (quotedSegments),
	// that name a shell (mentionsShell): shellScriptDeny reads their -c
	// scripts.
	shellSegs [][]string
	// critical is set when a segment removes a critical path.
	critical    bool
	criticalArg string
	// openDollar: the line leaves a $( or ${ open, or begins a command in
	// $( ) with a backquote (unclosedDollar).
	openDollar bool
	// keywordAfterPrefix: a segment runs a reserved word after an
	// assignment or a redirection (keywordAfterPrefix), which the release
	// asks for in every mode.
	keywordAfterPrefix bool
	// doubleParen: a command's argument holds a (( the shell refuses
	// (gluedDoubleParen), which the release's removal check cannot read;
	// subscriptQuote: a subscript with quoted text inside ${ } or $(( ))
	// (quotedSubscript), which it cannot read either.
	doubleParen, subscriptQuote bool
}

// bashSub is one top-level subcommand.
type bashSub struct {
	raw    string
	op     string // the operator after it ("" for the last)
	bg     bool   // '&' follows it (the last one's too): it runs in the background
	nested bool   // holds a backtick span or a nesting opener
	// quoted: a command substituted inside double quotes
	// (quotedSubstitutions), which acceptEdits does not approve.
	quoted bool
	// words are the subcommand's words with the allow strip applied (only
	// safe assignments, safeAssignment, are stripped).
	words []string
	// args are words without their redirections; outs and ins are the
	// targets of the output and input redirections (quotes removed; file
	// descriptor duplications and here-documents are not targets).
	args      []string
	outs, ins []string
	allowText string
	// wrapWords are the wrappers the allow strip took off in front
	// (timeout 5, nice -n 5, xargs, ...), without the assignments before
	// them: an allow rule matches them and allowText after them too
	// (wrapText).
	wrapWords []string
	denyText  string
	// notRO: a wrapper the release's read-only list does not see through
	// (nice, nohup, stdbuf, time) or a redirection it cannot read (a
	// descriptor closed, <>) stands in the subcommand; xargs: xargs runs
	// its command.
	notRO, xargs bool
	// wrapWord, wrapWhy: a word of the wrappers the allow strip took off
	// that Claude Code 2.1.328 will not see through, and why
	// (wrapperUnchecked); "" when there is none.
	wrapWord, wrapWhy string
	// wrapped: the allow strip took words off in front (a wrapper or a
	// safe assignment, safeAssignment).
	wrapped bool
	// spaced: blanks other than one space separate its words somewhere
	// (make  build, make<TAB>build): no exact allow rule matches it.
	spaced bool
	// timeAfterPrefix: time runs after an assignment or a redirection, in
	// a line where an if, while or until came before it (compound): the
	// release's parser misreads it (row 91).
	timeAfterPrefix bool
}

// Byte classes of the scan.
const (
	clsInner  byte = iota // quoted, escaped, inside a frame, or a frame delimiter
	clsTop                // top level, unquoted: operators and word breaks live here
	clsOpener             // opens a nesting frame: ( { $( <( >( or a backtick
)

// scanBash classifies every byte of cmd and reports whether the line is
// broken. It tracks single quotes, double quotes with backslash escapes,
// escapes outside quotes, backtick spans, ${...}, and the nesting of
// ( { $( <( >(, so that operators inside any of them are not operators.
func scanBash(cmd string) (cls []byte, broken bool) {
	cls, broken, _ = scanBashHD(cmd)
	return cls, broken
}

// scanBashHD is scanBash, and the line's here-documents (heredoc.go):
// their bodies are marked clsHeredoc and not scanned.
func scanBashHD(cmd string) (cls []byte, broken bool, hd *hdScan) {
	cls, broken, hd, open := scanBashCond(cmd, true)
	if open {
		// A [[ that no ]] closes: read as if [[ were a word like any
		// other, so the operators after it split the line.
		cls, broken, hd, _ = scanBashCond(cmd, false)
	}
	return cls, broken, hd
}

// scanBashCond is scanBashHD; with conds, a [[ ]] conditional at the top
// level keeps its own operators (&& || ( ) < >) and braces as bytes of its words,
// neither splitting the line nor opening a frame nor redirecting, as
// Bash and Claude Code 2.1.328 read them ([[ -f a.txt && -r a.txt ]] is
// one test: TestDifferential/condglobs-default, shellforms-default). open
// reports a [[ left unclosed.
func scanBashCond(cmd string, conds bool) (cls []byte, broken bool, hd *hdScan, open bool) {
	const (
		fParen = iota + 1 // ( $( <( >(
		fBrace            // {
		fParam            // ${
		fDQ               // "
		fBT               // `
	)
	cls = make([]byte, len(cmd))
	var stackBuf [16]byte
	stack := stackBuf[:0]
	var arith []int // stack depths of open arithmetic (( ... ))
	cond := false   // inside a top-level [[ ]] (conds)
	mark := func(i, n int, c byte) {
		for k := i; k < i+n && k < len(cls); k++ {
			cls[k] = c
		}
	}
	for i := 0; i < len(cmd); {
		c := cmd[i]
		top := byte(0)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		var next byte
		if i+1 < len(cmd) {
			next = cmd[i+1]
		}
		if top == fDQ {
			switch {
			case c == '\\':
				i += 2
			case c == '"':
				stack = stack[:len(stack)-1]
				i++
			case c == '`':
				stack = append(stack, fBT)
				mark(i, 1, clsOpener)
				i++
			case c == '$' && next == '(':
				if n := literalArith(cmd[i:]); n > 0 {
					i += n // a word like any other (literalArith)
					continue
				}
				stack = append(stack, fParen)
				mark(i, 2, clsOpener)
				i += 2
			case c == '$' && next == '{':
				stack = append(stack, fParam)
				i += 2
			default:
				i++
			}
			continue
		}
		if conds && len(stack) == 0 {
			switch {
			case cond && condEnd(cmd, i):
				cond = false
				mark(i, 2, clsTop)
				i += 2
				continue
			case cond && strings.IndexByte("&|()<>{}", c) >= 0 && !((c == '<' || c == '>') && next == '('):
				i++ // the conditional's operator (not a process substitution) or a brace, which it does not expand: a byte of its word
				continue
			case !cond && condStart(cmd, cls, i):
				cond = true
				mark(i, 2, clsTop)
				i += 2
				continue
			}
		}
		switch {
		case c == '\\':
			i += 2
		case c == '\'':
			j := strings.IndexByte(cmd[i+1:], '\'')
			if j < 0 {
				return cls, true, hd, false
			}
			i += j + 2
		case c == '"':
			stack = append(stack, fDQ)
			i++
		case c == '`':
			if top == fBT {
				stack = stack[:len(stack)-1]
			} else {
				stack = append(stack, fBT)
				mark(i, 1, clsOpener)
			}
			i++
		case c == '$' && next == '(' && literalArith(cmd[i:]) > 0:
			i += literalArith(cmd[i:]) // a word like any other (literalArith)
		case c == '$' && next == '(', (c == '<' || c == '>') && next == '(':
			stack = append(stack, fParen)
			mark(i, 2, clsOpener)
			if c == '$' && i+2 < len(cmd) && cmd[i+2] == '(' {
				arith = append(arith, len(stack)) // $(( ... )): << shifts
			}
			i += 2
		case c == '$' && next == '{':
			stack = append(stack, fParam)
			i += 2
		case c == '(':
			stack = append(stack, fParen)
			mark(i, 1, clsOpener)
			if next == '(' {
				arith = append(arith, len(stack)) // (( ... )): << shifts
			}
			i++
		case c == '{' && next == '}':
			// {} is a word (xargs -I{}, find -exec ... {}), no group.
			i += 2
		case c == '{':
			stack = append(stack, fBrace)
			mark(i, 1, clsOpener)
			i++
		case c == ')':
			if top != fParen {
				broken = true
			} else {
				stack = stack[:len(stack)-1]
				if len(arith) > 0 && len(stack) < arith[len(arith)-1] {
					arith = arith[:len(arith)-1]
				}
			}
			i++
		case c == '}' && (top == fBrace || top == fParam):
			stack = stack[:len(stack)-1]
			i++
		case c == '<' && next == '<' && (i+2 >= len(cmd) || cmd[i+2] != '<') && (i == 0 || cmd[i-1] != '<') && len(arith) == 0:
			// A here-document's operator: its body starts after the
			// line's end.
			if hd == nil {
				hd = &hdScan{}
			}
			hd.start(cmd, i)
			if len(stack) == 0 {
				mark(i, 2, clsTop)
			}
			i += 2
		case c == '\n' && hd != nil && len(hd.pending) > 0:
			if len(stack) == 0 {
				cls[i] = clsTop
			}
			i = hd.bodies(cmd, i, cls)
		default:
			if len(stack) == 0 {
				cls[i] = clsTop
			}
			i++
		}
	}
	return cls, broken || len(stack) > 0, hd, cond
}

// condStart reports a [[ word at cmd[i] where a command starts (atCommand),
// followed by a blank; cls holds the classes of the bytes before i.
func condStart(cmd string, cls []byte, i int) bool {
	return strings.HasPrefix(cmd[i:], "[[") && (i+2 == len(cmd) || isSpace(cmd[i+2])) && atCommand(cmd, cls, i)
}

// atCommand reports whether a word at cmd[i] is where a command starts:
// at the line's start, or after an operator outside quotes (; & | newline
// or an opening parenthesis), with blanks and the keywords that come
// before a command (! if elif while until then do else) between. A [[
// that is some command's argument (echo [[ a && rm x ]]) is none.
func atCommand(cmd string, cls []byte, i int) bool {
	for {
		j := i - 1
		for j >= 0 && cls[j] == clsTop && (cmd[j] == ' ' || cmd[j] == '\t') {
			j--
		}
		if j < 0 {
			return true
		}
		if cls[j] == clsTop && strings.IndexByte(";&|\n", cmd[j]) >= 0 || cls[j] == clsOpener && cmd[j] == '(' {
			return true
		}
		k := j
		for k >= 0 && cls[k] == clsTop && !isSpace(cmd[k]) {
			k--
		}
		switch cmd[k+1 : j+1] {
		case "!", "if", "elif", "while", "until", "then", "do", "else":
			if k >= 0 && !isSpace(cmd[k]) {
				return false
			}
			i = k + 1
		default:
			return false
		}
	}
}

// condEnd reports a ]] word at cmd[i]: after a blank, and followed by a
// blank, an operator or the line's end.
func condEnd(cmd string, i int) bool {
	return strings.HasPrefix(cmd[i:], "]]") && i > 0 && isSpace(cmd[i-1]) &&
		(i+2 == len(cmd) || isSpace(cmd[i+2]) || strings.IndexByte(";&|)", cmd[i+2]) >= 0)
}

// splitTop splits cmd into its top-level subcommands: pieces between the
// operators && || |& ;; ; | & and newline, outside quotes and at depth 0.
// '&' right after an unescaped '<' or '>', or right before one, belongs to a
// redirection.
//
// The scan and this split stay hand-written rather than built on
// mvdan.cc/sh/v3/syntax for two reasons. The dialect is the Claude Code
// CLI's reading of a command, not Bash's (bash_oracle_test.go lists where
// they differ; mvdan.cc/sh is the test oracle where they must not). And it
// is measurably faster: BenchmarkSplitVsSh, same commands, same run, on a
// shared 2-core VM, medians of 3, scanBash and splitTop (words included)
// take 1.1µs, 2.0µs and 2.5µs (4, 8 and 7 allocations) on its three
// commands where syntax.Parser.Parse alone takes 3.4µs, 6.2µs and 5.7µs
// (14, 29 and 42 allocations), before any subcommand text is made.
func splitTop(cmd string, cls []byte) []bashSub {
	subs, _ := splitTopOps(cmd, cls)
	return subs
}

// splitTopOps is splitTop, and whether an operator other than a newline
// follows no command (ls & ;, ls;&, ; ls): Bash refuses such a line, and
// Claude Code 2.1.328 asks for it ("Parse error") whatever the rules
// allow (TestDifferential/sh4-background-*).
func splitTopOps(cmd string, cls []byte) (subs []bashSub, bad bool) {
	start, nested := 0, false
	lastOp := ""
	emit := func(end int) {
		for start < end && cls[start] == clsHeredoc {
			start++ // a here-document's body is no command
		}
		piece := cmd[start:end]
		// Trimmed of exactly the blanks the lead is measured by, so the
		// piece's byte classes start at its first byte (other blanks, such
		// as NBSP, are part of its first word).
		lead := len(piece) - len(strings.TrimLeft(piece, blanks))
		piece = strings.TrimRight(piece[lead:], blanks)
		if piece != "" {
			s := bashSub{raw: piece, nested: nested}
			off := start + lead
			s.words = splitWords(piece, cls[off:off+len(piece)])
			subs = append(subs, s)
		}
		nested = false
	}
	for i := 0; i < len(cmd); {
		if cls[i] == clsOpener {
			nested = true
		}
		if cls[i] != clsTop {
			i++
			continue
		}
		c := cmd[i]
		var prev, next byte
		if i > 0 {
			prev = cmd[i-1]
		}
		if i+1 < len(cmd) {
			next = cmd[i+1]
		}
		n := 0
		switch c {
		case '&':
			switch {
			case next == '&' && cls[i+1] == clsTop:
				n = 2
			case (prev == '<' || prev == '>') && cls[i-1] == clsTop, next == '>' && cls[i+1] == clsTop:
				// A redirection's '&' (>& <& &>); after an escaped '<' or
				// '>' it separates commands, as Bash and Claude Code
				// 2.1.328 read it (TestDifferential/case/bypass-rm:
				// echo \>& rm f18 is denied by an rm rule).
			default:
				n = 1
			}
		case '|':
			if prev == '>' && cls[i-1] == clsTop {
				// >| is a redirection, not a pipe: Claude Code 2.1.328
				// denies echo x >| locked/f under Edit(./locked/**)
				// (TestDifferential/sh3-redirect-*).
				break
			}
			if (next == '|' || next == '&') && cls[i+1] == clsTop {
				n = 2
			} else {
				n = 1
			}
		case ';':
			if next == ';' && cls[i+1] == clsTop {
				n = 2
			} else {
				n = 1
			}
		case '\n':
			n = 1
		}
		if n == 0 {
			i++
			continue
		}
		if c != '\n' && strings.Trim(cmd[start:i], blanks) == "" {
			bad = true
		}
		emit(i)
		if len(subs) > 0 && subs[len(subs)-1].op == "" {
			op := cmd[i : i+n]
			if op == "\n" {
				op = ";"
			}
			subs[len(subs)-1].op = op
			subs[len(subs)-1].bg = op == "&"
		}
		if c != '\n' || strings.Trim(cmd[start:i], blanks) != "" {
			lastOp = cmd[i : i+n] // a newline after && or || continues the list
		}
		i += n
		start = i
	}
	if (lastOp == "&&" || lastOp == "||") && strings.Trim(cmd[start:], blanks) == "" {
		// A list that ends in && or ||: Claude Code 2.1.328 asks for ls &&
		// ("Parse error"), and runs ls | (TestDifferential/
		// genfound4-open-default).
		bad = true
	}
	emit(len(cmd))
	if len(subs) > 0 {
		subs[len(subs)-1].op = ""
	}
	return subs, bad
}

// compound reads the pieces of if, while, until and for statements as
// Claude Code 2.1.328 reads them: the commands of their conditions and
// bodies are commands like any other, and the keywords that lead them (if
// elif while until then else do), the closing fi and done and a for
// loop's header (for NAME in WORDS, a plain NAME that changes how nothing
// runs, WORDS with no expansion) run nothing. if true; then ls; fi and
// while false; do ls; done run with no rule; if ls; then rm f; fi runs
// under Bash(rm:*) (TestDifferential/shellforms-*, compound-*). Only a
// line whose statements open and close in order, with no pipe inside one
// (the release reads if true; then echo x | grep x; fi as echo x and grep
// x; fi, and asks), is so read; any other, and case, select, for ((...))
// and functions, keep their pieces as they are (the dialect asks for
// them). A ! before a command negates it and runs nothing itself (! ls
// runs: compound-*), in any line. The pieces' words lose these words;
// those left with none are dropped.
func compound(subs []bashSub) []bashSub {
	statements := statementsInOrder(subs)
	negated := false
	for i := range subs {
		negated = negated || len(subs[i].words) > 1 && subs[i].words[0] == "!"
	}
	if !statements && !negated {
		return subs
	}
	out := make([]bashSub, 0, len(subs))
	sawIfOrLoop := false
	for _, s := range subs {
		if statements && len(s.words) > 0 && s.words[0] == "for" {
			continue // the header: nothing runs
		}
		lead := 0
		for lead < len(s.words) {
			switch w := s.words[lead]; {
			case w == "!" && lead+1 < len(s.words),
				statements && (w == "if" || w == "while" || w == "until" || w == "then" || w == "elif" || w == "else" || w == "do"):
				lead++
				continue
			}
			break
		}
		if statements && (lead == len(s.words) || lead == len(beforeComment(s.words))-1 && (s.words[lead] == "fi" || s.words[lead] == "done") ||
			s.words[lead] == "for") {
			continue // keywords alone, or a nested loop's header
		}
		for range lead {
			if w := s.words[0]; w == "if" || w == "while" || w == "until" {
				sawIfOrLoop = true
			}
			s.raw = strings.TrimLeft(s.raw[len(s.words[0]):], blanks)
			s.words = s.words[1:]
		}
		s.timeAfterPrefix = sawIfOrLoop && timeAfterPrefix(s.words)
		out = append(out, s)
	}
	return out
}

// gluedDoubleParen reports an argument of a command (a word after its
// name) holding an unquoted, unescaped (( that no $ opens: echo a((b)),
// echo ((b)), ls a((b)) are syntax errors to the shell, and Claude Code
// 2.1.328's removal check cannot read them, asking in bypassPermissions
// too; echo a$((1)), echo a\((b)), x=a((b)) and ((a)) run there (row
// 135, TestDifferential/doubleparens-bypassPermissions;
// TestGluedDoubleParen).
func gluedDoubleParen(words []string) bool {
	name := 0
	for name < len(words) {
		if _, ok := isAssignment(words[name]); ok {
			name++
			continue
		}
		if n := leadRedirect(words[name:]); n > 0 {
			name += n
			continue
		}
		break
	}
	if name < len(words) && keywords[words[name]] {
		return false // for ((i=0; ...)), a statement's keyword
	}
	for _, w := range words[min(name+1, len(words)):] {
		for i := 0; i < len(w); {
			j := unquotedIndex(w[i:], "($")
			if j < 0 || i+j+1 >= len(w) {
				break
			}
			switch i += j; {
			case w[i] == '$' && w[i+1] == '(':
				i = closeParens(w, i+1) // a $( or $(( is no (( of its own
			case w[i] == '(' && w[i+1] == '(':
				return true
			default:
				i++
			}
		}
	}
	return false
}

// quotedSubscript reports a ${ } or $(( )) holding a subscript with a
// quote in it (echo ${a['x']}, echo $(( a["x"] ))): Claude Code 2.1.328
// reads quoted text in a subscript as code it cannot check ("Quoted text in
// square brackets in this command may run as code") and its removal check
// asks for it in bypassPermissions too; echo a['x'] runs there (row 139,
// TestDifferential/misreadedges-bypassPermissions; TestQuotedSubscript).
func quotedSubscript(cmd string) bool {
	for i := 0; i+2 < len(cmd); i++ {
		if cmd[i] != '$' || cmd[i+1] != '{' && !strings.HasPrefix(cmd[i+1:], "((") {
			continue
		}
		end := len(cmd)
		if cmd[i+1] == '{' {
			if j := strings.IndexByte(cmd[i:], '}'); j >= 0 {
				end = i + j
			}
		} else {
			end = closeParens(cmd, i+1)
		}
		span := cmd[i:end]
		for k := strings.IndexByte(span, '['); k >= 0; {
			inner := span[k+1:]
			if c := strings.IndexByte(inner, ']'); c >= 0 {
				inner = inner[:c]
			}
			if strings.ContainsAny(inner, `'"`) {
				return true
			}
			next := strings.IndexByte(span[k+1:], '[')
			if next < 0 {
				break
			}
			k += next + 1
		}
	}
	return false
}

// keywordAfterPrefix reports whether words put a reserved word (if then
// elif else fi while until for do done case esac function select; not in)
// where a command's name stands after one or more assignments or
// redirections (FOO=1 if true; then ls; fi, >/dev/null if ..., A=1 for
// ...). Bash runs a command of that name; Claude Code 2.1.328's parser
// loses its place and asks in every mode, bypassPermissions included
// ("can't be sure it read this command the way the shell will, so it
// can't rule out a dangerous removal"), nested in $( ) or ( ) too (row
// 91; TestDifferential/genreserved-*).
func keywordAfterPrefix(words []string) bool {
	w, prefixed := afterPrefix(words)
	return prefixed && w != "in" && keywords[w]
}

// afterPrefix returns the first word of words that is neither an
// assignment nor a redirection (with its target: leadRedirect), and
// whether one came before it.
func afterPrefix(words []string) (string, bool) {
	prefix := false
	for i := 0; i < len(words); {
		if _, ok := isAssignment(words[i]); ok {
			prefix = true
			i++
			continue
		}
		if n := leadRedirect(words[i:]); n > 0 {
			prefix = true
			i += n
			continue
		}
		return words[i], prefix
	}
	return "", false
}

// timeAfterPrefix reports whether words run time after one or more
// assignments or redirections (LANG=C time ls, >/dev/null time ls). After
// an if, while or until in the line, Claude Code 2.1.328 reads such a
// time as a reserved word where none can stand and asks, whatever
// approved the command ("A shell keyword or opening brace in this command
// can't be checked before it runs": if true; then LANG=C time ls; fi under
// Bash(ls *)); before one, and after for, it runs it (row 91;
// TestDifferential/genreserved-*).
func timeAfterPrefix(words []string) bool {
	w, prefixed := afterPrefix(words)
	return prefixed && w == "time"
}

// statementsInOrder reports whether subs hold if, while, until or for
// statements (their keywords leading pieces, after any ! words) that open
// and close in order, with no pipe inside one and every for header plain
// (forHeader).
func statementsInOrder(subs []bashSub) bool {
	var stack []string
	found := false
	for i := range subs {
		w := subs[i].words
		for k := 0; k < len(w); k++ {
			top := ""
			if len(stack) > 0 {
				top = stack[len(stack)-1]
			}
			switch x := w[k]; x {
			case "!":
				continue
			case "if":
				stack = append(stack, "if")
			case "while", "until":
				stack = append(stack, "loop")
				if loopDepth(stack) > maxLoopDepth {
					return false
				}
			case "then", "elif", "else":
				if top != "if" {
					return false
				}
			case "do":
				if top != "loop" {
					return false
				}
			case "fi", "done":
				opens := "if"
				if x == "done" {
					opens = "loop"
				}
				if top != opens || k != len(w)-1 && !strings.HasPrefix(w[k+1], "#") {
					return false // a comment may follow: done # c
				}
				stack = stack[:len(stack)-1]
			case "for":
				// A header may follow the keywords that lead its
				// subcommand (do for j in 1: a nested loop).
				if !forHeader(w[k:]) || subs[i].op != ";" {
					return false
				}
				stack = append(stack, "loop")
				if loopDepth(stack) > maxLoopDepth {
					return false
				}
				found = true
				k = len(w)
				continue
			default:
				k = len(w) // the command: the keywords lead it
				continue
			}
			found = true
		}
		if op := subs[i].op; len(stack) > 0 && (op == "|" || op == "|&") {
			return false
		}
	}
	return found && len(stack) == 0
}

// maxLoopDepth is how many loops deep Claude Code 2.1.328 follows a line:
// it asks for a sixth loop inside five ("Only the first pass of a loop in
// this command could be checked": TestDifferential/deeploops-*), which
// statementsInOrder leaves unread (TestNestedLoops).
const maxLoopDepth = 5

// loopDepth is how many loops stack holds.
func loopDepth(stack []string) int {
	n := 0
	for _, s := range stack {
		if s == "loop" {
			n++
		}
	}
	return n
}

// condSplit is split (splitRedirs) of a subcommand's words, save that the
// words of a [[ ]] conditional up to its ]] are all arguments: its < and
// > compare strings (Claude Code 2.1.328 runs [[ a < b && c > d ]]:
// TestDifferential/condforms-default); a redirection after the ]] is
// one.
func condSplit(words []string, split func([]string) (args, outs, ins []string)) (args, outs, ins []string) {
	end := condEndWord(words)
	if end < 0 {
		return split(words)
	}
	args, outs, ins = split(words[end+1:])
	return append(slices.Clip(words[:end+1]), args...), outs, ins
}

// condEndWord is the index of the ]] closing a subcommand that starts
// with [[, or -1.
func condEndWord(words []string) int {
	if len(words) == 0 || words[0] != "[[" {
		return -1
	}
	return slices.Index(words, "]]")
}

// malformedCond reports a subcommand that is a [[ ]] conditional whose
// expression Bash cannot read ([[ a b c ]], [[ -f a.txt rm ]], [[ a &&
// rm x ]]): Claude Code 2.1.328 asks for it under any rule ("Parser
// skipped input between top-level statements",
// TestDifferential/condforms-*). An empty one is left alone.
func malformedCond(subs []bashSub) bool {
	for i := range subs {
		w := subs[i].words
		if end := condEndWord(w); end > 1 && !condExpression(condTokens(w[1:end])) {
			return true
		}
	}
	return false
}

// condTokens are the words of a conditional with the parentheses that
// open a word, or close it past those it opens (not @(a|b)), made words
// of their own.
func condTokens(words []string) []string {
	out := make([]string, 0, len(words))
	for _, w := range words {
		for len(w) > 1 && w[0] == '(' {
			out, w = append(out, "("), w[1:]
		}
		closing := 0
		for len(w) > 1 && w[len(w)-1] == ')' && w[len(w)-2] != '\\' && strings.Count(w, ")") > strings.Count(w, "(") {
			w, closing = w[:len(w)-1], closing+1
		}
		out = append(out, w)
		for range closing {
			out = append(out, ")")
		}
	}
	return out
}

// condUnary and condBinary are the operators of Bash's conditional
// expressions.
var (
	condUnary  = setOf("-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-p", "-r", "-s", "-t", "-u", "-w", "-x", "-O", "-G", "-L", "-S", "-N", "-o", "-v", "-R", "-z", "-n")
	condBinary = setOf("==", "=", "!=", "=~", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef")
)

// condExpression reports whether t is one conditional expression: terms
// joined by && and ||, a term a negation (!), a parenthesised expression,
// a unary test, a binary one or a word.
func condExpression(t []string) bool {
	i := 0
	operand := func() bool {
		if i < len(t) && t[i] != "&&" && t[i] != "||" && t[i] != "(" && t[i] != ")" {
			i++
			return true
		}
		return false
	}
	var expr func(depth int) bool
	term := func(depth int) bool {
		for i < len(t) && t[i] == "!" {
			i++
		}
		switch {
		case i < len(t) && t[i] == "(":
			i++
			if !expr(depth+1) || i >= len(t) || t[i] != ")" {
				return false
			}
			i++
			return true
		case i+1 < len(t) && condUnary[t[i]] && t[i+1] != "&&" && t[i+1] != "||" && t[i+1] != ")" && !condBinary[t[i+1]]:
			i += 2
			return true
		}
		if !operand() {
			return false
		}
		if i < len(t) && condBinary[t[i]] {
			i++
			if i < len(t) && t[i] == "(" {
				// A pattern's group ([[ a == (b) ]]): read as one
				// operand, as the release reads it.
				for open := 0; i < len(t); i++ {
					switch t[i] {
					case "(":
						open++
					case ")":
						open--
					}
					if open == 0 {
						i++
						return true
					}
				}
				return false
			}
			return operand()
		}
		return true
	}
	expr = func(depth int) bool {
		if depth > 32 || !term(depth) {
			return false
		}
		for i < len(t) && (t[i] == "&&" || t[i] == "||") {
			i++
			if !term(depth) {
				return false
			}
		}
		return true
	}
	return expr(0) && i == len(t)
}

// forHeader reports a for loop's header that runs nothing: for NAME in
// WORDS, NAME a plain name of no variable that changes how commands run,
// WORDS free of expansions and operators, quoted or not (for f in 'a b'
// runs: TestDifferential/compound-*; globs are left to the shell, as the
// release leaves them). for NAME alone (the positional parameters) is
// one too: Claude Code 2.1.328 runs for i; do cat a.txt; done
// (TestDifferential/genloops-default).
func forHeader(w []string) bool {
	if len(w) == 2 {
		return nameLen(w[1]) == len(w[1]) && !runVariable(w[1])
	}
	if len(w) < 3 || w[2] != "in" || nameLen(w[1]) != len(w[1]) || runVariable(w[1]) {
		return false
	}
	for _, x := range w[3:] {
		if strings.HasPrefix(x, "#") {
			// A # starting a word of the list ("Text after a # in a for
			// or select list": row 139, TestDifferential/misreadedges-*).
			return false
		}
	}
	return noSpecial(w[3:])
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// splitWords splits a subcommand on unquoted top-level white space; quotes
// stay in the words.
func splitWords(s string, cls []byte) []string {
	var words []string
	start := -1
	for i := 0; i < len(s); i++ {
		if cls[i] == clsTop && isSpace(s[i]) {
			if start >= 0 {
				words = append(words, s[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		words = append(words, s[start:])
	}
	return words
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// isAssignment reports an assignment word as Bash reads one before a
// command word: NAME=value, NAME+=value, NAME[subscript]=value and
// NAME[subscript]+=value (Claude Code 2.1.328 denies A+=x rm -rf y,
// A+= rm y and A[0]=x rm y under Bash(rm:*): TestDifferential/
// assign-prefix-*). plain is NAME=value alone, the only form an allow
// rule sees through (it asks for LANG+=x touch f and LANG[0]=C touch f
// under Bash(touch:*)).
func isAssignment(w string) (name string, ok bool) {
	name, _, ok = assignment(w)
	return name, ok
}

func assignment(w string) (name string, plain, ok bool) {
	i := nameLen(w)
	if i == 0 || i >= len(w) {
		return "", false, false
	}
	switch {
	case w[i] == '=':
		return w[:i], true, true
	case w[i] == '+' && i+1 < len(w) && w[i+1] == '=':
		return w[:i], false, true
	case w[i] == '[':
		// The subscript runs to the first ] followed by = or +=; what it
		// holds ($(...), quotes) Bash evaluates apart from the command.
		for j := i + 1; j < len(w); j++ {
			if w[j] == ']' && (strings.HasPrefix(w[j+1:], "=") || strings.HasPrefix(w[j+1:], "+=")) {
				return w[:i], false, true
			}
		}
	}
	return "", false, false
}

// wrapText is s's allowText after its wrapWords, joined by single
// spaces ("" without wrappers), made when an allow rule needs it.
func (s *bashSub) wrapText() string {
	if len(s.wrapWords) == 0 {
		return ""
	}
	n := len(s.allowText)
	for _, w := range s.wrapWords {
		n += len(w) + 1
	}
	var b strings.Builder
	b.Grow(n)
	for _, w := range s.wrapWords {
		b.WriteString(w)
		b.WriteByte(' ')
	}
	b.WriteString(s.allowText)
	return b.String()
}

// nameLen is the length of the shell name w starts with.
func nameLen(w string) int {
	i := 0
	for i < len(w) {
		c := w[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || i > 0 && c >= '0' && c <= '9' {
			i++
			continue
		}
		break
	}
	return i
}

// subscriptWords is how many leading words of w make one assignment whose
// subscript holds blanks or an operator: Bash reads NAME[ up to its ] as
// one word, blanks and ; included, so A[ ]=y rm f and A[x;y]=2 rm f run
// rm f, which Claude Code 2.1.328 denies under Bash(rm:*)
// (TestDifferential/assign-prefix-*). The word holding the ] is the
// assignment's end; a leading word that only ends one (y]=2, after a
// split at the ;) counts alone. 0 when w does not start so.
func subscriptWords(w []string) int {
	if len(w) == 0 {
		return 0
	}
	closes := func(x string) bool {
		j := strings.IndexByte(x, ']')
		return j >= 0 && (strings.HasPrefix(x[j+1:], "=") || strings.HasPrefix(x[j+1:], "+="))
	}
	if n := nameLen(w[0]); n > 0 && n < len(w[0]) && w[0][n] == '[' && !strings.Contains(w[0], "]") {
		for k := 1; k < len(w); k++ {
			if strings.Contains(w[k], "]") {
				if closes(w[k]) {
					return k + 1
				}
				return 0
			}
		}
		return 0
	}
	if j := strings.IndexByte(w[0], ']'); j >= 0 && !strings.ContainsAny(w[0][:j], "[ ") && closes(w[0]) {
		return 1
	}
	return 0
}

// The strip modes.
const (
	stripDeny     = iota // every assignment (deny and ask rules)
	stripAllow           // only safe assignments (safeAssignment) before the wrappers (allow rules, read-only, acceptEdits)
	stripCritical        // like deny, and through sudo with its options
	stripPaths           // like deny, but not past a closing fi, done or esac (path rules)
)

// testEnd is the number of words a test written with [[ or [ at w's start
// takes, through its closing ]] or ], or 0 when it does not close.
func testEnd(w []string) int {
	end := "]"
	if w[0] == "[[" {
		end = "]]"
	}
	for i := 1; i < len(w); i++ {
		if w[i] == end {
			return i + 1
		}
	}
	return 0
}

// leadRedirect is the number of words a redirection at w's start takes
// (its operator, and its target when that is the next word), or 0.
func leadRedirect(w []string) int {
	if len(w) == 0 {
		return 0
	}
	j := redirAt(w[0])
	if j < 0 {
		return 0
	}
	if pre := w[0][:j]; pre != "" && pre != "&" && !allDigits(pre) {
		return 0
	}
	op := w[0][j:]
	k := 1
	for k < len(op) && strings.IndexByte("<>&|", op[k]) >= 0 {
		k++
	}
	if k == len(op) && len(w) > 1 {
		return 2
	}
	return 1
}

// denyWords is stripWords that also takes off redirections written before
// the command word, where Bash allows them: Claude Code 2.1.328 denies > f
// rm x, 2>/dev/null rm x, <<< x rm x and > f FOO=1 rm x under Bash(rm:*),
// in bypassPermissions too (TestDifferential/leadredir-*).
func denyWords(w []string, mode int) []string {
	for {
		w = stripWords(w, mode)
		n := leadRedirect(w)
		if n == 0 {
			return w
		}
		w = w[n:]
	}
}

// stripWords strips leading assignments and wrappers repeatedly.
func stripWords(w []string, mode int) []string {
	wrapped := false
	for len(w) > 0 {
		if name, plain, ok := assignment(w[0]); ok {
			// Allow rules see past an assignment only before the
			// wrappers: Claude Code 2.1.328 runs LANG=C nice npm test
			// under Bash(npm test:*) and asks for nice -n 5 LANG=C npm
			// test, timeout 5 NO_COLOR=1 npm test and timeout 5 LANG=C ls
			// (TestDifferential/allowwraporder-default).
			if mode == stripAllow && (wrapped || !plain || !safeAssignment(name, w[0][len(name)+1:])) {
				return w
			}
			w = w[1:]
			continue
		}
		if mode != stripAllow {
			if n := subscriptWords(w); n > 0 {
				w = w[n:]
				continue
			}
			// A reserved word that a command follows: Claude Code 2.1.328
			// denies if true; then rm f; fi, if rm f; then :; fi, for f in
			// x; do rm $f; done and ! rm f under Bash(rm:*)
			// (TestDifferential/sh3-compound-*).
			switch w[0] {
			case "if", "then", "do", "else", "elif", "while", "until", "!":
				w = w[1:]
				continue
			case "fi", "done", "esac":
				if mode == stripPaths {
					// Read and Edit deny rules do not see the command:
					// the release asks for fi cat secret/s.txt ("Parse
					// error") and runs it in bypassPermissions
					// (leadredir-paths-*), where Bash refuses it.
					return w
				}
				// A statement's end with a command written after it, no
				// operator between: Bash refuses the line, and Claude
				// Code 2.1.328 reads the command as one of its own (it
				// denies fi rm f, done rm f and esac rm f under
				// Bash(rm:*), in bypassPermissions too:
				// TestDifferential/glued-*).
				w = w[1:]
				continue
			case "[[", "[":
				// So after a test: [[ a ]] rm f and [ a ] rm f are denied
				// (glued-*); test a rm f is not, rm being test's word.
				if n := testEnd(w); n > 0 && n < len(w) {
					w = w[n:]
					continue
				}
			}
		}
		name := w[0]
		if strings.ContainsAny(name, `"'\`) {
			// A wrapper's name quoted or escaped is the wrapper: Claude
			// Code 2.1.328 runs 'timeout' 5 npm test, "nice" npm test and
			// \timeout 5 npm test under Bash(npm test:*)
			// (TestDifferential/quotedwrap-default).
			if u := shellWord(name); pathWrapper[u] || u == "sudo" || u == "env" {
				name = u
			}
		}
		if mode != stripAllow {
			// A wrapper named by its path is read through as by its
			// name, by the deny rules and the critical-path check:
			// Claude Code 2.1.328 asks for /usr/bin/timeout 5 rmdir /usr
			// in bypassPermissions (TestDifferential/critwrap-*).
			if i := strings.LastIndexByte(name, '/'); i >= 0 && (pathWrapper[name[i+1:]] || name[i+1:] == "sudo" || name[i+1:] == "env") {
				name = name[i+1:]
			}
		}
		switch name {
		case "timeout":
			w = skipOptions(w[1:], "-s", "-k", "--signal", "--kill-after")
			if len(w) > 0 {
				w = w[1:] // the duration
			}
		case "nice":
			w = skipOptions(w[1:], "-n", "--adjustment")
		case "stdbuf":
			// Allow rules see past stdbuf only with each mode written
			// into its option: the release runs stdbuf -oL npm test and
			// stdbuf -o0 -e0 npm test under Bash(npm test:*), asks for
			// stdbuf -o 0, -i 0, --output=0 and --error=L, and runs
			// stdbuf -o L ls under Bash(stdbuf:*) (TestDifferential/
			// allowwrapopts-*, allowwraporder-default,
			// uncheckable-allowed-default).
			if mode == stripAllow && !stdbufModesAttached(w[1:]) {
				return w
			}
			w = skipOptions(w[1:], "-i", "-o", "-e")
		case "time", "nohup", "command", "builtin", "noglob":
			if name == "command" && describes(w[1:]) {
				// command -v rm prints where rm is: Claude Code 2.1.328
				// reads command itself as the program (it asks for
				// command -v rm under Bash(rm:*): TestDifferential/
				// sh3-launchers-*).
				return w
			}
			w = skipOptions(w[1:])
		case "xargs":
			if len(w) < 2 || strings.HasPrefix(w[1], "-") {
				return w
			}
			w = w[1:]
		case "sudo":
			if mode != stripCritical {
				return w
			}
			w = skipOptions(w[1:], "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U",
				"--user", "--group", "--close-from", "--chdir", "--host", "--prompt", "--role", "--type",
				"--command-timeout", "--other-user")
		case "env":
			if mode == stripPaths {
				// Read and Edit deny rules see the command env runs past
				// its assignments, -i, -0, -v and -u NAME, and not past
				// any other option (cli.js's path strip): Claude Code
				// 2.1.328 denies env cat secret/s.txt, env -u X cat
				// secret/s.txt, env 'FOO=1' cat secret/s.txt and env
				// FOO=1 touch locked/e1.txt under Read(./secret/**) and
				// Edit(./locked/**), in bypassPermissions too, and runs
				// env - cat secret/s.txt there (envpaths-*,
				// leadredir-paths-*).
				n := envPathWords(w)
				if n == 0 {
					return w
				}
				w = w[n:]
				break
			}
			// The critical-path check reads through env as the deny
			// rules do (stripDeep): Claude Code 2.1.328 asks for env
			// rmdir /usr and /usr/bin/env rmdir /usr in
			// bypassPermissions (critwrap-*).
			if mode != stripCritical {
				return w
			}
			w = skipOptions(w[1:], "-u", "--unset", "-C", "--chdir")
			for len(w) > 0 && strings.IndexByte(w[0], '=') > 0 {
				w = w[1:]
			}
		default:
			return w
		}
		wrapped = true
	}
	return w
}

// envPathWords is the number of words env (w[0]) and what the path rules
// read past take before its command: assignments (a word holding = that
// does not start with -), -i, -0, -v and -u with its name; 0 when another
// option comes first or no command follows, where the path rules see env
// itself (TestEnvPaths).
func envPathWords(w []string) int {
	i := 1
	for i < len(w) {
		x := shellWord(w[i])
		switch {
		case strings.Contains(x, "=") && !strings.HasPrefix(x, "-"):
			i++
		case x == "-i" || x == "-0" || x == "-v":
			i++
		case x == "-u" && i+1 < len(w):
			i += 2
		case strings.HasPrefix(x, "-"):
			return 0
		default:
			return i
		}
	}
	return 0
}

// safeAssignment reports an assignment NAME=value that allow rules, the
// read-only list and acceptEdits see past, as Claude Code 2.1.328 does:
// NAME one of the variables of its list (safeEnv), value a word of
// letters, digits and _ . / : - that does not read as a path (no leading
// /, ./, ../, no //, :/ or :. and no .. segment), and for LANG, LC_ALL
// and LC_CTYPE a locale (C, POSIX, UTF-8, NAME.UTF-8). Under Bash(npm
// test:*) the release runs NODE_ENV=test npm test, TZ=America/New_York
// npm test and LANG=c.utf8 npm test, and asks for LANG= npm test, LANG='C'
// npm test, LANG=foo npm test, TZ=/etc/localtime npm test, NODE_ENV=a,b
// npm test and DEBUG=1 npm test (TestDifferential/allowassign-default,
// allowassignval-default).
func safeAssignment(name, value string) bool {
	if !safeEnv[name] || !safeEnvValue.MatchString(value) || envPathLike.MatchString(value) {
		return false
	}
	if name == "LANG" || name == "LC_ALL" || name == "LC_CTYPE" {
		return localeValue.MatchString(value)
	}
	return true
}

var (
	safeEnv = setOf("GOEXPERIMENT", "GOOS", "GOARCH", "CGO_ENABLED", "GO111MODULE", "RUST_BACKTRACE", "RUST_LOG", "NODE_ENV",
		"PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_DEBUG", "ANTHROPIC_API_KEY", "LANG",
		"LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_TIME", "CHARSET", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "TZ", "LS_COLORS",
		"LSCOLORS", "GREP_COLOR", "GREP_COLORS", "GCC_COLORS", "TIME_STYLE", "BLOCK_SIZE", "BLOCKSIZE", "COLUMNS", "LINES", "CLICOLOR",
		"CLICOLOR_FORCE", "CI", "DEBIAN_FRONTEND", "GIT_TERMINAL_PROMPT")
	safeEnvValue = regexp.MustCompile(`^[A-Za-z0-9_./:-]+$`)
	envPathLike  = regexp.MustCompile(`^\.*/|//|:[/.]|(?:^|/)\.\.(?:/|$)`)
	localeValue  = regexp.MustCompile(`(?i)^(?:C|POSIX|UTF-?8|[\w-]+\.UTF-?8)$`)
)

// stdbufModesAttached reports stdbuf's leading options all of the form
// -iMODE, -oMODE or -eMODE, or one the release cannot check
// (wrapperUnchecked reads it then, and asks: stdbuf -x ls under
// Bash(stdbuf:*), TestDifferential/wrapawk-allowed-default). false for a
// mode given apart (-o 0) or long (--output=0).
func stdbufModesAttached(w []string) bool {
	for i := 0; i < len(w) && strings.HasPrefix(w[i], "-"); i++ {
		switch o := w[i]; {
		case o == "-i" || o == "-o" || o == "-e":
			return i+1 >= len(w)
		case stdbufLong.MatchString(o):
			return false
		case len(o) < 3 || o[1] != 'i' && o[1] != 'o' && o[1] != 'e':
			return true
		}
	}
	return true
}

var stdbufLong = regexp.MustCompile(`^--(?:input|output|error)=.+$`)

// describes reports a -v or -V among command's leading options.
func describes(w []string) bool {
	for _, o := range w {
		if !strings.HasPrefix(o, "-") || o == "-" || o == "--" {
			return false
		}
		if strings.ContainsAny(o[1:], "vV") {
			return true
		}
	}
	return false
}

// skipOptions drops leading option words; the listed ones take a value.
// A cluster of short options (-nu) is read as getopt reads it: the first
// listed one in it takes the rest of the cluster as its value, or the next
// word when it ends the cluster (sudo -nu root rm f runs rm f, which
// Claude Code 2.1.328 denies under Bash(rm:*): TestDifferential/
// launchers5-*).
func skipOptions(w []string, withValue ...string) []string {
	for len(w) > 0 && strings.HasPrefix(w[0], "-") && w[0] != "-" {
		if w[0] == "--" {
			return w[1:]
		}
		takes := false
		for _, o := range withValue {
			if w[0] == o {
				takes = true
				break
			}
		}
		if !takes && len(w[0]) > 2 && w[0][1] != '-' {
			for i := 1; i < len(w[0]); i++ {
				if slices.Contains(withValue, "-"+w[0][i:i+1]) {
					takes = i == len(w[0])-1
					break
				}
			}
		}
		w = w[1:]
		if takes && len(w) > 0 {
			w = w[1:]
		}
	}
	return w
}

// nestedSegments cuts the whole line into the segments deny and ask rules
// (and the critical-path check) look at, in two readings. The first:
// quote characters are deleted, the & of the redirections >& <& &> stays
// in its word (2>&1 is one word, so a redirection before a command is
// read as one: denyWords), and ` ( ) { } ; | & newline and the openers
// $( <( >( separate segments; ${...} stays intact unless it holds a
// command (paramNests). It over-matches inside quoted text on purpose.
// The second, for a line with a quote or a backslash, is the shell's
// (quotedSegments): a quoted span or an escaped character stays in its
// word. Its segments that the first reading does
// not have follow the first's: Claude Code 2.1.328 denies rm under
// Bash(rm:*) in echo $(FOO="a b" rm x) and (> a\ b rm x), whose first
// reading starts at b (TestQuotedWordsInSegments,
// TestDifferential/case/nestedquoted-*).
func nestedSegments(cmd string) [][]string {
	segs, _ := bothSegments(cmd)
	return segs
}

// bothSegments is nestedSegments, and the shell's reading alone (the
// first reading when the line has no quote or backslash, where the two
// agree).
func bothSegments(cmd string) (segs, shell [][]string) {
	segs = plainSegments(cmd)
	if !strings.ContainsAny(cmd, "'\"\\") {
		return segs, segs
	}
	shell = quotedSegments(cmd)
	for _, q := range shell {
		if !slices.ContainsFunc(segs, func(s []string) bool { return slices.Equal(s, q) }) {
			segs = append(segs, q)
		}
	}
	return segs, shell
}

// plainSegments is nestedSegments' first reading.
func plainSegments(cmd string) [][]string {
	b := []byte(cmd)
	var redirAmp []bool // the & at i is a redirection's
	for i := 0; i+1 < len(b); i++ {
		amp := -1
		switch {
		case (b[i] == '>' || b[i] == '<') && b[i+1] == '&':
			amp = i + 1
		case b[i] == '&' && b[i+1] == '>':
			amp = i
		}
		if amp >= 0 {
			if redirAmp == nil {
				redirAmp = make([]bool, len(b))
			}
			redirAmp[amp] = true
			i++
		}
	}
	var segs [][]string
	cur := make([]byte, 0, len(b))
	flush := func() {
		if f := strings.Fields(string(cur)); len(f) > 0 {
			segs = append(segs, f)
		}
		cur = cur[:0]
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		var next byte
		if i+1 < len(b) {
			next = b[i+1]
		}
		switch {
		case c == '\'' || c == '"':
		case c == '$' && next == '{' && !paramNests(cmd[i:]):
			depth := 0
			for ; i < len(b); i++ {
				if b[i] == '\'' || b[i] == '"' {
					continue
				}
				cur = append(cur, b[i])
				if b[i] == '{' {
					depth++
				} else if b[i] == '}' {
					if depth--; depth == 0 {
						break
					}
				}
			}
		case (c == '$' || c == '<' || c == '>') && next == '(':
			flush()
			i++
		case c == '&' && redirAmp != nil && redirAmp[i]:
			cur = append(cur, c)
		case strings.IndexByte("`(){};|&\n", c) >= 0:
			flush()
		default:
			cur = append(cur, c)
		}
	}
	flush()
	return segs
}

// quotedSegments is nestedSegments' second reading, the shell's words: a
// '...' or $'...' span, a "..." string and a backslash-escaped character
// stay in their word (without the quotes and the backslash; $'...' as
// written), blanks and operators in them separate nothing; a
// backslash-newline outside quotes is a blank.
// A $( <( >( ( or ` opens a segment (inside "..." too, as the shell runs
// it) and its ) or ` closes it; ; | & newline separate segments, except
// the & of >& <& &>, and so do { and } written as words of their own;
// ${...} stays intact unless it holds a command (paramNests). A quote left
// open runs to the end of the line.
func quotedSegments(cmd string) [][]string {
	var segs [][]string
	var words []string
	var word []byte
	// lit: the word's last byte was quoted or escaped (\>& is no
	// redirection: its & runs the line before it in the background).
	inWord, lit := false, false
	endWord := func() {
		if inWord {
			words = append(words, string(word))
			word, inWord, lit = word[:0], false, false
		}
	}
	flush := func() {
		endWord()
		if len(words) > 0 {
			segs = append(segs, words)
			words = nil
		}
	}
	// open holds the closer of each context opened: ')' of $( <( >( (,
	// '`' of a backtick, '"' of a double-quoted string.
	var open []byte
	top := func() byte {
		if len(open) == 0 {
			return 0
		}
		return open[len(open)-1]
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		var next byte
		if i+1 < len(cmd) {
			next = cmd[i+1]
		}
		// A $( or ` opens a segment in "..." as outside it.
		switch {
		case c == '$' && next == '(':
			flush()
			open = append(open, ')')
			i++
			continue
		case c == '`':
			flush()
			if top() == '`' {
				open = open[:len(open)-1]
			} else {
				open = append(open, '`')
			}
			continue
		}
		if top() == '"' {
			switch {
			case c == '"':
				open = open[:len(open)-1]
			case c == '\\' && next == '\n':
				i++
			case c == '\\' && strings.IndexByte("\"\\$`", next) >= 0:
				word = append(word, next)
				i++
			default:
				word = append(word, c)
			}
			inWord, lit = true, true
			continue
		}
		switch {
		case c == '\'':
			end := i + 1
			for end < len(cmd) && cmd[end] != '\'' {
				end++
			}
			word = append(word, cmd[i+1:min(end, len(cmd))]...)
			inWord, lit = true, true
			i = end
		case c == '$' && next == '\'':
			// Kept as written: the release does not decode $'...'
			// ($'rm' q4 runs under Bash(rm:*) in bypassPermissions,
			// TestDifferential/case/sh3-quote-*).
			end := i + 2
			for end < len(cmd) && cmd[end] != '\'' {
				if cmd[end] == '\\' {
					end++
				}
				end++
			}
			word = append(word, cmd[i:min(end+1, len(cmd))]...)
			inWord, lit = true, true
			i = end
		case c == '"':
			open = append(open, '"')
			inWord = true
		case c == '\\':
			if next == '\n' {
				// A blank, as the release reads it: r\<newline>m q9 runs
				// under Bash(rm:*) (sh3-quote-*).
				endWord()
				i++
				continue
			}
			if i+1 < len(cmd) {
				word = append(word, next)
				inWord, lit = true, true
				i++
			}
		case c == '$' && next == '{' && !paramNests(cmd[i:]):
			depth := 0
			for ; i < len(cmd); i++ {
				word = append(word, cmd[i])
				if cmd[i] == '{' {
					depth++
				} else if cmd[i] == '}' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			inWord, lit = true, false
		case (c == '<' || c == '>') && next == '(':
			flush()
			open = append(open, ')')
			i++
		case c == '(':
			flush()
			open = append(open, ')')
		case c == ')':
			flush()
			if top() == ')' {
				open = open[:len(open)-1]
			}
		case c == '&' && (next == '>' || inWord && !lit && len(word) > 0 && (word[len(word)-1] == '>' || word[len(word)-1] == '<')):
			word = append(word, c)
			inWord, lit = true, false
		case (c == '{' || c == '}') && !inWord && (next == 0 || strings.IndexByte(" \t\n;|&)", next) >= 0):
			// A group's brace is a word of its own: -I{} and {} are
			// words (xargs -I{} sh -c 'rm {}').
			flush()
		case c == '{' || c == '}':
			word = append(word, c)
			inWord, lit = true, false
		case strings.IndexByte(";|&\n", c) >= 0:
			flush()
		case c == ' ' || c == '\t' || c == '\r':
			endWord()
		default:
			word = append(word, c)
			inWord, lit = true, false
		}
	}
	flush()
	return segs
}

// paramNests reports whether the ${...} that s starts with holds a command
// ($( ` <( >(): the segment readings then read it as any nested command
// instead of keeping the expansion whole. Claude Code 2.1.328 denies
// echo ${x:-$(rm f)} under Bash(rm:*), in bypassPermissions too
// (TestDifferential/rareshapes-*).
func paramNests(s string) bool {
	depth := 0
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return false
			}
		case '`':
			return true
		case '(':
			if p := s[i-1]; p == '$' || p == '<' || p == '>' {
				return true
			}
		}
	}
	return false
}

// blanks are what splitTop trims a subcommand of.
const blanks = " \t\r\n"

// tooComplex reports what Claude Code 2.1.328 refuses to read a command
// with ("too-complex": it asks, whatever the rules allow): a control
// character other than tab and newline, or a Unicode blank Bash does not
// split at (U+00A0, U+1680, U+2000 to U+200B, U+2028, U+2029, U+202F,
// U+205F, U+3000, U+FEFF) (TestDifferential/case/unicode-blanks); and,
// anywhere in the line, quoted or not, the shapes zshShape reads. The
// dialect reads such a line as broken.
func tooComplex(cmd string) bool {
	if len(cmd) > maxLineLength || zshShape(cmd) || dollarShapes(cmd) {
		return true
	}
	for _, r := range cmd {
		switch {
		case r < 0x20 && r != '\t' && r != '\n', r == 0x7f:
			return true
		case r == 0xa0, r == 0x1680, r >= 0x2000 && r <= 0x200b, r == 0x2028, r == 0x2029,
			r == 0x202f, r == 0x205f, r == 0x3000, r == 0xfeff:
			return true
		}
	}
	return false
}

// closeParens is the index after the parenthesis that closes the one at
// cmd[i], quotes inside read as text, or len(cmd).
func closeParens(cmd string, i int) int {
	depth := 0
	for ; i < len(cmd); i++ {
		switch cmd[i] {
		case '\\':
			i++
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return len(cmd)
}

// maxLineLength is the longest command, in bytes, the dialect reads.
// Claude Code 2.1.328's parser gives up on a longer line ("Parser aborted
// (timeout, resource limit, or over-length)"): it ran echo commands and a
// here-document given to cat of 9,036 characters and asked for those of
// 11,005 and more, whatever their shape (row 137,
// TestDifferential/longlines-default). Its limit is a parse's time and
// node budget over a line past 10,000 characters (its cache's bound);
// the dialect asks past 10,000 bytes, a character beyond ASCII counting
// two bytes or more (stricter there). TestLongLines.
const maxLineLength = 10000

// zshShape reports, anywhere in cmd, quoted or not, a shape Claude Code
// 2.1.328's command reader refuses beyond control characters and blanks
// (TestDifferential/toocomplex-*): "zsh ~[ dynamic directory syntax" (echo
// ~[x]), "zsh =cmd equals expansion" (a '=' then a letter or '_' at the
// start or after a blank, ';', '&' or '|': echo =x1, echo a =x2; not a=x3
// or '=x5'), "zsh <N-M> numeric-range glob" (cat a<1-2>.txt), and
// "backslash-escaped whitespace": a backslash before a blank (echo a\ b,
// in quotes too), or an odd run of backslashes before a newline (a line
// continuation) but the one plain continuation between words, a single
// backslash after a blank (npm test \<newline> --x). It is the release's
// regular expressions written as one scan (zshShapeRE in the tests is
// their oracle: TestZshShapeIsTheReleasesExpressions); a regexp took about
// 6 µs a command, on every Bash call's path.
func zshShape(cmd string) bool {
	for i := 0; i < len(cmd); i++ {
		switch c := cmd[i]; c {
		case '~':
			if i+1 < len(cmd) && cmd[i+1] == '[' {
				return true
			}
		case '=':
			if (i == 0 || strings.IndexByte(" \t\n\f\r;&|", cmd[i-1]) >= 0) && i+1 < len(cmd) && wordStart(cmd[i+1]) {
				return true
			}
		case '<':
			j := i + 1
			for j < len(cmd) && cmd[j] >= '0' && cmd[j] <= '9' {
				j++
			}
			if j < len(cmd) && cmd[j] == '-' {
				j++
				for j < len(cmd) && cmd[j] >= '0' && cmd[j] <= '9' {
					j++
				}
				if j < len(cmd) && cmd[j] == '>' {
					return true
				}
			}
		case '\\':
			if i+1 < len(cmd) && (cmd[i+1] == ' ' || cmd[i+1] == '\t') {
				return true
			}
		case '\n':
			n := 0
			for n < i && cmd[i-1-n] == '\\' {
				n++
			}
			if n%2 == 1 {
				blank := i-1-n >= 0 && (cmd[i-1-n] == ' ' || cmd[i-1-n] == '\t')
				if !blank || n >= 3 {
					return true
				}
			}
		}
	}
	return false
}

// quotedComment reports a newline followed by blanks and a '#' inside
// quotes ("Newline followed by # inside a quoted argument can hide
// arguments from path validation": echo 'x<newline># y',
// TestDifferential/redirshapes-*).
func quotedComment(cmd string) bool {
	if strings.IndexByte(cmd, '\n') < 0 {
		return false
	}
	var q byte
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case q == 0 && c == '\\':
			i++
		case q == 0 && (c == '\'' || c == '"'):
			q = c
		case q != 0 && c == q:
			q = 0
		case q == '"' && c == '\\':
			i++
		case q != 0 && c == '\n':
			j := i + 1
			for j < len(cmd) && (cmd[j] == ' ' || cmd[j] == '\t' || cmd[j] == '\n' || cmd[j] == '\r' || cmd[j] == '\f' || cmd[j] == '\v') {
				j++
			}
			if j < len(cmd) && cmd[j] == '#' {
				return true
			}
		}
	}
	return false
}

// wordStart reports a letter or '_'.
func wordStart(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }

// dollarShapes reports a '$' outside single quotes that Claude Code
// 2.1.328 cannot read ahead of the shell: before a quote ($'a\nb', "Text
// with escape codes in this command can't be checked before it runs"),
// before a byte that is not ASCII ($é, "A $ followed by non-ASCII text"),
// before a '~', '+', '^' or '=' (zsh's $~x, $+x, $^x, $=x: "zsh
// $+/$^/$=/$~ prefix-flag expansion"; echo $= and echo a$+ ask too) or a
// '[' ($[1+2]) (TestDifferential/uncheckable-*, zshflags-*,
// expansions-*). A '$' escaped by a backslash is text.
func dollarShapes(cmd string) bool { return dollarScan(cmd, false) }

// literalArith returns the length of the arithmetic expansion s starts
// with when it holds only numbers (12, 0x1f, 16#ff), operators, blanks and
// parentheses, and 0 otherwise: Claude Code 2.1.328 reads such an
// expansion ahead of the shell (echo $((1+2)), x=$(( (1+2)*3 )) run with
// no rule) and asks for one that names a variable ("Arithmetic expansion
// references variable or non-literal": TestDifferential/builtinforms-*,
// expansions-*). Its bytes are then a word's, not a nesting frame's.
func literalArith(s string) int {
	if !strings.HasPrefix(s, "$((") {
		return 0
	}
	depth := 0
	for i := 3; i < len(s); i++ {
		switch c := s[i]; {
		case c == '(':
			depth++
		case c == ')':
			if depth > 0 {
				depth--
				continue
			}
			if i+1 < len(s) && s[i+1] == ')' {
				return i + 2
			}
			return 0
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && (s[j] == '#' || s[j] == '_' || s[j] >= '0' && s[j] <= '9' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
				j++
			}
			if !arithNumber.MatchString(s[i:j]) {
				return 0
			}
			i = j - 1
		case c == ' ' || c == '\t' || strings.IndexByte("+-*/%^&|~!<>=?:,", c) >= 0:
		default:
			return 0
		}
	}
	return 0
}

var arithNumber = regexp.MustCompile(`^(?:[0-9]+|0[xX][0-9a-fA-F]+|[0-9]+#[0-9a-zA-Z]+)$`)

// expansionShapes reports the expansions of a line, its subcommands as
// written, that Claude Code 2.1.328 refuses to read: a variable
// (variableShapes), a tilde in an assignment's value (tildeAssigned), or
// a comment line inside quotes (quotedComment); here-documents' bodies
// aside.
func expansionShapes(cmd string, hd *hdScan, subs []bashSub) bool {
	if strings.IndexByte(cmd, '\n') >= 0 && quotedComment(hd.plain(cmd)) {
		return true
	}
	if strings.IndexByte(cmd, '$') >= 0 && variableShapes(hd.plain(cmd)) {
		return true
	}
	if strings.IndexByte(cmd, '~') >= 0 {
		for i := range subs {
			if tildeAssigned(subs[i].words) {
				return true
			}
		}
	}
	return false
}

// variableShapes reports a variable expansion Claude Code 2.1.328 cannot
// read ahead of the shell, outside single quotes and not escaped ("A
// variable in this command can't be checked before it runs"): every
// $NAME, $N and special parameter but $HOME, which it reads as the home
// directory, and every ${...} ("A variable in braces"); a variable the
// line assigns counts too ("A variable set in this command"). Inside
// double quotes it reads $PWD, $USER, $PATH, $?, $$, $#, ... (dqNames) as
// values it does not know, unless the quoted text is little more than
// them ("Quoted text in this command can't be checked": echo "$PWD" and
// echo "x$PWD" ask); a bare $HOME[1] or $HOME:h is zsh's ("zsh
// $name[expr] / $name:mod in bare concatenation"). A '$' outside quotes
// that starts no expansion ($ alone, a$, $., $/x, $,) makes the line too
// complex as well ("This command can't be checked before it runs"); inside
// double quotes it is text ("$.", "a$ b"). An arithmetic expansion inside
// double quotes is a value it does not know, as $PWD is (row 132); outside
// them, and command substitutions, are left to the other checks, their
// variables counting. Text is counted in characters, as the release
// counts it ("é$PWD" asks) (TestDifferential/variables-*, builtinforms-*,
// lonedollar-default, paramforms-*).
func variableShapes(cmd string) bool { return dollarScan(cmd, true) }

// dollarScan is dollarShapes, and with vars variableShapes too: one walk
// of cmd as the shell quotes it, looking at each '$' outside single quotes
// and not escaped (TestExpansionsNotRead, TestUncheckableArgs,
// TestZshFlagsAndQuotedDeclarations).
func dollarScan(cmd string, vars bool) bool {
	inSingle, inDouble := false, false
	text, placeholder := 0, false // of the double-quoted string being read
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case inSingle:
			if c == '\'' {
				inSingle = false
			}
			continue
		case c == '\\':
			i++
			if inDouble {
				text++
			}
			continue
		case c == '"':
			if vars && inDouble && placeholder && text <= 1 {
				return true
			}
			inDouble, text, placeholder = !inDouble, 0, false
			continue
		case c == '\'' && !inDouble:
			inSingle = true
			continue
		case c != '$':
			if inDouble && (c < 0x80 || c >= 0xc0) {
				text++ // a character, counted at its first byte
			}
			continue
		case i+1 == len(cmd):
			// A lone '$' ending the line, outside quotes (echo a$).
			return vars && !inDouble
		}
		rest := cmd[i+1:]
		switch n := rest[0]; {
		case n == '\'' && !inDouble, n >= 0x80, strings.IndexByte("~[+^=", n) >= 0, inDouble && zshModified(rest):
			return true
		case !vars:
			continue
		case n == '{', n == '"' && !inDouble: // ${...}, $"..." (Translatable text)
			return true
		case n == '(' && inDouble && strings.HasPrefix(rest, "(("):
			// An arithmetic expansion is a value the release does not
			// know, as $PWD is (echo "$((1+2))" and echo "a$((1))" ask,
			// echo "ab$((1))" runs: row 132, TestQuotedArith).
			placeholder = true
			i = closeParens(cmd, i+1) - 1
			continue
		case n == '(':
			continue
		}
		n := nameLen(rest)
		if n == 0 && strings.IndexByte("?$!#-@*0123456789", rest[0]) >= 0 {
			n = 1
		}
		if n == 0 {
			if !inDouble {
				// A '$' that starts no expansion, outside quotes:
				// echo $., echo a$/b, basename $, (inside double
				// quotes it is text: echo "$.").
				return true
			}
			text++ // a lone '$'
			continue
		}
		switch v := rest[:n]; {
		case v == "HOME":
			if !inDouble && zshModified(rest) {
				return true
			}
			text += 2
		case inDouble && (dqNames[v] || n == 1 && strings.IndexByte("?$!#0-", v[0]) >= 0):
			placeholder = true
		default:
			return true
		}
		i += n
	}
	return false
}

// dqNames are the variables Claude Code 2.1.328 lets stand inside double
// quotes, their value unknown ($HOME it reads).
var dqNames = setOf("PWD", "OLDPWD", "USER", "LOGNAME", "SHELL", "PATH", "HOSTNAME", "UID", "EUID", "PPID", "RANDOM", "SECONDS",
	"LINENO", "TMPDIR", "BASH_VERSION", "BASHPID", "SHLVL", "HISTFILE", "IFS")

// zshModified reports, after a '$' inside double quotes, a variable's name
// (or a special parameter: $#, $@, $1, ...) followed by a subscript or a
// modifier, which zsh evaluates and Bash leaves as text ("zsh
// "$name[expr]" / "$name:mod" inside double-quotes — recursive eval":
// echo "$HOME[1]", echo "$PWD:t", echo "$#[1]").
func zshModified(s string) bool {
	n := nameLen(s)
	if n == 0 && s != "" && strings.IndexByte("#@*?$!-0123456789", s[0]) >= 0 {
		n = 1
	}
	if n == 0 || n >= len(s) {
		return false
	}
	switch rest := s[n:]; {
	case rest[0] == '[':
		return true
	case rest[0] == ':' && len(rest) > 1:
		c := rest[1]
		return c == '&' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	return false
}

// tildeAssigned reports an assignment whose value holds a '~', quoted or
// not, before a subcommand's command word (A=~/x, A=~ ls, A='~') or as an
// operand of a declaration (export A=~/x): Claude Code 2.1.328 refuses to
// read such a line ("Tilde in assignment value — bash may expand at
// assignment time": TestDifferential/expansions-*). words are as written.
func tildeAssigned(words []string) bool {
	i := 0
	for ; i < len(words); i++ {
		if _, ok := isAssignment(words[i]); !ok {
			break
		}
		if strings.Contains(words[i][strings.IndexByte(words[i], '=')+1:], "~") {
			return true
		}
	}
	if i == len(words) {
		return false
	}
	switch words[i] {
	case "declare", "typeset", "local", "export", "readonly":
		for _, w := range words[i+1:] {
			if _, ok := isAssignment(w); ok && strings.Contains(w[strings.IndexByte(w, '=')+1:], "~") {
				return true
			}
		}
	}
	return false
}

// parseBash parses a command for the decision steps.
func parseBash(cmd string) *bashLine {
	cmd = catHeredocs(cmd)
	cls, broken, hd := scanBashHD(cmd)
	subs, bad := splitTopOps(cmd, cls)
	subs = compound(subs)
	l := &bashLine{line: cmd, broken: broken || bad || tooComplex(cmd) || hd.broken() || expansionShapes(cmd, hd, subs) || malformedCond(subs) ||
		trailingBackslash(cmd), subs: subs}
	for i := 0; i < len(subs) && !l.broken; i++ {
		l.broken = subRefused(subs[i].words)
	}
	if !l.broken && strings.Contains(cmd, "=") {
		l.subs = assignedSubstitutions(l.subs)
		subs = l.subs
		// The command of an assignment's substitution is parsed as the
		// line's are: a word after a redirection's target asks there too
		// (x=$(echo hi > /dev/null -x), x=$(cat < a.txt -n):
		// TestDifferential/redirtargets-default).
		for i := 0; i < len(subs) && !l.broken; i++ {
			l.broken = wordAfterRedirect(subs[i].words)
		}
	}
	if !l.broken && strings.Contains(cmd, "$(") && strings.IndexByte(cmd, '"') >= 0 {
		l.subs = quotedSubstitutions(l.subs)
	}
	l.openDollar = strings.Contains(cmd, "$") && unclosedDollar(cmd)
	for i := 0; i < len(l.subs) && strings.Contains(cmd, "(("); i++ {
		l.doubleParen = l.doubleParen || gluedDoubleParen(l.subs[i].words)
	}
	l.subscriptQuote = strings.Contains(cmd, "$") && quotedSubscript(cmd)
	segs, shell := bothSegments(hd.plain(cmd))
	// The shell's reading: a keyword inside quoted text is no command
	// (echo "x; FOO=1 if y" runs in bypassPermissions).
	for _, seg := range shell {
		l.keywordAfterPrefix = l.keywordAfterPrefix || keywordAfterPrefix(seg)
		if mentionsShell(seg) {
			l.shellSegs = append(l.shellSegs, seg)
		}
	}
	l.denyTexts = make([]string, 0, len(l.subs)+1+2*len(segs)) // room for every text below
	for i := range l.subs {
		s := &l.subs[i]
		dw := denyWords(s.words, stripDeny)
		s.denyText = strings.Join(dw, " ")
		l.dirChange(dw)
		orig := s.words
		s.words = stripWords(s.words, stripAllow)
		s.notRO, s.xargs = readOnlyWrappers(orig[:len(orig)-len(s.words)], s.words)
		s.wrapWord, s.wrapWhy = wrapperUnchecked(orig[:len(orig)-len(s.words)])
		s.wrapped = len(orig) > len(s.words)
		s.args, s.outs, s.ins = condSplit(s.words, splitRedirs)
		s.args = unquoteCommandWord(s.args)
		s.spaced = hasBlankRun(s.raw)
		// Allow rules match the command without its redirections, as
		// Claude Code 2.1.328 does; where the output goes is decided
		// apart (redirectAsk).
		s.allowText = joinLike(s.args, s.denyText)
		if s.wrapped && len(s.words) > 0 {
			// An allow rule naming a wrapper sees it and what it runs:
			// Claude Code 2.1.328 runs find . -name '*.txt' | xargs grep
			// x under Bash(find:*) and Bash(xargs:*), and timeout 5
			// touch t.txt, nice -n 5 rm f2.txt, nohup npm run test under
			// Bash(timeout:*), Bash(nice -n 5:*), Bash(nohup:*) (row
			// 116; TestDifferential/diropts-allowed-default,
			// wrapallow-*; TestWrapperAllowRules).
			w := orig[:len(orig)-len(s.words)]
			for len(w) > 0 {
				if _, ok := isAssignment(w[0]); !ok {
					break
				}
				w = w[1:]
			}
			// time ! ls is a negated pipeline the release asks for under
			// Bash(time:*) (TestDifferential/genreserved-allowed-default).
			if len(w) > 0 && s.words[0] != "!" {
				s.wrapWords = w
			}
		}
		if s.denyText != "" {
			l.denyTexts = append(l.denyTexts, s.denyText)
		}
		l.denyTexts = appendUnredirected(l.denyTexts, orig, s.denyText)
	}
	// The whole line is a deny text too, so a rule written across an
	// operator (Bash(wget *| bash*)) can match.
	if len(l.subs) > 1 {
		if whole := l.wholeText(); !containsString(l.denyTexts, whole) {
			l.denyTexts = append(l.denyTexts, whole)
		}
	}
	// A blank escaped by a backslash reads as a blank too: Claude Code
	// 2.1.328 asks for git log\ -1 under ask Bash(git log -1:*), in
	// bypassPermissions as well (TestDifferential/sh4-quote-allow-*).
	if strings.Contains(cmd, "\\ ") || strings.Contains(cmd, "\\\t") {
		for i := range l.subs {
			if t := strings.NewReplacer("\\ ", " ", "\\\t", "\t").Replace(l.subs[i].denyText); t != l.subs[i].denyText && !containsString(l.denyTexts, t) {
				l.denyTexts = append(l.denyTexts, t)
			}
		}
	}
	subTexts := len(l.denyTexts)
	for _, seg := range segs {
		stripped := stripWords(seg, stripPaths)
		if t := joinLike(denyWords(stripped, stripDeny), l.denyTexts[:subTexts]...); t != "" {
			if !containsString(l.denyTexts[subTexts:], t) {
				// Two readings of a segment (nestedSegments) often join
				// to one text; their words, for the path rules, differ.
				l.denyTexts = append(l.denyTexts, t)
			}
			if l.pathSegs == nil {
				l.pathSegs = make([][]string, 0, len(segs))
			}
			l.markPathSeg(stripped, len(stripped) == len(seg))
			// Claude Code 2.1.328 stops an rm deny rule's \rm, /bin/rm,
			// sudo rm, env rm and /usr/bin/env rm too
			// (internal/claudecodetest TestDifferential/bypass-rm).
			if deep := joinLike(stripDeep(seg), t); deep != t && deep != "" && !containsString(l.denyTexts, deep) {
				l.denyTexts = append(l.denyTexts, deep)
			}
		}
		if !l.critical {
			if arg, ok := criticalRemoval(denyWords(seg, stripCritical)); ok {
				l.critical, l.criticalArg = true, arg
			}
		}
	}
	if strings.IndexByte(cmd, '$') >= 0 {
		l.addVariableCommands(segs)
	}
	l.continued(cmd)
	return l
}

// continued adds the deny texts (and a critical removal) of cmd read with
// each backslash-newline as a blank: Claude Code 2.1.328 denies rm\<newline>
// f under Bash(rm:*), in bypassPermissions too, and runs r\<newline>m f
// (TestDifferential/launchers5-*, sh3-quote-*).
func (l *bashLine) continued(cmd string) {
	if !strings.Contains(cmd, "\\\n") {
		return
	}
	j := parseBash(strings.ReplaceAll(cmd, "\\\n", " "))
	for _, t := range j.denyTexts {
		if !containsString(l.denyTexts, t) {
			l.denyTexts = append(l.denyTexts, t)
		}
	}
	if j.critical && !l.critical {
		l.critical, l.criticalArg = true, j.criticalArg
	}
}

// addVariableCommands adds a deny text for each segment whose command word
// is a variable ($X, ${X}, "$X") that an assignment alone in the line sets
// (X=rm; $X f, X=rm && $X f), with the variable's value in its place, and
// the segment so read to the path segments:
// Claude Code 2.1.328 denies both under Bash(rm:*) and runs X=ls; $X f
// (TestDifferential/sh3-quote-*). Every such assignment counts, wherever
// it is in the line.
func (l *bashLine) addVariableCommands(segs [][]string) {
	var vals map[string]string
	for i := range l.subs {
		w := l.subs[i].words
		if len(w) != 1 {
			continue
		}
		if name, plain, ok := assignment(w[0]); ok && plain {
			if vals == nil {
				vals = map[string]string{}
			}
			vals[name] = shellWord(w[0][len(name)+1:])
		}
	}
	if vals == nil {
		return
	}
	for _, seg := range segs {
		w := denyWords(seg, stripDeny)
		if len(w) == 0 {
			continue
		}
		name := strings.Trim(shellWord(w[0]), "${}")
		if v, ok := vals[name]; ok && v != "" && strings.HasPrefix(shellWord(w[0]), "$") {
			sub := append(strings.Fields(v), w[1:]...)
			if t := strings.Join(stripDeep(sub), " "); t != "" && !containsString(l.denyTexts, t) {
				l.denyTexts = append(l.denyTexts, t)
			}
			// Its paths too: Claude Code 2.1.328 denies X=rm; $X locked/f
			// under Edit(./locked/**) and X=cat; $X secret/s.txt under
			// Read(./secret/**) (TestDifferential/agents-bash-*).
			l.markPathSeg(sub, false)
		}
	}
}

// markPathSeg appends seg to the path segments, plain when it begins
// with its command as written (pathPlain).
func (l *bashLine) markPathSeg(seg []string, plain bool) {
	if i := len(l.pathSegs); plain && i < 64 {
		l.pathPlain |= 1 << i
	}
	l.pathSegs = append(l.pathSegs, seg)
}

// pathSegPlain reports pathPlain's bit for pathSegs[i].
func (l *bashLine) pathSegPlain(i int) bool { return i < 64 && l.pathPlain&(1<<i) != 0 }

// joinLike is strings.Join(ws, " "), without making it when one of like
// already reads so (a subcommand's deny text is most often its allow text,
// and its nested segment).
func joinLike(ws []string, like ...string) string {
	for _, t := range like {
		if joinedIs(ws, t) {
			return t
		}
	}
	return strings.Join(ws, " ")
}

// joinedIs reports whether strings.Join(ws, " ") == s.
func joinedIs(ws []string, s string) bool {
	for i, w := range ws {
		if i > 0 {
			if s == "" || s[0] != ' ' {
				return false
			}
			s = s[1:]
		}
		if !strings.HasPrefix(s, w) {
			return false
		}
		s = s[len(w):]
	}
	return s == ""
}

// wholeText is the line as one text, its top-level subcommands joined by
// their operators with single spaces ("wget x|bash" reads "wget x | bash"),
// so a deny rule written across an operator matches however the operator
// was spaced.
func (l *bashLine) wholeText() string {
	var b strings.Builder
	for i := range l.subs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strings.Join(strings.Fields(l.subs[i].raw), " "))
		if op := l.subs[i].op; op != "" {
			b.WriteByte(' ')
			b.WriteString(op)
		}
	}
	return b.String()
}

// stripDeep strips like the deny strip, and also what a deny rule must see
// through: a leading backslash or a directory on the command word (\rm,
// /bin/rm), sudo and env with their options and assignments.
func stripDeep(w []string) []string {
	for len(w) > 0 {
		w = denyWords(w, stripDeny)
		if len(w) == 0 {
			return w
		}
		// The command word as the shell runs it: r\m and r''m are rm
		// (TestI24BackslashInWordEvadesDeny).
		first := shellWord(w[0])
		if i := strings.LastIndexByte(first, '/'); i >= 0 && i < len(first)-1 {
			first = first[i+1:]
		}
		switch first {
		case "sudo":
			w = skipOptions(w[1:], "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U",
				"--user", "--group", "--close-from", "--chdir", "--host", "--prompt", "--role", "--type",
				"--command-timeout", "--other-user")
			continue
		case "exec":
			w = skipOptions(w[1:], "-a")
			continue
		case "setsid", "ionice", "watch", "doas", "chrt", "taskset", "flock", "strace", "ltrace", "pkexec", "nsenter", "unshare":
			// Launchers Claude Code 2.1.328 reads through, with their
			// options and the word some take before the command (chrt's
			// priority, taskset's mask, flock's file): it denies setsid
			// rm f, ionice -c3 rm f, watch -n 1 -g rm f, doas rm f, chrt 1
			// rm f, taskset 1 rm f, flock /tmp/l rm f, strace -o x rm f
			// and ltrace rm f under Bash(rm:*) (TestDifferential/
			// sh3-wrap-*, sh3-launchers-*), and pkexec rm f, nsenter -t 1
			// rm f and unshare rm f (launchers5-*). It asks for gtimeout,
			// unbuffer, chronic, caffeinate, busybox and runuser, and
			// chroot, su -c, systemd-run, firejail and parallel, as the
			// dialect does.
			w = skipOptions(w[1:], launcherValued[first]...)
			if launcherOperand[first] && len(w) > 0 {
				w = w[1:]
			}
			continue
		case "script":
			// script -c CMD runs CMD with the shell: Claude Code 2.1.328
			// denies script -c 'rm f' under Bash(rm:*) (launchers5-*).
			// Without -c it runs an interactive shell: no command here.
			i := slices.IndexFunc(w, func(o string) bool {
				return o == "-c" || o == "--command" || strings.HasPrefix(o, "--command=")
			})
			if i < 0 {
				return w
			}
			if v, ok := strings.CutPrefix(w[i], "--command="); ok {
				w = append([]string{v}, w[i+1:]...)
			} else {
				w = w[i+1:]
			}
			continue
		case "env":
			// -S's string is the command (nestedSegments has split it),
			// and so is --split-string's; a lone - is -i: env
			// --split-string='rm f' and env - rm f run rm f, which Claude
			// Code 2.1.328 denies under Bash(rm:*) (launchers5-*).
			w = w[1:]
			for len(w) > 0 && (w[0] == "-" || strings.HasPrefix(w[0], "--split-string=")) {
				if v, ok := strings.CutPrefix(w[0], "--split-string="); ok {
					w = append([]string{v}, w[1:]...)
					break
				}
				w = w[1:]
			}
			w = skipOptions(w, "-u", "--unset", "-C", "--chdir")
			// env sets any NAME=value it is given, whatever the name
			// holds: env a-b=x rm f runs rm f, which Claude Code 2.1.328
			// denies under Bash(rm:*) (TestDifferential/assign-prefix-*).
			for len(w) > 0 && strings.IndexByte(w[0], '=') > 0 {
				w = w[1:]
			}
			continue
		}
		if first != w[0] {
			w = append([]string{first}, w[1:]...)
		}
		// Every word as the shell reads it: Claude Code 2.1.328 denies
		// git pu\sh under Bash(git push:*), in bypassPermissions too
		// (TestDifferential/gitglobal-deny-*).
		for i := 1; i < len(w); i++ {
			if shellWord(w[i]) != w[i] {
				w = slices.Clone(w)
				for j := i; j < len(w); j++ {
					w[j] = shellWord(w[j])
				}
				break
			}
		}
		return w
	}
	return w
}

// pathWrapper are the wrappers stripWords reads through by name, which it
// reads through named by a path too in every mode but the allow strip:
// Claude Code 2.1.328 denies /usr/bin/timeout 5 rm f under Bash(rm:*), in
// bypassPermissions too (TestDifferential/cmdpaths-*).
var pathWrapper = map[string]bool{"timeout": true, "nice": true, "stdbuf": true, "time": true, "nohup": true,
	"command": true, "builtin": true, "noglob": true, "xargs": true}

// launcherValued are the options of the launchers stripDeep reads through
// that take a value; launcherOperand those that take a word before the
// command.
var (
	launcherValued = map[string][]string{
		"ionice":  {"-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid"},
		"watch":   {"-n", "--interval"},
		"doas":    {"-u", "-C"},
		"chrt":    {"-T", "--sched-runtime", "-P", "--sched-period", "-D", "--sched-deadline"},
		"flock":   {"-w", "--wait", "--timeout", "-E", "--conflict-exit-code"},
		"strace":  {"-e", "-o", "-p", "-s", "-P", "-E", "-u", "-a", "-X", "-I", "-b"},
		"ltrace":  {"-e", "-o", "-p", "-s", "-n", "-u", "-a", "-F"},
		"pkexec":  {"--user", "-u"},
		"nsenter": {"-t", "--target", "-S", "--setuid", "-G", "--setgid", "-W", "--wdns", "-E", "--env"},
		"unshare": {"-S", "--setuid", "-G", "--setgid", "-R", "--root", "-w", "--wd", "--map-user", "--map-group",
			"--map-users", "--map-groups", "--propagation", "--setgroups"},
	}
	launcherOperand = map[string]bool{"chrt": true, "taskset": true, "flock": true}
)

// shellWord is w as the shell reads one word: quotes removed, a
// backslash outside quotes making the next character plain, and in double
// quotes only before $ ` " \ or a newline. Expansions stay as written.
func shellWord(w string) string {
	if !strings.ContainsAny(w, `"'\`) {
		return w
	}
	b := make([]byte, 0, len(w))
	var q byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case q == '\'':
			if c == '\'' {
				q = 0
			} else {
				b = append(b, c)
			}
		case c == '\\' && i+1 < len(w) && (q == 0 || strings.IndexByte("$`\"\\\n", w[i+1]) >= 0):
			i++
			if w[i] != '\n' {
				b = append(b, w[i])
			}
		case q == '"':
			if c == '"' {
				q = 0
			} else {
				b = append(b, c)
			}
		case c == '\'' || c == '"':
			q = c
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

func containsString(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// readOnly reports whether a subcommand is one Claude Code 2.1.328 runs
// without approval (readonly.go), its paths and redirections aside.
func (l *bashLine) readOnly(s *bashSub) bool {
	if l.broken || s.nested || len(s.args) == 0 || s.notRO || s.xargs && !xargsTargets[s.args[0]] || globOutside(s.args) ||
		tildeWord(s.args[1:]) || tildeWord(s.ins) {
		return false
	}
	if oddRedirect(s.words) {
		return false
	}
	// A command of globTakers with an unquoted glob among its words is
	// read-only at once, its options unchecked, as the release reads it
	// (cli.js H6t: a glob in the subcommand's text returns X4r's answer):
	// grep -nA2 x *.txt, cat -Q *.txt and wc --files0-from=a.txt *.txt
	// run, grep -nA2 x a.txt and grep -nA2 x a[.txt ask; a $, a backtick
	// or a brace expansion still asks (row 115; TestGlobTakers,
	// TestDifferential/globtakers-default).
	if globTakers[s.args[0]] && slices.ContainsFunc(s.args[1:], textGlob) && wordsLiteral(s.args[1:]) {
		return true
	}
	return readOnlyArgs(s.args)
}

// globTakers are the commands whose words may hold an unquoted glob and
// still be read-only (cli.js's X4r).
var globTakers = setOf("ls", "cat", "head", "tail", "wc", "stat", "grep", "egrep", "fgrep", "diff", "du", "df", "echo",
	"strings", "hexdump", "od", "nl", "cut", "column", "tr", "tac", "rev", "cmp", "basename", "dirname", "realpath",
	"readlink", "sha256sum", "sha1sum", "md5sum", "cd")

// globOutside reports a command outside globTakers with a word the shell
// would expand as a glob: Claude Code 2.1.328 asks for sort *.txt, jq .
// *.txt, git diff *.txt, id a*, date +%s* and timeout 5 sort *.txt with no
// rule, and runs cat *.txt, grep x *.txt, sort 'a*' and sort a\*
// (TestDifferential/globro-default, genfound4-globs-default).
//
// find and awk are asked for with a glob whatever approved them, for a
// reason of their own (builtinUnchecked).
func globOutside(args []string) bool {
	switch args[0] {
	case "find", "awk", "gawk", "mawk", "nawk":
		return false
	}
	if globTakers[args[0]] {
		return false
	}
	for _, w := range args[1:] {
		if bareGlob(w) {
			return true
		}
	}
	return false
}

// tildeWord reports a word that starts with ~ and another character than
// /, as the shell reads it (~root, ~+, ~-, '~root'): Claude Code 2.1.328
// asks for echo ~root, echo '~root', echo a ~x and find -n ~root with no
// rule, and runs echo ~, echo ~/x and echo x~y (TestDifferential/
// genfound6-default).
func tildeWord(words []string) bool {
	for _, w := range words {
		if strings.IndexByte(w, '~') < 0 {
			continue
		}
		if u := shellWord(w); len(u) > 1 && u[0] == '~' && u[1] != '/' {
			return true
		}
	}
	return false
}

// trailingBackslash reports a line that ends in a backslash escaping
// nothing (echo a \, ls \): Claude Code 2.1.328's parser refuses it
// ("Parse error"), and asks whatever approved it but a bare Bash rule;
// echo a\\ runs (row 121, TestDifferential/parseerrors-*).
func trailingBackslash(cmd string) bool {
	n := len(cmd) - len(strings.TrimRight(cmd, "\\"))
	return n%2 == 1
}

// digitsBeforeRedirect reports a word that begins with two digits or more
// and then a redirection (echo a 10>/dev/null, ls 12<a.txt), or with one
// digit and &> (echo a 1&>f): Claude Code 2.1.328 refuses to read it,
// since shells read such digits differently ("Your shell may read the
// digits just before a redirect in this command differently": row 121,
// TestDifferential/shellodds-default); 2>&1 and 3>&- are descriptors. A
// here-string given a descriptor (cat 0<<< x, cat 3<<<x) is refused too
// (row 138, TestDifferential/substforms-*); cat <<< x runs.
func digitsBeforeRedirect(words []string) bool {
	for _, w := range words {
		n := 0
		for n < len(w) && w[n] >= '0' && w[n] <= '9' {
			n++
		}
		switch {
		case n == 0 || n == len(w):
		case n >= 2 && (w[n] == '>' || w[n] == '<') && (n+1 == len(w) || w[n+1] != '('):
			return true
		case n == 1 && strings.HasPrefix(w[n:], "&>"), strings.HasPrefix(w[n:], "<<<"):
			return true
		}
	}
	return false
}

// subRefused reports a subcommand's words that Claude Code 2.1.328's
// parser refuses, or reads as too complex, whatever approved the line
// (row 121, row 130, and a [[ with no ]] word closing it, [[ a ]]x: row
// 135); parseBash and the test's parseBashJoined both ask it.
func subRefused(words []string) bool {
	return wordAfterRedirect(words) || loneEquals(words) || digitsBeforeRedirect(words) || hashAfterTestOp(words) ||
		testRHSMissing(words) || condOperandSplit(words) || len(words) > 0 && words[0] == "[[" && condEndWord(words) < 0 ||
		optionRuntime(words)
}

// optionRuntime reports an argument (a word after the command's name) that
// reads as an option and holds a value the release does not know: its
// text starts with - or -- then a letter, a digit, _ or a newline, or an
// expansion, and an expansion but $HOME stands in it ("Argument starting
// with `-` contains runtime-determined content": echo "-a$PWD", echo
// -"ab$PWD", echo -$((1)); echo "a-$PWD" and echo -a run) (row 136,
// TestDifferential/quotedvars-*; TestOptionRuntime).
func optionRuntime(words []string) bool {
	name := 0
	for name < len(words) {
		if _, ok := isAssignment(words[name]); !ok {
			break
		}
		name++
	}
	for _, w := range words[min(name+1, len(words)):] {
		if len(w) < 2 || strings.IndexByte(w, '$') < 0 || strings.IndexByte(w, '-') < 0 {
			continue
		}
		if head, runtime := wordHead(w); runtime && optionHead(head) {
			return true
		}
	}
	return false
}

// wordHead is the start of w as the shell makes it, up to three
// characters, an expansion written '_' (its value is not known) and
// $HOME '/'; runtime reports an expansion but $HOME anywhere in w.
func wordHead(w string) (head string, runtime bool) {
	var b [3]byte
	n := 0
	put := func(c byte) {
		if n < len(b) {
			b[n] = c
			n++
		}
	}
	var q byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case q == '\'':
			if c == q {
				q = 0
			} else {
				put(c)
			}
		case c == '\\' && i+1 < len(w):
			i++
			put(w[i])
		case c == '\'' && q == 0, c == '"' && q == 0:
			q = c
		case c == '"' && q == '"':
			q = 0
		case c == '$' && i+1 < len(w) && strings.HasPrefix(w[i+1:], "HOME") && nameLen(w[i+1:]) == 4:
			put('/')
			i += 4
		case c == '$' && i+1 < len(w) && w[i+1] == '(':
			put('_')
			runtime = true
			i = closeParens(w, i+1) - 1
		case c == '$' && i+1 < len(w) && w[i+1] == '{':
			put('_')
			runtime = true
			if j := strings.IndexByte(w[i:], '}'); j >= 0 {
				i += j
			}
		case c == '$' && i+1 < len(w) && (nameLen(w[i+1:]) > 0 || strings.IndexByte("?$!#-@*0123456789", w[i+1]) >= 0):
			put('_')
			runtime = true
			i += max(nameLen(w[i+1:]), 1)
		default:
			put(c)
		}
	}
	return string(b[:n]), runtime
}

// optionHead reports a word's start the release reads as an option:
// /^--?[\nA-Za-z0-9_]/.
func optionHead(h string) bool {
	h, ok := strings.CutPrefix(h, "-")
	if !ok {
		return false
	}
	if h != "" && h[0] == '-' {
		h = h[1:]
	}
	if h == "" {
		return false
	}
	c := h[0]
	return c == '\n' || c == '_' || '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'z'
}

// testRHSMissing reports a [ ] test whose comparison has no right-hand
// side ([ a = ]: "Test command comparison is missing its right-hand side";
// [ = ] tests the word =, [ -n = ] tests it too) (row 130,
// TestDifferential/complexforms*).
func testRHSMissing(words []string) bool {
	n := len(words)
	return n >= 4 && words[0] == "[" && words[n-1] == "]" && condBinary[words[n-2]] && !condUnary[words[n-3]]
}

// condOperandSplit reports a [[ ]] operand that zsh would split where bash
// does not (row 130, TestDifferential/complexforms*): an unquoted & in a
// pattern or a regex, the operand after ==, =, != or =~ ([[ a == a&b ]],
// [[ a =~ a&b ]]; [[ a == b && c == d ]] and [[ a&&b ]] run), and in the
// regex a || outside parentheses ([[ a =~ a||b ]]) or parentheses that
// do not balance (cli.js, the [[ ]] pattern and regex checks).
func condOperandSplit(words []string) bool {
	end := condEndWord(words)
	for i := 2; i < end; i++ {
		switch words[i-1] {
		case "==", "=", "!=", "=~":
			if unquotedIndex(words[i], "&") >= 0 || words[i-1] == "=~" && regexSplit(words[i]) {
				return true
			}
		}
	}
	return false
}

// regexSplit reads a [[ ]] regex as the release does: a backslash takes
// the byte after it, quotes are skipped whole, a || at depth 0 or a
// parenthesis closing none, or one left open, is a split.
func regexSplit(w string) bool {
	depth := 0
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c == '\\' && i+1 < len(w):
			i++
		case c == '"' || c == '\'':
			for i++; i < len(w) && w[i] != c; i++ {
				if c == '"' && w[i] == '\\' && i+1 < len(w) {
					i++
				}
			}
		case depth == 0 && c == '|' && i+1 < len(w) && w[i+1] == '|':
			return true
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth < 0 {
				return true
			}
		}
	}
	return depth != 0
}

// hashAfterTestOp reports a [ ] or [[ ]] test whose operator is followed
// by a word that begins with '#' ([[ a == #x ]], [ a = #x ], [[ -n #x ]]):
// Claude Code 2.1.328 refuses to read it ("Text after a # inside [ ] or
// [[ ]] in this command": row 121, TestDifferential/misreadings-default);
// [[ a = b#c ]] runs.
func hashAfterTestOp(words []string) bool {
	if len(words) < 3 || words[0] != "[" && words[0] != "[[" {
		return false
	}
	for i := 2; i < len(words); i++ {
		if strings.HasPrefix(words[i], "#") && (condBinary[words[i-1]] || condUnary[words[i-1]]) {
			return true
		}
	}
	return false
}

// loneEquals reports a word that is a lone '=' outside quotes (echo =,
// echo x = y, ls =, npm test =): Claude Code 2.1.328's parser refuses it
// ("Parse error"); inside [ ] and [[ ]] it is the comparison ([ a = b ]
// runs), and test's is read by testReadOnly (row 121,
// TestDifferential/parseerrors-*). echo '=', echo \= and echo == run.
func loneEquals(words []string) bool {
	if len(words) == 0 || !slices.Contains(words, "=") {
		return false
	}
	switch words[0] {
	case "[", "[[", "test":
		return false
	}
	return true
}

// wordAfterRedirect reports a word of a command that follows a
// redirection's target (the command's words, a [[ ]] conditional's own
// left out): Claude Code 2.1.328's parser reads it as a second target and
// asks for the line whatever approved it but a bare Bash rule ("Redirect
// has multiple targets": ls > /dev/null src, ls 2>&1 src, tr a b < a.txt
// src), and runs echo a > /dev/null 2>&1 and cat <<< x a.txt
// (TestDifferential/genfound6-default). A redirection with no target
// (echo a >, ls 2>, cat <, echo a > && ls) is refused alike
// ("Unrecognized redirect shape": row 121, TestDifferential/parseerrors-*).
func wordAfterRedirect(words []string) bool {
	if !slices.ContainsFunc(words, func(w string) bool { return strings.ContainsAny(w, "<>") }) {
		return false // no redirection (splitRedirs' fast path)
	}
	if end := condEndWord(words); end >= 0 {
		words = words[end+1:]
	}
	after, command := false, false
	for i := 0; i < len(words); i++ {
		w := words[i]
		j := redirAt(w)
		if j >= 0 && j+1 < len(w) && w[j+1] == '(' {
			j = -1 // a process substitution <( ) or >( ) is a word
		}
		if j < 0 {
			if after {
				return true
			}
			command = true
			continue
		}
		op := w[j:]
		if strings.HasPrefix(op, "<<") {
			// A here-document or here-string: its word is no target.
			after = false
			if op == "<<" || op == "<<<" || op == "<<-" {
				if i++; i == len(words) {
					return true
				}
			}
			continue
		}
		k := 1
		for k < len(op) && strings.IndexByte("<>|&", op[k]) >= 0 {
			k++
		}
		if k == len(op) {
			if i++; i == len(words) {
				return true // no target
			}
		}
		// Before the command word a redirection's target is followed by
		// the command (< a.txt grep x runs: leadredir-*).
		after = command
	}
	return false
}

// oddRedirect reports a redirection that closes a descriptor (2>&-, <&-)
// or opens a file for reading and writing (<>), which no approval of the
// release's own covers (TestDifferential/acceptredir-acceptEdits).
func oddRedirect(words []string) bool {
	for i, w := range words {
		if strings.ContainsAny(w, `'"\`) {
			continue
		}
		if strings.HasSuffix(w, ">&-") || strings.HasSuffix(w, "<&-") || strings.Contains(w, "<>") {
			return true
		}
		// The descriptor's - as the next word: 2>& -.
		if (strings.HasSuffix(w, ">&") || strings.HasSuffix(w, "<&")) && i+1 < len(words) && words[i+1] == "-" {
			return true
		}
	}
	return false
}

// appendUnredirected appends to texts the deny text of a subcommand's
// words without their redirections and trailing comment, when it differs
// from text (the deny text with them) and is not there yet: a deny or ask
// rule matches the command without them too. Claude Code 2.1.328 denies
// echo hi > out.txt, echo hi 2>&1, echo hi < a.txt and echo hi #c under
// Bash(echo hi), and asks for them under an ask Bash(echo hi), in
// bypassPermissions as well (TestDifferential/genrules1-*;
// TestUnredirectedDenyText).
func appendUnredirected(texts, words []string, text string) []string {
	if !strings.ContainsAny(text, "<>#") || strings.ContainsAny(text, "()`") {
		return texts // a group's or substitution's redirections are read with its segments
	}
	args, _, _ := condSplit(beforeComment(words), splitRedirs)
	if t := strings.Join(denyWords(args, stripDeny), " "); t != "" && t != text && !containsString(texts, t) {
		texts = append(texts, t)
	}
	return texts
}

// beforeComment is words up to a comment: an unquoted # starting a word
// starts one, to the end of the line (a quoted or escaped # is written
// '#' or \#, a # inside a word is part of it).
func beforeComment(words []string) []string {
	for i, w := range words {
		if strings.HasPrefix(w, "#") {
			return words[:i]
		}
	}
	return words
}

// textChecked are the read-only commands Claude Code 2.1.328 checks on
// the subcommand's text rather than on its words (cli.js F4r's table: git
// and gh subcommands, grep, sed, sort, ...; ls, cat, head and the other
// names it approves with any arguments are checked on the words, past
// any wrapper). The text sees through the wrappers only where they begin
// it, plainly written (plainTextPrefix).
var textChecked = setOf("git", "gh", "grep", "egrep", "fgrep", "sed", "sort", "tree", "date", "which", "file", "xargs",
	"sha1sum", "sha256sum", "md5sum", "hostname", "lsof", "man", "netstat", "pgrep", "ss", "tput", "fd", "fdfind", "help")

// The release's strips of a read-only subcommand's text (cli.js tOn, nOn):
// command (with -p), builtin and noglob, then timeout with a bare
// duration.
var (
	textWrapperStrip = regexp.MustCompile(`^(?:(?:command(?:[ \t]+-p+)*|builtin)(?:[ \t]+--)?|noglob)[ \t]+`)
	textTimeoutStrip = regexp.MustCompile(`^timeout[ \t]+\d+(?:\.\d+)?[smhd]?[ \t]+`)
)

// plainTextPrefix reports whether the words written before a textChecked
// command leave the command first in the text the release checks:
// assignments alone (its tokens drop them), or wrappers alone that its
// strips take off in their order. Claude Code 2.1.328 runs LANG=C git
// log -1, command git log -1, timeout 5 git log -1 and command timeout 5
// git status, and asks for TZ=UTC command git log -1, LANG=C timeout 5 git
// log -1, \command git log -1 and \timeout 5 git log -1, while it runs
// all of them for ls and cat (row 107; TestTextCheckedWrappers).
func plainTextPrefix(raw []string) bool {
	if !slices.ContainsFunc(raw, func(w string) bool { _, ok := isAssignment(w); return !ok }) {
		return true // assignments alone
	}
	return strippedPrefix(raw)
}

// strippedPrefix reports whether the release's strips (command with -p,
// builtin and noglob, then timeout with a bare duration) take off every
// word written before a command, in their order: no assignment among
// them (textPatterns, row 141).
func strippedPrefix(raw []string) bool {
	t := strings.Join(raw, " ") + " "
	for {
		m := textWrapperStrip.FindString(t)
		if m == "" || strings.HasPrefix(t[len(m):], "-") {
			break
		}
		t = t[len(m):]
	}
	for {
		m := textTimeoutStrip.FindString(t)
		if m == "" {
			break
		}
		t = t[len(m):]
	}
	return t == ""
}

// readOnlyWrappers reads the wrappers the allow strip took off a
// subcommand's front: Claude Code 2.1.328 runs timeout 5 ls and command
// ls as read-only, but asks for nice ls, nohup ls, stdbuf -o0 ls and time
// ls (allow rules see through all of them: nice npm test runs under
// Bash(npm test:*)), and of xargs it runs only xargs echo (ls | xargs cat
// asks): TestDifferential/sh4-readonly-default, sh4-allow-*.
//
// A timeout given an option is not seen through either: the release asks
// for timeout -s KILL 5 ls and timeout --foreground 5 ls with no rule, and
// runs timeout 5s ls (TestDifferential/uncheckable-default). Nor is one
// whose command (the word after its duration, unquoted) is a shell
// builtin of timeoutBuiltins: the release asks for timeout 5 type ls and
// timeout 5 'history', and runs type ls and timeout 5 true.
//
// A command the release checks on the subcommand's text (textChecked)
// is read-only only behind a prefix its strips take off (plainTextPrefix,
// row 107).
//
// raw is the prefix as written, words the subcommand's words after it. A test spelled [ or
// [[ is read-only only as the subcommand's first word, unquoted: the
// release asks for command [ -f a ], LANG=C [ -f a ], '[' -f a ] and
// timeout 5 [[ -f a ]], and runs [ -f a ] (TestDifferential/
// genfound8-default; TestTimeoutBuiltins).
func readOnlyWrappers(raw, words []string) (notRO, xargs bool) {
	prefix := shellWords(raw)
	var cmd, written string
	if len(words) > 0 {
		written = words[0]
		cmd = shellWord(written)
	}
	if (cmd == "[" || cmd == "[[") && (len(prefix) > 0 || written != cmd) {
		notRO = true
	}
	timeout := false
	for i, w := range prefix {
		switch w {
		case "nice", "nohup", "stdbuf", "time":
			notRO = true
		case "command", "builtin", "noglob":
			// Not after timeout: the release asks for timeout 5 command
			// ls, timeout 5 builtin ls and timeout 5 noglob ls, and runs
			// command timeout 5 ls and noglob timeout 5 ls (its strip,
			// cli.js Npt, takes command, builtin and noglob off before
			// the timeouts only: TestDifferential/allowwraporder-default;
			// row 142, timeoutnoglob-*).
			if timeout {
				notRO = true
			}
		case "timeout":
			timeout = true
			if i+1 < len(prefix) && strings.HasPrefix(prefix[i+1], "-") {
				notRO = true
			}
			next := cmd
			if i+2 < len(prefix) {
				next = prefix[i+2]
			}
			if timeoutBuiltins[next] {
				notRO = true
			}
		case "xargs":
			xargs = true
		}
	}
	if !notRO && !xargs && len(raw) > 0 && textChecked[cmd] {
		notRO = !plainTextPrefix(raw)
	}
	// A command the release matches with a pattern on the subcommand's
	// text (textPatterns) is read-only only written plainly, first in the
	// text its strips leave: no quote or backslash in its name, no
	// assignment before it (row 141).
	if !notRO && !xargs && textPatterns[cmd] != nil && (written != cmd || len(raw) > 0 && !strippedPrefix(raw)) {
		notRO = true
	}
	return notRO, xargs
}

// timeoutBuiltins are the commands the release's read-only check does not
// read a timeout through to (cli.js: the set its timeout strip stops at).
var timeoutBuiltins = setOf("[[", "alias", "cd", "help", "history", "type")

// unquoteCommandWord is args with its command word as the shell reads it
// when quotes or backslashes only spell it ('npm' test, "npm" test, \ls,
// n\pm test, an empty pair of quotes before npm): Claude Code 2.1.328 matches allow rules and its
// read-only list against the unquoted command word (it runs 'npm' test
// under Bash(npm test:*) and \ls read-only, and asks for npm 'test'). A
// word that holds an expansion or a line continuation, or that unquotes to
// more than one word ('git log'), is left as written, and approves nothing
// (TestDifferential/sh4-quote-allow-*, sh4-readonly-default).
func unquoteCommandWord(args []string) []string {
	if len(args) == 0 || !strings.ContainsAny(args[0], `"'\`) || strings.ContainsAny(args[0], "$`\n") {
		return args
	}
	u := shellWord(args[0])
	if u == "" || strings.ContainsAny(u, " \t") {
		return args
	}
	out := make([]string, len(args))
	out[0] = u
	copy(out[1:], args[1:])
	return out
}

// background reports a command the line sends to the background (a
// top-level '&' that is no redirection's): Claude Code 2.1.328 asks for
// such a line whatever its own Bash check approved it by, an allow rule
// with a specifier, the read-only list or acceptEdits ("This command uses
// the `&` background operator, which defers execution past approval-time
// safety checks"; view.toolApproves), and runs it in bypassPermissions
// (TestDifferential/sh4-background-*).
func (l *bashLine) background() bool {
	for i := range l.subs {
		if l.subs[i].bg {
			return true
		}
	}
	return false
}

// dirChange counts w, a subcommand's words past its assignments and
// wrappers, in the line's directory changes and git commands, as Claude
// Code 2.1.328's isNormalizedCdCommand and isNormalizedGitCommand read
// them: cd, pushd, popd and chdir change directory (cd . moves nowhere);
// git runs by name or path, or under xargs (TestCdAndGit, TestMultipleCd).
func (l *bashLine) dirChange(w []string) {
	switch commandName(w) {
	case "cd", "pushd", "popd", "chdir":
		l.cds++
		if len(w) != 2 || w[1] != "." && w[1] != "./" {
			l.moves++
		}
	case "git":
		l.git = true
	case "xargs":
		l.git = l.git || slices.Contains(w[1:], "git")
	}
}

// commandName is the program w runs: its first word unquoted, without
// the directories of a path (/usr/bin/git is git); "" for no word.
func commandName(w []string) string {
	if len(w) == 0 {
		return ""
	}
	name := shellWord(w[0])
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// hasCd reports whether a top-level subcommand changes directory.
func (l *bashLine) hasCd() bool {
	for i := range l.subs {
		if a := l.subs[i].args; len(a) > 0 && a[0] == "cd" {
			return true
		}
	}
	return false
}

// splitRedirs separates a subcommand's words from its redirections: args
// are the words that are not redirections, outs and ins the targets of the
// output and input ones. A redirection is an unquoted '<' or '>' in a word,
// after an optional file descriptor number or '&' (2>err, &>all, >>log,
// >|f, <in); its target follows it in the word or is the next word. A
// duplication of a file descriptor (2>&1, >&-) and a here-document (<<EOF,
// <<<text) have no file target.
func splitRedirs(words []string) (args, outs, ins []string) {
	if len(words) > 0 && !slices.ContainsFunc(words, func(w string) bool { return strings.ContainsAny(w, "<>") }) {
		return words[:len(words):len(words)], nil, nil // no redirection: the words as they are
	}
	return splitRedirsScan(words)
}

// splitRedirsScan is splitRedirs word by word.
func splitRedirsScan(words []string) (args, outs, ins []string) { return scanRedirs(words, false) }

// rawRedirs is splitRedirsScan with the targets as written: the same
// targets in the same order (which are kept is read on their unquoted
// form), their quotes and escapes kept.
func rawRedirs(words []string) (args, outs, ins []string) { return scanRedirs(words, true) }

// scanRedirs is splitRedirsScan, keeping the targets as written when raw.
func scanRedirs(words []string, raw bool) (args, outs, ins []string) {
	for i := 0; i < len(words); i++ {
		w := words[i]
		j := redirAt(w)
		if j < 0 {
			args = append(args, w)
			continue
		}
		if pre := w[:j]; pre != "" && pre != "&" && !allDigits(pre) {
			args = append(args, pre)
		}
		in, here, dup, k := redirOp(w[j:])
		target := w[j+k:]
		if target == "" && i+1 < len(words) {
			i++
			target = words[i]
		}
		unq, kept := unquote(target), target
		if !raw {
			kept = unq
		}
		switch {
		case here, unq == "":
		case dup && (unq == "-" || allDigits(unq)):
		case in:
			ins = append(ins, kept)
		default:
			outs = append(outs, kept)
		}
	}
	return args, outs, ins
}

// redirOp reads a redirection operator at the start of op (op[0] is '<'
// or '>'): in for an input, here for a here-document or here-string
// (<<, <<<, <<-), dup for a duplication (<&, >&), and k the length of the
// operator, after which its target begins (<> opens for reading and
// writing, and >| or >> for writing). splitRedirsScan and inputAsk read
// operators with it alone.
func redirOp(op string) (in, here, dup bool, k int) {
	in, k = op[0] == '<', 1
	switch {
	case in && k < len(op) && op[k] == '<':
		here = true
		for k < len(op) && op[k] == '<' {
			k++
		}
	case !in && k < len(op) && (op[k] == '>' || op[k] == '|'):
		k++
	}
	if k < len(op) && op[k] == '&' {
		dup = true
		k++
	}
	if in && k < len(op) && op[k] == '>' {
		k++
	}
	return in, here, dup, k
}

// redirAt is the index of the first unquoted, unescaped '<' or '>' of a
// word, or -1.
func redirAt(w string) int { return unquotedIndex(w, "<>") }

// unquotedIndex is the index of the first byte of w in set that is
// outside quotes and not escaped by a backslash, or -1.
func unquotedIndex(w, set string) int {
	var q byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			} else if c == '\\' && q == '"' {
				i++
			}
		case c == '\\':
			i++
		case c == '\'' || c == '"':
			q = c
		case strings.IndexByte(set, c) >= 0:
			return i
		}
	}
	return -1
}

// fsApproved reports whether acceptEdits approves a subcommand as a common
// filesystem command whose every path stays inside the working directories
// or is opened by an Edit allow rule (open, when set: row 98), and off the
// protected list.
func (l *bashLine) fsApproved(s *bashSub, dirs []inPath, c *call, open func(inPath) bool) bool {
	// After a cd in the line Claude Code 2.1.328 asks: "Commands that
	// change directories and perform write operations require explicit
	// approval" (cd sub && rm a.txt: TestDifferential/sh3-cd-acceptEdits).
	// A command xargs runs takes paths the release cannot check: it asks
	// for xargs rmdir < a.txt (TestDifferential/critwrap-acceptEdits).
	// A wrapper the release cannot check asks (time -p rm f: "Command
	// appears to be an incomplete fragment"), and so does a redirection
	// that closes a descriptor (touch f 2>&-); an output redirection
	// is decided apart, as for a command an allow rule approves
	// (redirectAsk: TestDifferential/timeopts-acceptEdits,
	// acceptredir-acceptEdits).
	if l.broken || s.nested || len(s.args) == 0 || l.hasCd() || s.xargs || s.wrapWord != "" || oddRedirect(s.words) {
		return false
	}
	switch s.args[0] {
	case "mkdir", "rm", "rmdir":
	case "touch", "mv", "cp":
		// With any option Claude Code 2.1.328 asks in acceptEdits (touch
		// -c, touch -d D f: "This command requires approval"; cp -r, mv -f,
		// cp --: TestDifferential/fsflags-acceptEdits). It approves touch
		// only as the first word written: it asks for timeout 5 touch f,
		// time touch f, command touch f and LANG=C touch f, and runs nohup
		// cp a b, nohup mv a b and timeout 5 rm f (acceptwrap-acceptEdits).
		// Nor \touch f (acceptwrap2-acceptEdits), while \rm f and \cp a b
		// run.
		if s.args[0] == "touch" && (s.wrapped || s.words[0] != "touch") {
			return false
		}
		if slices.ContainsFunc(s.args[1:], func(w string) bool { return strings.HasPrefix(unquote(w), "-") }) {
			return false
		}
	case "sed":
		// The in-place substitution, and a sed that only reads files
		// named plainly: Claude Code 2.1.328 runs nohup sed -n p a.txt,
		// nice sed -n p a.txt and time sed -n p a.txt in acceptEdits,
		// where the read-only list does not see through those wrappers,
		// and asks for sed -n p gp/*.txt and sed -n p g?/a.txt there
		// (row 109, TestDifferential/sedsrclit-acceptEdits).
		if !sedInPlace(unquoteAll(s.args[1:])) && (!sedReads(s.args[1:]) || slices.ContainsFunc(s.args[1:], shellExpands)) {
			return false
		}
	default:
		return false
	}
	if w, _, _ := uncheckedWrite(pathsOf(s)); w != "" {
		return false // a path the shell would expand (uncheckedWrite)
	}
	opts := true
	for _, w := range s.args[1:] {
		if opts && w == "--" {
			opts = false
			continue
		}
		if opts && strings.HasPrefix(w, "-") && w != "-" {
			continue
		}
		p, ok := c.wordPath(unquote(w))
		if !ok || innerDotDot(unquote(w)) || tildeForm(unquote(w)) || !p.inside(dirs) && (open == nil || !open(p)) || p.writeGuarded() {
			return false
		}
	}
	return true
}

// sedInPlace reports a sed that acceptEdits approves, as Claude Code
// 2.1.328's sed check does with file writes allowed (cli.js gPn, H0,
// M1r): every word that starts with '-' (but --) one of -E, -r, -i
// (joined ones too: -Ei, -iE), --regexp-extended, --posix and
// --in-place; -i, or -Ei and the like, at most once; the first other word
// a substitution (simpleSubstitution, blanks around it trimmed) with no
// ';' that the release's script test passes; then the files, at least
// one. It runs sed --in-place s/a/b/ a.txt, sed -E -i ..., sed -i s/a/b/m
// and asks for -i -e, -e ... -i, -i.bak, --in-place=.bak, -n -i, -i -i,
// s|a|b|, a w or e flag and s/a/b/10 (rows 44 and 114;
// TestDifferential/fsflags-acceptEdits, sedinplace-acceptEdits). When
// -i stands as its own word (or -Ei) and the word after it is no option,
// BSD sed takes that word for -i's suffix and the next plain word for
// the script, so that word passes the release's check too
// (sedLikeScript: sed -i s/a/b/ 'a b.txt' asks, row 106;
// sed --in-place s/a/b/ 'a b.txt' and sed -i -E s/a/b/ 'a b.txt' run).
func sedInPlace(a []string) bool {
	script, files, iAt := -1, 0, -1
	for k, w := range a {
		switch {
		case w == "--":
		case strings.HasPrefix(w, "-"):
			if !sedEditOption(w) {
				return false
			}
			if w == "-i" || len(w) > 2 && strings.Trim(w[1:len(w)-1], "Er") == "" && w[len(w)-1] == 'i' {
				if iAt >= 0 {
					return false
				}
				iAt = k
			}
		case script < 0:
			script = k
		case w == "":
			return false
		default:
			files++
		}
	}
	if script < 0 || files == 0 {
		return false
	}
	sc := strings.Trim(a[script], "\t\n\v\f\r ")
	if !simpleSubstitution(sc) || strings.Contains(sc, ";") || sedScriptRisky(sc) {
		return false
	}
	if iAt >= 0 && iAt+1 < len(a) {
		if y := a[iAt+1]; y != "" && y[0] != '.' && y[0] != '-' {
			for _, w := range a[iAt+2:] {
				if !strings.HasPrefix(w, "-") {
					return !sedLikeScript(w)
				}
			}
		}
	}
	return true
}

// sedEditOption reports an option of sedInPlace: --regexp-extended,
// --posix, --in-place, or '-' and letters from E, r and i.
func sedEditOption(w string) bool {
	switch w {
	case "--regexp-extended", "--posix", "--in-place":
		return true
	}
	return len(w) > 1 && w[1] != '-' && strings.Trim(w[1:], "Eri") == ""
}

// simpleSubstitution reports a sed script that is one s command: '/', a
// pattern and a replacement (backslash escapes kept), and flags from g,
// i, I, p and digits.
func simpleSubstitution(script string) bool {
	if len(script) < 4 || script[0] != 's' {
		return false
	}
	d := script[1]
	if d != '/' {
		return false // s|a|b| asks (TestDifferential/sedflags-acceptEdits)
	}
	i, parts := 2, 0
	for ; i < len(script) && parts < 2; i++ {
		switch c := script[i]; {
		case c == '\\':
			i++
		case c == '\n':
			return false
		case c == d:
			parts++
		}
	}
	if parts < 2 {
		return false
	}
	// The flags: /^[gpimIM]*[1-9]?[gpimIM]*$/ (s/a/b/10, s/a/b/0 and
	// s/a/b/1g2 ask: TestDifferential/sedinplace-acceptEdits).
	digit := false
	for _, f := range script[i:] {
		switch {
		case strings.ContainsRune("gpimIM", f):
		case f >= '1' && f <= '9' && !digit:
			digit = true
		default:
			return false
		}
	}
	return true
}

// criticalRemoval reports an rm/rmdir whose non-option argument is a
// critical path, and that argument.
func criticalRemoval(w []string) (string, bool) {
	if len(w) == 0 || w[0] != "rm" && w[0] != "rmdir" {
		return "", false
	}
	opts := true
	for _, a := range w[1:] {
		if opts && a == "--" {
			opts = false
			continue
		}
		if opts && strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		if criticalPath(a) {
			return a, true
		}
	}
	return "", false
}

// shellWords is ws with each word that holds a quote or a backslash as
// the shell reads it (shellWord); ws itself when none does.
func shellWords(ws []string) []string {
	for i, w := range ws {
		if strings.ContainsAny(w, `"'\`) {
			u := make([]string, len(ws))
			copy(u, ws[:i])
			for j := i; j < len(ws); j++ {
				u[j] = shellWord(ws[j])
			}
			return u
		}
	}
	return ws
}

// unquoteAll is unquote of every word; ws itself (capped) when no word
// holds a quote.
func unquoteAll(ws []string) []string {
	for i, w := range ws {
		if strings.ContainsAny(w, `"'`) {
			u := make([]string, len(ws))
			copy(u, ws[:i])
			for j := i; j < len(ws); j++ {
				u[j] = unquote(ws[j])
			}
			return u
		}
	}
	return ws[:len(ws):len(ws)]
}

// unquote deletes quote characters.
func unquote(w string) string {
	if !strings.ContainsAny(w, `"'`) {
		return w
	}
	b := make([]byte, 0, len(w))
	for i := 0; i < len(w); i++ {
		if w[i] != '"' && w[i] != '\'' {
			b = append(b, w[i])
		}
	}
	return string(b)
}

func criticalPath(a string) bool {
	if a != "" && strings.Trim(a, "/") == "" {
		return true // the root, however many slashes
	}
	switch a {
	case "/", "~", ".", "..", "*", "/*", "~/*", "./*", "../*":
		return true
	}
	t := a
	if len(t) > 1 {
		t = strings.TrimSuffix(t, "/")
	}
	switch t {
	case "~", ".", "..", "$HOME", "${HOME}":
		return true
	}
	if topLevelDir(t) || onlyDotDot(t) {
		return true
	}
	base, ok := strings.CutSuffix(a, "/*")
	if !ok {
		base, ok = strings.CutSuffix(a, "/")
	}
	if !ok {
		return false
	}
	switch base {
	case "", "~", ".", "..", "$HOME":
		return true
	}
	return topLevelDir(base) || unguardedVar(base)
}

func topLevelDir(s string) bool {
	return len(s) > 1 && s[0] == '/' && !strings.Contains(s[1:], "/")
}

func onlyDotDot(s string) bool {
	if s == "" {
		return false
	}
	for seg := range strings.SplitSeq(s, "/") {
		if seg != ".." {
			return false
		}
	}
	return true
}

// unguardedVar: $DIR or ${DIR} (which may expand to nothing); ${DIR:?msg}
// fails instead, so it is guarded.
func unguardedVar(s string) bool {
	if inner, ok := strings.CutPrefix(s, "${"); ok {
		inner, ok = strings.CutSuffix(inner, "}")
		return ok && inner != "" && !strings.Contains(inner, "?")
	}
	v, ok := strings.CutPrefix(s, "$")
	if !ok || v == "" {
		return false
	}
	if len(v) == 1 && strings.IndexByte("0123456789@*", v[0]) >= 0 {
		return true
	}
	return nameLen(v) == len(v)
}

// assignedSubstitutions replaces each subcommand that is one assignment
// of a command substitution (NAME=$(CMD), NAME+=$(CMD), NAME=`CMD`) by
// the subcommands of CMD, which every step then decides as it decides a
// line: Claude Code 2.1.328 runs x=$(ls), x=$(cat a.txt), x=`ls`,
// x=$(git status), x=$(cd src && ls) and, under Bash(npm test:*),
// x=$(npm test), denies x=$(cat secret/s.txt) under Read(./secret/**) and
// asks for x=$(rm f1.txt), x=$(cat ../outside/o.txt) and, but in
// acceptEdits, x=$(touch t9.txt) (row 85; TestDifferential/genassign-*).
// Only plain forms: the value the whole substitution, unquoted, its
// command free of pipes, ';', '&', parentheses, nested substitutions and
// newlines (the release asks for x=$(ls | wc -l), x="$(ls)", x=a$(ls)b,
// x=$(echo $(ls)), x=$(ls;) and x=$(ls &)), the variable none that
// changes how commands run (PATH=$(pwd) asks), and the assignment alone
// in its subcommand (x=$(ls) ls and export x=$(ls) ask).
func assignedSubstitutions(subs []bashSub) []bashSub {
	return replaceSubs(subs, func(s bashSub) ([]bashSub, bool) {
		inner, ok := assignedCommand(s)
		if !ok {
			return nil, false
		}
		isubs, ok := plainSubcommands(inner)
		if !ok {
			return nil, false
		}
		last := &isubs[len(isubs)-1]
		last.op, last.bg = s.op, s.bg
		return isubs, true
	})
}

// replaceSubs returns subs with each subcommand that with reads replaced
// by the subcommands it returns, and subs itself when it reads none.
func replaceSubs(subs []bashSub, with func(s bashSub) ([]bashSub, bool)) []bashSub {
	var out []bashSub
	for i, s := range subs {
		r, ok := with(s)
		if !ok {
			if out != nil {
				out = append(out, s)
			}
			continue
		}
		if out == nil {
			out = append(make([]bashSub, 0, len(subs)+len(r)), subs[:i]...)
		}
		out = append(out, r...)
	}
	if out == nil {
		return subs
	}
	return out
}

// assignedCommand returns CMD of a subcommand that is the one word
// NAME=$(CMD), NAME+=$(CMD) or NAME=`CMD`, NAME a variable that does not
// change how commands run, CMD holding no parenthesis, backquote, '|'
// (but of ||), ';', lone '&' or newline: Claude Code 2.1.328 runs
// x=$(ls || pwd) and x=$(cat a.txt || echo no), and asks for x=$(ls ||
// rm f1.txt) (TestDifferential/assignor-*; TestAssignedSubstitution).
func assignedCommand(s bashSub) (string, bool) {
	if len(s.words) != 1 {
		return "", false
	}
	w := s.words[0]
	n := nameLen(w)
	if n == 0 || runVariable(w[:n]) {
		return "", false
	}
	v, ok := strings.CutPrefix(w[n:], "=")
	if !ok {
		if v, ok = strings.CutPrefix(w[n:], "+="); !ok {
			return "", false
		}
	}
	var inner string
	switch {
	case len(v) > 3 && strings.HasPrefix(v, "$(") && v[len(v)-1] == ')':
		inner = v[2 : len(v)-1]
	case len(v) > 2 && v[0] == '`' && v[len(v)-1] == '`':
		inner = v[1 : len(v)-1]
	default:
		return "", false
	}
	if strings.ContainsAny(strings.ReplaceAll(inner, "||", ""), "()`|;\n") || strings.TrimSpace(inner) == "" || strings.Contains(assignAmps.Replace(inner), "&") {
		return "", false
	}
	return inner, true
}

// assignAmps removes the '&' of the && operator and of redirections
// (2>&1, &> f, <&3), which leave an assignment's command plain: the
// release runs x=$(ls 2>&1) and x=$(ls &> /dev/null)
// (TestDifferential/redirtargets-default).
var assignAmps = strings.NewReplacer("&&", "", ">&", "", "<&", "", "&>", "")

// plainSubcommands splits cmd into its subcommands, as parseBash does,
// when it reads whole (not broken, not too complex) and only && and ||
// join them.
func plainSubcommands(cmd string) ([]bashSub, bool) {
	cls, broken, hd := scanBashHD(cmd)
	subs, bad := splitTopOps(cmd, cls)
	subs = compound(subs)
	if broken || bad || len(subs) == 0 || tooComplex(cmd) || hd.broken() || expansionShapes(cmd, hd, subs) || malformedCond(subs) {
		return nil, false
	}
	for _, s := range subs {
		if s.bg || s.nested || len(s.words) == 0 || s.op != "" && s.op != "&&" && s.op != "||" {
			return nil, false
		}
	}
	return subs, true
}
