package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/wire"
)

// ScopeLimits limits users to scopes: an operator listed may append
// policy, grant and revocation events of its scopes only; an orchestrator
// listed may start root sessions in its scopes only (its sessions'
// children inherit their root's scope). A user not listed is not limited.
//
// NATS enforces who a user is (the operator's or orchestrator's token on
// the subject it may publish on, AuthConfig); the scope is in the event,
// so the ledger enforces the limits when it takes the event
// (TestScopeLimits). 'ledger serve --gen-auth --scopes' writes them beside
// the authorization block and 'ledger serve --scope-limits' reads them.
type ScopeLimits struct {
	Users map[string][]string `json:"users"`
}

// ParseScopeLimits reads the --scopes form: user=scope+scope,... (a scope
// "default" is the default scope).
func ParseScopeLimits(s string) (*ScopeLimits, error) {
	l := &ScopeLimits{Users: map[string][]string{}}
	var errs []error
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		user, scopes, ok := strings.Cut(part, "=")
		if !ok || user == "" || scopes == "" {
			errs = append(errs, fmt.Errorf("%q: write user=scope+scope", part))
			continue
		}
		for _, sc := range strings.Split(scopes, "+") {
			l.Users[user] = append(l.Users[user], sc)
		}
	}
	if err := errors.Join(append(errs, l.Validate())...); err != nil {
		return nil, err
	}
	return l, nil
}

// Validate reports every user name and scope name that is not well formed.
func (l *ScopeLimits) Validate() error {
	var errs []error
	users := make([]string, 0, len(l.Users))
	for u := range l.Users {
		users = append(users, u)
	}
	sort.Strings(users)
	for _, u := range users {
		if !wire.ValidToken(u) {
			errs = append(errs, fmt.Errorf("user %q: names are [A-Za-z0-9_-]{1,64}", u))
		}
		if len(l.Users[u]) == 0 {
			errs = append(errs, fmt.Errorf("user %q: no scope (a user limited to no scope can do nothing; leave it out to not limit it)", u))
		}
		for _, sc := range l.Users[u] {
			if !events.ValidScope(sc) {
				errs = append(errs, fmt.Errorf("user %q: scope %q must match [A-Za-z0-9_:-]{1,128}", u, sc))
			}
		}
	}
	return errors.Join(errs...)
}

// DecodeScopeLimits reads the JSON file --gen-auth --scopes writes.
func DecodeScopeLimits(b []byte) (*ScopeLimits, error) {
	var l ScopeLimits
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("scope limits do not decode: %w (the form is {\"users\": {\"alice\": [\"scope\", ...]}})", err)
	}
	if err := l.Validate(); err != nil {
		return nil, err
	}
	return &l, nil
}

// allows reports whether user may act in scope (named as a record names
// it, "" for the default).
func (l *ScopeLimits) allows(user, scope string) ([]string, bool) {
	if l == nil {
		return nil, true
	}
	scopes, limited := l.Users[user]
	if !limited {
		return nil, true
	}
	name := events.ScopeName(scope)
	return scopes, slices.ContainsFunc(scopes, func(s string) bool { return events.ScopeName(s) == name })
}

// eventScope is the scope an event names, and whether it names one: a
// policy event and a session.started do.
func eventScope(ev *events.Event) (string, bool) {
	if !ev.Type.IsPolicy() && ev.Type != events.SessionStarted {
		return "", false
	}
	p, err := ev.Payload()
	if err != nil {
		return "", false // refused by the service with its own error
	}
	return events.NamedScope(p)
}

// checkScope refuses an event of user in a scope its limits leave out.
func (s *Server) checkScope(ev *events.Event, user string) error {
	scope, ok := eventScope(ev)
	if !ok {
		return nil
	}
	allowed, ok := s.cfg.ScopeLimits.allows(user, scope)
	if ok {
		return nil
	}
	what := "start sessions"
	if ev.Type.IsPolicy() {
		what = "change the policy"
	}
	return events.Errorf(events.CodeScopeNotAllowed, "%q may %s in scopes %s only, not in %q (the ledger's scope limits, 'ledger serve --scope-limits')",
		user, what, strings.Join(allowed, ", "), events.ScopeName(scope))
}
