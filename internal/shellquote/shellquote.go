// Package shellquote renders the commands the ledger prints for a person
// to paste into a POSIX shell (the `ledger why` of a denial, the report's
// commands): every word reaches the command as it was, whatever it holds.
//
// A word made only of characters no shell gives a meaning
// ([A-Za-z0-9_@%+=:,./-], not empty) is printed as it is; any other is
// single-quoted, each quote inside closed, escaped and reopened. internal/report's
// TestCommandRoundTripsThroughAShell reads printed commands back through sh.
package shellquote

import "strings"

// Word returns s as one shell word.
func Word(s string) string {
	if s != "" && strings.IndexFunc(s, special) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join renders words as one command line, each quoted with Word.
func Join(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = Word(w)
	}
	return strings.Join(q, " ")
}

func special(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	}
	return !strings.ContainsRune("_@%+=:,./-", r)
}
