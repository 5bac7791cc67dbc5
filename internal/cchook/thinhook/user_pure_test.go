//go:build unix && !android && ((!cgo && !darwin) || osusergo)

package thinhook

import (
	"os/user"
	"strconv"
	"testing"
)

// TestOSUserName: the hook names the user os/user's Current names.
func TestOSUserName(t *testing.T) {
	want := ""
	if u, err := user.Current(); err == nil {
		want = u.Username
	}
	if got := osUserName(); got != want {
		t.Errorf("osUserName() = %q, os/user's %q", got, want)
	}
	t.Setenv("USER", "someone")
	t.Setenv("HOME", "/home/someone")
	if _, ok := passwdName(strconv.Itoa(1 << 30)); ok {
		t.Fatal("a uid no one has")
	}
}
