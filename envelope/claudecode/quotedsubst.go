package claudecode

import "strings"

// quotedSubstitutions replaces each subcommand whose only nesting is a
// command substitution inside double quotes (echo "ab$(date)") by the
// subcommands of the substituted commands, then the subcommand with each
// substitution read as a value it does not know: Claude Code 2.1.328
// checks the command inside as a command of its own and the string as one
// holding an unknown value, as it reads "ab$PWD" (row 140). So echo
// "ab$(date)" runs with no rule and under Bash(echo:*), echo "ab$(rm
// f1.txt)" asks, and echo "$(date)" and echo "a$(date)" ask (the quoted
// text is little more than the value: variableShapes, row 132's rule).
// acceptEdits approves no write among those commands: the release asks
// for echo "ab$(touch t1.txt)" and echo "ab$(date > o2.txt)" there ("The
// following part requires approval: echo ..."; bashSub.quoted). Only
// plain forms: the substituted command free of quotes, '$',
// backticks, backslashes, parentheses, pipes, ';', a lone '&' and
// newlines (joined by && and || alone), and no other nesting in the
// subcommand; the rest asks as any nested command does (stricter: the
// release walks them all), but a pipe, which the release asks for too
// (it cuts the line's text at the '|': "The following parts require
// approval: echo "ab$(ls, wc -l)"") (TestDifferential/quotedsubst-*;
// TestQuotedSubstitution).
func quotedSubstitutions(subs []bashSub) []bashSub {
	return replaceSubs(subs, func(s bashSub) ([]bashSub, bool) {
		if !s.nested {
			return nil, false
		}
		outer, counted, inners, ok := quotedCommands(s.raw)
		if !ok {
			return nil, false
		}
		var out []bashSub
		for _, c := range inners {
			cs, ok := plainSubcommands(c)
			if !ok {
				return nil, false
			}
			cs[len(cs)-1].op = "&&"
			for j := range cs {
				cs[j].quoted = true
			}
			out = append(out, cs...)
		}
		// The line with each substitution as $? is read as a line is
		// (its quoted text counted: variableShapes); its words are
		// outer's.
		if _, ok := plainSubcommands(counted); !ok {
			return nil, false
		}
		cls, _, _ := scanBashHD(outer)
		os, _ := splitTopOps(outer, cls)
		// A backtick or another substitution outside the quotes leaves
		// it nested: no step approves it.
		if len(os) != 1 {
			return nil, false
		}
		os[0].op, os[0].bg = s.op, s.bg
		return append(out, os[0]), true
	})
}

// quotedCommands returns raw with each command substitution inside double
// quotes written as $PWD (outer, whose words the steps read as holding a
// value they do not know: "a$PWDb" is one too) and as $? (counted, whose
// quoted text variableShapes counts: a $? ends where it starts, where
// $PWD would run into the text after it, "a$(date)b"), and the commands
// substituted,
// when every parenthesis of raw is such a substitution's and each command
// holds none of the characters quotedSubstitutions excludes.
func quotedCommands(raw string) (outer, counted string, inners []string, ok bool) {
	var b, n strings.Builder
	inDouble := false
	last := 0
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '\\':
			i++
		case c == '\'' && !inDouble:
			j := strings.IndexByte(raw[i+1:], '\'')
			if j < 0 {
				return "", "", nil, false
			}
			i += j + 1
		case c == '"':
			inDouble = !inDouble
		case (c == '(' || c == ')') && !inDouble:
			return "", "", nil, false
		case c == '$' && strings.HasPrefix(raw[i+1:], "("):
			if !inDouble || strings.HasPrefix(raw[i+2:], "(") {
				return "", "", nil, false
			}
			j := strings.IndexByte(raw[i+2:], ')')
			if j < 0 {
				return "", "", nil, false
			}
			inner := raw[i+2 : i+2+j]
			if strings.ContainsAny(strings.ReplaceAll(inner, "||", ""), "(`|;\n'\"$\\") || strings.TrimSpace(inner) == "" ||
				strings.Contains(assignAmps.Replace(inner), "&") {
				return "", "", nil, false
			}
			b.WriteString(raw[last:i])
			b.WriteString("$PWD")
			n.WriteString(raw[last:i])
			n.WriteString("$?")
			inners = append(inners, inner)
			i += 2 + j
			last = i + 1
		}
	}
	if len(inners) == 0 || inDouble {
		return "", "", nil, false
	}
	b.WriteString(raw[last:])
	n.WriteString(raw[last:])
	return b.String(), n.String(), inners, true
}
