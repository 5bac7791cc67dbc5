package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/api"
	"github.com/sessionledger/ledger/internal/api/apitest"
	"github.com/sessionledger/ledger/internal/ledgertest"
	"github.com/sessionledger/ledger/internal/service"
)

// violations collects the permission errors the server reports to one
// connection.
type violations struct {
	mu   sync.Mutex
	errs []string
}

func (v *violations) handler(_ *nats.Conn, _ *nats.Subscription, err error) {
	v.mu.Lock()
	v.errs = append(v.errs, err.Error())
	v.mu.Unlock()
}

// waitFor waits until a violation naming subject arrives.
func (v *violations) waitFor(t *testing.T, subject string) {
	t.Helper()
	ledgertest.WaitFor(t, 5*time.Second, "the server refuses a publish to "+subject, func() bool { return v.refused(subject) })
}

// refused reports whether a violation naming subject has arrived.
func (v *violations) refused(subject string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, e := range v.errs {
		// Quoted, so that a refusal of ledger.v1.policy.bob is not
		// taken for one of ledger.v1.policy.
		if strings.Contains(strings.ToLower(e), "permissions violation") && strings.Contains(e, `"`+subject+`"`) {
			return true
		}
	}
	return false
}

// streamInfo asks for stream name's info on nc, whose violations v
// collects, and returns the answer's error, or, for an ask the server
// refuses (which no one answers), the error of the ask ended at the
// refusal.
func streamInfo(t *testing.T, nc *nats.Conn, v *violations, name string) error {
	t.Helper()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := js.Stream(ctx, name)
		done <- err
	}()
	subject := "$JS.API.STREAM.INFO." + name
	var err error
	answered := false
	ledgertest.WaitFor(t, 10*time.Second, "an answer to, or the server's refusal of, "+subject, func() bool {
		select {
		case err = <-done:
			answered = true
		default:
		}
		return answered || v.refused(subject)
	})
	if !answered {
		cancel()
		err = <-done
	}
	return err
}

