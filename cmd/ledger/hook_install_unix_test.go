//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHookInstallSpecialSettings: 'hook install' reads a project's settings
// file only when it is a regular file of bounded size (issue 24, point 2): a
// named pipe there (a cloned project's) is refused at once, not waited on.
func TestHookInstallSpecialSettings(t *testing.T) {
	project := t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(project, ".claude", "settings.local.json"), 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := runCLI(t, "", "hook", "install", "--project", project, "--command", "ledger")
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("err %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("hook install is still reading a named pipe after 10s")
	}
}
