package agenthook

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/internal/cchook"
	"github.com/sessionledger/ledger/internal/cchook/thinhook"
)

// TestHTTPHookAnswers: `serve --hooks`'s handler serves codex's payloads
// at /hooks/codex, and the thin hook (`ledger-hook --runtime codex`)
// prints what `ledger hook codex` prints: nothing for what it records,
// codex's denial for a call it denies, exit 0; the hook's --scope and
// --user-identity reach the session only with the server's token; a
// refused request is denied in the runtime's own format (gemini's).
func TestHTTPHookAnswers(t *testing.T) {
	f := newFixture(t, Codex, Dialect)
	f.h.Opts.Scope = ""
	const token = "0123456789abcdef-token"
	handler := &cchook.Handler{Hook: &cchook.Hook{}, Token: token, Paths: map[string]cchook.PathHook{
		Codex.Path():  &HTTPHook{Hook: f.h},
		Gemini.Path(): &HTTPHook{Hook: &Hook{Runtime: Gemini, L: downLedger{}}},
	}}
	srv := httptest.NewServer(handler)
	defer srv.Close()
	thin := func(rt Runtime, payload []byte, args ...string) (string, string, error) {
		var out, errOut bytes.Buffer
		err := thinhook.Run(context.Background(), "ledger-hook", append([]string{"--runtime", rt.Command, "--hooks", srv.URL, "--token-env", "TOK"}, args...), bytes.NewReader(payload), &out, &errOut)
		return out.String(), errOut.String(), err
	}
	t.Setenv("TOK", token)
	ts := "2026-12-02T10:00:00.000Z"
	if out, errOut, err := thin(Codex, recorded(t, Codex, "SessionStart", f.base, ts, nil), "--scope", "proj", "--user-identity", "dev2"); out != "" || err != nil {
		t.Fatalf("SessionStart: %q %q %v", out, errOut, err)
	}
	n, err := cchook.ClientLedger{C: f.c}.Tree(context.Background(), events.SessionKey(root))
	if err != nil || n == nil || n.Scope != "proj" {
		t.Fatalf("session %+v %v, want it in scope proj", n, err)
	}
	if out, errOut, err := thin(Codex, recorded(t, Codex, "PreToolUse-Bash", f.base, ts, nil)); out != "" || err != nil {
		t.Fatalf("allowed call: %q %q %v", out, errOut, err)
	}
	out, _, err := thin(Codex, recorded(t, Codex, "PreToolUse-Bash", f.base, ts, map[string]any{"tool_name": "not_a_tool", "tool_use_id": "call_2"}))
	if err != nil || !strings.Contains(codexDeny(t, []byte(out)), "ledger why") {
		t.Fatalf("denied call: %q %v", out, err)
	}
	// The token is the server's: without it the call is refused, in
	// gemini's format at gemini's path.
	t.Setenv("TOK", "wrong-wrong-wrong-token")
	out, _, err = thin(Gemini, recorded(t, Gemini, "BeforeTool-run_shell_command", f.base, ts, nil))
	if err != nil || !strings.Contains(geminiDeny(t, []byte(out)), "no valid 'Authorization: Bearer' token") {
		t.Fatalf("refused: %q %v", out, err)
	}
	t.Setenv("TOK", token)
	out, errOut, err := thin(Gemini, recorded(t, Gemini, "BeforeTool-run_shell_command", f.base, ts, nil))
	if err != nil || !strings.Contains(geminiDeny(t, []byte(out)), "cannot be reached") || !strings.Contains(errOut, "") {
		t.Fatalf("gemini, ledger down: %q %v", out, err)
	}
	// A scope that is not one, sent past the thin hook: a call denied.
	res := (&HTTPHook{Hook: f.h}).Serve(context.Background(), recorded(t, Codex, "PreToolUse-Bash", f.base, ts, nil), 0, map[string][]string{"Ledger-Hook-Scope": {"a%20b"}}, nil)
	if !res.Denied || !strings.Contains(codexDeny(t, res.Output), "--scope") {
		t.Fatalf("bad scope: %+v", res)
	}
}

