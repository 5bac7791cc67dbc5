package main

import (
	"flag"
	"strings"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/wire"
)

// filterFlags select spawn trees by what their root started with: its
// scope and its identity (tree, log, export, report).
//
// The identity's user is --user-identity, not --user: every command that
// reaches a ledger already has --user, the NATS user it connects as (env
// NATS_USER), and the hook names the identity it records --user-identity
// too. checkUser catches the likely slip of --user for it.
type filterFlags struct {
	scope, user, project, runtime string
}

func (f *filterFlags) register(fs *flag.FlagSet, what string) {
	fs.StringVar(&f.scope, "scope", "", what+" of the spawn trees bound to this scope `NAME` (\"default\": those of records that name none)")
	fs.StringVar(&f.user, "user-identity", "", what+" of the spawn trees whose root was started by this `USER` (the identity's user;\n--user is the NATS user)")
	fs.StringVar(&f.project, "project", "", what+" of the spawn trees whose root ran in this `PROJECT` (as its session.started recorded it)")
	fs.StringVar(&f.runtime, "runtime", "", what+" of the spawn trees whose root ran on this `RUNTIME` (claude-code, openclaw, ...)")
}

// filter is the flags as the ledger's tree filter.
func (f *filterFlags) filter() wire.Filter {
	return wire.Filter{Scope: f.scope, User: f.user, Project: f.project, Runtime: f.runtime}
}

// check refuses a malformed scope name and, through checkUser, --user
// where --user-identity was meant.
func (f *filterFlags) check(fs *flag.FlagSet, lf *ledgerFlags) error {
	if f.scope != "" && !events.ValidScope(f.scope) {
		return usageError("--scope %q: a scope name is 1 to 128 of A-Z a-z 0-9 _ : -", f.scope)
	}
	return checkUser(fs, lf, "select the sessions a user ran")
}

// checkUser refuses --user given where it can mean nothing but the
// identity's user: with neither --nats nor --nats-config there is no NATS
// user to be. Against a server, --user stays the NATS user, as everywhere.
func checkUser(fs *flag.FlagSet, lf *ledgerFlags, purpose string) error {
	if !flagSet(fs, "user") || lf.natsURL != "" || lf.natsConfig != "" {
		return nil
	}
	return usageError("--user %s is the NATS user to connect as (with --nats or --nats-config); to %s, use --user-identity %s",
		lf.user, purpose, quoteArg(lf.user))
}

// quoteArg quotes a word for a shell when it needs it.
func quoteArg(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == ':' || r == '@' ||
			r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
