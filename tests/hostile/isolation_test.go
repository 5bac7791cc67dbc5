package hostile

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// authLedger is `ledger serve` on the NATS authorization `ledger serve
// --gen-auth` writes, with two orchestrators, an operator and an auditor.
type authLedger struct {
	url string
}

var authUsers = map[string]string{"ledger": "svc-pw", "acme": "acme-pw", "globex": "globex-pw", "alice": "alice-pw", "audit": "audit-pw"}

func startServeAuth(t *testing.T) *authLedger {
	t.Helper()
	conf := filepath.Join(t.TempDir(), "auth.conf")
	if r := runLedger(t, "serve", "--gen-auth", conf, "--service-users", "ledger:svc-pw", "--orchestrators", "acme:acme-pw,globex:globex-pw",
		"--operators", "alice:alice-pw", "--auditors", "audit:audit-pw"); r.exit != 0 {
		t.Fatalf("gen-auth: %+v", r)
	}
	url, _, stderr := serveProcess(t, "--nats-config", conf, "--user", "ledger", "--password", "svc-pw", "--name", "isolation")
	l := &authLedger{url: url}
	// The stream exists before the API is registered; wait for the API.
	nc, _ := l.connect(t, "audit", true)
	var last error
	defer func() {
		if last != nil && t.Failed() {
			t.Logf("the last request: %v; the ledger's stderr: %s", last, stderr.String())
		}
	}()
	ledgertest.WaitFor(t, 30*time.Second, "the ledger API answering", func() bool {
		_, last = nc.Request("ledger.v1.tree.all", []byte(`{}`), time.Second)
		return last == nil
	})
	return l
}

// refusals collects the permission violations the server reports to one
// connection.
type refusals struct {
	mu   sync.Mutex
	errs []string
	// more is signalled after each error (capacity 1: waitFor rereads
	// errs after every signal, so one pending is enough).
	more chan struct{}
}

func newRefusals() *refusals { return &refusals{more: make(chan struct{}, 1)} }

func (r *refusals) handler(_ *nats.Conn, _ *nats.Subscription, err error) {
	r.mu.Lock()
	r.errs = append(r.errs, err.Error())
	r.mu.Unlock()
	select {
	case r.more <- struct{}{}:
	default:
	}
}

// waitFor reports whether a violation naming subject arrives within 5s,
// reading the errors again as each one arrives.
func (r *refusals) waitFor(subject string) bool {
	deadline := time.NewTimer(5 * time.Second)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		for _, e := range r.errs {
			if strings.Contains(strings.ToLower(e), "permissions violation") && strings.Contains(e, subject) {
				r.mu.Unlock()
				return true
			}
		}
		r.mu.Unlock()
		select {
		case <-r.more:
		case <-deadline.C:
			return false
		}
	}
}

// connect dials as user, with its own inbox prefix when ownInbox.
func (l *authLedger) connect(t *testing.T, user string, ownInbox bool) (*nats.Conn, *refusals) {
	t.Helper()
	r := newRefusals()
	opts := []nats.Option{nats.UserInfo(user, authUsers[user]), nats.ErrorHandler(r.handler), nats.Timeout(5 * time.Second)}
	if ownInbox {
		opts = append(opts, nats.CustomInboxPrefix(client.InboxPrefix(user)))
	}
	nc, err := nats.Connect(l.url, opts...)
	if err != nil {
		t.Fatalf("%s: %v", user, err)
	}
	t.Cleanup(nc.Close)
	return nc, r
}

// seed sets a policy and starts acme's session; it returns acme's client.
func (l *authLedger) seed(t *testing.T) *client.Client {
	t.Helper()
	ops, _ := l.connect(t, "alice", true)
	if _, err := client.New(ops, client.Options{Actor: "alice", Timeout: 2 * time.Second, Retries: 1}).Append(t.Context(),
		client.SetPolicy(events.PolicySetData{Dialect: "openclaw", Document: json.RawMessage(`{}`), Catalogue: []string{"read", "exec"}})); err != nil {
		t.Fatalf("operator sets policy: %v", err)
	}
	nc, _ := l.connect(t, "acme", true)
	acme := client.New(nc, client.Options{Owner: "acme", Timeout: 2 * time.Second, Retries: 1})
	if _, err := acme.Append(t.Context(), client.Start("agent:main:main", events.StartedData{Agent: "main"})); err != nil {
		t.Fatalf("orchestrator appends: %v", err)
	}
	return acme
}