// TestHTTPHookSameAnswers: the same payloads, in the same order, against
// two ledgers with the same history, one through Handle (what `ledger hook
// R` prints) and one through serve --hooks's handler and the thin hook:
// byte-identical answers and the same warnings, for each runtime.
func TestHTTPHookSameAnswers(t *testing.T) {
	const token = "0123456789abcdef-token"
	t.Setenv("TOK", token)
	ts := "2026-12-02T10:00:00.000Z"
	for _, tc := range []struct {
		rt    Runtime
		names []string
		deny  map[string]any
	}{
		{Codex, []string{"SessionStart", "UserPromptSubmit", "PreToolUse-Bash"}, map[string]any{"tool_name": "not_a_tool", "tool_use_id": "call_2"}},
		{Gemini, []string{"SessionStart", "BeforeAgent", "BeforeTool-run_shell_command"}, map[string]any{"tool_name": "not_a_tool"}},
	} {
		direct, served := newFixture(t, tc.rt, Dialect), newFixture(t, tc.rt, Dialect)
		served.base = direct.base
		srv := httptest.NewServer(&cchook.Handler{Hook: &cchook.Hook{}, Token: token, Paths: map[string]cchook.PathHook{tc.rt.Path(): &HTTPHook{Hook: served.h}}})
		payloads := [][]byte{}
		for _, n := range tc.names {
			payloads = append(payloads, recorded(t, tc.rt, n, direct.base, ts, nil))
		}
		payloads = append(payloads, recorded(t, tc.rt, tc.names[len(tc.names)-1], direct.base, ts, tc.deny), []byte("garbage"))
		denied := 0
		for i, p := range payloads {
			res := direct.h.Handle(context.Background(), p)
			if res.Denied {
				denied++
			}
			want := ""
			if len(res.Output) > 0 {
				want = string(res.Output) + "\n"
			}
			var out, errOut bytes.Buffer
			err := thinhook.Run(context.Background(), "ledger-hook", []string{"--runtime", tc.rt.Command, "--hooks", srv.URL, "--token-env", "TOK"}, bytes.NewReader(p), &out, &errOut)
			var warns string
			for _, w := range res.Warnings {
				warns += "ledger hook: " + w + "\n"
			}
			if err != nil || out.String() != want || errOut.String() != warns {
				t.Errorf("%s payload %d: thin %q %q %v\nwant %q %q", tc.rt.Name, i, out.String(), errOut.String(), err, want, warns)
			}
		}
		srv.Close()
		if denied != 2 {
			t.Errorf("%s: %d payloads denied, want 2 (the tool the policy does not allow, the garbage)", tc.rt.Name, denied)
		}
	}
}

// TestHTTPPathOverdue: at a runtime's path, a payload whose run outlasts
// the handler's Timeout (a ledger that never answers) is answered by it,
// the runtime's denial, while the run goes on, and the answer closes its
// connection (the handler holds it until the run returns), as at Claude
// Code's (cchook's TestHTTPOverdue).
func TestHTTPPathOverdue(t *testing.T) {
	const token = "0123456789abcdef-token"
	handler := &cchook.Handler{Hook: &cchook.Hook{}, Token: token, Timeout: 300 * time.Millisecond, Paths: map[string]cchook.PathHook{
		Codex.Path(): &HTTPHook{Hook: &Hook{Runtime: Codex, L: hungLedger{}}},
	}}
	srv := httptest.NewServer(handler)
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+Codex.Path(), bytes.NewReader(recorded(t, Codex, "PreToolUse-Bash", t.TempDir(), "t", nil)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	t0 := time.Now()
	resp, err := (&http.Client{Timeout: 4 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if took := time.Since(t0); took > 3*time.Second {
		t.Fatalf("answered in %s, past the handler's 300 ms bound", took)
	}
	if r := codexDeny(t, out); !strings.Contains(r, "in time") {
		t.Fatalf("%q", r)
	}
	if !resp.Close {
		t.Fatalf("the overdue answer keeps its connection open (headers %v)", resp.Header)
	}
}
