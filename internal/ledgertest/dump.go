package ledgertest

import (
	"testing"

	"github.com/sessionledger/ledger/projection"
)

// Dump is st's canonical dump; a dump that fails fails the test.
func Dump(t testing.TB, st *projection.State) []byte {
	t.Helper()
	b, err := st.Dump()
	if err != nil {
		t.Fatalf("dump: %v", err)
	}
	return b
}

// StateHash is st's state hash; a dump that fails fails the test.
func StateHash(t testing.TB, st *projection.State) string {
	t.Helper()
	h, err := st.StateHash()
	if err != nil {
		t.Fatalf("state hash: %v", err)
	}
	return h
}