// TestIsolationReplies: one orchestrator cannot subscribe to another's
// replies (query answers, append acks), under its inbox prefix or the
// default one, and the first one's requests still work.
func TestIsolationReplies(t *testing.T) {
	l := startServeAuth(t)
	globex, refused := l.connect(t, "globex", true)
	var mu sync.Mutex
	var stolen []string
	for _, subject := range []string{client.InboxPrefix("acme") + ".>", "_INBOX.>", ">"} {
		if _, err := globex.Subscribe(subject, func(m *nats.Msg) {
			mu.Lock()
			stolen = append(stolen, m.Subject)
			mu.Unlock()
		}); err != nil {
			t.Fatal(err)
		}
		if !refused.waitFor(subject) {
			t.Errorf("the server let orchestrator globex subscribe to %s", subject)
		}
	}
	acme := l.seed(t)
	for range 3 {
		if _, err := acme.Tools(t.Context(), "agent:main:main"); err != nil {
			t.Fatalf("acme's query: %v", err)
		}
	}
	if err := globex.Flush(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(stolen) > 0 {
		t.Fatalf("globex received another's replies: %v", stolen)
	}
}

// TestIsolationOrchestratorJetStream: an orchestrator is refused every
// JetStream subject (no record by sequence, no consumer made, read or
// deleted, not even the stream's info) and still watches its own
// sessions, through the ledger, and no one else's; an auditor still reads.
// Every user but the service is refused a record published straight onto
// the stream, and a client without a user is not let in.
func TestIsolationOrchestratorJetStream(t *testing.T) {
	l := startServeAuth(t)
	acmeClient := l.seed(t)
	acme, refused := l.connect(t, "acme", true)
	for _, subject := range []string{"$JS.API.INFO", "$JS.API.STREAM.INFO.LEDGER", "$JS.API.DIRECT.GET.LEDGER",
		"$JS.API.DIRECT.GET.LEDGER.ledger.session.agent:main:main", "$JS.API.STREAM.MSG.GET.LEDGER",
		"$JS.API.CONSUMER.CREATE.LEDGER", "$JS.API.CONSUMER.CREATE.LEDGER.mine.ledger.session.>",
		"$JS.API.CONSUMER.CREATE.LEDGER.push.ledger.v1.policy", "$JS.API.CONSUMER.DURABLE.CREATE.LEDGER.mine",
		"$JS.API.CONSUMER.INFO.LEDGER.mine", "$JS.API.CONSUMER.MSG.NEXT.LEDGER.mine",
		"$JS.API.CONSUMER.DELETE.LEDGER.someone-elses"} {
		if m, err := acme.Request(subject, []byte(`{"seq":1}`), 300*time.Millisecond); err == nil {
			t.Errorf("orchestrator's %s answered: %s", subject, m.Data)
		}
		if !refused.waitFor(subject) {
			t.Errorf("the server did not refuse the orchestrator's %s", subject)
		}
	}
	// The watch is the ledger's: acme's own turns, none of globex's.
	gnc, _ := l.connect(t, "globex", true)
	globex := client.New(gnc, client.Options{Owner: "globex", Timeout: 2 * time.Second, Retries: 1})
	for _, ev := range []struct {
		c  *client.Client
		ev client.Event
	}{
		{globex, client.Start("agent:main:globex", events.StartedData{Agent: "main"})},
		{globex, client.Turn("agent:main:globex", events.TurnData{Turn: 1})},
		{acmeClient, client.Turn("agent:main:main", events.TurnData{Turn: 1})},
	} {
		if _, err := ev.c.Append(t.Context(), ev.ev); err != nil {
			t.Fatal(err)
		}
	}
	var seen []events.SessionKey
	wctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	err := acmeClient.Watch(wctx, client.WatchOptions{All: true}, func(c client.Change) error {
		seen = append(seen, c.Session)
		// globex's turn is before acme's in the log: once acme's is
		// seen, globex's would have been.
		if c.Session == "agent:main:main" {
			cancel()
		}
		return nil
	})
	cancel()
	if len(seen) != 1 || seen[0] != "agent:main:main" {
		t.Errorf("acme's watch of all its sessions saw %v (%v), want only agent:main:main", seen, err)
	}
	audit, _ := l.connect(t, "audit", true)
	if m, err := audit.Request("$JS.API.DIRECT.GET.LEDGER", []byte(`{"seq":1}`), 2*time.Second); err != nil || len(m.Data) == 0 {
		t.Errorf("auditor's direct get: %v", err)
	}
	head := func() uint64 {
		m, err := audit.Request("$JS.API.STREAM.INFO.LEDGER", nil, 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var info struct {
			State struct {
				LastSeq uint64 `json:"last_seq"`
			} `json:"state"`
		}
		if err := json.Unmarshal(m.Data, &info); err != nil {
			t.Fatal(err)
		}
		return info.State.LastSeq
	}
	before := head()
	for _, user := range []string{"acme", "alice", "audit"} {
		nc, refused := l.connect(t, user, true)
		for _, subject := range []string{"ledger.session.agent:main:main", "ledger.policy", "ledger.decision.agent:main:main"} {
			if m, err := nc.Request(subject, []byte(`{"v":1,"type":"session.started"}`), 300*time.Millisecond); err == nil {
				t.Errorf("%s's record on %s was acked: %s", user, subject, m.Data)
			}
			if !refused.waitFor(subject) {
				t.Errorf("the server did not refuse %s's publish to %s", user, subject)
			}
		}
	}
	if after := head(); after != before {
		t.Errorf("the stream went from %d to %d records", before, after)
	}
	if nc, err := nats.Connect(l.url, nats.Timeout(2*time.Second)); err == nil {
		nc.Close()
		t.Error("a client with no user connected")
	}
}

// TestIsolationAuditorMakesNoConsumer: an auditor is refused every
// consumer subject, so it can make none, and still verifies, lists and
// exports the log and asks what a session may use, with the ledger
// commands, which read with direct gets.
func TestIsolationAuditorMakesNoConsumer(t *testing.T) {
	l := startServeAuth(t)
	acme := l.seed(t)
	if _, err := acme.Append(t.Context(), client.Turn("agent:main:main", events.TurnData{Turn: 1})); err != nil {
		t.Fatal(err)
	}
	audit, refused := l.connect(t, "audit", true)
	for _, subject := range []string{"$JS.API.CONSUMER.CREATE.LEDGER", "$JS.API.CONSUMER.CREATE.LEDGER.mine",
		"$JS.API.CONSUMER.CREATE.LEDGER.mine.ledger.session.>", "$JS.API.CONSUMER.DURABLE.CREATE.LEDGER.mine",
		"$JS.API.CONSUMER.DELETE.LEDGER.mine", "$JS.API.CONSUMER.MSG.NEXT.LEDGER.mine"} {
		if m, err := audit.Request(subject, []byte(`{"stream_name":"LEDGER","config":{"name":"mine"}}`), 300*time.Millisecond); err == nil {
			t.Errorf("auditor's %s answered: %s", subject, m.Data)
		}
		if !refused.waitFor(subject) {
			t.Errorf("the server did not refuse the auditor's %s", subject)
		}
	}
	as := []string{"--nats", l.url, "--user", "audit", "--password", authUsers["audit"]}
	for _, args := range [][]string{
		{"verify"}, {"log"}, {"export"}, {"tools", "--session", "agent:main:main"},
	} {
		r := runLedger(t, append(args, as...)...)
		if r.exit != 0 {
			t.Errorf("auditor's ledger %s: exit %d: %s", args[0], r.exit, r.stderr)
		}
		if args[0] == "log" && strings.Count(r.stdout, "\n") < 3 {
			t.Errorf("auditor's ledger log listed %q", r.stdout)
		}
	}
}

// TestIsolationAppendAsAUser: `ledger append --nats --user NAME` appends
// through the API as NAME (only the service writes the stream): an
// operator's policy lands with the operator as actor, an orchestrator's
// session events land as its own, and a policy event from an orchestrator
// is not written.
func TestIsolationAppendAsAUser(t *testing.T) {
	l := startServeAuth(t)
	as := func(user string, lines ...string) cliResult {
		dir := t.TempDir()
		file := filepath.Join(dir, "events.jsonl")
		if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return runLedger(t, "append", "--json", "--nats", l.url, "--user", user, "--password", authUsers[user], file)
	}
	policy := `{"type":"policy.set","data":{"dialect":"openclaw","document":{},"catalogue":["read","exec"]}}`
	if r := as("alice", policy); r.exit != 0 || !strings.Contains(r.stdout, `"seq":1`) {
		t.Fatalf("operator's append: %+v", r)
	}
	if r := as("acme", `{"type":"session.started","session":"agent:main:main","data":{"agent":"main"}}`,
		`{"type":"turn.started","session":"agent:main:main","data":{"turn":1}}`,
		`{"type":"turn.started","session":"agent:main:nobody","data":{"turn":1}}`); r.exit != 1 ||
		!strings.Contains(r.stdout, `"seq":2`) || !strings.Contains(r.stdout, `"seq":3`) || !strings.Contains(r.stdout, `"error":"unknown_session"`) {
		t.Fatalf("orchestrator's append: %+v", r)
	}
	if r := as("acme", policy); r.exit == 0 {
		t.Fatalf("an orchestrator's policy event was appended: %+v", r)
	}
	audit, _ := l.connect(t, "audit", true)
	m, err := audit.Request("$JS.API.DIRECT.GET.LEDGER", []byte(`{"seq":1}`), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := events.DecodeRecord(m.Data)
	if err != nil || rec.Actor != "alice" {
		t.Fatalf("the policy record's actor: %+v %v", rec, err)
	}
	if r := runLedger(t, "verify", "--nats", l.url, "--user", "audit", "--password", authUsers["audit"]); r.exit != 0 || !strings.Contains(r.stdout, "3 records") {
		t.Fatalf("verify: %+v", r)
	}
}
