//go:build unix

package thinhook

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// osReadSmall is readSmall with os.Open, as it was.
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

// TestReadSmall: readSmall reads and fails as os.Open's file did.
func TestReadSmall(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(write("target", "tok\n"), link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{write("token", "secret\n"), write("empty", ""), write("big", strings.Repeat("x", 4097)), write("max", strings.Repeat("x", 4096)), link, dir, filepath.Join(dir, "none"), filepath.Join(dir, "token", "sub"), "/dev/null"} {
		got, gerr := readSmall(p, 4096)
		want, werr := osReadSmall(p, 4096)
		if string(got) != string(want) || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Errorf("%s: %q %v, os.Open's %q %v", p, got, gerr, want, werr)
		}
	}
}
