package thinhook

import (
	"fmt"
	"io"
	"os"
)

// osReadSmall reads a regular file of at most n bytes through os.Open:
// readSmall where the system has no socket of its own (file_other.go),
// and what TestReadSmall holds readSmall to elsewhere.
func osReadSmall(path string, n int64) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if st, err := fh.Stat(); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() || st.Size() > n {
		return nil, fmt.Errorf("%s: not a regular file of at most %d bytes", path, n)
	}
	return io.ReadAll(io.LimitReader(fh, n))
}
