//go:build unix

package thinhook

import (
	"bufio"
	"bytes"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// colonFileLookup is how os/user (Go 1.26, lookup_unix.go: readColonFile
// with matchUserIndexValue(uid, 2)) finds a user id in /etc/passwd: the
// oracle passwdLookup is held to.
func colonFileLookup(r io.Reader, uid string) (string, bool) {
	rd := bufio.NewReader(r)
	substr := []byte(":" + uid + ":")
	for {
		var isPrefix bool
		var wholeLine []byte
		for {
			var line []byte
			var err error
			line, isPrefix, err = rd.ReadLine()
			if err != nil {
				return "", false
			}
			if !isPrefix && len(wholeLine) == 0 {
				wholeLine = line
				break
			}
			wholeLine = append(wholeLine, line...)
			if !isPrefix || bytes.Count(wholeLine, []byte{':'}) >= 6 {
				break
			}
		}
		wholeLine = bytes.TrimSpace(wholeLine)
		if len(wholeLine) == 0 || wholeLine[0] == '#' {
			continue
		}
		if bytes.Contains(wholeLine, substr) && bytes.Count(wholeLine, []byte{':'}) >= 6 {
			parts := strings.SplitN(string(wholeLine), ":", 7)
			if !(len(parts) < 6 || parts[2] != uid || parts[0] == "" || parts[0][0] == '+' || parts[0][0] == '-') {
				_, e2 := strconv.Atoi(parts[2])
				_, e3 := strconv.Atoi(parts[3])
				if e2 == nil && e3 == nil {
					return parts[0], true
				}
			}
		}
		for ; isPrefix; _, isPrefix, _ = rd.ReadLine() {
		}
	}
}

// TestPasswdLookup: /etc/passwd files at the edges of what os/user reads,
// and random ones, read as os/user reads them.
func TestPasswdLookup(t *testing.T) {
	long := strings.Repeat("g", 5000)
	files := []string{
		"",
		"root:x:0:0:root:/root:/bin/bash\ndev:x:1000:1000:Dev,,,:/home/dev:/bin/zsh\n",
		"# dev:x:1000:1000::/home/dev:/bin/sh\n  \n\tdev:x:1000:1000::/home/dev:/bin/sh  \r\n",
		"+dev:x:1000:1000::/h:/s\n-dev:x:1000:1000::/h:/s\n:x:1000:1000::/h:/s\nok:x:1000:1000::/h:/s\n",
		"dev:x:1000:x::/h:/s\ndev2:x:1000:1000::/h:/s\n",
		"dev:x:1000:1000::/h\ndev2:x:1000:1000::/h:\n",
		"dev:x:01000:1000::/h:/s\nother:x:1000:0:1000:/h:/s\n",
		"dev:x:1000:1000:" + long + ":/h:/s\n",
		"# " + long + "\ndev:x:1000:1000::/h:/s\n",
		"#" + strings.Repeat(":1000:", 1000) + "\nx:x:1000:1000::/h:/s\n",
		strings.Repeat("a", 4095) + "\ndev:x:1000:1000::/h:/s",
		strings.Repeat("a", 4096) + "\ndev:x:1000:1000::/h:/s\r",
		"dev:x:1000:1000:" + strings.Repeat("\r", 4100) + ":/h:/s\n",
		"#" + strings.Repeat("a", 4095) + "dev:x:1000:1000::/h:/s\n",
		"#::::::" + strings.Repeat("a", 4089) + "dev:x:1000:1000::/h:/s\n",
		"   " + strings.Repeat("a", 4093) + "dev:x:1000:1000::/h:/s\n",
		"x:" + strings.Repeat("a", 4094) + ":1000:1000::/h:/s\ndev:x:1000:1000::/h:/s\n",
	}
	rng := rand.New(rand.NewPCG(28, 2))
	pieces := []string{"dev", "x", "1000", "0", ":", ":", ":", "\n", "\r\n", " ", "#", "+", "-", long[:3000], "", "1000:1000"}
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for n := rng.IntN(40); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		files = append(files, b.String())
	}
	for _, f := range files {
		for _, uid := range []string{"1000", "0"} {
			gotName, gotOK := passwdLookup(strings.NewReader(f), uid)
			wantName, wantOK := colonFileLookup(strings.NewReader(f), uid)
			if gotName != wantName || gotOK != wantOK {
				t.Fatalf("uid %s in %q: %q %v, os/user's %q %v", uid, f, gotName, gotOK, wantName, wantOK)
			}
		}
	}
}
