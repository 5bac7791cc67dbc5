package cchook

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/sessionledger/ledger/client"
	"github.com/sessionledger/ledger/envelope"
	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/cchook/hookwire"
)

// startsLedger knows no session and keeps what is appended.
type startsLedger struct {
	mu  sync.Mutex
	evs []client.Event
}

func (*startsLedger) Tree(context.Context, events.SessionKey) (*client.TreeNode, error) {
	return nil, nil
}
func (*startsLedger) Policy(context.Context, events.SessionKey) (*envelope.PolicyState, error) {
	return nil, nil
}
func (l *startsLedger) Append(_ context.Context, ev client.Event) (client.AppendResult, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.evs = append(l.evs, ev)
	return client.AppendResult{Seq: uint64(len(l.evs))}, nil
}
func (*startsLedger) Check(context.Context, events.SessionKey, string, json.RawMessage, string) (client.CheckResult, error) {
	return client.CheckResult{Decision: envelope.Allow, Recorded: 2}, nil
}

func (l *startsLedger) Start(ctx context.Context, key events.SessionKey, tool string, in json.RawMessage, call string) (client.CheckResult, error) {
	return l.Check(ctx, key, tool, in, call)
}

// started is the data of the session.started appended, as JSON.
func (l *startsLedger) started(t *testing.T) map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ev := range l.evs {
		if ev.Type == events.SessionStarted {
			var m map[string]any
			b, _ := json.Marshal(ev.Data)
			_ = json.Unmarshal(b, &m)
			return m
		}
	}
	t.Fatalf("no session.started among %d events", len(l.evs))
	return nil
}

// TestThinHeaders: serve --hooks reads the thin hook's headers (the
// project directory, AI_AGENT, user, host) from a request that carried its
// token, and records them in the root's identity as the NATS command hook
// does; the same headers from a server that takes hooks without a token
// (--hooks-insecure) are ignored, as is a project outside --hooks-roots.
// The thin hook's answer carries the warnings and the exit status.
func TestThinHeaders(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(home, "work", "api")
	cwd := filepath.Join(project, "sub")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	payload := `{"session_id":"s1","hook_event_name":"SessionStart","source":"startup","cwd":"` + cwd + `"}`
	thin := func(r *http.Request) {
		r.Header.Set(hookwire.HeaderThin, "1")
		r.Header.Set(hookwire.HeaderProjectDir, hookwire.EncodeHeader(project))
		r.Header.Set(hookwire.HeaderAIAgent, "claude-code_2-1-328_harness")
		r.Header.Set(hookwire.HeaderUser, hookwire.EncodeHeader("dev ö"))
		r.Header.Set(hookwire.HeaderHost, "laptop")
	}
	for _, tc := range []struct {
		name     string
		insecure bool
		roots    []string
		set      func(*http.Request)
		want     map[string]any
	}{
		{"thin", false, []string{home}, thin, map[string]any{"runtime_version": "2.1.328", "user": "dev ö", "host": "laptop", "project": project}},
		{"thin outside the roots", false, []string{cwd}, thin, map[string]any{"runtime_version": "2.1.328", "user": "dev ö", "host": "laptop", "project": cwd}},
		{"insecure", true, []string{home}, thin, map[string]any{"runtime_version": nil, "user": nil, "host": nil, "project": cwd}},
		{"http hook", false, []string{home}, nil, map[string]any{"runtime_version": nil, "user": nil, "host": nil, "project": cwd}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &startsLedger{}
			h := &Handler{Hook: &Hook{L: l, Opts: Options{Catalogue: []string{"Bash"}, Roots: tc.roots, Home: home,
				Locate: func(dir string) Location { return Location{Dir: dir} }}}, Token: httpToken}
			if tc.insecure {
				h.Token, h.Insecure = "", true
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			set := tc.set
			if tc.insecure && set != nil {
				set = func(r *http.Request) { thin(r); r.Header.Del("Authorization") }
			}
			if code, body := post(t, srv.URL+HTTPPath, payload, set); code != 200 || body != "{}" {
				t.Fatalf("%d %s", code, body)
			}
			got := l.started(t)
			for k, v := range tc.want {
				if v == nil && got[k] != nil || v != nil && got[k] != v {
					t.Errorf("%s: %v, want %v (%v)", k, got[k], v, got)
				}
			}
		})
	}

	// The answer tells the thin hook what the command hook would print on
	// standard error and how it would exit.
	srv := httptest.NewServer(&Handler{Hook: &Hook{L: &startsLedger{}}, Token: httpToken})
	defer srv.Close()
	for _, tc := range []struct {
		body, exit string
		warn       bool
	}{
		{"not json", "2", true},
		{`{"hook_event_name":"Stop"}`, "", true},
		{`{"session_id":"s1","hook_event_name":"Stop"}`, "", false},
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+HTTPPath, strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+httpToken)
		req.Header.Set(hookwire.HeaderThin, "1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get(hookwire.HeaderExit); got != tc.exit {
			t.Errorf("%q: exit %q, want %q", tc.body, got, tc.exit)
		}
		if got := len(resp.Header.Values(hookwire.HeaderWarning)) > 0; got != tc.warn {
			t.Errorf("%q: warnings %q", tc.body, resp.Header.Values(hookwire.HeaderWarning))
		}
	}
}

// TestThinUnreachableMessages: the answers of the NATS hook whose ledger
// cannot be reached are hookwire's texts, byte for byte, which the thin
// hook answers with when serve --hooks cannot be reached: a call denied
// (UnreachableReason) or let through (UnreachableAllowed), another event's
// warning (UnreachableOther). hook.go words the last two itself; this test
// keeps them the same.
func TestThinUnreachableMessages(t *testing.T) {
	down := nats.ErrNoServers // a transport failure (Unreached)
	const where = "nats://x:4222"
	for _, tt := range []struct {
		payload string
		opt     Unreachable
		want    []byte
	}{
		{"PreToolUse.json", "", hookwire.DenyOutput(hookwire.UnreachableReason(where, "Bash", down))},
		{"PreToolUse.json", UnreachableAllow, hookwire.PassOutput("ledger hook: " + hookwire.UnreachableAllowed(where, "Bash", down))},
		{"UserPromptSubmit.json", "", hookwire.PassOutput("ledger hook: " + hookwire.UnreachableOther(where, UserPromptSubmit, down))},
	} {
		l := newLedger(t, testDoc)
		l.down = down
		res := (&Hook{L: l, Opts: Options{Unreachable: tt.opt, Where: where}}).Handle(context.Background(), loadPayload(t, tt.payload, nil))
		if !bytes.Equal(res.Output, tt.want) {
			t.Errorf("%s %q: the NATS hook answered\n%s\nthe thin hook answers\n%s", tt.payload, tt.opt, res.Output, tt.want)
		}
	}
}
