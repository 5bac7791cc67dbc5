package claudecodetest

import (
	"os"
	"testing"

	"github.com/sessionledger/ledger/internal/ledgertest"
)

// TestMain lets the test binary stand in for the MCP servers a case names,
// and shares one ledger build among the tests (ledgertest.Main).
func TestMain(m *testing.M) {
	ServeMCPIfAsked()
	os.Exit(ledgertest.Main(m))
}
