package claudecode

import "strings"

// cmdsubOutput stands, as Claude Code 2.1.328 writes it, for the output of
// a command substitution whose text is not known: here, a here-document
// body of several lines.
const cmdsubOutput = "__CMDSUB_OUTPUT__"

// catHeredocs rewrites, inside double quotes, each command substitution
// that only gives cat a quoted here-document ("$(cat <<'EOF'" newline,
// the body, "EOF" on its own line, then ")", blanks allowed after "$(" and
// before ")") into the text Claude Code 2.1.328 reads for it: a body of
// one line itself, several lines a newline and cmdsubOutput. The release
// reads such a substitution as text, not as a nested command: under
// Bash(echo:*) and Bash(git commit:*) it runs echo "$(cat <<'EOF' ...)"
// and git commit -m "$(cat <<'EOF' ...)", and a deny rule sees the body's
// line where the shell would (rm "$(cat <<'EOF' x EOF)" is denied, echo
// "$(cat <<'EOF' rm a.txt EOF)" runs).
//
// Anything else is left as written, for the checks that ask for it: an
// unquoted delimiter or one holding a backslash (<<\EOF), <<-, cat with
// an argument, text after the delimiter on its line, the closing
// delimiter followed by ")" on its line, a body line that starts with the
// delimiter and holds a ), } or backtick after it (EOF;x is text), a body naming /proc/.../environ or an awk construct that runs
// a program (the release's "DANGEROUS" bodies), a substitution outside
// double quotes, and a body of several lines that would make the word
// start like an option ("-n" newline "x" asks; "x" before it runs)
// (TestDifferential/catheredoc-*, catheredocrule-default; TestCatHeredocs).
func catHeredocs(cmd string) string {
	if len(cmd) > maxLineLength || !strings.Contains(cmd, "$(") || !strings.Contains(cmd, "<<") {
		return cmd // a line too long is left whole for tooComplex to refuse
	}
	var b strings.Builder
	// last: where the text not yet written to b begins; word: where the
	// double-quoted text began, counted in the rewritten line.
	last, word := 0, 0
	// stack holds the open frames: '"' double quotes, '(' a $( or (, '`'
	// a backtick span; single quotes are read at once.
	var stack []byte
	top := func() byte {
		if len(stack) == 0 {
			return 0
		}
		return stack[len(stack)-1]
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == '\\':
			i++
		case top() == '"':
			switch {
			case c == '"':
				stack = stack[:len(stack)-1]
			case c == '`':
				stack = append(stack, '`')
			case strings.HasPrefix(cmd[i:], "$("):
				if len(stack) == 1 {
					before := (b.String() + cmd[last:i])[word:]
					if text, end, ok := catHeredoc(cmd[i:], before); ok {
						b.WriteString(cmd[last:i])
						b.WriteString(text)
						last = i + end
						i = last - 1
						continue
					}
				}
				stack = append(stack, '(')
				i++
			}
		case c == '\'':
			j := strings.IndexByte(cmd[i+1:], '\'')
			if j < 0 {
				return cmd
			}
			i += j + 1
		case c == '"':
			stack = append(stack, '"')
			word = b.Len() + i + 1 - last
		case c == '`':
			if top() == '`' {
				stack = stack[:len(stack)-1]
			} else {
				stack = append(stack, '`')
			}
		case c == '(':
			stack = append(stack, '(')
		case c == ')':
			if top() == '(' {
				stack = stack[:len(stack)-1]
			}
		}
	}
	if last == 0 {
		return cmd
	}
	b.WriteString(cmd[last:])
	out := b.String()
	if strings.Contains(out, "<<") {
		// Another here-document's body may hold quotes the scan above
		// misread: nothing is rewritten.
		return cmd
	}
	return out
}

// catHeredoc reads s, which starts with "$(", as catHeredocs takes it:
// the text that replaces it (literalInQuotes), the length it
// spans, and whether it is one. before is the double-quoted text before
// it, which a body of several lines must not make an option.
func catHeredoc(s, before string) (string, int, bool) {
	i := blanksAt(s, 2)
	rest, ok := strings.CutPrefix(s[i:], "cat")
	if !ok || len(rest) == 0 || rest[0] != ' ' && rest[0] != '\t' {
		return "", 0, false
	}
	i = blanksAt(s, i+3)
	if !strings.HasPrefix(s[i:], "<<") {
		return "", 0, false
	}
	i += 2
	if i >= len(s) || s[i] != '\'' && s[i] != '"' {
		return "", 0, false // <<-, <<<, <<\EOF, an unquoted delimiter
	}
	qc := s[i]
	j := strings.IndexByte(s[i+1:], qc)
	if j <= 0 {
		return "", 0, false
	}
	delim := s[i+1 : i+1+j]
	if strings.ContainsAny(delim, "\\'\"\n$`") {
		return "", 0, false
	}
	i += j + 2
	if i >= len(s) || s[i] != '\n' {
		return "", 0, false // text after the delimiter on its line
	}
	i++
	var body []string
	for {
		nl := strings.IndexByte(s[i:], '\n')
		if nl < 0 {
			return "", 0, false
		}
		line := s[i : i+nl]
		i += nl + 1
		if line == delim {
			break
		}
		if strings.HasPrefix(line, delim) && strings.ContainsAny(line[len(delim):], ")`}") {
			return "", 0, false // bash may end the body there
		}
		body = append(body, line)
	}
	i = blanksAt(s, i)
	if i >= len(s) || s[i] != ')' {
		return "", 0, false
	}
	for len(body) > 0 && body[len(body)-1] == "" {
		body = body[:len(body)-1] // the release strips the trailing newlines
	}
	text := strings.Join(body, "\n")
	if dangerousBody(text) {
		return "", 0, false
	}
	if len(body) > 1 {
		if optionStart(before + text) {
			return "", 0, false
		}
		return "\n" + cmdsubOutput, i + 1, true
	}
	return literalInQuotes(text), i + 1, true
}

// blanksAt is the index of the first byte of s from i on that is not a
// space or a tab.
func blanksAt(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// optionStart reports text the release reads as option syntax: - or --
// then a letter or a digit.
func optionStart(t string) bool {
	t, ok := strings.CutPrefix(t, "-")
	if !ok {
		return false
	}
	t = strings.TrimPrefix(t, "-")
	if t == "" {
		return false
	}
	c := t[0] | 0x20
	return 'a' <= c && c <= 'z' || '0' <= t[0] && t[0] <= '9'
}

// dangerousBody reports a here-document body the release will not take as
// text: one naming /proc/.../environ, or holding an awk construct that
// runs a program or loads code (system(, getline, a pipe into a quoted
// command, @load or @include, extension(, /inet). The test is wider than
// the release's, so a body it passes is one the release passes too.
func dangerousBody(t string) bool {
	if i := strings.Index(t, "/proc/"); i >= 0 && strings.Contains(t[i:], "/environ") {
		return true
	}
	for _, s := range []string{"system", "getline", "@", "extension", "/inet", "|"} {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// literalInQuotes writes t, to stand inside double quotes, as text no
// reader takes for an expansion: as it is when it holds no \ " $ or
// backtick, else in single quotes spliced into the double-quoted word
// ("a"'$(x)'"b" is the one word a$(x)b), a ' in it written '\”.
func literalInQuotes(t string) string {
	if !strings.ContainsAny(t, "\\\"$`") {
		return t
	}
	return `"'` + strings.ReplaceAll(t, "'", `'\''`) + `'"`
}
