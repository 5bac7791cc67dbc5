package report

import "strings"

// shellQuote returns s as one POSIX shell word: as it is when it holds only
// characters no shell gives a meaning ([A-Za-z0-9_@%+=:,./-], not empty),
// else in single quotes, each ' written as '\”. A printed command is meant
// to be pasted into a shell: a tool named x$(touch f);id must reach ledger
// as that name, not run.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, unsafeInShell) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func unsafeInShell(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	}
	return !strings.ContainsRune("_@%+=:,./-", r)
}

// command joins a command's words, each quoted with shellQuote.
func command(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}
