//go:build unix

package thinhook

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
