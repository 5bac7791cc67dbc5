package report

import "github.com/sessionledger/ledger/internal/shellquote"

// command joins a command's words, each quoted as one shell word, so a
// printed command pasted into a shell gives the ledger each word as it was:
// a tool named x$(touch f);id reaches ledger as that name, not run.
func command(words ...string) string { return shellquote.Join(words...) }
