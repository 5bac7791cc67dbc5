package thinhook

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/cchook/hookwire"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// TestThinPanicDenies: a panic in the thin hook's run (here, the write of
// a warning that holds "cannot be reached" to a standard error that
// panics, ledgertest.PanicWriter) is answered as the NATS hooks answer
// one (hookcmd's TestRunPanicDenies, cmd/ledger's TestHookAgentPanicDenies):
// a call is denied in its runtime's format with hookwire.PanicReason, even
// under --unreachable allow, and exits as the hook documents a denial (0,
// or 2 with Claude Code's denial when not even the event can be told); any
// other event goes on with the warning (Claude Code's systemMessage, or
// nothing for an agent runtime); the warning and the stack are on standard
// error. Before the fix the process died of it: Go's exit 2 with the
// stack, which Claude Code and codex read as a denial of a prompt too, and
// gemini and qwen as one of their BeforeAgent and UserPromptSubmit.
func TestThinPanicDenies(t *testing.T) {
	const what = "a writer it did not expect" // PanicWriter's panic
	sock := "unix:" + filepath.Join(t.TempDir(), "none.sock")
	// A server that answers, with a warning that panics when printed.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.Header().Add(hookwire.HeaderWarning, hookwire.EncodeHeader("the ledger cannot be reached"))
		w.Header().Set(hookwire.HeaderExit, "2")
		_, _ = io.WriteString(w, string(hookwire.DenyOutput("the server's own denial")))
	}))
	defer srv.Close()
	deny := string(hookwire.DenyOutput(hookwire.PanicReason(what))) + "\n"
	for _, tc := range []struct {
		name, payload string
		args          []string
		stdout        string
		exit          int
	}{
		{"claude-code call", call, []string{"--hooks", sock, "--no-token", "--unreachable", "allow"}, deny, 0},
		{"claude-code prompt", other, []string{"--hooks", sock, "--no-token"},
			string(hookwire.PassOutput("ledger hook: "+hookwire.PanicWarning(what)+" (this UserPromptSubmit goes on)")) + "\n", 0},
		{"claude-code untold", "garbage", []string{"--hooks", srv.URL, "--no-token"}, deny, 2},
		{"codex call", codexCall, []string{"--runtime", "codex", "--hooks", sock, "--no-token", "--unreachable", "allow"}, deny, 0},
		{"qwen call", codexCall, []string{"--runtime", "qwen", "--hooks", sock, "--no-token", "--unreachable", "allow"}, deny, 0},
		{"gemini call", geminiCall, []string{"--runtime", "gemini", "--hooks", sock, "--no-token", "--unreachable", "allow"},
			string(hookwire.Agents["gemini"].DenyOutput(hookwire.PanicReason(what))) + "\n", 0},
		{"codex other", agentOther, []string{"--runtime", "codex", "--hooks", sock, "--no-token"}, "", 0},
		{"gemini other", agentOther, []string{"--runtime", "gemini", "--hooks", sock, "--no-token"}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			errOut := &ledgertest.PanicWriter{Marker: "cannot be reached"}
			var err error
			func() {
				defer func() {
					if v := recover(); v != nil {
						t.Fatalf("the thin hook's run panicked: %v", v)
					}
				}()
				err = Run(context.Background(), "ledger-hook", tc.args, strings.NewReader(tc.payload), &out, errOut)
			}()
			if out.String() != tc.stdout || exitOf(err) != tc.exit {
				t.Errorf("%q, exit %d (%v)\nwant %q, exit %d", out.String(), exitOf(err), err, tc.stdout, tc.exit)
			}
			if s := errOut.String(); !strings.Contains(s, "ledger hook: "+hookwire.PanicWarning(what)+"\n") || !strings.Contains(s, "goroutine") {
				t.Errorf("standard error holds no panic with its stack: %q", s)
			}
		})
	}
}
