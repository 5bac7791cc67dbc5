//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessionledger/ledger/internal/cchook"
)

// The tests here hold 'ledger hook install' to "nothing is written when
// it refuses" and to what its --dry-run, --json, --project and --url say
// (docs/claude-code-hooks.md, "ledger hook install").

const loopbackHooksURL = "http://127.0.0.1:8787" + cchook.HTTPPath

// TestHookInstallRefusalMakesNoToken: with --url, a settings file the
// install refuses (not JSON, read-only) is refused before anything is
// written: no token file (nor its directory), the settings as they were;
// the message names the file and what to fix. The same for --runtime R
// --url and a hooks file that is not JSON.
func TestHookInstallRefusalMakesNoToken(t *testing.T) {
	bad := []byte("{\n  \"permissions\": {\"allow\": [\"Bash\"],}\n}\n")
	for _, tt := range []struct {
		name, file string
		src        []byte
		mode       os.FileMode
		args       []string
		msg        []string
	}{
		{"malformed", "settings.local.json", bad, 0o644, nil, []string{"not valid JSON: line 2", "fix the file"}},
		{"malformed shared", "settings.json", bad, 0o644, []string{"--shared", "--token-env", "TOK"}, []string{"not valid JSON", "fix the file"}},
		{"read-only", "settings.local.json", []byte(userSettings), 0o444, nil, []string{"read-only", "chmod u+w"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			project, p := installProject(t, tt.file, tt.src)
			if err := os.Chmod(p, tt.mode); err != nil {
				t.Fatal(err)
			}
			tokenDir := filepath.Join(t.TempDir(), "ledger")
			tokenFile := filepath.Join(tokenDir, "hooks-token")
			args := append([]string{"hook", "install", "--project", project, "--url", loopbackHooksURL, "--command", "ledger", "--token-file", tokenFile}, tt.args...)
			var msg strings.Builder
			out, _, err := runCLI(t, "", args...)
			if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), p) {
				t.Errorf("exit %d %q, want 1 naming %s", code, msg.String(), p)
			}
			for _, m := range tt.msg {
				if !strings.Contains(msg.String(), m) {
					t.Errorf("message %q does not say %q", msg.String(), m)
				}
			}
			if out != "" {
				t.Errorf("printed %q", out)
			}
			if _, err := os.Stat(tokenDir); err == nil {
				t.Errorf("a refused install made %s", tokenDir)
			}
			if got := readFile(t, p); !bytes.Equal(got, tt.src) {
				t.Errorf("the refused file changed:\n%s", got)
			}
			noTempFiles(t, filepath.Dir(p))
		})
	}
	t.Run("runtime", func(t *testing.T) {
		for _, rt := range []string{"codex", "gemini", "qwen"} {
			project := t.TempDir()
			file := map[string]string{"codex": ".codex/hooks.json", "gemini": ".gemini/settings.json", "qwen": ".qwen/settings.json"}[rt]
			p := filepath.Join(project, file)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			tokenDir := filepath.Join(t.TempDir(), "ledger")
			var msg strings.Builder
			_, _, err := runCLI(t, "", "hook", "install", "--runtime", rt, "--project", project, "--url", "http://127.0.0.1:8787", "--command", "ledger", "--token-file", filepath.Join(tokenDir, "hooks-token"))
			if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), p) || !strings.Contains(msg.String(), "fix the file") {
				t.Errorf("%s: exit %d %q, want 1 naming %s", rt, code, msg.String(), p)
			}
			if _, err := os.Stat(tokenDir); err == nil {
				t.Errorf("%s: a refused install made %s", rt, tokenDir)
			}
			if got := readFile(t, p); !bytes.Equal(got, bad) {
				t.Errorf("%s: the refused file changed:\n%s", rt, got)
			}
		}
	})
}

