package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sessionledger/ledger/internal/safefile"
)

// The bearer token of 'serve --hooks': 'hook install --url' writes it
// into the project's HTTP hooks, and the server checks it. Both read it
// from one file, the user's (defaultHooksTokenFile), and whichever runs
// first makes it, so that a server and its projects on one machine agree
// with no flag at all.

// defaultHooksTokenFile is $XDG_CONFIG_HOME/ledger/hooks-token (or the
// platform's user config directory); "" when there is none.
func defaultHooksTokenFile() string {
	d, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "ledger", "hooks-token")
}

// validHooksToken: what a token file may hold, a bearer token's characters.
func validHooksToken(t string) bool {
	if len(t) < 16 || len(t) > 512 {
		return false
	}
	for _, c := range t {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-._~+/=", c)) {
			return false
		}
	}
	return true
}

// hooksToken reads the token in path, making a new one (32 random bytes,
// hex, mode 0600) when the file does not exist. made says it made it.
func hooksToken(path string) (token string, made bool, err error) {
	if path == "" {
		return "", false, errors.New("no hooks token file: give one with --hooks-token-file (or a token with --hooks-token)")
	}
	token, err = readHooksToken(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return token, false, err
	}
	fresh, err := newHooksToken()
	if err != nil {
		return "", false, err
	}
	token, err = writeHooksToken(path, fresh)
	return token, err == nil && token == fresh, err
}

// readHooksToken reads the token in path: an error that is
// fs.ErrNotExist when there is no such file.
func readHooksToken(path string) (string, error) {
	b, err := safefile.ReadFile(path, 4096)
	if errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if err != nil {
		return "", fmt.Errorf("the hooks token file: %w", err)
	}
	token := strings.TrimSpace(string(b))
	for i := 0; token == "" && i < 50; i++ {
		// Made by another process that has not written it yet.
		time.Sleep(10 * time.Millisecond)
		if b, err = safefile.ReadFile(path, 4096); err != nil {
			return "", fmt.Errorf("the hooks token file: %w", err)
		}
		token = strings.TrimSpace(string(b))
	}
	if !validHooksToken(token) {
		return "", fmt.Errorf("%s does not hold a hooks token (16 to 512 of A-Z a-z 0-9 - . _ ~ + / =): remove it to have a new one made", path)
	}
	return token, nil
}

// newHooksToken is a new random token: 32 bytes, hex.
func newHooksToken() (string, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(raw[:]), nil
}

// writeHooksToken makes the file path holding token (mode 0600, in a
// directory made 0700 when there is none) and returns the token the file
// holds: another process's, when it made the file first.
func writeHooksToken(path, token string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		// Another process made it first: use its token.
		return readHooksToken(path)
	}
	if err != nil {
		return "", err
	}
	_, werr := f.WriteString(token + "\n")
	if cerr := f.Close(); werr != nil || cerr != nil {
		_ = os.Remove(path)
		return "", errors.Join(werr, cerr)
	}
	return token, nil
}
