package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// TestReadsOfRolesWithoutTheStream runs the read commands as each role of
// 'ledger serve --gen-auth'. An orchestrator or operator may not read the
// stream: 'ledger why --call/--record' and 'ledger denials', which the
// hooks and the denials print for them, answer through the API as that
// user (an orchestrator its own sessions only); the other read commands
// are refused at once, saying who may read, where they waited out
// natslog.Open's retries (minutes) before.
func TestReadsOfRolesWithoutTheStream(t *testing.T) {
	dir := t.TempDir()
	auth := filepath.Join(dir, "auth.conf")
	if _, errOut, err := runCLI(t, "", "serve", "--gen-auth", auth, "--service-users", "ledger:s3cret",
		"--orchestrators", "acme:pa,globex:pg", "--operators", "alice:po", "--auditors", "audit:pu"); err != nil {
		t.Fatalf("gen-auth: %v %s", err, errOut)
	}
	var audit *nats.Conn
	connect := func(url, user, password string) *nats.Conn {
		nc, err := nats.Connect(url, nats.UserInfo(user, password), nats.CustomInboxPrefix(client.InboxPrefix(user)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		return nc
	}
	url, _ := serveLedgerWaiting(t, "", func(url string) {
		audit = connect(url, "audit", "pu")
		ledgertest.WaitFor(t, 30*time.Second, "the ledger's service listing its endpoints", func() bool {
			m, err := audit.Request("$SRV.INFO.ledger", nil, time.Second)
			return err == nil && strings.Contains(string(m.Data), `"watch"`)
		})
	}, "--nats-config", auth, "--user", "ledger", "--password", "s3cret")
	ctx := t.Context()
	alice := client.New(connect(url, "alice", "po"), client.Options{Actor: "alice"})
	if _, err := alice.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw",
		Document: json.RawMessage(`{"tools":{"deny":["exec"]}}`), Catalogue: []string{"read", "exec"}})); err != nil {
		t.Fatal(err)
	}
	acme := client.New(connect(url, "acme", "pa"), client.Options{Owner: "acme"})
	root := events.SessionKey("agent:main:main")
	for _, ev := range []client.Event{client.Start(root, events.StartedData{Agent: "main"}), client.Turn(root, events.TurnData{Turn: 1})} {
		if _, err := acme.Append(ctx, ev); err != nil {
			t.Fatalf("%s: %v", ev.Type, err)
		}
	}
	denied, err := acme.CheckAndStart(ctx, root, "exec", "call-1")
	if err != nil || denied.Decision != "deny" {
		t.Fatalf("check and start: %+v %v", denied, err)
	}
	seq := denied.Recorded

	as := func(user, password string, args ...string) (string, string, error, time.Duration) {
		t.Helper()
		t.Setenv("NATS_PASSWORD", password)
		start := time.Now()
		out, errOut, err := runCLI(t, "", append(args, "--nats", url, "--user", user)...)
		return out, errOut, err, time.Since(start)
	}
	for _, u := range []struct{ user, password string }{{"acme", "pa"}, {"alice", "po"}, {"audit", "pu"}} {
		t.Run(u.user, func(t *testing.T) {
			for _, args := range [][]string{
				{"why", "--call", "call-1"},
				{"why", "--record", itoa(seq), "--session", string(root)},
				{"why", "--call", "call-1", "--record", itoa(seq)},
			} {
				out, errOut, err, took := as(u.user, u.password, args...)
				if err != nil || !strings.Contains(out, "call call-1 of session agent:main:main: exec, tool.checked at seq "+itoa(seq)) ||
					!strings.Contains(out, "decision: deny") {
					t.Fatalf("%v as %s: %v (%s)\n%s\n%s", args, u.user, err, took, out, errOut)
				}
				if api := strings.Contains(errOut, "asked the ledger's API"); api != (u.user != "audit") {
					t.Errorf("%v as %s: asked the API %v, stderr %q", args, u.user, api, errOut)
				}
			}
			out, errOut, err, took := as(u.user, u.password, "denials")
			if err != nil || !strings.Contains(out, "call call-1") || !strings.Contains(out, "ledger why") {
				t.Fatalf("denials as %s: %v (%s)\n%s\n%s", u.user, err, took, out, errOut)
			}
			if u.user == "audit" {
				return
			}
			// What folds the stream itself is refused at once, naming
			// who may.
			_, errOut, err, took = as(u.user, u.password, "tools", "--session", string(root))
			var rf *readForbidden
			if !errors.As(err, &rf) || !strings.Contains(err.Error(), `NATS user "`+u.user+`" may not read the ledger's stream`) ||
				!strings.Contains(err.Error(), "auditors") || took > 20*time.Second {
				t.Fatalf("tools as %s: %v after %s\n%s", u.user, err, took, errOut)
			}
		})
	}
	// Another orchestrator asks the API about its own sessions only.
	_, errOut, err, _ := as("globex", "pg", "why", "--call", "call-1")
	if events.CodeOf(err) != "unknown_call" && !strings.Contains(err.Error(), "unknown_call") {
		t.Fatalf("why as globex about acme's call: %v\n%s", err, errOut)
	}
	out, _, err, _ := as("globex", "pg", "denials")
	if err != nil || strings.Contains(out, "call-1") {
		t.Fatalf("denials as globex: %v\n%s", err, out)
	}
	// --follow through the API prints what is there and keeps going
	// until it is stopped, which ends it cleanly.
	t.Setenv("NATS_PASSWORD", "po")
	fctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	var fout, ferr bytes.Buffer
	if err := run(fctx, []string{"denials", "--follow", "--nats", url, "--user", "alice"}, nil, &fout, &ferr); err != nil || !strings.Contains(fout.String(), "call call-1") {
		t.Fatalf("denials --follow as alice: %v\n%s\n%s", err, fout.String(), ferr.String())
	}
	// The user of a URL without --user: told at once to name it.
	t.Setenv("NATS_PASSWORD", "")
	authed := strings.Replace(url, "nats://", "nats://alice:po@", 1)
	_, _, err = runCLI(t, "", "why", "--call", "call-1", "--nats", authed)
	if err == nil || !strings.Contains(err.Error(), "give --user NAME") {
		t.Fatalf("why with the user in the URL only: %v", err)
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
