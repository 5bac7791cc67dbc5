package main

import (
	"context"
)

// checkStorage is serve's start-up check (README, "Durability"): that
// the log holds every sequence its streams report and that the projection
// file is what was written to it (checked when open opened it, before
// the catch-up, as every command checks it: ledgerFlags.open). Either error says how to
// recover; serve refuses to serve rather than answer from damaged state.
func checkStorage(ctx context.Context, h *ledgerHandle) error {
	return h.log.Check(ctx)
}
