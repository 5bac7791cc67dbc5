// Package dialects registers the dialects this build supports.
package dialects

import (
	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/envelope/ledgerpolicy"
	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/projection"
)

// All returns every supported dialect by name.
func All() projection.Dialects {
	oc, cc, lp := openclaw.New(), claudecode.New(), ledgerpolicy.New()
	return projection.Dialects{oc.Name(): oc, cc.Name(): cc, lp.Name(): lp}
}
