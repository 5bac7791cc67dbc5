//go:build !linux

package projection

// dropPages does nothing where the resident set of a file mapping is not
// worth managing.
func (st *Store) dropPages() {}
