package openclawplugintest

import "github.com/sessionledger/ledger/internal/ledgertest"

// Root is the repository root.
func Root() string { return ledgertest.Root() }
