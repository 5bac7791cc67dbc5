// Package replay rebuilds ledger state from records: a fold of the whole log
// or of its first records (time travel). Replaying the same records always
// gives the same state.
package replay

import (
	"fmt"

	"github.com/sessionledger/ledger/events"
	"github.com/sessionledger/ledger/projection"
)

// Fold folds records, the i-th at sequence i+1, into a fresh state, stopping
// after sequence to (0 means every record).
func Fold(dialects projection.Dialects, records []*events.Record, to uint64) (*projection.State, error) {
	if to == 0 || to > uint64(len(records)) {
		to = uint64(len(records))
	}
	st := projection.New(dialects)
	for i := uint64(0); i < to; i++ {
		if err := st.Apply(records[i], i+1); err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
	}
	return st, nil
}
