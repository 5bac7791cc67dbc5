package main

import (
	"context"
	"errors"
)

// checkStorage is serve's start-up check (README, "Durability"): that
// the log holds every sequence its streams report and that the projection
// file is what was written to it. Either error says how to recover; serve
// refuses to serve rather than answer from damaged state.
func checkStorage(ctx context.Context, h *ledgerHandle) error {
	return errors.Join(h.log.Check(ctx), h.store.Check())
}