func TestRolesEnforcedByTheServer(t *testing.T) {
	roles := &api.Roles{
		Service:       []api.User{{Name: "ledger", Password: "svc-pw"}},
		Orchestrators: []api.User{{Name: "acme", Password: "acme-pw"}, {Name: "globex", Password: "globex-pw"}},
		Operators:     []api.User{{Name: "alice", Password: "alice-pw"}},
		Auditors:      []api.User{{Name: "audit", Password: "audit-pw"}},
	}
	l := apitest.Start(t, apitest.Options{Roles: roles, API: api.Config{MaxWait: time.Second}})
	url, snc, log, ctx := l.NS.ClientURL(), l.Conn, l.Log, t.Context()

	connect := func(user, pw string) (*nats.Conn, *violations) {
		v := &violations{}
		return l.Dial(user, pw, nats.ErrorHandler(v.handler)), v
	}
	if _, err := nats.Connect(url, nats.UserInfo("acme", "wrong")); err == nil {
		t.Fatal("a wrong password connected")
	}
	opsNC, opsV := connect("alice", "alice-pw")
	acmeNC, acmeV := connect("acme", "acme-pw")
	auditNC, auditV := connect("audit", "audit-pw")

	// What each role may do works.
	ops := client.New(opsNC, client.Options{Actor: "alice", Timeout: time.Second, Retries: 1})
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw", Document: json.RawMessage(`{}`), Catalogue: []string{"read", "exec"}})); err != nil {
		t.Fatalf("operator sets policy: %v", err)
	}
	acme := client.New(acmeNC, client.Options{Owner: "acme", Timeout: time.Second, Retries: 1})
	if _, err := acme.Append(ctx, client.Start("agent:main:main", events.StartedData{Agent: "main"})); err != nil {
		t.Fatalf("orchestrator appends: %v", err)
	}
	if _, err := acme.Tools(ctx, "agent:main:main"); err != nil {
		t.Fatalf("orchestrator reads its session: %v", err)
	}
	audit := client.New(auditNC, client.Options{Timeout: time.Second, Retries: 1})
	if _, err := audit.Tools(ctx, "agent:main:main", client.WithMinSeq(acme.Token())); err != nil {
		t.Fatalf("auditor reads: %v", err)
	}
	js, _ := jetstream.New(auditNC)
	st, err := js.Stream(ctx, "LEDGER")
	if err != nil {
		t.Fatalf("auditor stream info: %v", err)
	}
	if _, err := st.GetMsg(ctx, 1); err != nil {
		t.Fatalf("auditor replays a record: %v", err)
	}
	// Auditors may read the later segments of a rolling log, and no other
	// stream; orchestrators no stream at all (they watch through the
	// ledger).
	sjs, _ := jetstream.New(snc)
	for name, subject := range map[string]string{"LEDGER-2": "ledger.sealed.test", "OTHER": "other.>"} {
		if _, err := sjs.CreateStream(ctx, jetstream.StreamConfig{Name: name, Subjects: []string{subject}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []struct {
		who string
		nc  *nats.Conn
		v   *violations
	}{{"auditor", auditNC, auditV}, {"orchestrator", acmeNC, acmeV}} {
		err := streamInfo(t, r.nc, r.v, "LEDGER-2")
		if r.who == "auditor" && err != nil {
			t.Errorf("%s reads the log's second segment: %v", r.who, err)
		} else if r.who == "orchestrator" && err == nil {
			t.Errorf("%s read the log's second segment", r.who)
		}
		if err := streamInfo(t, r.nc, r.v, "OTHER"); err == nil {
			t.Errorf("%s read a stream that is not the ledger's", r.who)
		}
	}

	// What each role may not do is refused by the server itself.
	forbidden := []struct {
		who     string
		nc      *nats.Conn
		v       *violations
		subject string
	}{
		{"orchestrator writes the stream", acmeNC, acmeV, "ledger.session.agent:main:main"},
		{"orchestrator writes policy", acmeNC, acmeV, "ledger.v1.policy"},
		{"orchestrator appends as another", acmeNC, acmeV, "ledger.v1.append.globex"},
		{"orchestrator reads another's sessions", acmeNC, acmeV, "ledger.v1.tools.globex"},
		{"orchestrator reads every session", acmeNC, acmeV, "ledger.v1.why.all"},
		{"orchestrator watches another's sessions", acmeNC, acmeV, "ledger.v1.watch.globex"},
		{"orchestrator watches every session", acmeNC, acmeV, "ledger.v1.watch.all"},
		{"orchestrator reads the stream's info", acmeNC, acmeV, "$JS.API.STREAM.INFO.LEDGER"},
		{"orchestrator makes a consumer", acmeNC, acmeV, "$JS.API.CONSUMER.CREATE.LEDGER.mine.ledger.session.>"},
		{"operator appends session events", opsNC, opsV, "ledger.v1.append.acme"},
		{"operator sets policy as another", opsNC, opsV, "ledger.v1.policy.bob"},
		{"operator sets policy under no name", opsNC, opsV, "ledger.v1.policy"},
		{"operator writes the stream", opsNC, opsV, "ledger.policy"},
		{"auditor appends", auditNC, auditV, "ledger.v1.append.acme"},
		{"auditor writes policy", auditNC, auditV, "ledger.v1.policy"},
		{"auditor writes the stream", auditNC, auditV, "ledger.decision.agent:main:main"},
		{"auditor deletes the stream", auditNC, auditV, "$JS.API.STREAM.DELETE.LEDGER"},
	}
	for _, f := range forbidden {
		t.Run(f.who, func(t *testing.T) {
			// The server's refusal is the event: once it came, the
			// request was dropped and nothing can answer it (which the
			// round trip below and the empty inbox confirm), so no
			// request needs to time out.
			inbox := nats.NewInbox()
			answers, err := f.nc.SubscribeSync(inbox)
			if err != nil {
				t.Fatal(err)
			}
			defer answers.Unsubscribe()
			if err := f.nc.PublishRequest(f.subject, inbox, []byte(`{}`)); err != nil {
				t.Fatal(err)
			}
			f.v.waitFor(t, f.subject)
			if err := f.nc.Flush(); err != nil {
				t.Fatal(err)
			}
			if n, _, _ := answers.Pending(); n != 0 {
				t.Fatalf("%s: the request to %s was answered", f.who, f.subject)
			}
		})
	}
	// A policy record's actor is the operator whose subject it came on,
	// and one that names another is refused.
	recs, err := service.ReadRecords(ctx, log, 1, 1)
	if err != nil || recs[0].Actor != "alice" {
		t.Fatalf("policy record's actor: %+v %v", recs, err)
	}
	if m, err := opsNC.Request("ledger.v1.policy.alice", []byte(`{"type":"policy.set","v":1,"actor":"mallory","data":{"dialect":"openclaw","document":{},"catalogue":["read"]}}`), 2*time.Second); err != nil || m.Header.Get("Nats-Service-Error-Code") != string(events.CodeInvalidEvent) {
		t.Fatalf("a policy naming mallory on alice's subject: %v %v", err, m)
	}
	// Nothing the refused publishes carried reached the stream.
	if head, _ := log.Head(ctx); head != 2 {
		t.Fatalf("stream head %d, want 2", head)
	}
}

func TestAuthConfigRefusesBadUsers(t *testing.T) {
	for _, r := range []*api.Roles{
		{},
		{Service: []api.User{{Name: "ledger"}}, Orchestrators: []api.User{{Name: "all"}}},
		{Service: []api.User{{Name: "ledger"}}, Orchestrators: []api.User{{Name: "a.b"}}},
		{Service: []api.User{{Name: "x"}}, Auditors: []api.User{{Name: "x"}}},
	} {
		if _, err := api.AuthConfig(r, "LEDGER"); err == nil {
			t.Errorf("roles %+v accepted", r)
		}
	}
	conf, err := api.AuthConfig(&api.Roles{Service: []api.User{{Name: "ledger"}}}, "LEDGER")
	if err != nil || !strings.Contains(conf, `user: "ledger", password: "`) {
		t.Fatalf("generated password: %v\n%s", err, conf)
	}
}
