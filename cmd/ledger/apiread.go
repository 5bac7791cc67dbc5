package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/wire"
)

// Under the roles of 'ledger serve --gen-auth' only the ledger service and
// auditors may read the stream; orchestrators and operators ask the API.
// The read commands fold the stream themselves, so as an orchestrator or
// operator they are refused at once (readForbidden), and the two a hook or
// a denial prints for its reader, 'ledger why --call/--record' and
// 'ledger denials', ask the API instead (TestReadsOfRolesWithoutTheStream).

// readForbidden is the refusal of a read command whose NATS user may not
// read the stream.
type readForbidden struct {
	user, server string
	refused      string // the server's words
}

func (e *readForbidden) Error() string {
	who := "this connection's NATS user (give its name with --user NAME)"
	if e.user != "" {
		who = fmt.Sprintf("NATS user %q", e.user)
	}
	return fmt.Sprintf("%s may not read the ledger's stream at %s (%s): this command folds the stream itself, which under "+
		"the roles of 'ledger serve --gen-auth' only the ledger service and auditors may do. Run it as an auditor (--user NAME "+
		"of --auditors, its password in NATS_PASSWORD); as an orchestrator or operator, 'ledger why --call/--record' and "+
		"'ledger denials' ask the ledger's API instead", who, e.server, e.refused)
}

// permissions watches a connection for the server's permission
// violations. A publish the user's role may not make is dropped by the
// server, which says so on the side; the request behind it would
// otherwise wait out its timeout (about 4.5 minutes for opening the
// stream, with its retries).
type permissions struct {
	mu     sync.Mutex
	texts  []string
	signal chan struct{} // a value after each violation
	stop   func()        // gives nc back its handler
}

// watchPermissions starts watching nc, until stop. Violations are kept
// for refused and not passed on; every other asynchronous error goes to
// the handler nc had.
func watchPermissions(nc *nats.Conn) *permissions {
	p := &permissions{signal: make(chan struct{}, 1)}
	prev := nc.ErrorHandler()
	p.stop = func() { nc.SetErrorHandler(prev) }
	nc.SetErrorHandler(func(c *nats.Conn, s *nats.Subscription, err error) {
		if errors.Is(err, nats.ErrPermissionViolation) {
			p.mu.Lock()
			p.texts = append(p.texts, err.Error())
			p.mu.Unlock()
			select {
			case p.signal <- struct{}{}:
			default:
			}
			return
		}
		if prev != nil {
			prev(c, s, err)
		}
	})
	return p
}

// refused is the server's violation for a publish to subject, "" when
// there was none.
func (p *permissions) refused(subject string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, t := range p.texts {
		if strings.Contains(t, `"`+subject+`"`) {
			return t
		}
	}
	return ""
}

// do runs fn, a request on subject, and ends it as soon as the server
// refuses that publish: refused is then the server's words and err nil.
func (p *permissions) do(ctx context.Context, subject string, fn func(context.Context) error) (refused string, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	for {
		select {
		case err := <-done:
			if t := p.refused(subject); t != "" {
				return t, nil
			}
			return "", err
		case <-p.signal:
			if t := p.refused(subject); t != "" {
				cancel()
				<-done
				return t, nil
			}
		}
	}
}

// apiOwners are the scopes an API reader tries, in order: its own
// sessions' (an orchestrator's, named by its user) and every session's (an
// operator's or auditor's).
func (f *ledgerFlags) apiOwners() []string {
	if f.user != "" && f.user != wire.ScopeAll && wire.ValidOwner(f.user) {
		return []string{f.user, wire.ScopeAll}
	}
	return []string{wire.ScopeAll}
}

