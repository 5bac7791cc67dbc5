//go:build !linux

package projection

// Where the resident set of a file mapping is not worth managing, the
// pages are left to the kernel.

func (st *Store) dropPages() {}

func (st *Store) trimPages() {}

func (st *Store) fillPages() {}

func dropMapped(data uintptr, size int64) {}

// within is true: there are no pages to drop.
func (st *Store) within(int64) bool { return true }
