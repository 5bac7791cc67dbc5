package claudecode

import "strings"

// Here-documents (section 9.4, "Here-documents"). Bash reads the lines
// after the line that holds a << (or <<-) operator as that operator's
// body, up to a line that is the delimiter (after leading tabs, for <<-),
// or to the end when no line is; several here-documents on a line take
// their bodies in order. Claude Code 2.1.328 (its tree-sitter reading;
// cli.js's heredoc_redirect check: "Heredoc with unquoted delimiter
// undergoes shell expansion", "Text after the heredoc start on the same
// line cannot be statically analyzed") reads the body of a quoted
// delimiter ('EOF', "EOF", \EOF) as plain text: it runs cat <<'EOF'
// read-only, python3 - <<'EOF' under Bash(python3 -:*), and cat <<"EOF" +
// $(rm f) under deny Bash(rm:*), as Bash runs no substitution there. It
// asks ("too complex") for an unquoted delimiter, whose body Bash expands,
// for anything after the delimiter word on its line (a pipe and a
// redirection too), for two here-documents on a line, for a quoted
// delimiter holding a backslash, and for a backslash before a blank in a
// body; so does the dialect: the line is broken. Bodies are never
// subcommands. Deny rules still see an unquoted body (Bash runs its
// substitutions), an unclosed one, and a quoted body when a shell (bash,
// sh, zsh, dash, ksh) stands on its start line and reads the body as a
// script (the release does not: a deliberate stricter choice); a quoted
// body is otherwise no command.

// clsHeredoc marks the bytes of a here-document's body and delimiter
// line (and the newline between two bodies).
const clsHeredoc byte = 3

// heredoc is one here-document of a line.
type heredoc struct {
	lineStart int // where its start line begins
	nl        int // the newline its body follows
	bodyStart int
	bodyEnd   int // after the delimiter line (the body's end if unclosed)
	delim     string
	quoted    bool
	strip     bool // <<-
	closed    bool
}

// hdScan is what scanBash found of here-documents; nil when none.
type hdScan struct {
	pending, done []heredoc
	// tooComplex: an unquoted delimiter, text after a delimiter word, a
	// quoted delimiter with a backslash, a missing delimiter word.
	tooComplex bool
}

// start reads the << operator at i (not a here-string's <<<).
func (hs *hdScan) start(cmd string, i int) {
	h := heredoc{lineStart: strings.LastIndexByte(cmd[:i], '\n') + 1}
	j := i + 2
	if j < len(cmd) && cmd[j] == '-' {
		h.strip = true
		j++
	}
	for j < len(cmd) && (cmd[j] == ' ' || cmd[j] == '\t') {
		j++
	}
	w := j
	for j < len(cmd) && strings.IndexByte(" \t\n;&|()<>", cmd[j]) < 0 {
		switch cmd[j] {
		case '\\':
			j += 2
		case '\'':
			if k := strings.IndexByte(cmd[j+1:], '\''); k >= 0 {
				j += k + 2
			} else {
				j = len(cmd)
			}
		case '"':
			k := j + 1
			for k < len(cmd) && cmd[k] != '"' {
				if cmd[k] == '\\' {
					k++
				}
				k++
			}
			j = k + 1
		default:
			j++
		}
	}
	if j > len(cmd) {
		j = len(cmd)
	}
	word := cmd[w:j]
	h.quoted = strings.ContainsAny(word, `'"\`)
	h.delim = shellWord(word)
	if word == "" || !h.quoted || (word[0] == '\'' || word[0] == '"') && strings.Contains(word[1:], `\`) ||
		strings.ContainsAny(word, "$`") {
		hs.tooComplex = true
	}
	// Anything after the word on its line, a pipe or a redirection too,
	// is more than the release reads: it asks ("A pipeline in this command
	// can't be checked before it runs", "A file redirect ...", "Text after
	// the heredoc start ...": TestDifferential/sh5-heredoc-*).
	rest := cmd[j:]
	if k := strings.IndexByte(rest, '\n'); k >= 0 {
		rest = rest[:k]
	}
	if strings.Trim(rest, " \t") != "" {
		hs.tooComplex = true
	}
	if len(hs.pending) > 0 {
		hs.tooComplex = true // two here-documents on a line
	}
	hs.pending = append(hs.pending, h)
}

// bodies reads the bodies of the pending here-documents, the first
// starting after the newline at nl, marks them, and returns where the scan
// goes on: the newline after the last delimiter line, or the end.
func (hs *hdScan) bodies(cmd string, nl int, cls []byte) int {
	j := nl + 1
	for n, h := range hs.pending {
		if n > 0 {
			if j >= len(cmd) {
				break
			}
			cls[j] = clsHeredoc // the newline after the last delimiter line
			j++
		}
		h.nl, h.bodyStart = nl, j
		for {
			k := strings.IndexByte(cmd[j:], '\n')
			end := len(cmd)
			if k >= 0 {
				end = j + k
			}
			line := cmd[j:end]
			if h.strip {
				line = strings.TrimLeft(line, "\t")
			}
			if line == h.delim {
				h.closed = true
				j = end
				break
			}
			if strings.HasPrefix(line, h.delim) && strings.ContainsAny(line[len(h.delim):], ")`}") {
				// A body line that starts with the delimiter and holds a
				// ), } or backtick after it: the release's parser gives up
				// ("Parser aborted"; EOF;x and EOF x are text) (row 135,
				// TestDifferential/parseedges-*; TestHeredocs).
				hs.tooComplex = true
			}
			if k < 0 {
				j = end
				break
			}
			j = end + 1
		}
		h.bodyEnd = j
		for k := h.bodyStart; k < j; k++ {
			cls[k] = clsHeredoc
			if cmd[k] == '\\' && k+1 < len(cmd) && isSpace(cmd[k+1]) {
				// The release reads the line's text whole first, and asks
				// for a backslash before a blank or a newline anywhere
				// ("Contains backslash-escaped whitespace").
				hs.tooComplex = true
			}
		}
		hs.done = append(hs.done, h)
	}
	hs.pending = hs.pending[:0]
	return j
}

// broken: Claude Code 2.1.328 reads no approval from the line. A body
// with no delimiter line runs to the end of the line, as Bash reads it
// (with a warning): the release reads it so too, and runs cat <<'EOF' + x
// read-only.
func (hs *hdScan) broken() bool {
	return hs != nil && (hs.tooComplex || len(hs.pending) > 0)
}

// plain is cmd with the quoted bodies that run no command blanked: the
// text deny and ask rules read nested commands from.
func (hs *hdScan) plain(cmd string) string {
	if hs == nil {
		return cmd
	}
	var b []byte
	for _, h := range hs.done {
		// An unclosed body stays: where it ends is where readers differ
		// (a delimiter line with a trailing blank closes nothing in Bash).
		if !h.quoted || !h.closed || h.nl < h.lineStart || lineRunsShell(cmd[h.lineStart:h.nl]) {
			continue
		}
		if b == nil {
			b = []byte(cmd)
		}
		for k := h.bodyStart; k < h.bodyEnd; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
	}
	if b == nil {
		return cmd
	}
	return string(b)
}

// lineRunsShell reports a shell among the commands of a line: it reads a
// here-document's body as its script.
func lineRunsShell(line string) bool {
	for _, seg := range nestedSegments(line) {
		switch commandName(stripDeep(seg)) {
		case "bash", "sh", "zsh", "dash", "ksh":
			return true
		}
	}
	return false
}
