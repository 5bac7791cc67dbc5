//go:build unix && !android && ((!cgo && !darwin) || osusergo)

package thinhook

import (
	"os"
	"strconv"
)

// osUserName is the name of the user running the hook, as os/user's
// Current gives it where it reads /etc/passwd itself (a static build, as
// the hook's is: CGO_ENABLED=0); "" when there is none. It reads the file
// as os/user does, line by line, without os.Open: an opened file brings
// up the runtime's network poller (epoll and its eventfd), in a process
// that otherwise has no use for it (issue 28). TestOSUserName holds it to
// os/user's answer.
func osUserName() string {
	uid := strconv.Itoa(os.Getuid())
	if name, ok := passwdName(uid); ok {
		return name
	}
	// os/user's answer when /etc/passwd does not name the user: $USER,
	// when $HOME is set too.
	name := os.Getenv("USER")
	if home, err := os.UserHomeDir(); err != nil || home == "" || name == "" {
		return ""
	}
	return name
}
