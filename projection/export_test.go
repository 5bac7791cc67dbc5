package projection

// MaxSessions lets tests make a state that reads from a store evict every
// session it did not just write.
var MaxSessions = &maxSessions

// RebuildDropGrowth lets tests make a rebuild drop its pages after a
// growth of a few pages.
var RebuildDropGrowth = &rebuildDropGrowth

// DumpBlock is how many entries Store.Dump and a dump object encode at a time.
const DumpBlock = dumpBlock

// OrderApart is how many puts of a bucket a commit orders in a goroutine
// of its own.
const OrderApart = orderApart

// HoldBytes lets tests make a rebuild's store write the tool sets it holds
// at every commit.
var HoldBytes = &holdBytes

// Held is how many tool sets st holds back from its file.
func Held(st *Store) int {
	if st.held == nil {
		return 0
	}
	st.held.mu.Lock()
	defer st.held.mu.Unlock()
	return len(st.held.m)
}

// Crash closes st's file as a process that died would leave it: without
// writing the tool sets it holds.
func Crash(st *Store) error { return st.db.Close() }
