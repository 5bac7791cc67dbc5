package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sessionledger/ledger/internal/agenthook"
	"github.com/sessionledger/ledger/internal/cchook"
	"github.com/sessionledger/ledger/internal/cchook/hookwire"
	"github.com/sessionledger/ledger/internal/safefile"
)

// 'hook install' plans before it writes: every flag, the project, the
// URL, the token file and every settings (or hooks) file it is to change
// are checked and the files' new bytes computed first; only then is
// anything written, the token file first (the settings name it). A refusal
// therefore leaves every file as it was (TestHookInstallRefusalMakesNoToken).

// checkProjectDir refuses a --project that is not a directory: the
// install makes DIR/.claude (or .codex, ...) but never DIR itself, so that
// a mistyped path is not made into a stray project.
func checkProjectDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usageError("--project %s: no such directory; create it (mkdir -p %s) if the project is to be there, or fix the path", dir, dir)
	case err != nil:
		return &exitError{code: 1, msg: fmt.Sprintf("--project %s: %v; fix the path or its permissions and run again", dir, err)}
	case !st.IsDir():
		return usageError("--project %s is not a directory; fix the path: give the project's directory", dir)
	}
	return nil
}

// checkURL checks --url (and --allow-remote) before anything is read. The
// hooks it installs are the thin hook (Claude Code's SessionStart, or
// every event of another runtime), which speaks plain HTTP only, and
// Claude Code's HTTP hooks beside it: both carry the bearer token and
// every payload (prompts, tool inputs) in the clear, so their host must be
// this machine (loopback; for another runtime, a Unix socket too) unless
// --allow-remote says otherwise.
func (f *hookInstallFlags) checkURL(runtime string) error {
	if f.httpURL == "" {
		if f.allowRemote {
			return usageError("--allow-remote lets --url name a host other than this machine: give it with --url, or leave it out")
		}
		return nil
	}
	claudeCode := runtime == "claude-code"
	if !claudeCode && strings.HasPrefix(f.httpURL, "unix:") {
		return nil // a socket is this machine's; thinhook.Check checks its path
	}
	here := "http://127.0.0.1:PORT" + cchook.HTTPPath
	if !claudeCode {
		here = "http://127.0.0.1:PORT or unix:PATH"
	}
	u, err := url.Parse(f.httpURL)
	if err == nil && strings.EqualFold(u.Scheme, "https") {
		which := "the thin hook the install writes for SessionStart (" + cchook.SlimBinary + ", which Claude Code runs as a command hook)"
		if !claudeCode {
			which = "the thin hook the install writes (" + cchook.SlimBinary + " --runtime " + runtime + ")"
		}
		return usageError("--url %q: %s speaks plain HTTP only, to 'ledger serve --hooks' on loopback or on a Unix socket, not HTTPS: "+
			"run 'ledger serve --hooks 127.0.0.1:PORT' on this machine (with --nats URL it serves a ledger that runs elsewhere) and give %s", f.httpURL, which, here)
	}
	switch {
	case err != nil || u.Scheme != "http" || u.Host == "" || u.Opaque != "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" ||
		claudeCode && strings.TrimSuffix(u.Path, "/") != cchook.HTTPPath:
		// The path is the one cchook.Own knows the ledger's HTTP hooks
		// by: hooks posting elsewhere would not be replaced by the next
		// install nor removed by --uninstall (TestHookInstallAdversarialURLPath).
		if claudeCode {
			return usageError("--url %q: Claude Code's HTTP hooks post to http://HOST:PORT%s, with no user, query or fragment (the token goes in --token-file or --token-env)", f.httpURL, cchook.HTTPPath)
		}
		return usageError("--url %q: give the address 'ledger serve --hooks' serves, http://HOST:PORT, or its socket, unix:PATH, with no user, query or fragment (the token goes in --token-file or --token-env)", f.httpURL)
	case !claudeCode && otherRuntimePath(u.Path, runtime) != "":
		// The thin hook would post there and get that runtime's answers,
		// in a format this runtime does not read
		// (TestHookInstallRefusesOtherRuntimePath).
		other := otherRuntimePath(u.Path, runtime)
		return usageError("--url %q: %s is where 'ledger serve --hooks' takes %s's hooks, answered in %s's format, which %s does not read: give the server's address, http://HOST:PORT (the thin hook posts to /hooks/%s on it), or http://HOST:PORT/hooks/%s", f.httpURL, u.Path, other, other, runtime, runtime, runtime)
	case !isLoopback(strings.ToLower(u.Hostname())) && !f.allowRemote:
		what := "the bearer token and every payload (prompts, tool inputs)"
		if f.noToken {
			what = "every payload (prompts, tool inputs)"
		}
		return usageError("--url %q: %s is not this machine (loopback), and the hooks would send %s "+
			"to it in plain HTTP, readable by anyone on the way; run 'ledger serve --nats URL --hooks 127.0.0.1:PORT' on this machine "+
			"(a replica that reaches the ledger over NATS) and give %s, or give --allow-remote to send them over the network anyway", f.httpURL, u.Hostname(), what, here)
	}
	return nil
}

