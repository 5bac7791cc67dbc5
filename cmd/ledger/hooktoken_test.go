package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookInstallURLToken: 'hook install --url' writes the token of the
// token file (making it, mode 0600, when missing) into the HTTP hooks'
// Authorization header, makes the settings file its owner's alone, and
// writes the same token again on a second install; 'serve --hooks' reads
// that file by default (TestHookServeHTTPDefaultToken).
func TestHookInstallURLToken(t *testing.T) {
	project := t.TempDir()
	tokenFile := filepath.Join(t.TempDir(), "ledger", "hooks-token")
	install := []string{"hook", "install", "--project", project, "--url", "http://127.0.0.1:8787/hooks/claude-code", "--token-file", tokenFile}
	if _, errOut, err := runCLI(t, "", install...); err != nil || !strings.Contains(errOut, "made a new hooks token in "+tokenFile) {
		t.Fatalf("%v %s", err, errOut)
	}
	st, err := os.Stat(tokenFile)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", st, err)
	}
	b, _ := os.ReadFile(tokenFile)
	token := strings.TrimSpace(string(b))
	if !validHooksToken(token) || len(token) != 64 {
		t.Fatalf("token %q", token)
	}
	local := filepath.Join(project, ".claude", "settings.local.json")
	src, _ := os.ReadFile(local)
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Headers   map[string]string `json:"headers"`
				OnFailure string            `json:"onFailure"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(src, &s); err != nil {
		t.Fatal(err)
	}
	for ev, groups := range s.Hooks {
		if ev == "SessionStart" {
			// The thin command hook, which reads the token's file.
			continue
		}
		if h := groups[0].Hooks[0]; h.Headers["Authorization"] != "Bearer "+token {
			t.Errorf("%s: headers %v", ev, h.Headers)
		}
	}
	if s.Hooks["PreToolUse"][0].Hooks[0].OnFailure != "block" {
		t.Error("PreToolUse does not fail closed")
	}
	if st, _ := os.Stat(local); st.Mode().Perm()&0o077 != 0 {
		t.Errorf("the settings file holding the token is %v", st.Mode().Perm())
	}
	// Again: the same token, nothing changed.
	if out, _, err := runCLI(t, "", install...); err != nil || !strings.Contains(out, "already installed") {
		t.Fatalf("%v %s", err, out)
	}
	// A token file that holds something else is refused, not replaced.
	if err := os.WriteFile(tokenFile, []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var msg strings.Builder
	if _, _, err := runCLI(t, "", install...); exitCode(err, &msg) != 1 || !strings.Contains(msg.String(), "does not hold a hooks token") {
		t.Fatalf("a bad token file: %v %q", err, msg.String())
	}
}

// TestHookServeHTTPDefaultToken: 'serve --hooks' with no token given reads
// (or makes) its token file, takes a hook carrying that token, and denies
// one without it; with --hooks-insecure it takes hooks without a token.
func TestHookServeHTTPDefaultToken(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "hooks-token")
	_, hooks := serveLedger(t, "--hooks", "127.0.0.1:0", "--hooks-token-file", tokenFile, "--hooks-no-import")
	b, err := os.ReadFile(tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(b))
	post := func(url, auth string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"session_id":"s1","hook_event_name":"Stop"}`))
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return string(out)
	}
	if out := post(hooks, "Bearer "+token); strings.Contains(out, "deny") {
		t.Fatalf("with the file's token: %s", out)
	}
	for _, auth := range []string{"", "Bearer " + token + "x", "bearer " + token, token} {
		// Refused: a Stop, which is no call, goes on with the refusal as
		// its warning (cchook's TestRefusalPassesOtherEvents).
		if out := post(hooks, auth); !strings.Contains(out, `{"systemMessage":"ledger hook: nothing was recorded for this Stop: `) || !strings.Contains(out, "no valid 'Authorization: Bearer' token") {
			t.Fatalf("%q: %s", auth, out)
		}
	}
	_, open := serveLedger(t, "--hooks", "127.0.0.1:0", "--hooks-insecure", "--hooks-no-import")
	if out := post(open, ""); strings.Contains(out, "deny") {
		t.Fatalf("--hooks-insecure: %s", out)
	}
	// A token and --hooks-insecure together are refused.
	var msg strings.Builder
	_, _, err = runCLI(t, "", "serve", "--data", filepath.Join(t.TempDir(), "d"), "--listen", "127.0.0.1:-1", "--hooks", "127.0.0.1:0", "--hooks-insecure", "--hooks-token", token)
	if exitCode(err, &msg) != 2 || !strings.Contains(msg.String(), "give one of them") {
		t.Fatalf("%v %q", err, msg.String())
	}
}
