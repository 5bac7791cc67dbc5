//go:build !(unix && !android && ((!cgo && !darwin) || osusergo))

package thinhook

import "os/user"

// osUserName is the name of the user running the hook, as os/user's
// Current gives it (here the C library's, or the platform's, lookup);
// "" when there is none.
func osUserName() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}