// otherRuntimePath is the runtime whose `serve --hooks` path path is
// when that is not runtime's own (nor Claude Code's, which the thin hook
// of another runtime reads as the server's address), else "".
func otherRuntimePath(path, runtime string) string {
	other, ok := hookwire.RuntimePath(path)
	if !ok || other == runtime || other == "claude-code" {
		return ""
	}
	return other
}

// tokenPlan is the token the HTTP hooks send, worked out before anything
// is written: "" with --no-token, "$NAME" with an environment variable,
// else the token of file. When there is no such file yet, make is set and
// value is a new random token (a dry run's a placeholder), which commit
// writes once every other file has been planned.
type tokenPlan struct {
	file, value string
	make        bool
}

// planToken reads (or plans) the token of --token-file, --token-env or
// --no-token; it writes nothing.
func (f *hookInstallFlags) planToken(stderr io.Writer) (*tokenPlan, error) {
	env := f.tokenEnv
	switch {
	case f.noToken:
		return &tokenPlan{}, nil
	case env == "" && f.shared:
		env = "LEDGER_HOOKS_TOKEN"
		fmt.Fprintf(stderr, "ledger: the shared settings file is committed, so the hooks send the token from Claude Code's environment: set LEDGER_HOOKS_TOKEN to the token in %s where Claude Code runs\n", f.tokenFile)
	}
	if env != "" {
		return &tokenPlan{value: "$" + env}, nil
	}
	if f.tokenFile == "" {
		return nil, usageError("no user configuration directory to keep the hooks token in: give --token-file FILE (the file 'ledger serve --hooks-token-file' reads), --token-env NAME or --no-token")
	}
	token, err := readHooksToken(f.tokenFile)
	switch {
	case err == nil:
		return &tokenPlan{file: f.tokenFile, value: token}, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, &exitError{code: 1, msg: err.Error()}
	case f.dryRun:
		return &tokenPlan{file: f.tokenFile, value: "(the token " + f.tokenFile + " will hold)", make: true}, nil
	}
	if err := checkDirWritable(filepath.Dir(f.tokenFile), "the hooks token file"); err != nil {
		return nil, err
	}
	token, err = newHooksToken()
	if err != nil {
		return nil, err
	}
	return &tokenPlan{file: f.tokenFile, value: token, make: true}, nil
}

// commit makes the token file the plan is to make, and returns the token
// it holds: another's when another process made it first (then the plan
// must be made again with it).
func (p *tokenPlan) commit(stderr io.Writer) (string, error) {
	if !p.make {
		return p.value, nil
	}
	token, err := writeHooksToken(p.file, p.value)
	if err != nil {
		return "", &exitError{code: 1, msg: fmt.Sprintf("making the hooks token file %s: %v; nothing else was written", p.file, err)}
	}
	if token == p.value {
		fmt.Fprintf(stderr, "ledger: made a new hooks token in %s; 'ledger serve --hooks' reads it from there by default\n", p.file)
	}
	p.value, p.make = token, false
	return token, nil
}

