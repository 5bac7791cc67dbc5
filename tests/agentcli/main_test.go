// Package agentcli drives the real Codex CLI and Gemini CLI, at the versions
// tools/npm/pins.json pins, offline against scripted models
// (internal/agentclitest), with a recorder command hook installed in each
// CLI's own configuration, and checks what their hooks see and decide:
// docs/codex-cli-hooks.md and docs/gemini-cli-hooks.md record the findings.
// The *_ledger_test.go suites attach the ledger's own hooks
// (internal/agenthook) to a served ledger.
package agentcli

import (
	"os"
	"testing"

	"github.com/sessionledger/ledger/internal/agentclitest"
	"github.com/sessionledger/ledger/internal/ledgertest"
)

// TestMain lets the test binary stand in for the recorder hook the CLIs run,
// and builds the ledger binary once for the suites that serve one.
func TestMain(m *testing.M) {
	agentclitest.HookIfAsked()
	os.Exit(ledgertest.Main(m))
}