// TestHookInstallRefusalClaudeNotADir: a .claude that is a file is
// refused, naming it, before the token file is made.
func TestHookInstallRefusalClaudeNotADir(t *testing.T) {
	project := t.TempDir()
	claude := filepath.Join(project, ".claude")
	if err := os.WriteFile(claude, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tokenDir := filepath.Join(t.TempDir(), "ledger")
	for _, args := range [][]string{
		{"--url", loopbackHooksURL, "--command", "ledger", "--token-file", filepath.Join(tokenDir, "hooks-token")},
		{"--command", "ledger"},
	} {
		var msg strings.Builder
		_, _, err := runCLI(t, "", append([]string{"hook", "install", "--project", project}, args...)...)
		if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), claude+" is not a directory") || !strings.Contains(msg.String(), "move it away") {
			t.Errorf("%q: exit %d %q, want 1 saying %s is not a directory", args, code, msg.String(), claude)
		}
	}
	if _, err := os.Stat(tokenDir); err == nil {
		t.Errorf("a refused install made %s", tokenDir)
	}
	if got := readFile(t, claude); string(got) != "x" {
		t.Errorf(".claude changed: %q", got)
	}
}

// TestHookInstallRefusalReadOnlyDirMakesNoToken: a .claude directory the
// install cannot write in is found before the token file is made.
func TestHookInstallRefusalReadOnlyDirMakesNoToken(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into a read-only directory")
	}
	project, local := installProject(t, "settings.local.json", []byte(userSettings))
	dir := filepath.Dir(local)
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	tokenDir := filepath.Join(t.TempDir(), "ledger")
	var msg strings.Builder
	_, _, err := runCLI(t, "", "hook", "install", "--project", project, "--url", loopbackHooksURL, "--command", "ledger", "--token-file", filepath.Join(tokenDir, "hooks-token"))
	if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), dir) || !strings.Contains(msg.String(), "permission denied") {
		t.Errorf("exit %d %q, want 1 naming %s, permission denied", code, msg.String(), dir)
	}
	if _, err := os.Stat(tokenDir); err == nil {
		t.Errorf("a refused install made %s", tokenDir)
	}
}

// dryRunOutput is what --dry-run --json prints.
type dryRunOutput struct {
	DryRun *bool `json:"dry_run"`
	Files  []struct {
		File    string          `json:"file"`
		Action  string          `json:"action"`
		Changed bool            `json:"changed"`
		Added   []string        `json:"added"`
		Removed []string        `json:"removed"`
		Content json.RawMessage `json:"content"`
	} `json:"files"`
	TokenFile *struct {
		File   string `json:"file"`
		Action string `json:"action"`
	} `json:"token_file"`
}

func decodeDryRun(t *testing.T, out string) dryRunOutput {
	t.Helper()
	var r dryRunOutput
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("--dry-run --json printed no report: %v\n%s", err, out)
	}
	if dec.More() {
		t.Fatalf("--dry-run --json printed more than one JSON value:\n%s", out)
	}
	if r.DryRun == nil || !*r.DryRun {
		t.Fatalf("no \"dry_run\": true:\n%s", out)
	}
	for _, f := range r.Files {
		if f.Added == nil || f.Removed == nil {
			t.Fatalf("a null added or removed:\n%s", out)
		}
	}
	return r
}

