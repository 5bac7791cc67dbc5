//go:build !linux

package projection

// Where the resident set of a file mapping is not worth managing, the
// pages are left to the kernel.

func (st *Store) dropPages() {}

func (st *Store) trimPages() {}

func (st *Store) fillPages() {}
