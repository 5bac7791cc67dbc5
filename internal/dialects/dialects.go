// Package dialects registers the dialects this build supports.
package dialects

import (
	"github.com/sessionledger/ledger/envelope/claudecode"
	"github.com/sessionledger/ledger/envelope/openclaw"
	"github.com/sessionledger/ledger/projection"
)

// All returns every supported dialect by name.
func All() projection.Dialects {
	oc, cc := openclaw.New(), claudecode.New()
	return projection.Dialects{oc.Name(): oc, cc.Name(): cc}
}