// TestHookInstallDryRunJSON: --dry-run --json prints one JSON object, the
// files the install would write with what it would do to each and the
// settings as an object, the token file it would make; it writes nothing.
// An error is one JSON line on stderr, stdout empty.
func TestHookInstallDryRunJSON(t *testing.T) {
	project, local := installProject(t, "settings.local.json", nil)
	tokenFile := filepath.Join(t.TempDir(), "ledger", "hooks-token")
	install := []string{"hook", "install", "--project", project, "--url", loopbackHooksURL, "--command", "ledger", "--token-file", tokenFile}
	out, errOut, err := runCLI(t, "", append(install, "--dry-run", "--json")...)
	if err != nil {
		t.Fatalf("%v %s", err, errOut)
	}
	r := decodeDryRun(t, out)
	if len(r.Files) != 1 || r.Files[0].File != local || r.Files[0].Action != "create" || !r.Files[0].Changed || len(r.Files[0].Added) != 7 {
		t.Fatalf("dry run of a new install:\n%s", out)
	}
	var content map[string]any
	if err := json.Unmarshal(r.Files[0].Content, &content); err != nil || content["hooks"] == nil {
		t.Errorf("content is not the settings object: %v\n%s", err, r.Files[0].Content)
	}
	if r.TokenFile == nil || r.TokenFile.File != tokenFile || r.TokenFile.Action != "create" {
		t.Errorf("token_file: %+v", r.TokenFile)
	}
	if _, err := os.Stat(filepath.Join(project, ".claude")); err == nil {
		t.Error("--dry-run --json made .claude")
	}
	if _, err := os.Stat(tokenFile); err == nil {
		t.Error("--dry-run --json made the token file")
	}

	if _, errOut, err := runCLI(t, "", install...); err != nil {
		t.Fatalf("%v %s", err, errOut)
	}
	installed := readFile(t, local)
	out, _, err = runCLI(t, "", append(install, "--dry-run", "--json")...)
	if err != nil {
		t.Fatal(err)
	}
	r = decodeDryRun(t, out)
	if len(r.Files) != 1 || r.Files[0].Action != "unchanged" || r.Files[0].Changed || len(r.Files[0].Added) != 0 {
		t.Errorf("dry run of an installed file:\n%s", out)
	}
	var want, got any
	if json.Unmarshal(installed, &want) != nil || json.Unmarshal(r.Files[0].Content, &got) != nil || !jsonEqual(want, got) {
		t.Errorf("content %s, want the installed file's %s", r.Files[0].Content, installed)
	}
	if r.TokenFile == nil || r.TokenFile.Action != "unchanged" {
		t.Errorf("token_file of an existing token: %+v", r.TokenFile)
	}

	// --uninstall: both files; the shared one that is not there changes
	// nothing and has no content.
	out, _, err = runCLI(t, "", "hook", "install", "--project", project, "--uninstall", "--dry-run", "--json")
	if err != nil {
		t.Fatal(err)
	}
	r = decodeDryRun(t, out)
	shared := filepath.Join(project, ".claude", "settings.json")
	if len(r.Files) != 2 || r.Files[0].File != local || r.Files[0].Action != "write" || len(r.Files[0].Removed) != 7 ||
		r.Files[1].File != shared || r.Files[1].Action != "unchanged" || r.TokenFile != nil {
		t.Errorf("uninstall dry run:\n%s", out)
	}
	if c := r.Files[1].Content; len(c) != 0 && string(c) != "null" {
		t.Errorf("a file that is not there has content %s", c)
	}
	if got := readFile(t, local); !bytes.Equal(got, installed) {
		t.Errorf("--uninstall --dry-run --json wrote:\n%s", got)
	}

	// Another runtime's file, the same way.
	out, _, err = runCLI(t, "", "hook", "install", "--runtime", "codex", "--project", project, "--command", "ledger", "--dry-run", "--json")
	if err != nil {
		t.Fatal(err)
	}
	r = decodeDryRun(t, out)
	if len(r.Files) != 1 || r.Files[0].File != filepath.Join(project, ".codex", "hooks.json") || r.Files[0].Action != "create" || len(r.Files[0].Content) == 0 {
		t.Errorf("codex dry run:\n%s", out)
	}

	// An error: one JSON line on stderr, nothing on stdout.
	if err := os.WriteFile(local, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	var msg bytes.Buffer
	out, _, err = runCLI(t, "", append(install, "--dry-run", "--json")...)
	exitCode(err, &msg)
	var je struct {
		Error struct{ Code, Message string }
	}
	if out != "" || json.Unmarshal(msg.Bytes(), &je) != nil || !strings.Contains(je.Error.Message, local) {
		t.Errorf("a refused --dry-run --json: stdout %q, stderr %q", out, msg.String())
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// TestHookInstallUninstallDryRunHeaders: --uninstall --dry-run prints each
// of the two files under a line "# PATH", so that a reader can tell them
// apart, and writes nothing.
func TestHookInstallUninstallDryRunHeaders(t *testing.T) {
	project, local := installProject(t, "settings.local.json", []byte(userSettings))
	shared := filepath.Join(project, ".claude", "settings.json")
	for _, args := range [][]string{{"--command", "ledger"}, {"--command", "ledger", "--shared"}} {
		if _, errOut, err := runCLI(t, "", append([]string{"hook", "install", "--project", project}, args...)...); err != nil {
			t.Fatalf("%v %s", err, errOut)
		}
	}
	beforeLocal, beforeShared := readFile(t, local), readFile(t, shared)
	out, errOut, err := runCLI(t, "", "hook", "install", "--project", project, "--uninstall", "--dry-run")
	if err != nil {
		t.Fatalf("%v %s", err, errOut)
	}
	localHead, sharedHead := "# "+local+"\n", "# "+shared+"\n"
	i, j := strings.Index(out, localHead), strings.Index(out, sharedHead)
	if i != 0 || j < 0 {
		t.Fatalf("no header line per file:\n%s", out)
	}
	localOut, sharedOut := out[len(localHead):j], out[j+len(sharedHead):]
	if !json.Valid([]byte(localOut)) || !json.Valid([]byte(sharedOut)) {
		t.Errorf("a file under its header is not JSON:\n%s", out)
	}
	if strings.Contains(localOut, "hook claude-code") || strings.Contains(sharedOut, "hook claude-code") {
		t.Errorf("the dry run still shows the ledger's handlers:\n%s", out)
	}
	if !strings.Contains(localOut, "notify-send done") {
		t.Errorf("the local file's own hooks are not under its header:\n%s", out)
	}
	if !bytes.Equal(readFile(t, local), beforeLocal) || !bytes.Equal(readFile(t, shared), beforeShared) {
		t.Error("--uninstall --dry-run wrote")
	}
}

// TestHookInstallMissingProject: a --project that is not a directory is
// refused, naming it and what to do, and nothing is made there: a typo
// must not create a stray project.
func TestHookInstallMissingProject(t *testing.T) {
	parent := t.TempDir()
	missing := filepath.Join(parent, "typo")
	file := filepath.Join(parent, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tokenFile := filepath.Join(parent, "token", "hooks-token")
	for _, args := range [][]string{
		{"--project", missing, "--command", "ledger"},
		{"--project", missing, "--command", "ledger", "--dry-run"},
		{"--project", missing, "--uninstall"},
		{"--project", missing, "--url", loopbackHooksURL, "--command", "ledger", "--token-file", tokenFile},
		{"--project", missing, "--runtime", "codex", "--command", "ledger"},
		{"--project", missing, "--runtime", "gemini", "--url", "http://127.0.0.1:8787", "--command", "ledger", "--token-file", tokenFile},
		{"--project", file, "--command", "ledger"},
	} {
		var msg strings.Builder
		_, _, err := runCLI(t, "", append([]string{"hook", "install"}, args...)...)
		dir := args[1]
		if code := exitCode(err, &msg); code != 2 || !strings.Contains(msg.String(), dir) || !strings.Contains(msg.String(), "fix the path") {
			t.Errorf("%q: exit %d %q, want 2 naming %s and what to fix", args, code, msg.String(), dir)
		}
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 1 {
		t.Errorf("a refused install made %v", ents)
	}
}

// TestHookInstallURLRefusals: the thin hook --url installs for
// SessionStart speaks plain HTTP, so an https URL is refused, saying what
// to use; a host that is not loopback would carry the token in plain HTTP
// across the network, so it is refused unless --allow-remote; nothing is
// written either way. localhost and loopback IPs are this machine.
func TestHookInstallURLRefusals(t *testing.T) {
	for _, tt := range []struct {
		args []string
		msg  []string
	}{
		{[]string{"--url", "https://127.0.0.1:8787" + cchook.HTTPPath}, []string{"plain HTTP", "loopback", "Unix socket", "http://127.0.0.1:PORT"}},
		{[]string{"--url", "https://ledger.example.com" + cchook.HTTPPath, "--allow-remote"}, []string{"plain HTTP"}},
		{[]string{"--url", "http://10.0.0.5:8787" + cchook.HTTPPath}, []string{"10.0.0.5", "plain HTTP", "--allow-remote", "ledger serve --nats"}},
		{[]string{"--url", "http://ledger.example.com:8787" + cchook.HTTPPath, "--no-token"}, []string{"--allow-remote"}},
		{[]string{"--url", "http://0.0.0.0:8787" + cchook.HTTPPath}, []string{"--allow-remote"}},
		{[]string{"--url", "http://u:p@127.0.0.1:8787" + cchook.HTTPPath}, []string{"--url", "no user"}},
		{[]string{"--allow-remote"}, []string{"--allow-remote", "--url"}},
		{[]string{"--runtime", "codex", "--url", "https://127.0.0.1:8787"}, []string{"plain HTTP", "Unix socket"}},
		{[]string{"--runtime", "qwen", "--url", "http://10.0.0.5:8787"}, []string{"--allow-remote"}},
		{[]string{"--runtime", "gemini", "--allow-remote"}, []string{"--allow-remote", "--url"}},
	} {
		project := t.TempDir()
		tokenDir := filepath.Join(t.TempDir(), "ledger")
		var msg strings.Builder
		_, _, err := runCLI(t, "", append([]string{"hook", "install", "--project", project, "--command", "ledger", "--token-file", filepath.Join(tokenDir, "hooks-token")}, tt.args...)...)
		if code := exitCode(err, &msg); code != 2 {
			t.Errorf("%q: exit %d %q, want 2", tt.args, code, msg.String())
		}
		for _, m := range tt.msg {
			if !strings.Contains(msg.String(), m) {
				t.Errorf("%q: %q does not say %q", tt.args, msg.String(), m)
			}
		}
		if ents, _ := os.ReadDir(project); len(ents) != 0 {
			t.Errorf("%q: a refused install wrote %v", tt.args, ents)
		}
		if _, err := os.Stat(tokenDir); err == nil {
			t.Errorf("%q: a refused install made %s", tt.args, tokenDir)
		}
	}
	// Accepted: loopback by name or IP; another host with --allow-remote,
	// which the HTTP hooks and the thin hook then post to.
	for _, u := range []string{"http://localhost:8787" + cchook.HTTPPath, "http://127.0.0.2:8787" + cchook.HTTPPath, "http://[::1]:8787" + cchook.HTTPPath} {
		if _, errOut, err := runCLI(t, "", "hook", "install", "--project", t.TempDir(), "--url", u, "--command", "ledger", "--no-token"); err != nil {
			t.Errorf("--url %s: %v %s", u, err, errOut)
		}
	}
	project, local := installProject(t, "settings.local.json", nil)
	remote := "http://10.0.0.5:8787" + cchook.HTTPPath
	if _, errOut, err := runCLI(t, "", "hook", "install", "--project", project, "--url", remote, "--allow-remote", "--command", "ledger", "--no-token"); err != nil {
		t.Fatalf("--allow-remote: %v %s", err, errOut)
	}
	own := ledgerHandlers(t, readFile(t, local))
	if len(own) != 7 || own["PreToolUse"][0]["url"] != remote || own["SessionStart"][0]["command"] != "ledger hook claude-code --hooks "+remote+" --no-token" {
		t.Errorf("--allow-remote installed %v", own)
	}
	if out, errOut, err := runCLI(t, "", "hook", "install", "--runtime", "codex", "--project", project, "--url", "http://10.0.0.5:8787", "--allow-remote", "--command", "ledger", "--no-token"); err != nil || !strings.Contains(out, "http://10.0.0.5:8787") {
		t.Errorf("--runtime codex --allow-remote: %v %s %s", err, out, errOut)
	}
}
