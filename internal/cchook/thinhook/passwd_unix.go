//go:build unix

package thinhook

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
	"syscall"
)

// passwdFile is the file passwdName reads (os/user's).
const passwdFile = "/etc/passwd"

// passwdName is the name /etc/passwd gives uid, false if it names none
// or cannot be read.
func passwdName(uid string) (string, bool) {
	fd, err := openRead(passwdFile)
	if err != nil {
		return "", false
	}
	defer syscall.Close(fd)
	return passwdLookup(fdReader(fd), uid)
}

// passwdLookup reads r as os/user reads /etc/passwd for a user id (its
// readColonFile with matchUserIndexValue(uid, 2)): line by line through a
// bufio.Reader of the default size, a line longer than that read only as
// far as its first six colons (past a blank or comment one, the rest of
// it read as the next line); the name of the first line of at least six
// colons whose third field is uid, whose name neither is empty nor starts
// with + or -, and whose uid and gid are numbers.
func passwdLookup(r io.Reader, uid string) (string, bool) {
	rd := bufio.NewReader(r)
	substr := []byte(":" + uid + ":")
	for {
		var whole []byte
		var isPrefix bool
		for {
			line, prefix, err := rd.ReadLine()
			if err != nil {
				return "", false
			}
			isPrefix = prefix
			if !prefix && len(whole) == 0 {
				whole = line
				break
			}
			whole = append(whole, line...)
			if !prefix || bytes.Count(whole, []byte{':'}) >= 6 {
				break
			}
		}
		whole = bytes.TrimSpace(whole)
		if len(whole) == 0 || whole[0] == '#' {
			// As os/user: the rest of a long line, if any, is read as
			// the next.
			continue
		}
		if bytes.Contains(whole, substr) && bytes.Count(whole, []byte{':'}) >= 6 {
			parts := strings.SplitN(string(whole), ":", 7)
			if len(parts) >= 6 && parts[2] == uid && parts[0] != "" && parts[0][0] != '+' && parts[0][0] != '-' {
				_, err2 := strconv.Atoi(parts[2])
				_, err3 := strconv.Atoi(parts[3])
				if err2 == nil && err3 == nil {
					return parts[0], true
				}
			}
		}
		for ; isPrefix; _, isPrefix, _ = rd.ReadLine() {
		}
	}
}
