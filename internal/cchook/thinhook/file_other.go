//go:build !unix

package thinhook

// readSmall reads a regular file of at most n bytes.
func readSmall(path string, n int64) ([]byte, error) { return osReadSmall(path, n) }
