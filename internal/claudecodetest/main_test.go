package claudecodetest

import (
	"os"
	"testing"
)

// TestMain lets the test binary stand in for the MCP servers a case names.
func TestMain(m *testing.M) {
	ServeMCPIfAsked()
	os.Exit(m.Run())
}
