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
// The identity's user is --user-identity, the name the hook gives the
// identity it records. --user names it too where it can mean nothing
// else: every command that reaches a ledger has --user, the NATS user it
// connects as (env NATS_USER), which only --nats or --nats-config use;
// without them, --user is the identity's user (identityUser).
type filterFlags struct {
	scope, user, project, runtime string
}

func (f *filterFlags) register(fs *flag.FlagSet, what string) {
	fs.StringVar(&f.scope, "scope", "", what+" of the spawn trees bound to this scope `NAME` (\"default\": those of records that name none)")
	fs.StringVar(&f.user, "user-identity", "", what+" of the spawn trees whose root was started by this `USER` (the identity's user;\n--user says the same without --nats or --nats-config, where it is the NATS user)")
	fs.StringVar(&f.project, "project", "", what+" of the spawn trees whose root ran in this `PROJECT` (as its session.started recorded it)")
	fs.StringVar(&f.runtime, "runtime", "", what+" of the spawn trees whose root ran on this `RUNTIME` (claude-code, openclaw, ...)")
}

// filter is the flags as the ledger's tree filter.
func (f *filterFlags) filter() wire.Filter {
	return wire.Filter{Scope: f.scope, User: f.user, Project: f.project, Runtime: f.runtime}
}

// check refuses a malformed scope name, and takes --user as the
// identity's user where it is no NATS user (identityUser).
func (f *filterFlags) check(fs *flag.FlagSet, lf *ledgerFlags) error {
	if f.scope != "" && !events.ValidScope(f.scope) {
		return usageError("--scope %q: a scope name is 1 to 128 of A-Z a-z 0-9 _ : -", f.scope)
	}
	u, err := identityUser(fs, lf, f.user)
	f.user = u
	return err
}

// identityUser is the identity's user a command was given: --user-identity,
// or --user where there is no NATS user to be (neither --nats nor
// --nats-config). Against a server, --user stays the NATS user, as
// everywhere. Both, naming two users, is a usage error.
func identityUser(fs *flag.FlagSet, lf *ledgerFlags, identity string) (string, error) {
	if !flagSet(fs, "user") || lf.natsURL != "" || lf.natsConfig != "" {
		return identity, nil
	}
	if identity != "" && identity != lf.user {
		return "", usageError("--user %s and --user-identity %s name two users: without --nats, --user is the identity's user; give one of them",
			quoteArg(lf.user), quoteArg(identity))
	}
	return lf.user, nil
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