// askAPI connects as --user and calls ask with a client of each of
// apiOwners in turn, until one the user's role may ask on endpoint. note
// says on stderr that the API answered, and as whom.
func (f *ledgerFlags) askAPI(ctx context.Context, endpoint string, stderr io.Writer, ask func(context.Context, *client.Client) error) error {
	if f.user == "" {
		// The roles answer a user only on its own inbox (_INBOX_NAME),
		// and an orchestrator is asked on ledger.v1.ENDPOINT.NAME: both
		// need the name, which a URL's or a credentials file's user does
		// not give this command.
		return usageError("give --user NAME (the NATS user of your URL or credentials file): the ledger's API answers a user of 'ledger serve --gen-auth' only on its own inbox, and an orchestrator on ledger.v1.%s.NAME", endpoint)
	}
	nc, err := f.connectAPI(ctx)
	if err != nil {
		return err
	}
	defer nc.Close()
	p := watchPermissions(nc)
	var refusals []string
	for _, owner := range f.apiOwners() {
		c := client.New(nc, client.Options{Owner: owner, Timeout: apiRequestTimeout})
		subject := wire.Subject(endpoint, owner)
		asked := false
		t, err := p.do(ctx, subject, func(ctx context.Context) error {
			asked = true
			return ask(ctx, c)
		})
		if t != "" {
			refusals = append(refusals, subject)
			continue
		}
		if asked && stderr != nil {
			fmt.Fprintf(stderr, "ledger: asked the ledger's API on %s (user %q may not read the stream)\n", subject, f.user)
		}
		return err
	}
	return fmt.Errorf("NATS user %q may neither read the ledger's stream nor ask its API on %s: ask an administrator for an auditor's user, or for the role of the sessions' orchestrator",
		f.user, strings.Join(refusals, " or "))
}

// whyCallAPI is whyCall through the ledger's API, for a user that may not
// read the stream.
func whyCallAPI(ctx context.Context, q *queryFlags, c callFlags, pal palette, stdout, stderr io.Writer) error {
	var a wire.WhyResult
	err := q.ledgerFlags.askAPI(ctx, wire.EndpointWhy, stderr, func(ctx context.Context, cl *client.Client) error {
		var opts []client.QueryOpt
		if q.session != "" {
			opts = append(opts, client.InSession(events.SessionKey(q.session)))
		}
		var err error
		if c.record != 0 {
			a, err = cl.WhyRecord(ctx, c.record, opts...)
			if err == nil && c.call != "" && a.Call != nil && a.Call.Record.Call != c.call {
				// The API takes one of the two; both given must agree, as
				// they must in the ledger opened here.
				err = events.Errorf(wire.CodeUnknownCall, "record %d is of call %q, not %q", c.record, a.Call.Record.Call, c.call)
			}
		} else {
			a, err = cl.WhyCall(ctx, c.call, opts...)
		}
		return err
	})
	if err != nil {
		return err
	}
	if q.json {
		return writeJSON(stdout, a)
	}
	printCall(stdout, a, pal)
	return nil
}

// denialsAPI prints the denials the API answers for q, page by page, and
// with follow keeps asking (each ask waits a bounded time for a record).
func denialsAPI(ctx context.Context, lf *ledgerFlags, q wire.DenialsQuery, follow, asJSON bool, stdout, stderr io.Writer) error {
	return lf.askAPI(ctx, wire.EndpointDenials, stderr, func(ctx context.Context, cl *client.Client) error {
		if follow {
			// The client's follow pauses when the server sheds its long
			// poll (serve --max-polls), rather than asking again at once.
			err := cl.FollowDenials(ctx, q, func(d client.Denial) error { return printDenial(stdout, d, lf, asJSON) })
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		for {
			res, err := cl.Denials(ctx, q)
			if err != nil {
				return err
			}
			for _, d := range res.Denials {
				if err := printDenial(stdout, d, lf, asJSON); err != nil {
					return err
				}
			}
			if res.Next <= q.From && len(res.Denials) == 0 {
				return nil
			}
			if res.Next > q.From {
				q.From = res.Next
			}
		}
	})
}