// settingsEdit is one settings file's new bytes, computed before any
// file is written (planFile), so that a file refused leaves every other
// one as it was too.
type settingsEdit struct {
	path    string
	src     []byte
	exists  bool
	out     []byte
	changed bool
	report  settingsReport
}

// action is what the install does to the file: create, write or
// unchanged (--dry-run --json's "action").
func (e settingsEdit) action() string {
	switch {
	case !e.changed:
		return "unchanged"
	case !e.exists:
		return "create"
	}
	return "write"
}

// planFile reads the settings (or hooks) file at path and computes its new
// bytes with edit; it writes nothing. A file that is to change must be one
// the install may write: a link that can be followed, with its owner's
// write permission, in a directory this user may write in (or make).
func (f *hookInstallFlags) planFile(path string, edit func(src []byte) ([]byte, cchook.Change, error)) (settingsEdit, error) {
	// A project's settings may be anyone's (a clone): a regular
	// file of bounded size, never a pipe or a device.
	src, err := safefile.ReadFile(path, maxSettingsFile)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		if _, derr := nearestDir(filepath.Dir(path), path); derr != nil {
			return settingsEdit{}, derr
		}
		return settingsEdit{}, &exitError{code: 1, msg: readRefusal(err)}
	}
	out, ch, err := edit(src)
	var ignored *cchook.IgnoredError
	switch {
	case errors.As(err, &ignored):
		// It says what to fix, and where.
		return settingsEdit{}, &exitError{code: 1, msg: fmt.Sprintf("%s: %v; nothing was written", path, err)}
	case err != nil:
		return settingsEdit{}, &exitError{code: 1, msg: fmt.Sprintf("%s: %v; fix the file (or move it away) and run again", path, err)}
	}
	changed := !bytes.Equal(out, src)
	if changed && !f.dryRun {
		target, err := settingsTarget(path)
		if err != nil {
			return settingsEdit{}, err
		}
		if err := checkWritable(target); err != nil {
			return settingsEdit{}, err
		}
		if err := checkDirWritable(filepath.Dir(target), target); err != nil {
			return settingsEdit{}, err
		}
	}
	r := settingsReport{File: path, Changed: changed, Added: ch.Added, Removed: ch.Removed}
	if r.Added == nil {
		r.Added = []string{}
	}
	if r.Removed == nil {
		r.Removed = []string{}
	}
	return settingsEdit{path: path, src: src, exists: exists, out: out, changed: changed, report: r}, nil
}

// readRefusal says why a settings file could not be read, and what to do.
func readRefusal(err error) string {
	var le *safefile.LimitError
	switch {
	case errors.As(err, &le):
		// The hook's import reads a settings file up to the same limit
		// (TestHookInstallSettingsLimit).
		return fmt.Sprintf("%v: the ledger reads a settings file up to that size (its hook's import too); make the file smaller (or move it away) and run again", err)
	case errors.Is(err, safefile.ErrNotRegular):
		return fmt.Sprintf("%v; replace it with a regular file (or move it away) and run again", err)
	}
	return fmt.Sprintf("%v; make it readable (or move it away) and run again", err)
}

// checkDirWritable refuses a directory the install could not make the
// file what in: the nearest of dir and its parents that exists must be a
// directory this user may write in (canWrite), else the write would fail
// after another file was written.
func checkDirWritable(dir, what string) error {
	d, err := nearestDir(dir, what)
	if err != nil || d == "" {
		return err
	}
	if err := canWrite(d); err != nil {
		return &exitError{code: 1, msg: fmt.Sprintf("cannot write %s in %s (%v): make the directory writable (chmod u+w %s) and run again", what, d, err, d)}
	}
	return nil
}

// nearestDir is the nearest of dir and its parents that exists ("" for
// none), refused when it is not a directory.
func nearestDir(dir, what string) (string, error) {
	for d := dir; ; {
		st, err := os.Stat(d)
		if err == nil {
			if !st.IsDir() {
				return "", &exitError{code: 1, msg: fmt.Sprintf("%s is not a directory, and %s is to be in it; move it away (or fix the path) and run again", d, what)}
			}
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", nil
		}
		d = parent
	}
}

