package agenthook

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/cchook"
)

// TestOverMaxPayloadDeniesAgents: a call whose check is over the NATS
// server's max_payload (the embedded server's default, 1 MiB) never
// reaches the ledger: it is denied in the runtime's format with that
// cause, by the adapter under --unreachable allow and by serve --hooks
// under Ledger-Hook-Unreachable: allow, and is not an unreachable ledger.
func TestOverMaxPayloadDeniesAgents(t *testing.T) {
	ts := "2026-12-02T10:00:00.000Z"
	for _, tc := range []struct {
		rt   Runtime
		name string
		deny func(*testing.T, []byte) string
	}{
		{Codex, "PreToolUse-Bash", codexDeny},
		{Gemini, "BeforeTool-run_shell_command", geminiDeny},
	} {
		f := newFixture(t, tc.rt, Dialect)
		if res := f.h.Handle(context.Background(), recorded(t, tc.rt, "SessionStart", f.base, ts, nil)); res.Denied || len(res.Warnings) > 0 {
			t.Fatalf("%s SessionStart: %+v", tc.rt.Name, res)
		}
		big := map[string]any{"tool_input": map[string]any{"command": "rm -rf important #" + strings.Repeat("x", 2<<20)}}
		f.h.Opts.Unreachable = cchook.UnreachableAllow
		res := f.h.Handle(context.Background(), recorded(t, tc.rt, tc.name, f.base, ts, big))
		check := func(how string, res *Result) {
			t.Helper()
			if !res.Denied || res.Unreachable || len(res.Output) == 0 {
				t.Fatalf("%s %s: a call over max_payload was not denied: %+v", tc.rt.Name, how, res)
			}
			r := tc.deny(t, res.Output)
			if !strings.Contains(r, "max_payload") || strings.Contains(r, "--unreachable") || strings.Contains(r, "cannot be reached") {
				t.Errorf("%s %s: reason %q, want the call's input over max_payload", tc.rt.Name, how, r)
			}
		}
		check("--unreachable allow", res)
		f.h.Opts.Unreachable = ""
		served := (&HTTPHook{Hook: f.h}).Serve(context.Background(), recorded(t, tc.rt, tc.name, f.base, ts, big), 0, http.Header{"Ledger-Hook-Unreachable": {"allow"}}, nil)
		check("serve --hooks, Ledger-Hook-Unreachable: allow", served)
	}
}
