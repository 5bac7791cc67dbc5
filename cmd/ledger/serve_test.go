package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/events"
)

// TestServeAPIAndMetrics runs `ledger serve` in-process with a NATS
// listener and metrics, talks to it with the client, and reads /metrics.
func TestServeAPIAndMetrics(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--data", filepath.Join(t.TempDir(), "d"), "--listen", "127.0.0.1:-1",
			"--metrics", "127.0.0.1:0", "--name", "test-replica"}, nil, outW, errW)
		outW.Close()
		errW.Close()
	}()
	urlCh, metricsCh := make(chan string, 1), make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(outR)
		re := regexp.MustCompile(`nats://[0-9.:]+`)
		for sc.Scan() {
			if u := re.FindString(sc.Text()); u != "" {
				urlCh <- u
			}
		}
	}()
	go func() {
		sc := bufio.NewScanner(errR)
		for sc.Scan() {
			var m struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &m) == nil && m.Msg == "metrics" {
				metricsCh <- m.Addr
			}
		}
	}()
	var url, maddr string
	for url == "" || maddr == "" {
		select {
		case url = <-urlCh:
		case maddr = <-metricsCh:
		case err := <-done:
			t.Fatalf("serve exited: %v", err)
		case <-time.After(30 * time.Second):
			t.Fatal("serve did not start")
		}
	}
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ops := client.New(nc, client.Options{})
	if _, err := ops.Append(ctx, client.SetPolicy(events.PolicySetData{Dialect: "openclaw", Document: json.RawMessage(`{}`), Catalogue: []string{"read"}})); err != nil {
		t.Fatal(err)
	}
	acme := client.New(nc, client.Options{Owner: "acme"})
	if _, err := acme.Append(ctx, client.Start("agent:main:main", events.StartedData{Agent: "main"})); err != nil {
		t.Fatal(err)
	}
	if _, err := acme.Append(ctx, client.Start("agent:main:main", events.StartedData{Agent: "main"})); events.CodeOf(err) != events.CodeDuplicateSession {
		t.Fatalf("duplicate: %v", err)
	}
	if c, err := acme.Check(ctx, "agent:main:main", "read"); err != nil || c.Decision != "allow" {
		t.Fatalf("check: %+v %v", c, err)
	}
	// A query is counted once its answer is sent (the API observes it
	// after the handler returns), so the client can read /metrics before
	// its check is counted: read again for a while.
	wants := []string{
		`ledger_appends_total{result="accepted"} 2`,
		`ledger_appends_total{result="refused"} 1`,
		`ledger_query_duration_seconds_count{endpoint="check"} 1`,
		`ledger_append_conflicts_total 0`,
		"ledger_projection_position",
		"ledger_projection_lag",
	}
	var body []byte
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get("http://" + maddr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		missing := slices.IndexFunc(wants, func(w string) bool { return !strings.Contains(string(body), w) })
		if missing < 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range wants {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve after cancel: %v", err)
	}
}