// dryRunFile is one file of --dry-run --json: the report --json prints,
// what the install would do to the file, and the file as it would be
// written (a JSON value, null for a file that is not there and stays so).
type dryRunFile struct {
	File     string          `json:"file"`
	Action   string          `json:"action"`
	Changed  bool            `json:"changed"`
	Added    []string        `json:"added"`
	Removed  []string        `json:"removed"`
	Warnings []string        `json:"warnings,omitempty"`
	Content  json.RawMessage `json:"content"`
	// CodexMoved are the handlers of the user's the edit would move
	// (settingsReport's).
	CodexMoved []agenthook.Moved `json:"codex_moved,omitempty"`
}

// dryRunToken is the token file of --url: made by the install (create),
// or read (unchanged).
type dryRunToken struct {
	File   string `json:"file"`
	Action string `json:"action"`
}

type dryRunReport struct {
	DryRun    bool         `json:"dry_run"`
	Files     []dryRunFile `json:"files"`
	TokenFile *dryRunToken `json:"token_file,omitempty"`
}

// printDryRun prints what the install would write. With --json it is one
// object, {"dry_run": true, "files": [...], "token_file": {...}}; else the
// file as it would be written, or with more than one file (--uninstall)
// each under a line "# PATH".
func (f *hookInstallFlags) printDryRun(stdout, stderr io.Writer, edits []settingsEdit, tok *tokenPlan) error {
	if f.asJSON {
		r := dryRunReport{DryRun: true, Files: []dryRunFile{}}
		for _, e := range edits {
			r.Files = append(r.Files, dryRunFile{File: e.path, Action: e.action(), Changed: e.changed,
				Added: e.report.Added, Removed: e.report.Removed, Warnings: e.report.Warnings, Content: jsonContent(e.out), CodexMoved: e.report.CodexMoved})
		}
		if tok != nil && tok.file != "" {
			r.TokenFile = &dryRunToken{File: tok.file, Action: "unchanged"}
			if tok.make {
				r.TokenFile.Action = "create"
			}
		}
		return writeJSON(stdout, r)
	}
	if tok != nil && tok.make {
		fmt.Fprintf(stderr, "ledger: --dry-run: the install would make a new hooks token in %s\n", tok.file)
	}
	if len(edits) == 1 {
		_, err := stdout.Write(edits[0].out)
		return err
	}
	var b bytes.Buffer
	for _, e := range edits {
		note := ""
		switch {
		case !e.exists && !e.changed:
			note = " (no such file: nothing to change)"
		case !e.changed:
			note = " (unchanged)"
		}
		fmt.Fprintf(&b, "# %s%s\n", e.path, note)
		b.Write(e.out)
		if len(e.out) > 0 && e.out[len(e.out)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	_, err := stdout.Write(b.Bytes())
	return err
}

// jsonContent is a file's bytes as a JSON value: the value itself when it
// is JSON, null when there is nothing, else the text as a string.
func jsonContent(b []byte) json.RawMessage {
	switch {
	case len(bytes.TrimSpace(b)) == 0:
		return json.RawMessage("null")
	case json.Valid(b):
		return json.RawMessage(b)
	}
	s, _ := json.Marshal(string(b))
	return s
}

// checkHooksEnabled refuses to install hooks that the runtime's own
// settings switch off: Claude Code's and Qwen Code's "disableAllHooks":
// true (Claude Code's managed "allowManagedHooksOnly" too), Gemini CLI's
// "hooksConfig": {"enabled": false} or the ledger's handler name in its
// "disabled" list, in any file the runtime reads (the project's, the
// user's, Claude Code's managed one). Written beside such a switch, the
// hooks would never run and every call would go ahead unchecked while
// install said it succeeded (TestHookInstallRefusesDisabledHooks). A file
// that does not parse is left to the runtime (and to the install's own
// reading of the file it writes).
func checkHooksEnabled(runtime, project string) error {
	home, _ := os.UserHomeDir()
	var files []string
	switch runtime {
	case "claude-code":
		files = []string{filepath.Join(project, ".claude", "settings.json"), filepath.Join(project, ".claude", "settings.local.json"),
			filepath.Join(home, ".claude", "settings.json"), "/etc/claude-code/managed-settings.json"}
	case "qwen":
		files = []string{filepath.Join(project, ".qwen", "settings.json"), filepath.Join(home, ".qwen", "settings.json")}
	case "gemini":
		files = []string{filepath.Join(project, ".gemini", "settings.json"), filepath.Join(home, ".gemini", "settings.json")}
	}
	for _, path := range files {
		if home == "" && !filepath.IsAbs(path) {
			continue
		}
		src, err := safefile.ReadFile(path, maxSettingsFile)
		if err != nil {
			continue
		}
		var s struct {
			DisableAllHooks       *bool `json:"disableAllHooks"`
			AllowManagedHooksOnly *bool `json:"allowManagedHooksOnly"`
			HooksConfig           *struct {
				Enabled  *bool    `json:"enabled"`
				Disabled []string `json:"disabled"`
			} `json:"hooksConfig"`
		}
		if json.Unmarshal(bytes.TrimPrefix(src, []byte("\xef\xbb\xbf")), &s) != nil {
			continue
		}
		off := ""
		switch {
		case runtime != "gemini" && s.DisableAllHooks != nil && *s.DisableAllHooks:
			off = `"disableAllHooks": true`
		case runtime == "claude-code" && strings.HasPrefix(path, "/etc/") && s.AllowManagedHooksOnly != nil && *s.AllowManagedHooksOnly:
			off = `"allowManagedHooksOnly": true (only the managed settings' hooks run)`
		case runtime == "gemini" && s.HooksConfig != nil && s.HooksConfig.Enabled != nil && !*s.HooksConfig.Enabled:
			off = `"hooksConfig": {"enabled": false}`
		case runtime == "gemini" && s.HooksConfig != nil && slices.Contains(s.HooksConfig.Disabled, agenthook.HandlerName):
			off = `"hooksConfig": {"disabled": ["ledger"]} (the ledger's hooks are named ledger)`
		}
		if off != "" {
			return &exitError{code: 1, msg: fmt.Sprintf("%s sets %s, so %s would run none of the ledger's hooks and every call would go ahead unchecked: "+
				"remove the setting (or, for a switch, set it the other way) and run install again; nothing was written", path, off, runtimeName(runtime))}
		}
	}
	return nil
}

// runtimeName is how the install's messages name a runtime.
func runtimeName(runtime string) string {
	switch runtime {
	case "claude-code":
		return "Claude Code"
	case "qwen":
		return "Qwen Code"
	case "gemini":
		return "Gemini CLI"
	}
	return runtime
}

// passwordIn reports whether the hook's flags hold a NATS password: a
// --password flag, or a password in the user info of a --nats URL (one
// of a comma-separated list too, nats.go's form without a scheme
// included), which the settings file would keep in the clear
// (TestHookInstallRefusesPasswordInURL).
func passwordIn(hookArgs []string) bool {
	for i, a := range hookArgs {
		if a == "--password" || a == "-password" || strings.HasPrefix(a, "--password=") || strings.HasPrefix(a, "-password=") {
			return true
		}
		v, ok := "", false
		switch {
		case (a == "--nats" || a == "-nats") && i+1 < len(hookArgs):
			v, ok = hookArgs[i+1], true
		case strings.HasPrefix(a, "--nats="), strings.HasPrefix(a, "-nats="):
			_, v, _ = strings.Cut(a, "=")
			ok = true
		}
		if !ok {
			continue
		}
		for _, p := range strings.Split(v, ",") {
			p = strings.TrimSpace(p)
			if !strings.Contains(p, "://") {
				p = "nats://" + p
			}
			if u, err := url.Parse(p); err == nil && u.User != nil {
				if _, set := u.User.Password(); set {
					return true
				}
			} else if err != nil && strings.Contains(p, "@") {
				return true // unparsed, with user info: keep it out
			}
		}
	}
	return false
}
