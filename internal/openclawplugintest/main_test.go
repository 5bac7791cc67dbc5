package openclawplugintest

import (
	"os"
	"testing"

	"github.com/sessionledger/ledger/internal/ledgertest"
)

// TestMain shares one ledger build among the tests (ledgertest.Main).
func TestMain(m *testing.M) {
	os.Exit(ledgertest.Main(m))
}
